"""`llmp-evaluate`: ROUGE of the fine-tuned model vs the base model on the test split, logged to MLflow.

Both models generate greedily from each test ``prompt`` (written by ``llmp-prepare-data``); ROUGE-1, ROUGE-2,
ROUGE-L and ROUGE-Lsum F-measures against the ``reference`` answer come from Google's ``rouge-score`` package
(https://github.com/google-research/google-research/tree/master/rouge; Lsum splits summaries on newlines), averaged
over the examples. MLflow gets ``base/<metric>``, ``finetuned/<metric>`` and ``delta/<metric>``, and the
predictions as a JSON artifact.

The gate of a registered model (issue 34: what a serve spec may deploy). Given ``registered_model_name``
(``<team>.<name>``), ``registered_model_version`` and ``gate: {metric, min}`` (the shape of a pipeline step's gate,
llmft/pipeline.py; ``metric`` is one of the logged keys, e.g. ``delta/rougeL``), the step checks the version exists
before it generates, and after scoring tags that MLflow model version ``llmft.evaluation`` = ``passed`` or
``failed`` with ``llmft.evaluation.metric``, ``.value``, ``.min`` and ``.run_id``; a pass points the registered
model's alias ``evaluated`` at the version, a failure takes the alias away if it pointed there. The step itself
succeeds either way: the verdict is the tag.

Who may record it (issue 40): only the platform's evaluator identity (MLflow user ``platform-evaluator``, whose
secret only the platform's promotion Job reads; the MLflow server refuses every other non-admin user,
mlflow_image/registry_gate.py). A pass also pins the weights: ``llmft.evaluation.digest`` is the content digest of
``finetuned_model_path`` (:mod:`llm_platform.weights_digest`), which the serving pod verifies before the engine
loads. Run with a team's own user the step scores and logs as before and says that the verdict was not recorded.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from llm_platform.paths import set_hf_home, share_with_team
from llm_platform.steps import entry_point
from llm_platform.weights_digest import DIGEST_TAG, digest

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
METRICS = tuple(f"{label}/{name}" for label in ("base", "finetuned", "delta") for name in ROUGE_TYPES)
# The evaluation verdict on an MLflow model version; the same strings as k8s_charts/serving.py (the serving side
# reads them there; this package imports nothing of the platform's).
EVALUATION_TAG = "llmft.evaluation"
EVALUATION_PASSED = "passed"
EVALUATION_FAILED = "failed"
EVALUATED_ALIAS = "evaluated"
# A verdict that opens production (``production: true``: the platform's evaluation, llmft/promote_evaluate.py, sets
# it in the step file it renders; teams cannot create that job) judges the fine-tuned model against its base on the
# same rows (an absolute score with ``min: 0`` passes anything), not worse than the base, on enough rows.
PRODUCTION_GATE_PREFIX = "delta/"
PRODUCTION_GATE_FLOOR = 0.0
MIN_PRODUCTION_ROWS = 200


@dataclass
class EvaluateConfig:
    base_model_path: str
    finetuned_model_path: str
    test_dataset_path: str  # test.jsonl (or its directory)
    output_dir: str  # predictions and scores, e.g. /fsx/outputs/<run>/eval
    max_samples: int | None = 200
    max_new_tokens: int = 512
    batch_size: int = 8
    bf16: bool = True
    use_stemmer: bool = True
    mlflow_experiment_name: str = "sft-eval"
    mlflow_run_name: str | None = None
    registered_model_name: str | None = None  # <team>.<name>: the model version this evaluation judges
    registered_model_version: str | int | None = None
    gate: dict[str, Any] | None = None  # {metric: delta/rougeL, min: 0.0}: the verdict tagged on the version
    production: bool = False  # the verdict opens production: production_problems() must hold before it is recorded

    def __post_init__(self) -> None:
        problems = gate_problems(self.gate, self.registered_model_name, self.registered_model_version)
        if problems:
            raise ValueError("; ".join(problems))


def gate_problems(gate: Any, name: str | None, version: Any) -> list[str]:
    """Why ``gate`` with the registered model ``name`` / ``version`` cannot be judged (empty when it can, or when
    none of the three is given)."""
    if gate is None and name is None and version is None:
        return []
    out = []
    if gate is None or name is None or version is None:
        out.append(
            "gate, registered_model_name and registered_model_version go together (the verdict is a tag on "
            "that model version): give all three or none"
        )
    if gate is not None:
        if not isinstance(gate, dict) or set(gate) != {"metric", "min"}:
            out.append(
                f"gate: {gate!r} must be {{metric: <a logged key>, min: <number>}}, e.g. "
                f"{{metric: delta/rougeL, min: 0.0}}"
            )
        else:
            if gate["metric"] not in METRICS:
                out.append(
                    f"gate.metric: {gate['metric']!r} is not a score of this step; use one of {', '.join(METRICS)}"
                )
            if isinstance(gate["min"], bool) or not isinstance(gate["min"], (int, float)):
                out.append(f"gate.min: {gate['min']!r} is not a number")
    return out


def rouge(predictions: list[str], references: list[str], *, use_stemmer: bool = True) -> dict[str, float]:
    """Mean ROUGE F-measures of ``predictions`` against ``references`` (same length)."""
    from rouge_score import rouge_scorer

    if len(predictions) != len(references) or not predictions:
        raise ValueError(f"{len(predictions)} predictions for {len(references)} references")
    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=use_stemmer)
    totals = dict.fromkeys(ROUGE_TYPES, 0.0)
    for prediction, reference in zip(predictions, references):
        scores = scorer.score(reference, prediction)  # (target, prediction)
        for name in ROUGE_TYPES:
            totals[name] += scores[name].fmeasure
    return {name: total / len(predictions) for name, total in totals.items()}


def generate(model_path: str, prompts: list[str], cfg: EvaluateConfig) -> list[str]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_path)
    tokenizer.padding_side = "left"  # decoder-only: generation continues right after each prompt
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if cfg.bf16 and device == "cuda" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype=dtype).to(device).eval()
    outputs: list[str] = []
    for start in range(0, len(prompts), cfg.batch_size):
        batch = tokenizer(
            prompts[start : start + cfg.batch_size], return_tensors="pt", padding=True, add_special_tokens=False
        ).to(device)
        with torch.no_grad():
            generated = model.generate(
                **batch, max_new_tokens=cfg.max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id
            )
        new_tokens = generated[:, batch["input_ids"].shape[1] :]
        outputs += tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
    del model
    return outputs


def evaluate(cfg: EvaluateConfig) -> dict[str, float]:
    set_hf_home()
    from llm_platform import mlflow_utils
    from llm_platform.sft_data import read_jsonl

    if cfg.gate is not None:
        model_version(cfg)  # the version to judge exists (and MLflow answers) before anything is generated
    rows = read_jsonl(cfg.test_dataset_path, "test")[: cfg.max_samples or None]
    prompts = [r["prompt"] for r in rows]
    references = [r["reference"] for r in rows]
    results: dict[str, float] = {}
    predictions: dict[str, list[str]] = {}
    for label, path in (("base", cfg.base_model_path), ("finetuned", cfg.finetuned_model_path)):
        predictions[label] = generate(path, prompts, cfg)
        for name, value in rouge(predictions[label], references, use_stemmer=cfg.use_stemmer).items():
            results[f"{label}/{name}"] = value
    for name in ROUGE_TYPES:
        results[f"delta/{name}"] = results[f"finetuned/{name}"] - results[f"base/{name}"]
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = [
        {"prompt": p, "reference": r, "base": b, "finetuned": f}
        for p, r, b, f in zip(prompts, references, predictions["base"], predictions["finetuned"])
    ]
    (out / "predictions.json").write_text(json.dumps(records, ensure_ascii=False, indent=1))
    (out / "rouge.json").write_text(json.dumps(results, indent=2))
    import mlflow

    mlflow_utils.start_run(
        experiment=cfg.mlflow_experiment_name,
        run_name=cfg.mlflow_run_name or f"eval-{Path(cfg.finetuned_model_path).name}",
    )
    mlflow_utils.log_params_flat({"eval": asdict(cfg) | {"examples": len(rows)}})
    mlflow_utils.log_metrics(results)
    mlflow_utils.log_artifact(out / "predictions.json")
    refused = production_problems(cfg, len(rows))
    if refused:
        print(f"llmp-evaluate: no verdict recorded for production: {'; '.join(refused)}", file=sys.stderr)
    elif cfg.gate is not None:
        run = mlflow.active_run()
        verdict = record_verdict(cfg, results, run_id=run.info.run_id if run else "")
        print(
            f"llmp-evaluate: {cfg.registered_model_name} version {cfg.registered_model_version}: {verdict}",
            file=sys.stderr,
        )
    mlflow_utils.end_run()
    return results


def production_problems(cfg: EvaluateConfig, rows: int) -> list[str]:
    """Why a gate that opens production (``cfg.production``) may not record a verdict from ``rows`` judged rows."""
    if not cfg.production or cfg.gate is None:
        return []
    out, metric, minimum = [], str(cfg.gate["metric"]), float(cfg.gate["min"])
    if not metric.startswith(PRODUCTION_GATE_PREFIX):
        out.append(f"gate.metric {metric!r} is not a {PRODUCTION_GATE_PREFIX}<score> (the model against its base)")
    if minimum < PRODUCTION_GATE_FLOOR:
        out.append(f"gate.min {minimum} is below the production floor {PRODUCTION_GATE_FLOOR}")
    if rows < MIN_PRODUCTION_ROWS:
        out.append(f"{rows} rows judged, fewer than {MIN_PRODUCTION_ROWS}")
    return out


def model_version(cfg: EvaluateConfig):
    from mlflow import MlflowClient

    return MlflowClient().get_model_version(cfg.registered_model_name, str(cfg.registered_model_version))


def record_verdict(cfg: EvaluateConfig, results: dict[str, float], *, run_id: str = "") -> str:
    """Tag the registered model version with the gate's verdict and move the ``evaluated`` alias; returns the
    verdict (``passed``/``failed``)."""
    from mlflow import MlflowClient

    metric, minimum = cfg.gate["metric"], float(cfg.gate["min"])
    value = results[metric]
    verdict = EVALUATION_PASSED if value >= minimum else EVALUATION_FAILED
    name, version = cfg.registered_model_name, str(cfg.registered_model_version)
    client = MlflowClient()
    tags = {
        EVALUATION_TAG: verdict,
        f"{EVALUATION_TAG}.metric": metric,
        f"{EVALUATION_TAG}.value": repr(value),
        f"{EVALUATION_TAG}.min": repr(minimum),
        # what was judged against what, for whoever reviews the verdict (llmft promote --evaluate's floor:
        # llmft/promote_evaluate.py): the base model, the test set and how many of its rows
        f"{EVALUATION_TAG}.base_model": cfg.base_model_path,
        f"{EVALUATION_TAG}.test_set": cfg.test_dataset_path,
        f"{EVALUATION_TAG}.max_samples": str(cfg.max_samples),
    } | ({f"{EVALUATION_TAG}.run_id": run_id} if run_id else {})
    if verdict == EVALUATION_PASSED:
        tags[DIGEST_TAG] = digest(cfg.finetuned_model_path)  # what production may load: exactly these files
    try:
        for key, text in tags.items():
            client.set_model_version_tag(name, version, key, text)
    except Exception as exc:
        if getattr(exc, "error_code", "") != "PERMISSION_DENIED":
            raise
        print(
            f"llmp-evaluate: {name} version {version} {verdict}, but the verdict was NOT recorded: only the "
            f"platform's evaluator records it (the promotion step, docs/serving.md); the scores are in this run",
            file=sys.stderr,
        )
        return f"{verdict} (not recorded)"
    if verdict == EVALUATION_PASSED:
        client.set_registered_model_alias(name, EVALUATED_ALIAS, version)
    elif str((client.get_registered_model(name).aliases or {}).get(EVALUATED_ALIAS)) == version:
        client.delete_registered_model_alias(name, EVALUATED_ALIAS)  # a failed re-evaluation of that version
    return verdict


def main(argv: list[str] | None = None) -> int:
    share_with_team()
    return entry_point(
        "evaluate",
        argv,
        build=lambda data: EvaluateConfig(**data),
        run=lambda cfg: print(json.dumps(evaluate(cfg), indent=2)) or 0,
        describe=lambda cfg: (
            f"would score {cfg.finetuned_model_path} against {cfg.base_model_path} "
            f"on {cfg.test_dataset_path} (ROUGE), writing {cfg.output_dir}"
            + (
                f", and tag {cfg.registered_model_name} version "
                f"{cfg.registered_model_version} {EVALUATION_TAG}=passed if "
                f"{cfg.gate['metric']} >= {cfg.gate['min']}"
                if cfg.gate
                else ""
            )
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
