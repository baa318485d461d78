"""Every row of a local data-preparation source checked before anything is written, as the SFT data is.

:func:`source_problems` reads a ``.jsonl``/``.json``/``.csv``/``.parquet`` source row by row and names every
problem it finds (up to :data:`MAX_LISTED`, then a count), each as ``file:line`` (``file:row N`` for parquet) with
what is wrong and the fix: a row that is not UTF-8, not JSON or not an object, a missing or empty column the format
reads (:data:`llm_platform.prepare_data.FORMAT_COLUMNS`), a GSM8K answer without its ``#### <number>``, and a row
longer than ``max_row_bytes`` (read with a bounded ``readline``, so a 2 GiB line costs no more memory than the cap).
A missing source file is refused wherever its path can be checked (:func:`checkable`).
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from llm_platform.paths import LOCAL_FSX_ENV, TEAM_MOUNT_PATH

MAX_ROW_BYTES = 16 << 20
"""The default cap on one source row (``max_row_bytes``): far above any conversation a model trains on."""
MAX_LISTED = 20
GSM8K_ANSWER = re.compile(r"#### (\-?[0-9\.\,]+)")  # what prepare_data.gsm8k_ground_truth extracts


def checkable(path: str | Path) -> bool:
    """Whether a missing ``path`` is a fact here: always, except a path on the team's mount (/fsx) on a machine that
    has no /fsx and is not a local run (``llmft run --local`` maps /fsx to a directory: ``$LLMFT_LOCAL_FSX``)."""
    text = str(path)
    on_mount = text == TEAM_MOUNT_PATH or text.startswith(TEAM_MOUNT_PATH + "/")
    return not on_mount or bool(os.environ.get(LOCAL_FSX_ENV)) or Path(TEAM_MOUNT_PATH).is_dir()


def row_problems(row: Any, fmt: str, columns: tuple[str, ...]) -> list[str]:
    """What is wrong with one parsed row of format ``fmt`` (empty when nothing)."""
    if not isinstance(row, dict):
        return [f"a row must be a JSON object with {', '.join(columns)}, got {type(row).__name__}"]
    missing = [c for c in columns if c not in row or row[c] is None]
    if missing:
        have = ", ".join(sorted(map(str, row))) or "nothing"
        return [f"missing column(s) {', '.join(missing)} (format {fmt} reads {', '.join(columns)}; the row has {have})"]
    out = []
    for c in columns:
        if not isinstance(row[c], str):
            out.append(f"column {c} must be text, got {type(row[c]).__name__}")
        elif not row[c].strip():
            out.append(f"column {c} is empty")
    if not out and fmt == "verl-gsm8k" and not GSM8K_ANSWER.search(row["answer"]):
        out.append(f"column answer has no '#### <number>' (GSM8K's final answer): {row['answer'][-60:]!r}")
    return out


def _too_long(size: int, cap: int) -> str:
    return (
        f"the row is longer than max_row_bytes={cap} ({size}+ bytes): shorten or split it, or raise "
        f"max_row_bytes if rows this long are meant"
    )


def _jsonl_rows(path: Path, cap: int) -> Iterator[tuple[int, Any, str | None]]:
    """(line, row, problem) of every non-blank line, each read with a bounded ``readline``."""
    with path.open("rb") as fh:
        number = 0
        while True:
            line = fh.readline(cap + 1)
            if not line:
                return
            number += 1
            if len(line) > cap and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the long line, a chunk at a time
                    line = fh.readline(cap + 1)
                yield number, None, _too_long(cap, cap)
                continue
            yield (number, *_parse_line(line))


def _parse_line(line: bytes) -> tuple[Any, str | None]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text ({exc.reason} at byte {exc.start} of the line): re-encode the file as UTF-8"
    if not text.strip():
        return _BLANK, None
    try:
        return json.loads(text.rstrip("\r\n")), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg}; column {exc.colno}): fix or remove the line"
    except RecursionError:
        return None, "not JSON this step can read (nested too deeply): fix or remove the line"


_BLANK = object()


def _csv_rows(path: Path, cap: int) -> Iterator[tuple[int, Any, str | None]]:
    """(line, row, problem) of every CSV record; an encoding error ends the file (csv reads text)."""
    csv.field_size_limit(cap)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        try:
            for row in reader:
                extra = row.pop(None, None)  # values beyond the header
                yield reader.line_num, row, ("more values than the header has columns" if extra else None)
        except UnicodeDecodeError as exc:
            yield reader.line_num + 1, None, f"not UTF-8 text ({exc.reason}): re-encode the file as UTF-8"
        except csv.Error as exc:
            problem = _too_long(cap, cap) if "field larger" in str(exc) else f"not valid CSV ({exc})"
            yield reader.line_num, None, problem


def _json_rows(path: Path, cap: int) -> Iterator[tuple[int, Any, str | None]]:
    """A ``.json`` source: a JSON array of rows (one problem for the file when it is not one), or JSON Lines."""
    with path.open("rb") as fh:
        head = fh.read(64).lstrip()
    if not head.startswith(b"["):
        yield from _jsonl_rows(path, cap)
        return
    if path.stat().st_size > cap * 64:
        yield (
            1,
            None,
            f"a JSON array this large is not checked row by row: write the rows as .jsonl ({path.stem}.jsonl)",
        )
        return
    try:
        rows = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        yield 1, None, f"not a readable JSON array ({exc}): fix it or write the rows as .jsonl"
        return
    for index, row in enumerate(rows if isinstance(rows, list) else [rows]):
        yield index + 1, row, None


def _parquet_rows(path: Path, cap: int, columns: tuple[str, ...]) -> Iterator[tuple[int, Any, str | None]]:
    import pyarrow.parquet as pq

    try:
        file = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - any reason pyarrow cannot open it is the problem to report
        yield 0, None, f"not a readable parquet file ({exc})"
        return
    have = set(file.schema_arrow.names)
    present = [c for c in columns if c in have]
    number = 0
    for batch in file.iter_batches(columns=present, batch_size=1024):
        for row in batch.to_pylist():
            number += 1
            too_long = any(isinstance(v, str) and len(v.encode("utf-8", "replace")) > cap for v in row.values())
            yield number, row, (_too_long(cap, cap) if too_long else None)


def source_rows(path: Path, cap: int, columns: tuple[str, ...]) -> Iterator[tuple[int, Any, str | None]]:
    if path.suffix == ".parquet":
        return _parquet_rows(path, cap, columns)
    if path.suffix == ".csv":
        return _csv_rows(path, cap)
    if path.suffix == ".json":
        return _json_rows(path, cap)
    return _jsonl_rows(path, cap)


def source_problems(
    source: str, fmt: str, columns: tuple[str, ...], *, max_row_bytes: int = MAX_ROW_BYTES
) -> list[str]:
    """Every problem of the local file ``source`` read as ``fmt`` (up to :data:`MAX_LISTED` named, then how many
    more), each ``file:line: what (the fix)``; an empty list when every row can be prepared."""
    path = Path(source)
    if not path.is_file():
        if path.exists():
            return [f"source {source}: not a file"]
        return [f"source {source}: no such file (fix the path, or copy the file there before the job runs)"]
    found, rows = [], 0
    where = "row" if path.suffix == ".parquet" else "line" if path.suffix != ".json" else "item"
    for number, row, problem in source_rows(path, max_row_bytes, columns):
        if row is _BLANK:
            continue
        rows += problem is None
        for text in [problem] if problem else row_problems(row, fmt, columns):
            found.append(
                f"{path.name}:{number}: {text}" if where == "line" else f"{path.name} {where} {number}: {text}"
            )
    if not found and rows == 0:
        found.append(f"{path.name}: no rows: nothing to prepare")
    if len(found) > MAX_LISTED:
        found = found[:MAX_LISTED] + [f"... and {len(found) - MAX_LISTED} more problems in {path.name}"]
    return found
