"""The promotion Job's check (llm_platform.promotion_check, issue 40) on what it reads before asking MLflow: a bad
endpoint file is a refusal with a message (exit 1), never a traceback; an unreachable MLflow is exit 2. The rules
against llmft's rendered Deployment are tests/test_promotion_job.py; against the real MLflow server,
tests/test_mlflow_server_e2e.py."""

from __future__ import annotations

import socket

import pytest
import yaml
from llm_platform import promotion_check as check


def _deployment(**annotations: str) -> dict:
    return {"kind": "Deployment", "metadata": {"name": "chat", "annotations": annotations}, "spec": {}}


@pytest.mark.parametrize(
    ("docs", "said"),
    [
        ([], "0 Deployments"),
        ([_deployment(), _deployment()], "2 Deployments"),
        ([_deployment()], check.VERSION_ANNOTATION),
    ],
)
def test_a_bad_endpoint_is_refused_with_a_message(tmp_path, capsys, docs, said) -> None:
    path = tmp_path / "endpoint.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    assert check.main(["--endpoint", str(path)]) == check.REFUSED
    err = capsys.readouterr().err
    assert "promotion refused" in err and said in err and "Traceback" not in err


def test_a_missing_file_is_refused(tmp_path, capsys) -> None:
    assert check.main(["--endpoint", str(tmp_path / "nothing.yaml")]) == check.REFUSED
    assert "promotion refused" in capsys.readouterr().err


def test_mlflow_unreachable_is_its_own_exit_status(tmp_path, capsys, monkeypatch) -> None:
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    path = tmp_path / "endpoint.yaml"
    path.write_text(yaml.safe_dump(_deployment(**{check.MODEL_ANNOTATION: "t.m", check.VERSION_ANNOTATION: "1"})))
    assert check.main(["--endpoint", str(path)]) == check.UNAVAILABLE
    assert "could not be asked" in capsys.readouterr().err
