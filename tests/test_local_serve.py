"""`llmft run --local` of a serve spec (llmft.local.run_serve): the command, the wait for /health, and the server
stopped by its PID on Ctrl-C. The server here is a stand-in module on PYTHONPATH (standard library only); the real
llm_platform.serve is exercised by training/tests/test_serve.py and, on the registered model of a real fine-tune,
tests/serve_e2e.py."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from llmft.local import run_serve, serve_command

from .conftest import ROOT

pytestmark = pytest.mark.e2e  # docs/testing.md "Tiers"

STUB = """
import argparse, http.server, json, sys
p = argparse.ArgumentParser()
for flag in ("--model-path", "--served-model-name", "--host", "--port"):
    p.add_argument(flag)
a = p.parse_args()
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"path": self.path, "argv": sys.argv[1:], "blocked": status["SigBlk"].strip()}).encode()
        self.send_response(200); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer((a.host, int(a.port)), H).serve_forever()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_command_binds_127_0_0_1() -> None:
    cmd = serve_command(Path("/fsx/checkpoints/medical-sft/merged"), "ml-research.medical-sft", 30001, "py")
    assert cmd == [
        "py",
        "-m",
        "llm_platform.serve",
        "--model-path",
        "/fsx/checkpoints/medical-sft/merged",
        "--served-model-name",
        "ml-research.medical-sft",
        "--host",
        "127.0.0.1",
        "--port",
        "30001",
    ]


def test_a_directory_without_a_model_is_refused(tmp_path: Path, capsys) -> None:
    assert run_serve(tmp_path, "ml-research.x", port=_free_port()) == 1
    assert "no config.json" in capsys.readouterr().err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_run_serve_waits_for_health_and_stops_the_server_by_pid_on_ctrl_c_or_sigterm(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """Ctrl-C (SIGINT) or SIGTERM (a `kill`, a supervisor) to llmft alone: llmft stops the server it started."""
    stub = tmp_path / "stub" / "llm_platform"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("")
    (stub / "serve.py").write_text(STUB)
    model = tmp_path / "merged"
    model.mkdir()
    (model / "config.json").write_text("{}")
    port = _free_port()
    code = (
        "import sys; from pathlib import Path; from llmft.local import run_serve; "
        f"sys.exit(run_serve(Path({str(model)!r}), 'ml-research.medical-sft', port={port}, "
        f"env={{'PYTHONPATH': {str(tmp_path / 'stub')!r}, 'PATH': '/usr/bin:/bin'}}))"
    )

    def inherited() -> None:  # what a parent may hand down: SIGINT ignored, the stop signals blocked
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "training")])},  # this checkout's
        preexec_fn=inherited,
    )
    server = None
    try:
        lines = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            lines.append(proc.stderr.readline())
            if "is served at" in lines[-1]:
                break
        assert f"http://127.0.0.1:{port}/v1" in lines[-1], "".join(lines)
        server = int(re.search(r"PID (\d+)", lines[-1]).group(1))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
            assert r.status == 200
            blocked = int(json.loads(r.read())["blocked"], 16)  # the server's signal mask (/proc/<pid>/status)
        # llmft's parent blocked the stop signals; the server must not inherit that, or it could only be SIGKILLed
        assert not blocked & (1 << (signal.SIGTERM - 1) | 1 << (signal.SIGINT - 1)), f"SigBlk {blocked:x}"
        os.kill(proc.pid, signum)  # the signal reaches llmft only: it must stop the server itself
        assert proc.wait(timeout=60) == 0  # a bound, not a speed: llmft's own stop gives the server 10 s
        time.sleep(0.2)
        assert not Path(f"/proc/{server}").exists() or "Z" in Path(f"/proc/{server}/stat").read_text().split()[2]
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        _kill_stub(server)  # a failed assertion must not leave the server behind


def _kill_stub(pid: int | None) -> None:
    """SIGKILL to the stub server's PID if it is still that server (a blocked SIGTERM would not stop it)."""
    try:
        if pid and b"llm_platform.serve" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGKILL)
    except (FileNotFoundError, ProcessLookupError):
        pass
