"""The MLflow server's production gate (mlflow_image/registry_gate.py, issue 40), its pure rules; the real server is
tests/test_mlflow_server_e2e.py ``test_only_the_evaluator_writes_the_production_gate``."""

from __future__ import annotations

import pytest

from k8s_charts.serving import EVALUATED_ALIAS, EVALUATION_TAG, MODEL_DIR_TAG

from .test_mlflow_image import ENV, ep

gate = ep._registry_gate()
MV = {"name": "ml-research.chat", "version": "1"}


def test_the_gate_names_are_the_serving_sides() -> None:
    """The image has no copy of the platform: its names must be the ones llmft and the training package read."""
    assert (gate.GATE_TAG_PREFIX, gate.MODEL_DIR_TAG, gate.GATE_ALIAS) == (
        EVALUATION_TAG,
        MODEL_DIR_TAG,
        EVALUATED_ALIAS,
    )


@pytest.mark.parametrize(
    ("method", "path", "fields", "tags", "refused"),
    [
        ("POST", gate.SET_TAG, {**MV, "key": "llmft.evaluation", "value": "passed"}, {}, True),
        ("POST", gate.SET_TAG, {**MV, "key": "LLMFT.Evaluation.digest "}, {}, True),
        ("DELETE", gate.DELETE_TAG, {**MV, "key": "llmft.evaluation"}, {}, True),
        ("POST", gate.SET_TAG, {**MV, "key": "llmft.model_dir", "value": "/fsx/a"}, {}, False),
        (
            "POST",
            gate.SET_TAG,
            {**MV, "key": "llmft.model_dir", "value": "/fsx/a"},
            {"llmft.model_dir": "/fsx/a"},
            False,
        ),
        (
            "POST",
            gate.SET_TAG,
            {**MV, "key": "llmft.model_dir", "value": "/fsx/b"},
            {"llmft.model_dir": "/fsx/a"},
            True,
        ),
        ("DELETE", gate.DELETE_TAG, {**MV, "key": "llmft.model_dir"}, {}, True),
        ("POST", gate.SET_TAG, {**MV, "key": "owner", "value": "me"}, {}, False),
        ("POST", gate.ALIAS, {"name": "m", "alias": "evaluated", "version": "1"}, {}, True),
        ("DELETE", gate.ALIAS, {"name": "m", "alias": " Evaluated"}, {}, True),
        ("POST", gate.ALIAS, {"name": "m", "alias": "candidate", "version": "1"}, {}, False),
        (
            "POST",
            gate.CREATE_VERSION,
            {"name": "m", "tags": [{"key": "llmft.evaluation", "value": "passed"}]},
            {},
            True,
        ),
        (
            "POST",
            gate.CREATE_VERSION,
            {"name": "m", "tags": [{"key": "llmft.model_dir", "value": "/fsx/a"}]},
            {},
            False,
        ),
    ],
)
def test_team_users_cannot_write_the_gate(method, path, fields, tags, refused) -> None:
    for prefix in ("/api/2.0", "/ajax-api/2.0"):
        why = gate.gate_refusal(
            privileged=False, method=method, path=prefix + path, fields=fields, version_tags=lambda n, v: tags
        )
        assert (why is not None) == refused, why
        assert gate.gate_refusal(privileged=True, method=method, path=prefix + path, fields=fields) is None


def test_request_fields_read_the_body_or_the_query_as_mlflow_does() -> None:
    assert gate.request_fields("DELETE", b"", {"alias": "evaluated"}) == {"alias": "evaluated"}
    assert gate.request_fields("POST", b'"{\\"key\\": \\"k\\"}"', {}) == {"key": "k"}


def test_the_evaluator_is_a_platform_admin_without_user_management() -> None:
    env = {**ENV, "MLFLOW_EVALUATOR_USERNAME": "platform-evaluator", "MLFLOW_EVALUATOR_PASSWORD": "x" * 16}
    s = ep.Settings.from_env(env)
    assert s.evaluator == ep.User("platform-evaluator", "x" * 16, is_admin=True) and s.users[-1] == s.evaluator
    assert "MLFLOW_EVALUATOR_PASSWORD" not in ep.server_environment(s, env)
    assert ep.server_environment(s, env)["MLFLOW_EVALUATOR_USERNAME"] == "platform-evaluator"
    assert gate.evaluator_refusal("platform-evaluator", "platform-evaluator", "/api/2.0/mlflow/users/create")
    assert gate.evaluator_refusal("platform-evaluator", "platform-evaluator", "/api/3.0/mlflow/users/permissions/grant")
    assert gate.evaluator_refusal("admin", "platform-evaluator", "/api/2.0/mlflow/users/create") is None
    for bad in (
        {"MLFLOW_EVALUATOR_USERNAME": "team-x", "MLFLOW_EVALUATOR_PASSWORD": "x" * 16},
        {"MLFLOW_EVALUATOR_USERNAME": "platform-evaluator"},
    ):
        with pytest.raises(ep.ConfigurationError, match="MLFLOW_EVALUATOR"):
            ep.Settings.from_env({**ENV, **bad})
