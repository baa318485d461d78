"""Checks before the expensive part of a fine-tuning job: the data before the model loads, the disk before training.

:func:`check_sft_data` reads the JSONL that ``llmp-prepare-data`` writes (one object per line with ``text``, the
whole conversation, and ``prompt``, the conversation up to the assistant's turn; ``messages`` and ``reference``
are not needed to train) and refuses, naming the file and line: a line that is not JSON or not an object, a row
without ``text``/``prompt`` (the missing columns named) or with non-string ones, an empty file, and data of which
no row keeps an answer token after truncation to ``max_seq_length`` (the training set would be empty:
``num_samples=0``). ``llmp-sft --check`` runs it (token lengths only where the tokenizer is reachable), and so does
the job before it loads the model.

:func:`check_checkpoint_space` compares the free space of ``output_dir`` (and of the merged model's directory)
with what one checkpoint (trainable weights + AdamW's two moments) and the merged model need, before the first
step, and names both numbers.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REQUIRED_COLUMNS = ("text", "prompt")
MAX_ROW_BYTES = 4 * (16 << 20)
"""The longest JSONL row taken (bytes): llmp-prepare-data writes each source row (at most its max_row_bytes,
16 MiB by default, llm_platform.source_check) about four times over (messages, text, prompt, reference)."""
SPACE_MARGIN = 1.10
"""Free space wanted beyond the estimate (metadata, tokenizer files, trainer state, RNG states)."""


class DataError(ValueError):
    """The dataset cannot train the model; the message names the file, line and what is wrong."""


@dataclass(frozen=True)
class DataSummary:
    path: Path
    rows: int
    usable: int | None  # rows that keep an answer token after truncation; None when not tokenized

    def describe(self) -> str:
        usable = "" if self.usable is None else f", {self.usable} keep an answer within max_seq_length"
        return f"{self.path}: {self.rows} rows{usable}"


def dataset_file(path: str | Path, name: str) -> Path:
    """The JSONL a dataset path names (a file, or a directory holding ``<name>.jsonl``), as sft_data.read_jsonl."""
    p = Path(path)
    return p / f"{name}.jsonl" if p.is_dir() else p


def read_rows(path: Path, *, max_row_bytes: int = MAX_ROW_BYTES) -> list[tuple[int, dict[str, Any]]]:
    """(line number, row) of every non-blank line; :class:`DataError` at the first bad one. Each line is read with a
    bounded ``readline``: a row longer than ``max_row_bytes`` is refused by its line without being held whole."""
    if not path.is_file():
        raise DataError(f"{path}: no such file (prepare it with llmp-prepare-data, or fix the dataset path)")
    rows = []
    with path.open("rb") as fh:
        for number, raw in enumerate(iter(lambda: fh.readline(max_row_bytes + 1), b""), start=1):
            if len(raw) > max_row_bytes:
                raise DataError(
                    f"{path}:{number}: the row is longer than {max_row_bytes} bytes (training keeps only its first "
                    f"max_seq_length tokens): shorten or split it, or drop it with llmp-prepare-data's max_row_bytes"
                )
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"{path}:{number}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            if line.strip():
                rows.append((number, parse_row(path, number, line)))
    if not rows:
        raise DataError(f"{path}: no rows (the file is empty): nothing to train on")
    return rows


def parse_row(path: Path, number: int, line: str) -> dict[str, Any]:
    """One JSONL row of the SFT data; :class:`DataError` naming ``path:number`` when it cannot train."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise DataError(f"{path}:{number}: not valid JSON (nested too deeply)") from None
    if not isinstance(row, dict):
        raise DataError(f"{path}:{number}: a row must be a JSON object, got {type(row).__name__}")
    missing = [c for c in REQUIRED_COLUMNS if c not in row]
    if missing:
        raise DataError(
            f"{path}:{number}: missing column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(c) for c in missing)} (rows need {', '.join(REQUIRED_COLUMNS)}"
            f"; llmp-prepare-data's sft-r1 format writes them); the row has: "
            f"{', '.join(sorted(map(str, row))) or 'nothing'}"
        )
    wrong = [c for c in REQUIRED_COLUMNS if not isinstance(row[c], str)]
    if wrong:
        raise DataError(f"{path}:{number}: column {wrong[0]!r} must be a string, got {type(row[wrong[0]]).__name__}")
    if not row["text"].strip():
        raise DataError(f"{path}:{number}: column 'text' is empty")
    return row


