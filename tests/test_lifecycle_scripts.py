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
    # mountpoint -q DIR: the volume appears on the MOUNTED_AFTER-th check (default: the first); "never" never
    "mountpoint": 'n=$(( $(cat "$CHECKS" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$CHECKS"\n'
    '[ "${MOUNTED_AFTER:-1}" != never ] && [ "$n" -ge "${MOUNTED_AFTER:-1}" ]\n',
    # sleep SECONDS: recorded, not slept
    "sleep": 'echo "sleep $*" >> "$CALLS"\n',
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
        "CHECKS": str(tmp_path / "checks"),
        "VOLUME_WAIT_SECONDS": "300",
        "VOLUME_POLL_SECONDS": "5",
    }
    (root / "etc").mkdir(parents=True)
    (root / "etc/fstab").write_text("")
    return {"env": env, "root": root, "dirs": state_dirs, "calls": tmp_path / "calls"}


def run(sandbox: dict[str, object], expect_rc: int = 0, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**sandbox["env"], **extra}  # type: ignore[dict-item]
    proc = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == expect_rc, proc.stdout + proc.stderr
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
        "systemctl is-active --quiet kubelet",
        "systemctl is-active --quiet containerd",
        "systemctl stop kubelet",
        "systemctl stop containerd",
        f"mount --bind {volume}{dirs[0]} {dirs[0]}",
        f"mount --bind {volume}{dirs[1]} {dirs[1]}",  # type: ignore[index]
        "systemctl start containerd",
        "systemctl start kubelet",
    ]
    assert (root / "var/log/provision/on_create.log").exists()  # type: ignore[operator]


def test_second_run_changes_nothing(sandbox: dict[str, object]) -> None:
    run(sandbox)
    fstab = (sandbox["root"] / "etc/fstab").read_text()  # type: ignore[operator]
    first = len(calls(sandbox))
    run(sandbox)
    assert (sandbox["root"] / "etc/fstab").read_text() == fstab  # type: ignore[operator]
    assert not [c for c in calls(sandbox)[first:] if c.startswith("mount")]


def test_waits_for_a_late_volume_then_moves_the_state(sandbox: dict[str, object]) -> None:
    run(sandbox, MOUNTED_AFTER="4")
    log = calls(sandbox)
    assert log[:3] == ["sleep 5"] * 3, log
    assert "systemctl stop kubelet" in log and "mount --bind" in " ".join(log)


def test_a_volume_that_never_appears_fails_the_node_within_the_bound(sandbox: dict[str, object]) -> None:
    proc = run(sandbox, expect_rc=1, MOUNTED_AFTER="never", VOLUME_WAIT_SECONDS="60", VOLUME_POLL_SECONDS="5")
    assert "was never mounted within 60s" in proc.stdout
    log = calls(sandbox)
    assert log == ["sleep 5"] * 12, "bounded: 60 s in 5 s polls, then nothing touched"
    assert (sandbox["root"] / "etc/fstab").read_text() == ""  # type: ignore[operator]
