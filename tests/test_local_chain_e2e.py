"""Issue 41 item 8: the local chain exactly as docs/jobs.md documents it ("The local chain").

The ```bash block of that section runs verbatim (bash, `set -e`) in a fresh directory holding the checkout's
`examples/` and `.train-venv`, with a `llmft` on PATH that is this checkout's CLI, and no MLflow variable or other
setting by hand (the environment is PATH, HOME and the Hub's offline switches: nothing is downloaded here). Asserted:
every command succeeds, the chat completion comes back from the served model, the evaluate example's gate moved
the `evaluated` alias the serve example asks for (that is how the serve step found its model), and `kill %1`
(SIGTERM to `llmft run --local`) stopped the server it started: its PID is gone and its port is free.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.e2e  # docs/testing.md "Tiers"

TRAIN_PYTHON = ROOT / ".train-venv" / "bin" / "python"
DOCS = ROOT / "docs" / "jobs.md"


def documented_block() -> str:
    """The shell commands of docs/jobs.md's "The local chain" section, as written."""
    section = DOCS.read_text(encoding="utf-8").split("**The local chain.**", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def _port_of(block: str) -> int:
    return int(re.search(r"http://127\.0\.0\.1:(\d+)/v1/chat/completions", block).group(1))


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_the_documented_local_chain_reaches_a_chat_completion_and_stops_its_server(tmp_path: Path) -> None:
    if not TRAIN_PYTHON.exists():
        pytest.fail(f"{TRAIN_PYTHON} is missing: run `make install`")
    block = documented_block()
    port = _port_of(block)
    assert not _listening(port), f"127.0.0.1:{port} is taken before the chain starts; stop what listens there"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / ".train-venv").symlink_to(ROOT / ".train-venv")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "llmft"  # the installed `llmft` is this checkout's CLI (exec: signals reach llmft itself)
    python = Path(sys.executable)
    shim.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT}:{ROOT / "training"} exec {python} -m llmft "$@"\n')
    shim.chmod(0o755)
    script = tmp_path / "chain.sh"
    script.write_text("set -e\n" + block)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION": "1",
    }
    proc = subprocess.run(
        ["bash", str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200, check=False
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    completion = json.loads(proc.stdout[proc.stdout.rindex('{"id"') :])
    assert completion["model"] == "ml-research.medical-sft", completion
    assert completion["choices"][0]["message"]["content"], completion
    assert "llmp-evaluate: ml-research.medical-sft version 1: passed" in proc.stderr, proc.stderr[-4000:]
    assert (tmp_path / "fsx" / "mlruns").is_dir()  # the file store llmft chose, nothing set by hand
    # the PID llmft names when it starts the server: `kill %1` may come before llmft saw /health answer (curl's own
    # retries reach the port first) and so before its "is served at" line
    server = int(re.search(r"started the server \(PID (\d+)\)", proc.stderr).group(1))
    stat = Path(f"/proc/{server}/stat")
    assert not stat.exists() or stat.read_text().split()[2] == "Z", f"the server (PID {server}) outlived llmft"
    assert not _listening(port), f"127.0.0.1:{port} still answers after `kill %1`"
