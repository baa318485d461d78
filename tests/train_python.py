"""One interpreter of the training virtualenv for several snippets of a test module (tests/test_pipeline_e2e.py,
tests/serve_e2e.py): each start of it imports torch and transformers again, seconds of CPU, so the module's snippets
share one start. Each snippet runs in a fresh namespace with its own ``sys.argv`` and returns what it printed; the
reply travels on a pipe of its own (what libraries print goes to a log file, shown when a snippet fails); every wait
is bounded and the process is stopped by its PID."""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path

RUNNER = r"""
import contextlib, io, json, os, sys, traceback
replies = os.fdopen(int(sys.argv[1]), "w")
for line in sys.stdin:
    job = json.loads(line)
    out = io.StringIO()
    sys.argv = ["-c", *job["args"]]
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(job["code"], "<snippet>", "exec"), {"__name__": "__main__"})
        reply = {"ok": True, "stdout": out.getvalue()}
    except BaseException:
        reply = {"ok": False, "stdout": out.getvalue(), "error": traceback.format_exc()}
    replies.write(json.dumps(reply) + "\n")
    replies.flush()
"""


class TrainPython:
    """``python -c RUNNER`` of ``python``, started once; :meth:`run` sends it one snippet at a time."""

    def __init__(self, python: Path, *, cwd: Path, env: dict[str, str], log: Path) -> None:
        read, write = os.pipe()
        self.log_path = log
        self._log = log.open("w")
        self.proc = subprocess.Popen(
            [str(python), "-c", RUNNER, str(write)],
            stdin=subprocess.PIPE,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=env,
            pass_fds=(write,),
            text=True,
        )
        os.close(write)
        self._replies = os.fdopen(read)

    def run(self, code: str, *args: str, timeout: float = 300) -> str:
        """What the snippet printed; fails the test with its traceback and the log when it raised, the process
        exited, or no reply came within ``timeout`` seconds (a bound, not a speed)."""
        assert self.proc.poll() is None, f"the training interpreter exited ({self.proc.returncode}):\n{self._tail()}"
        self.proc.stdin.write(json.dumps({"code": code, "args": list(args)}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self._replies], [], [], timeout)
        assert ready, f"no reply within {timeout} s:\n{self._tail()}"
        line = self._replies.readline()
        assert line, f"the training interpreter exited ({self.proc.poll()}):\n{self._tail()}"
        reply = json.loads(line)
        assert reply["ok"], reply["stdout"][-2000:] + reply["error"][-4000:] + self._tail()
        return reply["stdout"]

    def _tail(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def close(self) -> None:
        """End of input: the runner's loop ends; SIGKILL by PID if it has not exited within 30 s."""
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            self._replies.close()
            self._log.close()
