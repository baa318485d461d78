"""Example jobs (written to dist/<env>/, not deployed): SFT and evaluation PyTorchJobs, a VeRL GRPO RayJob.

Each example picks the first configured team that may use its tier, so the examples follow config/<env>.yaml, and
sizes itself from the environment's node kinds (k8s_charts/node_shapes.py). The jobs run the training package's
entry points (`python -m llm_platform.<step> --config <yaml>`, the `llmp-*` console scripts) in the platform's
images (`sft`, `verl-sglang`: k8s_charts/images.py gives the URI this environment builds). Step configs are the
YAML files of training/configs/ copied under the team's /fsx/configs/.
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from config import EnvironmentConfig, TeamConfig
from k8s_charts.node_shapes import NodeKind, kinds_for
from k8s_charts.pods import team_dir
from k8s_charts.pytorch_job import ElasticPyTorchJob
from k8s_charts.ray_job import GrpoParameters, VerlGrpoRayJob
from k8s_charts.values import PlatformValues


def _largest_kind(values: PlatformValues, tier: str) -> NodeKind | None:
    """The node kind with the most GPUs among those ``tier`` may use (None: the tier has none). Its `max_nodes`
    bounds the job: Kueue admits a job only when all its pods fit in one flavor, so more nodes than the group has
    would never start."""
    kinds = kinds_for(values.node_kinds, tier=tier)
    return max(kinds, key=lambda k: (k.spec.gpus, k.instance_type)) if kinds else None


def _team_for(config: EnvironmentConfig, tier: str) -> TeamConfig | None:
    return next((t for t in config.kubernetes.teams if tier in t.allowed_tiers), None)


class ExampleJobsChart(cdk8s.Chart):
    """One example job (the first configured team that may use ``tier``)."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)


def example_charts(scope: Construct, config: EnvironmentConfig, values: PlatformValues) -> dict[str, cdk8s.Chart]:
    charts: dict[str, cdk8s.Chart] = {}

    team = _team_for(config, "production")
    sft_kind = _largest_kind(values, "production")  # the environment's HyperPod GPU group
    if team and sft_kind:
        chart = charts["example-sft"] = ExampleJobsChart(scope, "example-sft")
        base = team_dir(values, team)
        ElasticPyTorchJob(
            chart,
            "Sft",
            name="llama-sft-lora",
            team=team,
            tier="production",
            values=values,
            instance_type=sft_kind.instance_type,
            min_nodes=1,
            max_nodes=min(2, sft_kind.max_nodes or 1),
            image="sft",
            # llmp-sft: the training package's SFT step; its settings (LoRA r=8, alpha 16, lr 2e-4, bf16, FSDP full
            # shard + auto wrap, gradient checkpointing) are training/configs/sft.yaml, copied to the team's FSx.
            entrypoint=["-m", "llm_platform.sft", "--config", f"{base}/configs/llama-sft-lora.yaml"],
        )

    team = _team_for(config, "research")
    if team:
        chart = charts["example-eval"] = ExampleJobsChart(scope, "example-eval")
        base = team_dir(values, team)
        ElasticPyTorchJob(
            chart,
            "Eval",
            name="llama-sft-eval",
            team=team,
            tier="research",
            values=values,
            instance_type="p4d.24xlarge",
            gpus_per_node=1,
            image="sft",
            # llmp-evaluate: ROUGE of the fine-tuned vs the base model on the test split, logged to MLflow
            entrypoint=["-m", "llm_platform.evaluate", "--config", f"{base}/configs/llama-sft-eval.yaml"],
        )

    team = _team_for(config, "development")
    if team:
        chart = charts["example-grpo"] = ExampleJobsChart(scope, "example-grpo")
        base = team_dir(values, team)
        VerlGrpoRayJob(
            chart,
            "Grpo",
            name="qwen-grpo",
            team=team,
            tier="development",
            values=values,
            instance_type="p5.48xlarge",
            image="verl-sglang",
            params=GrpoParameters(
                model_path=f"{base}/models/qwen2.5-7b-instruct",
                train_files=f"{base}/datasets/gsm8k/train.parquet",
                val_files=f"{base}/datasets/gsm8k/test.parquet",
                checkpoint_dir=f"{base}/checkpoints/qwen-grpo",
                nodes=2,
                gpus_per_node=8,
                rollout_n=5,
                tensor_parallel_size=2,
                save_freq=20,
                project_name=team.name,
                experiment_name="qwen-grpo",
            ),
        )
    return charts
