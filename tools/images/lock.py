"""Lock the Python dependencies of every platform image for its platform, with hashes.

    python -m tools.images.lock            # (re)write images/<name>/*.lock with uv (needs PyPI)
    python -m tools.images.lock --check    # offline: every lock is in sync with its input

Each lock is ``uv pip compile --generate-hashes`` of one input file for the image's platform (linux x86_64,
glibc of Ubuntu 24.04, CPython 3.12), not for this machine. One library stack: the sft lock is constrained by the
verl-sglang lock, and the training tests' lock (``training/requirements-test.lock``, CPython 3.11 with the CPU
torch wheel, installed ``--no-deps``) by both, so every package they share has one version
(tests/test_library_stack.py). Its first line records the SHA-256 of everything the
resolution read (input, overrides, uv config, the uv arguments), so a changed input with a stale lock is caught
without network; :func:`problems` also checks that every pin of the input appears, at the same version, in the
lock, and that every locked package carries a hash (the Dockerfiles install with ``--require-hashes``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# The lock parser lives below the app (the charts read the locks too); re-exported for this command's callers.
from k8s_charts.image_locks import locked_entries, normalize, pins

__all__ = ["LOCKS", "LockSpec", "locked_entries", "normalize", "pins", "problems"]

ROOT = Path(__file__).resolve().parents[2]
IMAGES_DIR = ROOT / "images"

# Both images are Ubuntu 24.04 (glibc 2.39) with its CPython 3.12. SGLang 0.5.12 publishes manylinux_2_34 wheels
# only, so the resolver targets manylinux_2_34 (which every glibc >= 2.34 accepts).
PYTHON_VERSION = "3.12"
PYTHON_PLATFORM = "x86_64-manylinux_2_34"
HEADER = "# input-sha256: "


@dataclass(frozen=True)
class LockSpec:
    """One lock file of one image (or of the training tests) and what it is compiled from."""

    image: str
    input: str  # file name in images/<image>/ (or in ``directory``)
    lock: str
    overrides: str | None = None  # uv --overrides file (replaces a dependency's declared requirement)
    config: str | None = None  # uv.toml (dependency metadata for sdists that need torch to build metadata)
    no_deps: bool = False  # lock only the listed packages (their dependencies are in another lock)
    constraints: tuple[str, ...] = ()  # uv --constraints files, relative to the folder (other locks included)
    excludes: str | None = None  # uv --excludes file: packages left out of the resolution (installed --no-deps)
    directory: str | None = None  # folder relative to the repository root, when not images/<image>
    python_version: str = PYTHON_VERSION
    python_platform: str = PYTHON_PLATFORM
    hashes: bool = True

    @property
    def folder(self) -> Path:
        return ROOT / self.directory if self.directory else IMAGES_DIR / self.image

    @property
    def where(self) -> str:
        return f"{self.directory or 'images/' + self.image}/{self.lock}"

    def files(self) -> list[Path]:
        return [
            self.folder / name
            for name in (self.input, self.overrides, self.config, *self.constraints, self.excludes)
            if name
        ]

    def uv_args(self) -> list[str]:
        args = [
            self.input,
            "--python-version",
            self.python_version,
            "--python-platform",
            self.python_platform,
            *(["--generate-hashes"] if self.hashes else []),
            "--no-header",
            "--no-annotate",
        ]
        if self.overrides:
            args += ["--overrides", self.overrides]
        if self.config:
            args += ["--config-file", self.config]
        for constraint in self.constraints:
            args += ["--constraints", constraint]
        if self.excludes:
            args += ["--excludes", self.excludes]
        if self.no_deps:
            args.append("--no-deps")
        return args


# The training tests' interpreter: Debian 12's CPython 3.11, for which the CPU build of the images' torch exists
# (torch-2.13.0+cpu-cp311 on the build machines, tagged manylinux_2_28). The resolver targets manylinux_2_34, as the
# images do: sglang 0.5.21 (its argument parser, llm_platform.engine_args) publishes manylinux_2_34 wheels only, and
# Debian 12's glibc 2.36 runs both.
TEST_PYTHON_VERSION = "3.11"
TEST_PYTHON_PLATFORM = "x86_64-manylinux_2_34"

# Compiled in this order (a lock is compiled after the locks it is constrained by); the Dockerfiles install build
# backends, the environment, then what builds against it.
LOCKS: tuple[LockSpec, ...] = (
    LockSpec(
        "verl-sglang",
        "requirements.in",
        "requirements.lock",
        overrides="overrides.txt",
        config="uv.toml",
        constraints=("constraints.txt",),
    ),
    LockSpec("verl-sglang", "build.in", "build.lock", no_deps=True),
    LockSpec("verl-sglang", "flash-attn.in", "flash-attn.lock", config="uv.toml", no_deps=True),
    LockSpec("sft", "requirements.in", "requirements.lock", constraints=("../verl-sglang/requirements.lock",)),
    LockSpec("sft", "build.in", "build.lock", no_deps=True),
    # The training tests' virtualenv: the images' versions of everything it shares with them, without hashes (the
    # CPU torch wheel is not PyPI's) and without what the tests never import (requirements-test.exclude).
    LockSpec(
        "training-tests",
        "requirements-test.in",
        "requirements-test.lock",
        directory="training",
        overrides="../images/verl-sglang/overrides.txt",  # sglang's transformers pin, as in the image
        constraints=("../images/verl-sglang/requirements.lock", "../images/sft/requirements.lock"),
        excludes="requirements-test.exclude",
        python_version=TEST_PYTHON_VERSION,
        python_platform=TEST_PYTHON_PLATFORM,
        hashes=False,
    ),
)
IMAGE_LOCKS: tuple[LockSpec, ...] = tuple(spec for spec in LOCKS if spec.directory is None)
TEST_LOCK: LockSpec = next(spec for spec in LOCKS if spec.directory == "training")
MAIN_LOCK = "requirements.lock"


def input_digest(spec: LockSpec) -> str:
    """SHA-256 over the resolver's inputs: each file's name and bytes, and the uv arguments."""
    digest = hashlib.sha256()
    for path in spec.files():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(" ".join(spec.uv_args()).encode())
    return digest.hexdigest()


def problems(spec: LockSpec) -> list[str]:
    """Why the lock of ``spec`` is not in sync with its input (empty when it is)."""
    lock_path = spec.folder / spec.lock
    where = spec.where
    if not lock_path.exists():
        return [f"{where} is missing: run `make images-lock`"]
    text = lock_path.read_text()
    first = text.splitlines()[0] if text else ""
    out = []
    if first != HEADER + input_digest(spec):
        out.append(
            f"{where} was not compiled from the current {where.rsplit('/', 1)[0]}/{spec.input} (or its "
            f"overrides/constraints/uv config): run `make images-lock`"
        )
    locked = locked_entries(text)
    for name, version in pins(spec.folder.joinpath(spec.input).read_text()).items():
        if locked.get(name, (None,))[0] != version:
            out.append(f"{where}: {name}=={version} of {spec.input} is locked as {locked.get(name, ('nothing',))[0]}")
    if spec.overrides:
        for name, version in pins(spec.folder.joinpath(spec.overrides).read_text()).items():
            if locked.get(name, (None,))[0] != version:
                out.append(f"{where}: override {name}=={version} is not what the lock holds")
    main = spec.folder / MAIN_LOCK
    if spec.no_deps and spec.lock != MAIN_LOCK and main.exists():
        environment = locked_entries(main.read_text())
        out += [
            f"{where}: {name}=={version} differs from images/{spec.image}/{MAIN_LOCK} ({environment[name][0]})"
            for name, (version, _) in locked.items()
            if name in environment and environment[name][0] != version
        ]
    if spec.hashes:
        out += [f"{where}: {name}=={version} has no --hash" for name, (version, n) in locked.items() if n == 0]
    if not locked:
        out.append(f"{where} locks nothing")
    return out


def _uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not found:
        raise SystemExit("uv is not installed: `.venv/bin/pip install -r requirements-dev.txt`")
    return found


def compile_lock(spec: LockSpec) -> Path:
    """Run uv for ``spec`` (network to PyPI) and write the lock with its input digest as first line."""
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_CACHE": "0"}
    proc = subprocess.run(
        [_uv(), "pip", "compile", *spec.uv_args()],
        cwd=spec.folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        raise SystemExit(f"uv pip compile failed for {spec.where.rsplit('/', 1)[0]}/{spec.input}:\n{proc.stderr}")
    path = spec.folder / spec.lock
    path.write_text(
        f"{HEADER}{input_digest(spec)}\n# generated by `make images-lock` (tools/images/lock.py) for "
        f"CPython {spec.python_version} on {spec.python_platform}; do not edit\n{proc.stdout}"
    )
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.images.lock", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that every lock is in sync (offline)")
    args = parser.parse_args(argv)
    if args.check:
        found = [p for spec in LOCKS for p in problems(spec)]
        print("\n".join(found) or "every image lock is in sync with its input")
        return 1 if found else 0
    for spec in LOCKS:
        print(compile_lock(spec).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
