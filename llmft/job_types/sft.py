"""`type: sft`: supervised fine-tuning (LoRA/QLoRA or full) as an elastic PyTorchJob running `llm_platform.sft`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmft import memory_check
from llmft.job_types.base import FieldContext, Fields, JobType, files, present, register, registered_model_name

if TYPE_CHECKING:
    from llmft.spec import JobSpec


def step_fields(spec: JobSpec, ctx: FieldContext) -> Fields:
    train, test = files(spec.dataset or "", ("train.jsonl", "test.jsonl"))
    data = present(
        model_id=spec.model,
        train_dataset_path=train,
        test_dataset_path=test,
        output_dir=ctx.output,
        mlflow_experiment_name=ctx.experiment,
        mlflow_run_name=spec.name,
        registered_model_name=registered_model_name(ctx.team, spec),
        # the step logs cost_usd = gpu_hours x this to its MLflow run (llm_platform.sft.GpuClock); the platform's
        # price, never the team's
        gpu_usd_per_hour=ctx.usd_per_gpu_hour,
    )
    origin = {
        "model_id": "model",
        "train_dataset_path": "dataset",
        "test_dataset_path": "dataset",
        "output_dir": "output",
        "mlflow_experiment_name": "experiment",
        "mlflow_run_name": "name",
        "registered_model_name": "name",
        "gpu_usd_per_hour": "placement (the dearest instance type it may get, config/data/prices.yaml)",
    }
    return data, origin


def settings_rules(spec: JobSpec) -> list[str]:
    """A production SFT job writes checkpoints HyperPod auto-resume can restart from."""
    s = spec.settings
    if spec.tier != "production":
        return []
    if s.get("save_strategy") == "no":
        return [
            "settings.save_strategy: no in a production job: HyperPod auto-resume restarts a failed job "
            "from its newest checkpoint, so without checkpoints it restarts from zero; use steps"
        ]
    if s.get("save_strategy", "steps") == "steps" and not (
        isinstance(s.get("max_steps"), int) and s.get("max_steps", -1) > 0
    ):
        save = s.get("save_steps", 500)  # TrainingArguments' default
        if isinstance(save, (int, float)) and save >= 1:
            return [
                f"settings.save_steps: {save}{' (the default)' if 'save_steps' not in s else ''} steps in "
                f"a production job that trains by epochs: its total steps depend on the data, and a run "
                f"shorter than that writes no checkpoint, so HyperPod auto-resume restarts it from zero; "
                f"give save_steps as a fraction of the run (e.g. 0.1: every 10%), or set max_steps"
            ]
    return []


SFT = register(
    JobType(
        name="sft",
        summary="supervised fine-tuning: PyTorchJob (elastic, torchrun) running llm_platform.sft",
        workload="pytorch",
        gpus=True,
        step="sft",
        mlflow=True,
        needs={"model": "path", "dataset": "path"},
        elastic=True,
        fields=step_fields,
        settings_rules=settings_rules,
        memory=memory_check.sft,
        # bf16/fp16 need a GPU; one process, so no FSDP sharding
        cpu_adaptation={"bf16": False, "fp16": False, "use_cpu": True, "fsdp": None, "fsdp_config": None},
    )
)
