"""The GRPO configuration against the pinned VeRL release: composed with VeRL's own Hydra defaults from the
installed package and checked with VeRL's own validation code (verl.utils.config.validate_config and the
dataclass checks), exactly what `llmp-grpo` and VeRL's `main_ppo` run before training."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from hydra.errors import ConfigCompositionException
from llm_platform import grpo
from llm_platform.grpo_config import ENTRYPOINT, GrpoParameters
from omegaconf.errors import MissingMandatoryValue

pytestmark = pytest.mark.e2e  # trains/serves the tiny model or starts processes (docs/testing.md "Tiers")

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
BASE = dict(
    model_path="/fsx/models/m",
    train_files="/fsx/datasets/gsm8k/train.parquet",
    val_files="/fsx/datasets/gsm8k/test.parquet",
    checkpoint_dir="/fsx/checkpoints/run",
)


def validated(overrides: list[str]):
    cfg = grpo.compose(overrides)
    grpo.validate(cfg)
    return cfg


def test_shipped_config_is_valid_and_keeps_checkpoints_on_fsx() -> None:
    params = GrpoParameters.from_mapping(yaml.safe_load((CONFIGS / "grpo.yaml").read_text()))
    cfg = validated(params.overrides())
    assert cfg.algorithm.adv_estimator == "grpo"
    assert cfg.actor_rollout_ref.rollout.name == "sglang"
    assert cfg.trainer.default_local_dir == params.checkpoint_dir and cfg.trainer.default_local_dir.startswith(
        "/fsx/checkpoints/"
    )
    assert cfg.trainer.resume_mode == "auto"  # a restarted RayJob resumes from the newest checkpoint
    assert (cfg.trainer.nnodes, cfg.trainer.n_gpus_per_node) == (params.nodes, params.gpus_per_node)
    assert list(cfg.trainer.logger) == ["console", "mlflow"]
    assert cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu == params.ppo_micro_batch_size_per_gpu


@pytest.mark.parametrize(
    "nodes,gpus,tp,batch,rollout_n",
    [(1, 8, 2, 256, 5), (2, 8, 2, 256, 5), (1, 4, 2, 64, 8), (4, 8, 4, 512, 4), (1, 1, 1, 16, 4)],
)
def test_shapes_are_valid(nodes: int, gpus: int, tp: int, batch: int, rollout_n: int) -> None:
    params = GrpoParameters(
        **BASE,
        nodes=nodes,
        gpus_per_node=gpus,
        tensor_parallel_size=tp,
        train_batch_size=batch,
        ppo_mini_batch_size=batch // 4,
        rollout_n=rollout_n,
    )
    cfg = validated(params.overrides())
    assert cfg.data.train_batch_size * cfg.actor_rollout_ref.rollout.n % (nodes * gpus) == 0


@pytest.mark.parametrize(
    "dropped,error",
    [
        ("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=", "ppo_micro_batch_size_per_gpu"),
        ("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=", "actor_rollout_ref.rollout"),
        ("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=", "actor_rollout_ref.ref"),
    ],
)
def test_a_missing_required_field_fails_verl_validation(dropped: str, error: str) -> None:
    overrides = [o for o in GrpoParameters(**BASE, nodes=1, gpus_per_node=8).overrides() if not o.startswith(dropped)]
    with pytest.raises(Exception, match=error):
        validated(overrides)


def test_rollout_engine_is_required() -> None:
    overrides = [
        o
        for o in GrpoParameters(**BASE, nodes=1, gpus_per_node=8).overrides()
        if not o.startswith("actor_rollout_ref.rollout.name=")
    ]
    with pytest.raises(MissingMandatoryValue):
        validated(overrides)


def test_verl_batch_rule_is_enforced_by_verl_itself() -> None:
    """Bypass our own pre-check: VeRL rejects a batch that does not split over the GPUs."""
    params = GrpoParameters(**BASE, nodes=1, gpus_per_node=8)
    overrides = params.overrides() + ["trainer.n_gpus_per_node=7"]
    with pytest.raises(AssertionError, match="real_train_batch_size"):
        validated(overrides)
    with pytest.raises(ValueError, match="divisible by the 7 GPUs"):
        GrpoParameters(**BASE, nodes=1, gpus_per_node=7, tensor_parallel_size=1)


def test_misspelt_key_fails_composition() -> None:
    overrides = GrpoParameters(**BASE, nodes=1, gpus_per_node=8).overrides() + ["trainer.save_frequency=3"]
    with pytest.raises(ConfigCompositionException):
        grpo.compose(overrides)


def test_every_parameter_reaches_the_config() -> None:
    """Each GrpoParameters field that is a VeRL setting changes the composed config when changed."""
    params = GrpoParameters(**BASE, nodes=1, gpus_per_node=8)
    cfg = validated(params.overrides())
    changed = dataclasses.replace(
        params,
        learning_rate=3e-6,
        kl_loss_coef=0.01,
        rollout_gpu_memory_utilization=0.5,
        max_response_length=2048,
        save_freq=7,
        total_epochs=2,
    )
    cfg2 = validated(changed.overrides())
    assert cfg2.actor_rollout_ref.actor.optim.lr == 3e-6 != cfg.actor_rollout_ref.actor.optim.lr
    assert cfg2.actor_rollout_ref.actor.kl_loss_coef == 0.01
    assert cfg2.actor_rollout_ref.rollout.gpu_memory_utilization == 0.5
    assert (cfg2.data.max_response_length, cfg2.trainer.save_freq, cfg2.trainer.total_epochs) == (2048, 7, 2)


def test_cli_validate_only(capsys) -> None:
    config = str(CONFIGS / "grpo.yaml")
    assert grpo.main(["--config", config, "--validate-only"]) == 0
    assert "adv_estimator: grpo" in capsys.readouterr().out
    assert grpo.main(["--config", config, "--validate-only", "actor_rollout_ref.rollout.name=vllm"]) == 1
    assert "rollout.name is 'vllm'" in capsys.readouterr().err


def test_entrypoint_is_the_package_module() -> None:
    params = GrpoParameters(**BASE, nodes=1, gpus_per_node=8)
    assert params.entrypoint().startswith(ENTRYPOINT + " algorithm.adv_estimator=grpo ")
    assert ENTRYPOINT == "python3 -m llm_platform.grpo"
