"""Example jobs (written to dist/<env>/, not deployed): SFT and evaluation PyTorchJobs, a VeRL GRPO RayJob.

Each example picks the first configured team that may use its tier, so the examples follow config/<env>.yaml.
The training image is expected to provide the `llm_platform.sft` / `llm_platform.evaluate` modules (LoRA SFT
with Hugging Face TRL/PEFT and Accelerate FSDP) and VeRL with SGLang.
"""

from __future__ import annotations

from dataclasses import dataclass

import cdk8s
from constructs import Construct

from config import EnvironmentConfig, TeamConfig
from k8s_charts.node_shapes import kinds_for
from k8s_charts.pods import team_dir
from k8s_charts.pytorch_job import ElasticPyTorchJob
from k8s_charts.ray_job import GrpoParameters, VerlGrpoRayJob
from k8s_charts.values import PlatformValues


@dataclass(frozen=True)
class SftSettings:
    """Supervised fine-tuning with LoRA (the reference settings), rendered as script arguments."""

    model_path: str
    dataset_path: str
    output_dir: str
    lora_rank: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.05
    learning_rate: float = 2e-4
    bf16: bool = True
    fsdp: str = "full_shard auto_wrap"
    gradient_checkpointing: bool = True
    epochs: int = 3
    per_device_batch_size: int = 4
    gradient_accumulation_steps: int = 4
    save_steps: int = 200

    def args(self) -> list[str]:
        return [
            f"--model_name_or_path={self.model_path}", f"--dataset_path={self.dataset_path}",
            f"--output_dir={self.output_dir}", "--use_peft=true", f"--lora_r={self.lora_rank}",
            f"--lora_alpha={self.lora_alpha}", f"--lora_dropout={self.lora_dropout}",
            f"--learning_rate={self.learning_rate}", f"--bf16={str(self.bf16).lower()}", f"--fsdp={self.fsdp}",
            f"--gradient_checkpointing={str(self.gradient_checkpointing).lower()}",
            f"--num_train_epochs={self.epochs}", f"--per_device_train_batch_size={self.per_device_batch_size}",
            f"--gradient_accumulation_steps={self.gradient_accumulation_steps}", f"--save_steps={self.save_steps}",
            "--save_strategy=steps", "--report_to=mlflow",
        ]


def _largest_instance(values: PlatformValues, tier: str) -> str | None:
    """The GPU instance type with the most GPUs among the node kinds ``tier`` may use (None: the tier has none)."""
    kinds = kinds_for(values.node_kinds, tier=tier)
    return max(kinds, key=lambda k: (k.spec.gpus, k.instance_type)).instance_type if kinds else None


def _team_for(config: EnvironmentConfig, tier: str) -> TeamConfig | None:
    return next((t for t in config.kubernetes.teams if tier in t.allowed_tiers), None)


class ExampleJobsChart(cdk8s.Chart):
    """One example job (the first configured team that may use ``tier``)."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)


def example_charts(scope: Construct, config: EnvironmentConfig, values: PlatformValues) -> dict[str, cdk8s.Chart]:
    charts: dict[str, cdk8s.Chart] = {}

    team = _team_for(config, "production")
    sft_instance = _largest_instance(values, "production")  # the environment's HyperPod GPU group
    if team and sft_instance:
        chart = charts["example-sft"] = ExampleJobsChart(scope, "example-sft")
        base = team_dir(values, team)
        ElasticPyTorchJob(
            chart, "Sft", name="llama-sft-lora", team=team, tier="production", values=values,
            instance_type=sft_instance, min_nodes=1, max_nodes=2, image="sft",
            entrypoint=["-m", "llm_platform.sft"],
            args=SftSettings(model_path=f"{base}/models/base", dataset_path=f"{base}/datasets/sft",
                             output_dir=f"{base}/checkpoints/llama-sft-lora").args())

    team = _team_for(config, "research")
    if team:
        chart = charts["example-eval"] = ExampleJobsChart(scope, "example-eval")
        base = team_dir(values, team)
        ElasticPyTorchJob(
            chart, "Eval", name="llama-sft-eval", team=team, tier="research", values=values,
            instance_type="p4d.24xlarge", gpus_per_node=8, image="sft",
            entrypoint=["-m", "llm_platform.evaluate"],
            args=[f"--model_path={base}/checkpoints/llama-sft-lora", f"--dataset_path={base}/datasets/eval",
                  "--metrics=rouge", "--bf16=true", f"--output_dir={base}/outputs/llama-sft-eval"])

    team = _team_for(config, "development")
    if team:
        chart = charts["example-grpo"] = ExampleJobsChart(scope, "example-grpo")
        base = team_dir(values, team)
        VerlGrpoRayJob(
            chart, "Grpo", name="qwen-grpo", team=team, tier="development", values=values,
            instance_type="p5.48xlarge", image="verl-sglang",
            params=GrpoParameters(
                model_path=f"{base}/models/qwen2.5-7b-instruct", train_files=f"{base}/datasets/gsm8k/train.parquet",
                val_files=f"{base}/datasets/gsm8k/test.parquet", checkpoint_dir=f"{base}/checkpoints/qwen-grpo",
                nodes=2, gpus_per_node=8, rollout_n=5, tensor_parallel_size=2, save_freq=20,
                project_name=team.name, experiment_name="qwen-grpo"))
    return charts
