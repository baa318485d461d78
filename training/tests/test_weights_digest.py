"""The content digest that pins evaluated weights (llm_platform/weights_digest.py, issue 40)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from llm_platform import weights_digest as wd


def _model(path):
    path.mkdir()
    (path / "config.json").write_text('{"model_type": "llama"}')
    (path / "model.safetensors").write_bytes(os.urandom(3 * 1024))
    (path / "sub").mkdir()
    (path / "sub" / "tokenizer.json").write_text("{}")
    return path


def test_the_digest_follows_every_file_and_nothing_else(tmp_path) -> None:
    model = _model(tmp_path / "m")
    first = wd.digest(model)
    assert first.startswith("sha256:") and len(first) == 71
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(model), str(copy)], check=True)
    assert wd.digest(copy) == first  # content, not location or timestamps
    wd.verify(copy, first)
    (copy / "modeling_evil.py").write_text("import os")  # a file added after evaluation
    with pytest.raises(wd.WeightsChanged, match="not the ones that were evaluated"):
        wd.verify(copy, first)
    (copy / "modeling_evil.py").unlink()
    (copy / "model.safetensors").write_bytes(os.urandom(3 * 1024))  # other weights, same names
    assert wd.digest(copy) != first
    (copy / "model.safetensors").unlink()
    (copy / "model.safetensors").symlink_to(model / "model.safetensors")
    with pytest.raises(wd.WeightsChanged, match="not a regular file"):
        wd.digest(copy)


def test_the_serving_wrapper_execs_the_engine_only_for_the_evaluated_weights(tmp_path) -> None:
    model = _model(tmp_path / "m")
    digest = wd.digest(model)
    marker = tmp_path / "engine-ran"
    engine = [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ok')"]

    def run(expected: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "llm_platform.weights_digest",
                "--verify",
                str(model),
                "--digest",
                expected,
                "--",
                *engine,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )

    bad = run("sha256:" + "0" * 64)
    assert bad.returncode == 1 and "not the ones that were evaluated" in bad.stderr and not marker.exists()
    assert run("md5:x").returncode == 1 and not marker.exists()
    good = run(digest)
    assert good.returncode == 0, good.stderr
    assert marker.read_text() == "ok"
