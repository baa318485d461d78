"""Production is a privileged path (issue 40), end to end on this machine: ``llmft run --local`` of a
production-tier serve spec refuses a never-evaluated version before anything starts, and a version whose weights
changed after evaluation (the digest recorded by the platform's evaluator no longer matches the directory) stops
the real server (``llm_platform.serve``) before it loads them. The positive path, an evaluated and pinned version
served and called, is tests/serve_e2e.py on the pipeline of tests/test_pipeline_e2e.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from k8s_charts.serving import EVALUATED_ALIAS, EVALUATION_DIGEST_TAG, EVALUATION_TAG, MODEL_DIR_TAG, PRODUCTION_TIERS

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "training"))
from llm_platform import weights_digest  # noqa: E402 - this checkout's training package, standard library only

pytestmark = pytest.mark.e2e  # runs real processes (docs/testing.md "Tiers")

SPEC = ROOT / "examples" / "jobs" / "serve-production.yaml"
MODEL_DIR = "/fsx/checkpoints/medical-sft/merged"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _setup(tmp_path: Path, tags: dict[str, str]) -> tuple[Path, Path, Path]:
    """A production spec serving version 7 of its model, a registry snapshot with ``tags`` on it, and the local
    /fsx with the version's weights: (spec, snapshot, fsx)."""
    spec = yaml.safe_load(SPEC.read_text())
    assert spec["tier"] in PRODUCTION_TIERS
    spec["serve"].pop("alias", None)
    spec["serve"]["version"] = 7
    spec_path = tmp_path / "serve.yaml"
    spec_path.write_text(yaml.safe_dump(spec))
    snapshot = tmp_path / "registry.yaml"
    entry = {"source": "models:/m-7", "tags": {MODEL_DIR_TAG: MODEL_DIR, **tags}}
    snapshot.write_text(yaml.safe_dump({spec["serve"]["model"]: {"versions": {7: entry}, "aliases": {}}}))
    weights = tmp_path / "fsx" / MODEL_DIR.removeprefix("/fsx/")
    weights.mkdir(parents=True)
    (weights / "config.json").write_text('{"model_type": "llama"}')
    (weights / "model.safetensors").write_bytes(os.urandom(4096))
    return spec_path, snapshot, tmp_path / "fsx"


def _run_local(spec: Path, snapshot: Path, fsx: Path, port: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "llmft",
            "run",
            "--local",
            str(spec),
            "--env",
            "dev",
            "--registry",
            str(snapshot),
            "--fsx",
            str(fsx),
            "--python",
            sys.executable,
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "training"), str(ROOT)])},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _nothing_listens(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_a_never_evaluated_version_is_not_served_in_production(tmp_path: Path) -> None:
    for i, tags in enumerate(({}, {EVALUATION_TAG: "failed"}, {EVALUATION_TAG: "passed"})):  # last: not pinned
        (tmp_path / str(i)).mkdir()
        spec, snapshot, fsx = _setup(tmp_path / str(i), tags)
        port = _free_port()
        proc = _run_local(spec, snapshot, fsx, port)
        assert proc.returncode == 1, proc.stderr
        assert EVALUATION_TAG in proc.stderr and "serving" not in proc.stderr.split("FAIL")[0], proc.stderr
        assert "llm_platform.serve" not in proc.stderr, "refused before a server was started"
        assert _nothing_listens(port)


def test_a_digest_mismatch_stops_the_server_before_it_loads(tmp_path: Path) -> None:
    spec, snapshot, fsx = _setup(tmp_path, {})
    weights = fsx / MODEL_DIR.removeprefix("/fsx/")
    evaluated = weights_digest.digest(weights)
    tags = {EVALUATION_TAG: "passed", EVALUATION_DIGEST_TAG: evaluated}
    data = yaml.safe_load(snapshot.read_text())
    (model,) = data
    data[model]["versions"][7]["tags"].update(tags)
    data[model]["aliases"] = {EVALUATED_ALIAS: 7}
    snapshot.write_text(yaml.safe_dump(data))
    (weights / "model.safetensors").write_bytes(os.urandom(4096))  # the team rewrites the weights after evaluation
    port = _free_port()
    proc = _run_local(spec, snapshot, fsx, port)
    assert proc.returncode != 0, proc.stderr
    assert "--weights-digest" in proc.stderr and evaluated in proc.stderr, "the server was asked to check"
    assert "not the ones that were evaluated" in proc.stderr and "Nothing was served" in proc.stderr, proc.stderr
    assert "did not become healthy" in proc.stderr and _nothing_listens(port)
