"""llmp-evaluate: ROUGE against hand-computed values; the whole step on CPU with tiny models into MLflow."""

from __future__ import annotations

import json

import pytest
from llm_platform import evaluate, prepare_data
from tiny import build_model, medical_rows, write_jsonl


def test_rouge_by_hand() -> None:
    # prediction "the cat sat on the mat" vs reference "the cat is on the mat" (6 tokens each)
    # unigrams in common: the x2, cat, on, mat = 5 -> P = R = F = 5/6
    # bigrams: 5 each; common: "the cat", "on the", "the mat" = 3 -> F = 3/5
    # LCS: "the cat on the mat" = 5 -> F = 5/6; one line, so Lsum = L
    scores = evaluate.rouge(["the cat sat on the mat"], ["the cat is on the mat"], use_stemmer=False)
    assert scores == pytest.approx({"rouge1": 5 / 6, "rouge2": 3 / 5, "rougeL": 5 / 6, "rougeLsum": 5 / 6})


def test_rouge_lsum_is_summary_level() -> None:
    # lines swapped: whole-text LCS of [a b c d] and [c d a b] is 2 of 4 -> rougeL 0.5;
    # Lsum takes, per reference line, the union LCS over prediction lines: 2 + 2 of 4 -> 1.0
    scores = evaluate.rouge(["alpha beta\ngamma delta"], ["gamma delta\nalpha beta"], use_stemmer=False)
    assert scores["rougeL"] == pytest.approx(0.5) and scores["rougeLsum"] == pytest.approx(1.0)


def test_rouge_is_the_mean_over_examples() -> None:
    scores = evaluate.rouge(["a b", "x y"], ["a b", "c d"], use_stemmer=False)
    assert scores["rouge1"] == pytest.approx(0.5) and scores["rouge2"] == pytest.approx(0.5)


def test_evaluate_step_logs_base_finetuned_and_delta(tmp_path, monkeypatch) -> None:
    import mlflow
    from mlflow import MlflowClient

    monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    rows = medical_rows(8)
    corpus = [
        prepare_data.R1_PROMPT.format(question=r["Question"]) + " " + r["Complex_CoT"] + " " + r["Response"]
        for r in rows
    ]
    base = build_model(tmp_path / "base", corpus, seed=0)
    tuned = build_model(tmp_path / "tuned", corpus, seed=1)
    prepare_data.prepare(
        prepare_data.PrepareConfig(
            source=str(write_jsonl(tmp_path / "m.jsonl", rows)),
            format="sft-r1",
            tokenizer_path=str(base),
            output_dir=str(tmp_path / "data"),
            test_size=0.5,
        )
    )
    cfg = evaluate.EvaluateConfig(
        base_model_path=str(base),
        finetuned_model_path=str(tuned),
        test_dataset_path=str(tmp_path / "data"),
        output_dir=str(tmp_path / "eval"),
        max_new_tokens=6,
        batch_size=2,
        mlflow_experiment_name="eval-test",
    )
    results = evaluate.evaluate(cfg)
    records = json.loads((tmp_path / "eval/predictions.json").read_text())
    assert len(records) == 4 and all(r["base"] != r["finetuned"] for r in records)  # two different models
    for label in ("base", "finetuned"):  # the logged scores are ROUGE of the saved predictions
        expected = evaluate.rouge([r[label] for r in records], [r["reference"] for r in records])
        for name, value in expected.items():
            assert results[f"{label}/{name}"] == pytest.approx(value)
    run = MlflowClient().search_runs([MlflowClient().get_experiment_by_name("eval-test").experiment_id])[0]
    for name in evaluate.ROUGE_TYPES:
        assert run.data.metrics[f"delta/{name}"] == pytest.approx(
            run.data.metrics[f"finetuned/{name}"] - run.data.metrics[f"base/{name}"]
        )
    assert run.data.params["eval.examples"] == "4"
