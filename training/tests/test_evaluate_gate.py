"""The evaluate step's gate on a registered model version (issue 34): the verdict tags and the `evaluated` alias,
in MLflow's own registry (the tests' local store, as the other MLflow tests here); the e2e pipeline
(tests/test_pipeline_e2e.py) sets them on the platform's MLflow server."""

from __future__ import annotations

import pytest
from llm_platform import evaluate, prepare_data, steps, weights_digest
from tiny import build_model, medical_rows, write_jsonl

NAME = "ml-research.medical-sft"
STEP = {
    "base_model_path": "/fsx/m",
    "finetuned_model_path": "/fsx/f",
    "test_dataset_path": "/fsx/d",
    "output_dir": "/fsx/o",
}


@pytest.fixture
def registry(tmp_path, monkeypatch):
    import mlflow
    from mlflow import MlflowClient

    uri = (tmp_path / "mlruns").as_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.setenv("MLFLOW_REGISTRY_URI", uri)
    mlflow.set_tracking_uri(uri)
    mlflow.set_registry_uri(uri)
    client = MlflowClient()
    client.create_registered_model(NAME)
    for _ in range(2):
        client.create_model_version(NAME, source=str(tmp_path / "merged"))
    return client


def _weights(tmp_path):
    merged = tmp_path / "merged"
    merged.mkdir(exist_ok=True)
    (merged / "config.json").write_text("{}")
    return merged


def _cfg(tmp_path, version, gate) -> evaluate.EvaluateConfig:
    return evaluate.EvaluateConfig(
        **{**STEP, "output_dir": str(tmp_path / "eval"), "finetuned_model_path": str(_weights(tmp_path))},
        registered_model_name=NAME,
        registered_model_version=version,
        gate=gate,
    )


def test_the_step_schema_takes_the_gate() -> None:
    gate = {
        **STEP,
        "registered_model_name": NAME,
        "registered_model_version": 1,
        "gate": {"metric": "delta/rougeL", "min": 0.0},
    }
    assert steps.problems("evaluate", gate) == []
    assert "go together" in " ".join(steps.problems("evaluate", {**STEP, "gate": {"metric": "delta/rougeL", "min": 0}}))
    bad = steps.problems("evaluate", {**gate, "gate": {"metric": "bleu", "min": "high"}})
    assert "gate.metric: 'bleu'" in bad[0] and "gate.min: 'high' is not a number" in bad[0]


def test_pass_tags_the_version_and_points_the_alias(registry, tmp_path) -> None:
    cfg = _cfg(tmp_path, 2, {"metric": "delta/rougeL", "min": 0.0})
    verdict = evaluate.record_verdict(cfg, {"delta/rougeL": 0.25}, run_id="r1")
    assert verdict == "passed"
    tags = registry.get_model_version(NAME, "2").tags
    assert tags == {
        "llmft.evaluation": "passed",
        "llmft.evaluation.metric": "delta/rougeL",
        "llmft.evaluation.value": "0.25",
        "llmft.evaluation.min": "0.0",
        "llmft.evaluation.run_id": "r1",
        "llmft.evaluation.digest": weights_digest.digest(tmp_path / "merged"),  # the judged weights, pinned
        "llmft.evaluation.base_model": cfg.base_model_path,  # judged against what, on which rows
        "llmft.evaluation.test_set": cfg.test_dataset_path,
        "llmft.evaluation.max_samples": str(cfg.max_samples),
    }
    assert str(registry.get_model_version_by_alias(NAME, "evaluated").version) == "2"


def test_failure_tags_failed_and_takes_the_alias_back(registry, tmp_path) -> None:
    gate = {"metric": "finetuned/rouge1", "min": 0.5}
    assert evaluate.record_verdict(_cfg(tmp_path, 1, gate), {"finetuned/rouge1": 0.6}) == "passed"
    assert evaluate.record_verdict(_cfg(tmp_path, 2, gate), {"finetuned/rouge1": 0.1}) == "failed"
    assert registry.get_model_version(NAME, "2").tags["llmft.evaluation"] == "failed"
    assert str(registry.get_model_version_by_alias(NAME, "evaluated").version) == "1"  # another version's pass stays
    assert evaluate.record_verdict(_cfg(tmp_path, 1, gate), {"finetuned/rouge1": 0.2}) == "failed"
    assert "evaluated" not in registry.get_registered_model(NAME).aliases


