"""The tools' command lines: `--help` explains and exits without doing the work."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from .conftest import ROOT


@pytest.mark.parametrize("module", ["tools.bench"])
def test_help_only_prints_usage(module: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: python -m {module}")


def test_bench_options_do_not_start_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parsing the options starts nothing; the environment variables still set the defaults."""
    from tools import bench

    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("--help ran a command"))
    monkeypatch.setenv("BENCH_RUNS", "3")
    monkeypatch.setenv("BENCH_SUITES", "0")
    args = bench.parse_args([])
    assert (args.runs, args.no_suites) == (3, True)
    assert bench.parse_args(["--runs", "7"]).runs == 7
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--help"])
    assert exit_.value.code == 0


@pytest.mark.parametrize("target", ["diff", "deploy", "synth"])
def test_make_passes_only_options_the_pinned_cdk_cli_has(target: str) -> None:
    """Every option `make <target>` gives the CDK CLI is one the pinned CLI's `cdk <command> --help` lists (an unknown
    option is ignored silently, e.g. `cdk diff --all`)."""
    cdk = ROOT / "node_modules" / ".bin" / "cdk"
    out = subprocess.run(
        ["make", "-n", target, "ENV=dev"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    (line,) = [s for s in out.splitlines() if s.startswith("node_modules/.bin/cdk ")]
    argv = shlex.split(line)
    command = argv[1]
    helptext = subprocess.run(
        [str(cdk), command, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    listed = set(re.findall(r"(?:^|[\s,])(--?[a-z][\w-]*)", helptext))
    options = [a.split("=", 1)[0] for a in argv[2:] if a.startswith("-")]
    assert options and not [o for o in options if o not in listed], (line, listed)