def usable_rows(rows: list[dict[str, Any]], tokenizer, max_seq_length: int) -> int:
    """How many rows keep at least one answer token after truncation to ``max_seq_length`` (what sft_data.tokenize
    keeps): the prompt must be shorter than the limit (tokens) and the text must go on after the prompt. Only the
    prompts are tokenized: the text is the prompt plus the answer (prepare_data.sft_row)."""
    usable = 0
    batch = 512
    for start in range(0, len(rows), batch):
        chunk = [r for r in rows[start : start + batch] if len(r["text"].rstrip()) > len(r["prompt"].rstrip())]
        if chunk:
            prompts = tokenizer([r["prompt"] for r in chunk], add_special_tokens=False)["input_ids"]
            usable += sum(1 for p in prompts if len(p) < max_seq_length)
    return usable


def check_file(path: str | Path, name: str, *, tokenizer=None, max_seq_length: int | None = None) -> DataSummary:
    p = dataset_file(path, name)
    numbered = read_rows(p)
    usable = None
    if tokenizer is not None and max_seq_length:
        usable = usable_rows([row for _, row in numbered], tokenizer, max_seq_length)
        if usable == 0:
            raise DataError(
                f"{p}: none of its {len(numbered)} rows keeps an answer token within max_seq_length="
                f"{max_seq_length} (every prompt is at least that long): nothing to train on; raise "
                f"max_seq_length or shorten the prompts"
            )
    return DataSummary(p, len(numbered), usable)


def load_tokenizer(model_id: str):
    """The model's tokenizer, or None where it cannot be loaded here (``--check`` on a laptop, no network)."""
    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(model_id)
    except Exception:  # noqa: BLE001 - any reason to have no tokenizer means: lengths are not checked here
        return None


def check_sft_data(script, *, tokenizer=None, need_tokenizer: bool = True) -> list[DataSummary]:
    """Check the train (and test) JSONL of an sft job (:class:`llm_platform.sft.ScriptArguments`); raise
    :class:`DataError`. Loads the tokenizer (not the model) to check lengths unless given one.

    ``need_tokenizer`` false is ``--check`` on a machine that may not see the job's file system (a laptop, CI): a
    dataset or tokenizer that is not there is said on stderr and not checked; one that is there is checked."""
    import sys

    files = [(script.train_dataset_path, "train")]
    if script.test_dataset_path:
        files.append((script.test_dataset_path, "test"))
    if not need_tokenizer:
        from llm_platform.source_check import checkable

        absent = [str(dataset_file(path, name)) for path, name in files if not dataset_file(path, name).exists()]
        missing = [path for path in absent if checkable(path)]  # here, or under llmft run --local: a fact
        if missing:
            raise DataError(
                "; ".join(
                    f"{p}: no such file (prepare it with llmp-prepare-data, or fix the dataset path)" for p in missing
                )
            )
        for path in absent:
            print(
                f"llmp-sft: {path} is not reachable from here; its rows are checked when the job starts",
                file=sys.stderr,
            )
        files = [(path, name) for path, name in files if str(dataset_file(path, name)) not in absent]
        if not files:
            return []
    if os.environ.get("RANK", "0") != "0":  # torchrun: every rank parses, rank 0 alone tokenizes
        return [check_file(path, name) for path, name in files]
    if tokenizer is None:
        tokenizer = load_tokenizer(script.model_id)
        if tokenizer is None and need_tokenizer:
            raise DataError(f"cannot load the tokenizer of {script.model_id!r} to check the data's lengths")
    return [check_file(path, name, tokenizer=tokenizer, max_seq_length=script.max_seq_length) for path, name in files]


