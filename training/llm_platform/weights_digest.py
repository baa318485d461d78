"""The content digest of a model directory: what evaluation judged is what production loads (issue 40).

The served weights are a directory on the team's FSx tree, which the team can write: whatever lands there after
evaluation would be what production loads at the next scale-out. So the evaluator records the digest of the
directory it judged (the model version's tag ``llmft.evaluation.digest``, written only by the platform's evaluator:
mlflow_image/registry_gate.py), and the serving pod checks it before the engine loads
(``python3 -m llm_platform.weights_digest --verify DIR --digest D -- <engine command>``, then ``exec`` of the
engine; ``llm_platform.serve --weights-digest`` locally).

The digest: ``sha256:`` + SHA-256 of a manifest with one line per regular file, sorted by its path relative to the
directory (``<sha256 of the content> <size> <path>``). Every file counts, so a file added after evaluation (a
``modeling_*.py`` for remote code, an adapter, a tokenizer) changes it too. A symbolic link or any other non-regular
entry is refused: a link could point the served directory at other weights. Files are hashed on a few threads
(``hashlib`` releases the GIL on large buffers); a 140 GB model on FSx takes minutes, well within the serving pod's
30-minute startup probe.

Standard library only: the images and llmft import it without the training dependencies.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PREFIX = "sha256:"
CHUNK = 8 * 1024 * 1024
THREADS = 8
DIGEST_TAG = "llmft.evaluation.digest"
"""The model version tag holding the digest of the evaluated weights (one of the gate's tags)."""


class WeightsChanged(RuntimeError):
    """The directory's content is not the one that was evaluated (or cannot be hashed); the message says why."""


def _files(directory: Path) -> list[tuple[str, Path]]:
    out = []
    for root, dirs, names in os.walk(directory):
        dirs.sort()
        for name in [*names, *[d for d in dirs if (Path(root) / d).is_symlink()]]:
            path = Path(root) / name
            mode = path.lstat().st_mode
            relative = path.relative_to(directory).as_posix()
            if not stat.S_ISREG(mode):
                raise WeightsChanged(
                    f"{relative} in {directory} is not a regular file (a link or device): a model directory "
                    f"holds only files"
                )
            out.append((relative, path))
    return sorted(out)


def _file_line(item: tuple[str, Path]) -> str:
    relative, path = item
    h, size = hashlib.sha256(), 0
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
            size += len(chunk)
    return f"{h.hexdigest()} {size} {relative}\n"


def digest(directory: str | Path) -> str:
    """``sha256:<hex>`` of every regular file under ``directory`` (module docstring)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise WeightsChanged(f"{directory} is not a directory")
    files = _files(directory)
    if not files:
        raise WeightsChanged(f"{directory} is empty")
    with ThreadPoolExecutor(THREADS) as pool:
        manifest = "".join(pool.map(_file_line, files))
    return PREFIX + hashlib.sha256(manifest.encode()).hexdigest()


def verify(directory: str | Path, expected: str) -> None:
    """Raise :class:`WeightsChanged` unless ``directory``'s digest is ``expected``."""
    if not (isinstance(expected, str) and expected.startswith(PREFIX) and len(expected) == len(PREFIX) + 64):
        raise WeightsChanged(f"{expected!r} is not a weights digest ({PREFIX}<64 hex digits>)")
    actual = digest(directory)
    if actual != expected:
        raise WeightsChanged(
            f"the weights in {directory} are not the ones that were evaluated (digest {actual}, evaluated "
            f"{expected}): something changed them after evaluation. Nothing was served; register the new weights "
            f"as a new version and have it evaluated"
        )


def main(argv: list[str] | None = None) -> int:
    """``--verify DIR --digest D [-- COMMAND...]``: check, then ``exec`` COMMAND (the engine); ``DIR`` alone prints
    its digest. Exit 1 with the reason when the weights changed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    head, command = argv[:split], argv[split + 1 :]
    head = [part for a in head for part in (a.split("=", 1) if a.startswith(("--verify=", "--digest=")) else [a])]
    if len(head) == 1:
        print(digest(head[0]))
        return 0
    if len(head) != 4 or head[0] != "--verify" or head[2] != "--digest":
        print(
            "usage: python -m llm_platform.weights_digest --verify DIR --digest D [-- COMMAND...] | DIR",
            file=sys.stderr,
        )
        return 2
    try:
        verify(head[1], head[3])
    except (WeightsChanged, OSError) as exc:
        print(f"llm_platform.weights_digest: {exc}", file=sys.stderr)
        return 1
    print(f"llm_platform.weights_digest: {head[1]} is the evaluated {head[3]}", file=sys.stderr, flush=True)
    if command:
        os.execvp(command[0], command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
