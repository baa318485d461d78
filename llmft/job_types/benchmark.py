"""`type: benchmark` (issue 28): tokens/s, MFU and peak memory of SFT recipes on one GPU (`llm_platform.bench`).

The spec's dataset (a prepared dataset folder) and model (the folder whose tokenizer counts the rows) are optional:
without them the step measures synthetic rows of the medical-o1 lengths. `settings` are the step file's own fields
(llm_platform.bench.BenchConfig: shape, steps, variants, recipe, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmft import memory_check
from llmft.job_types.base import FieldContext, Fields, JobType, files, present, register

if TYPE_CHECKING:
    from llmft.spec import JobSpec


def step_fields(spec: JobSpec, ctx: FieldContext) -> Fields:
    (train,) = files(spec.dataset, ("train.jsonl",)) if spec.dataset else (None,)
    data = present(
        data=train,
        tokenizer=spec.model,
        output_dir=ctx.output,
        instance_type=ctx.instance_type,
        mlflow_experiment_name=ctx.experiment,
        mlflow_run_name=spec.name,
    )
    origin = {
        "data": "dataset",
        "tokenizer": "model",
        "output_dir": "output",
        "instance_type": "instance_type",
        "mlflow_experiment_name": "experiment",
        "mlflow_run_name": "name",
    }
    return data, origin


def rules(spec: JobSpec) -> list[str]:
    out = []
    if spec.node_range[1] > 1:
        out.append(
            f"type benchmark measures one node (nodes {spec.node_range[1]}); remove nodes, or run an sft "
            f"job to measure a multi-node run"
        )
    if spec.gpus_per_node not in (None, 1):
        out.append(
            f"gpus_per_node {spec.gpus_per_node}: type benchmark measures one GPU and projects the epoch "
            f"onto all GPUs of the instance type; remove gpus_per_node"
        )
    for name, value, what in (
        ("dataset", spec.dataset, "a prepared dataset folder (prepare-data's output)"),
        ("model", spec.model, "the model folder whose tokenizer counts the rows"),
    ):
        if value and not value.startswith("/"):
            out.append(
                f"{name} {value!r} is not a path; a benchmark reads {what} under /fsx, or leave {name} "
                f"out to measure synthetic rows"
            )
    if spec.model_shape is not None:
        out.append(
            "model_shape: a benchmark builds the shape settings.shape names (llm_platform.memory.SHAPES); "
            "remove model_shape"
        )
    if spec.model and not spec.dataset:
        out.append("model applies to a benchmark of real rows (its tokenizer counts them); add dataset or remove model")
    return out


BENCHMARK = register(
    JobType(
        name="benchmark",
        summary="SFT recipes' tokens/s and MFU on one GPU: PyTorchJob (1 node, 1 GPU) running llm_platform.bench",
        workload="pytorch",
        gpus=True,
        step="benchmark",
        mlflow=True,
        output_root="outputs",
        fixed_gpus_per_node=1,  # it measures one GPU; its epoch projection scales to the instance's GPUs
        one_process=True,  # one torchrun process: it starts a torchrun of its own per recipe
        efa=False,
        fields=step_fields,
        rules=rules,
        memory=memory_check.benchmark,
    )
)