# ---- disk --------------------------------------------------------------------------------------------------------
def _existing_parent(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def checkpoint_bytes(model) -> int:
    """One Trainer checkpoint of a PEFT model: the trainable weights in their dtype plus AdamW's two fp32 moments
    (optimizer.pt), plus what the scheduler, RNG and trainer state take (small, in :data:`SPACE_MARGIN`)."""
    total = 0
    for p in model.parameters():
        if p.requires_grad:
            total += p.numel() * (p.element_size() + 8)
    return total


def merged_model_bytes(model, bf16: bool) -> int:
    """The merged model saved at the end: every base weight in the training dtype."""
    n = sum(p.numel() for p in model.parameters() if not p.requires_grad)
    return n * (2 if bf16 else 4)


def check_checkpoint_space(
    output_dir: str | Path,
    model,
    *,
    merged_dir: str | Path | None = None,
    bf16: bool = False,
    checkpoints: int = 1,
) -> dict[str, int]:
    """Refuse (:class:`DataError`, an OSError's cousin the job reports cleanly) to start training when the file
    system of ``output_dir`` lacks room for the ``checkpoints`` checkpoints still to be written while the run keeps
    its others (:func:`checkpoints_to_write`), or (same file system or not) for the merged model."""
    need: dict[Path, int] = {}
    ckpt = int(checkpoint_bytes(model) * SPACE_MARGIN)
    root = _existing_parent(Path(output_dir))
    need[root] = ckpt * checkpoints
    merged = 0
    if merged_dir is not None:
        merged = int(merged_model_bytes(model, bf16) * SPACE_MARGIN)
        mroot = _existing_parent(Path(merged_dir))
        same = os.stat(mroot).st_dev == os.stat(root).st_dev
        need[root if same else mroot] = need.get(root if same else mroot, 0) + merged
    for where, bytes_needed in need.items():
        free = shutil.disk_usage(where).free
        if free < bytes_needed:
            kept = (
                f"{checkpoints} checkpoints of {ckpt / 2**20:.0f} MiB (save_total_limit + the one being written)"
                if checkpoints > 1
                else f"a checkpoint needs {ckpt / 2**20:.0f} MiB"
            )
            merged_part = f" and the merged model {merged / 2**20:.0f} MiB" if merged else ""
            raise DataError(
                f"{where}: {free / 2**20:.0f} MiB free, {kept}{merged_part} ({bytes_needed / 2**20:.0f} MiB here): "
                f"free space, lower save_total_limit or point output_dir elsewhere"
            )
    return {"checkpoint_bytes": ckpt, "merged_bytes": merged, "checkpoints": checkpoints}


def checkpoints_to_write(output_dir: str | Path, *, save_total_limit: int | None, planned: int | None) -> int:
    """How many more checkpoints the run holds at its peak beyond those already in ``output_dir``: transformers
    writes a new ``checkpoint-N`` and only then deletes the oldest beyond ``save_total_limit``
    (``Trainer._save_checkpoint`` then ``_rotate_checkpoints``), so the peak is the limit + 1 (every save when there
    is no limit), and never more than the ``planned`` saves of the run. At least one."""
    peak = save_total_limit + 1 if save_total_limit else planned
    if planned is not None and peak is not None:
        peak = min(peak, planned)
    root = Path(output_dir)
    existing = len([p for p in root.glob("checkpoint-*") if p.is_dir()]) if root.is_dir() else 0
    return max(1, (peak or 1) - existing)


WRITE_FAILURES = ("basic_ios", "file write failed", "No space left", "Disk quota exceeded")
"""How a full disk shows in torch.save / safetensors (C++ stream errors) when no errno comes with it."""


def write_failure(exc: BaseException, output_dir: str | Path, checkpoint_bytes_needed: int) -> DataError | None:
    """A :class:`DataError` naming the path and its free space when ``exc`` is a failed write to a full file system
    (ENOSPC/EDQUOT anywhere in its chain, a C++ stream error of :data:`WRITE_FAILURES`, or less free space than a
    checkpoint needs), else None."""
    import errno

    chain, seen = [], exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    full = any(getattr(e, "errno", None) in (errno.ENOSPC, errno.EDQUOT) for e in chain)
    full = full or any(words in str(e) for e in chain for words in WRITE_FAILURES)
    root = _existing_parent(Path(output_dir))
    free = shutil.disk_usage(root).free
    if not (full or free < checkpoint_bytes_needed):
        return None
    return DataError(
        f"writing to {output_dir} failed ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}): {root} has "
        f"{free / 2**20:.0f} MiB free, a checkpoint needs {checkpoint_bytes_needed / 2**20:.0f} MiB: free space, lower "
        f"save_total_limit or point output_dir elsewhere; the job resumes from its last complete checkpoint"
    )
