"""`type: evaluate`: ROUGE of a fine-tuned model against its base on the test split, one process on one GPU
(`llm_platform.evaluate`; generate() runs in one process, so torchrun would repeat the whole evaluation per GPU)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmft import memory_check
from llmft.job_types.base import FieldContext, Fields, JobType, files, present, register

if TYPE_CHECKING:
    from llmft.spec import JobSpec


def step_fields(spec: JobSpec, ctx: FieldContext) -> Fields:
    (test,) = files(spec.dataset or "", ("test.jsonl",))
    data = present(
        finetuned_model_path=spec.model,
        test_dataset_path=test,
        output_dir=ctx.output,
        mlflow_experiment_name=ctx.experiment,
        mlflow_run_name=spec.name,
    )
    origin = {
        "finetuned_model_path": "model",
        "test_dataset_path": "dataset",
        "output_dir": "output",
        "mlflow_experiment_name": "experiment",
        "mlflow_run_name": "name",
    }
    return data, origin


def rules(spec: JobSpec) -> list[str]:
    if (spec.gpus_per_node or 1) > 1 or spec.node_range[1] > 1:
        return [
            "type evaluate is one process on one GPU (it is not distributed: more GPUs would run the same "
            "evaluation several times); use nodes: 1 and gpus_per_node: 1, or leave them out"
        ]
    return []


EVALUATE = register(
    JobType(
        name="evaluate",
        summary="ROUGE of the fine-tuned model vs its base: PyTorchJob, one process, running llm_platform.evaluate",
        workload="pytorch",
        gpus=True,
        step="evaluate",
        mlflow=True,
        needs={"model": "path", "dataset": "path"},
        output_root="outputs",
        fields=step_fields,
        rules=rules,
        memory=memory_check.evaluate,
        cpu_adaptation={"bf16": False},
    )
)
