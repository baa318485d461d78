"""The virtualenv these tests run in is exactly training/requirements-test.lock (the images' versions: the main
suite's tests/test_library_stack.py compares the locks), so a stale .train-venv cannot pass on another stack."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

LOCK = Path(__file__).resolve().parents[1] / "requirements-test.lock"


def locked() -> dict[str, str]:
    pins = (re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line) for line in LOCK.read_text().splitlines())
    return {re.sub(r"[-_.]+", "-", m.group(1)).lower(): m.group(2) for m in pins if m}


def test_every_locked_package_is_installed_at_its_version() -> None:
    wrong = {}
    for name, version in locked().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        # torch==2.13.0 is satisfied by the CPU build, 2.13.0+cpu (a local version of the same release)
        if installed is None or installed.split("+")[0] != version:
            wrong[name] = (version, installed)
    assert not wrong, f"re-create .train-venv from requirements-test.lock (`make test`): {wrong}"


def test_torch_is_the_locked_release() -> None:
    import torch

    assert torch.__version__.split("+")[0] == locked()["torch"]