def test_the_step_judges_the_version_it_is_given(registry, tmp_path) -> None:
    rows = medical_rows(4)
    corpus = [prepare_data.R1_PROMPT.format(question=r["Question"]) + " " + r["Response"] for r in rows]
    model = build_model(tmp_path / "model", corpus)
    prepare_data.prepare(
        prepare_data.PrepareConfig(
            source=str(write_jsonl(tmp_path / "m.jsonl", rows)),
            format="sft-r1",
            tokenizer_path=str(model),
            output_dir=str(tmp_path / "data"),
            test_size=0.5,
        )
    )
    cfg = evaluate.EvaluateConfig(
        base_model_path=str(model),
        finetuned_model_path=str(model),
        test_dataset_path=str(tmp_path / "data"),
        output_dir=str(tmp_path / "eval"),
        max_new_tokens=2,
        max_samples=1,
        registered_model_name=NAME,
        registered_model_version=1,
        gate={"metric": "delta/rouge1", "min": 0.0},
    )
    results = evaluate.evaluate(cfg)
    assert results["delta/rouge1"] == 0.0  # the same model twice
    version = registry.get_model_version(NAME, "1")
    assert version.tags["llmft.evaluation"] == "passed" and version.tags["llmft.evaluation.run_id"]
    with pytest.raises(Exception, match="(?i)not found|does not exist|RESOURCE_DOES_NOT_EXIST"):
        evaluate.evaluate(evaluate.EvaluateConfig(**{**vars(cfg), "registered_model_version": 9}))
    assert not (tmp_path / "eval" / "never").exists()


def test_a_team_user_scores_but_records_no_verdict(registry, tmp_path, monkeypatch, capsys) -> None:
    """The MLflow server refuses the gate's tags to a team user (mlflow_image/registry_gate.py): the step says the
    verdict was not recorded and moves nothing."""
    from mlflow import MlflowClient
    from mlflow.exceptions import MlflowException
    from mlflow.protos.databricks_pb2 import PERMISSION_DENIED

    def refused(*args, **kwargs):  # what the REST client raises for the server's 403 (RestException)
        raise MlflowException("a team user may not set the tag", error_code=PERMISSION_DENIED)

    monkeypatch.setattr(MlflowClient, "set_model_version_tag", refused)
    gate = {"metric": "finetuned/rouge1", "min": 0.5}
    assert evaluate.record_verdict(_cfg(tmp_path, 1, gate), {"finetuned/rouge1": 0.6}) == "passed (not recorded)"
    assert "NOT recorded" in capsys.readouterr().err
    assert "evaluated" not in registry.get_registered_model(NAME).aliases


@pytest.mark.parametrize(
    ("gate", "rows", "refused"),
    [
        ({"metric": "delta/rougeL", "min": 0.0}, evaluate.MIN_PRODUCTION_ROWS, []),
        ({"metric": "finetuned/rouge1", "min": 0.0}, evaluate.MIN_PRODUCTION_ROWS, ["gate.metric"]),
        ({"metric": "delta/rougeL", "min": -1.0}, evaluate.MIN_PRODUCTION_ROWS, ["gate.min"]),
        ({"metric": "delta/rougeL", "min": 0.0}, evaluate.MIN_PRODUCTION_ROWS - 1, ["rows judged"]),
    ],
)
def test_a_production_verdict_needs_a_delta_gate_at_the_floor_on_enough_judged_rows(tmp_path, gate, rows, refused):
    """The step itself holds the floor for the platform's evaluation (`production: true`, which only the platform's
    rendered step file sets): the rows actually judged count, not the `max_samples` setting; a team's own evaluation
    (`production` unset) is not held to it."""
    cfg = _cfg(tmp_path, 1, gate)
    assert evaluate.production_problems(cfg, rows) == []
    cfg.production = True
    problems = evaluate.production_problems(cfg, rows)
    assert len(problems) == len(refused) and all(r in p for r, p in zip(refused, problems, strict=True)), problems
