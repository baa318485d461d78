"""The HyperPod on-create script, run in a sandbox: system commands are stubs that record what they were asked."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import ROOT

SCRIPT = ROOT / "lifecycle_scripts" / "on_create.sh"

STUBS = {
    # mountpoint -q DIR: the state volume is mounted unless the test says otherwise
    "mountpoint": 'exit "${VOLUME_MOUNTED_RC:-0}"\n',
    "systemctl": 'echo "systemctl $*" >> "$CALLS"\nexit 0\n',
    # findmnt ... --target DIR ...: print DIR if our fake mount table has it
    "findmnt": 'for a; do t="$a"; done\nfor a; do [ "$prev" = "--target" ] && t="$a"; prev="$a"; done\n'
               'grep -qx "$t" "$MOUNTS" 2>/dev/null && echo "$t"\nexit 0\n',
    "mount": 'echo "mount $*" >> "$CALLS"\nfor a; do last="$a"; done\necho "$last" >> "$MOUNTS"\n',
}


@pytest.fixture
def sandbox(tmp_path: Path) -> dict[str, object]:
    if shutil.which("bash") is None:  # pragma: no cover
        pytest.skip("bash is not available")
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name, body in STUBS.items():
        stub = stubs / name
        stub.write_text("#!/usr/bin/env bash\n" + body)
        stub.chmod(0o755)
    root = tmp_path / "node"
    state_dirs = [root / "var/lib/containerd", root / "var/lib/kubelet"]
    state_dirs[0].mkdir(parents=True)
    (state_dirs[0] / "image.layer").write_text("layer")
    env = {
        **os.environ,
        "PATH": f"{stubs}:{os.environ['PATH']}",
        "STATE_VOLUME": str(root / "opt/sagemaker"),
        "STATE_DIRS": " ".join(map(str, state_dirs)),
        "LOG_DIR": str(root / "var/log/provision"),
        "FSTAB": str(root / "etc/fstab"),
        "CALLS": str(tmp_path / "calls"),
        "MOUNTS": str(tmp_path / "mounts"),
    }
    (root / "etc").mkdir(parents=True)
    (root / "etc/fstab").write_text("")
    return {"env": env, "root": root, "dirs": state_dirs, "calls": tmp_path / "calls"}


def run(sandbox: dict[str, object], **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**sandbox["env"], **extra}  # type: ignore[dict-item]
    proc = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def calls(sandbox: dict[str, object]) -> list[str]:
    path = sandbox["calls"]
    return path.read_text().splitlines() if path.exists() else []  # type: ignore[union-attr]


def test_state_moves_to_the_secondary_volume_with_services_stopped(sandbox: dict[str, object]) -> None:
    run(sandbox)
    root, dirs = sandbox["root"], sandbox["dirs"]
    volume = Path(sandbox["env"]["STATE_VOLUME"])  # type: ignore[index]
    fstab = (root / "etc/fstab").read_text().splitlines()  # type: ignore[operator]
    assert fstab == [f"{volume}{d} {d} none bind,nofail 0 0" for d in dirs]  # type: ignore[union-attr]
    assert (Path(f"{volume}{dirs[0]}") / "image.layer").read_text() == "layer"  # type: ignore[index]
    log = calls(sandbox)
    assert log == [
        "systemctl is-active --quiet kubelet", "systemctl is-active --quiet containerd",
        "systemctl stop kubelet", "systemctl stop containerd",
        f"mount --bind {volume}{dirs[0]} {dirs[0]}", f"mount --bind {volume}{dirs[1]} {dirs[1]}",  # type: ignore[index]
        "systemctl start containerd", "systemctl start kubelet",
    ]
    assert (root / "var/log/provision/on_create.log").exists()  # type: ignore[operator]


def test_second_run_changes_nothing(sandbox: dict[str, object]) -> None:
    run(sandbox)
    fstab = (sandbox["root"] / "etc/fstab").read_text()  # type: ignore[operator]
    first = len(calls(sandbox))
    run(sandbox)
    assert (sandbox["root"] / "etc/fstab").read_text() == fstab  # type: ignore[operator]
    assert not [c for c in calls(sandbox)[first:] if c.startswith("mount")]


def test_without_the_volume_state_stays_on_the_root_volume(sandbox: dict[str, object]) -> None:
    proc = run(sandbox, VOLUME_MOUNTED_RC="1")
    assert "is not mounted" in proc.stdout
    assert calls(sandbox) == []
    assert (sandbox["root"] / "etc/fstab").read_text() == ""  # type: ignore[operator]
