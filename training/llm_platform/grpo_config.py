"""The GRPO configuration: typed settings rendered as Hydra overrides of VeRL's ``ppo_trainer`` config.

This module is the single source of the GRPO configuration. ``llmp-grpo`` composes these overrides with VeRL's
own Hydra defaults and runs VeRL's checks before training (:mod:`llm_platform.grpo`), the Kubernetes builder
``k8s_charts.ray_job.VerlGrpoRayJob`` puts exactly :meth:`GrpoParameters.entrypoint` into the RayJob, and
``training/tests/test_grpo_config.py`` validates the result against the pinned VeRL release
(``verl.utils.config.validate_config`` and the dataclass checks it runs). Standard library only: the job
builders import it without torch.

Key names follow verl 0.9.1 ``verl/trainer/config/_generated_ppo_trainer.yaml``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import asdict, dataclass, fields
from typing import Any

from llm_platform.paths import TEAM_MOUNT_PATH, on_team_mount

# The console script is what the images install; `python3 -m llm_platform.grpo` is the same program.
ENTRYPOINT = "python3 -m llm_platform.grpo"
# GSM8K rows written by `llmp-prepare-data` carry this data_source; VeRL's default reward dispatcher
# (verl/utils/reward_score/__init__.py `default_compute_score`) scores it with verl.utils.reward_score.gsm8k.
GSM8K_DATA_SOURCE = "openai/gsm8k"
# VeRL's checkpoint callback (``trainer.checkpoint_callback_class``, built by the v1 trainer with its live
# configuration): saves at the end of the current step when a Ray pod's preStop hook asks (llm_platform.grpo_save).
SAVE_CALLBACK = "llm_platform.grpo_save.SaveOnEviction"
# What Hydra's override grammar reads as syntax in a value: `a,b` is a list (a sweep), `${...}` an interpolation it
# resolves (`${oc.env:AWS_SECRET_ACCESS_KEY}`), brackets, braces, quotes, `=`, whitespace and escapes.
HYDRA_SYNTAX = re.compile(r"\$\{|[,\[\]{}()'\"=\s\\*?:$%]")
HYDRA_MEANING = {",": "a list of values", "${": "an interpolation Hydra resolves", "=": "a key=value override"}


@dataclass(frozen=True)
class GrpoParameters:
    """Typed VeRL GRPO settings for one run.

    Paths must be on the team's FSx mount (/fsx/...), which every Ray pod mounts: the model comes from
    ``/fsx/models``, the parquet files from ``/fsx/datasets``, checkpoints go to ``/fsx/checkpoints`` and VeRL
    resumes from the newest one there (``trainer.resume_mode=auto``), so a restarted RayJob continues.

    Batch sizes follow VeRL's rules (``verl/utils/config.py`` ``validate_config``, ``ActorConfig.validate``):
    ``train_batch_size * rollout_n`` must be divisible by the number of GPUs, ``ppo_mini_batch_size`` at most
    ``train_batch_size``; micro-batch sizes are per GPU (the deprecated global ones stay unset).
    """

    model_path: str
    train_files: str
    val_files: str
    checkpoint_dir: str
    nodes: int
    gpus_per_node: int
    rollout_n: int = 5
    tensor_parallel_size: int = 2
    save_freq: int = 20
    test_freq: int = 5
    total_epochs: int = 15
    train_batch_size: int = 256
    ppo_mini_batch_size: int = 64
    ppo_micro_batch_size_per_gpu: int = 8
    log_prob_micro_batch_size_per_gpu: int = 16
    max_prompt_length: int = 512
    max_response_length: int = 1024
    learning_rate: float = 1e-6
    kl_loss_coef: float = 0.001
    entropy_coeff: float = 0.0
    rollout_gpu_memory_utilization: float = 0.6
    ref_param_offload: bool = True
    max_checkpoints_to_keep: int = 3
    project_name: str = "grpo"
    experiment_name: str = "grpo"

    def __post_init__(self) -> None:
        from llm_platform.steps import limit_problems  # the ranges of every step (one table), stdlib only

        out_of_range = limit_problems("grpo", asdict(self))
        if out_of_range:  # before the rules below divide by any of them
            raise ValueError("; ".join(out_of_range))
        for attr in ("model_path", "train_files", "val_files", "checkpoint_dir", "project_name", "experiment_name"):
            value = getattr(self, attr)
            odd = HYDRA_SYNTAX.search(value)
            if odd:
                raise ValueError(
                    f"{attr} {value!r} contains {odd.group(0)!r}, which VeRL's Hydra overrides would "
                    f"read as syntax ({HYDRA_MEANING.get(odd.group(0)[:2], 'a list or quoting')}), not "
                    f"as part of the name; rename it with letters, digits, '-', '_', '.' and '/'"
                )
        for attr in ("model_path", "train_files", "val_files", "checkpoint_dir"):
            path = getattr(self, attr)
            if not on_team_mount(path):
                raise ValueError(f"{attr} {path!r} is not on the FSx mount; use a path under {TEAM_MOUNT_PATH}/")
        if self.nodes < 1 or self.gpus_per_node < 1:
            raise ValueError(f"nodes {self.nodes} and gpus_per_node {self.gpus_per_node} must be at least 1")
        if self.rollout_n < 2:
            raise ValueError(
                f"rollout_n {self.rollout_n} must be at least 2: GRPO compares a group of responses per prompt"
            )
        if self.gpus_per_node % self.tensor_parallel_size:
            raise ValueError(
                f"tensor_parallel_size {self.tensor_parallel_size} must divide gpus_per_node "
                f"{self.gpus_per_node}: a rollout engine's shards stay on one node"
            )
        if self.save_freq < 1:
            raise ValueError(f"save_freq {self.save_freq} must be at least 1 (steps between checkpoints)")
        if self.train_batch_size % self.ppo_mini_batch_size:
            raise ValueError(
                f"ppo_mini_batch_size {self.ppo_mini_batch_size} must divide train_batch_size {self.train_batch_size}"
            )
        gpus = self.nodes * self.gpus_per_node
        if (self.train_batch_size * self.rollout_n) % gpus:
            raise ValueError(
                f"train_batch_size {self.train_batch_size} x rollout_n {self.rollout_n} must be "
                f"divisible by the {gpus} GPUs (VeRL splits every batch evenly over them)"
            )
        for attr in ("ppo_micro_batch_size_per_gpu", "log_prob_micro_batch_size_per_gpu", "max_checkpoints_to_keep"):
            if getattr(self, attr) < 1:
                raise ValueError(f"{attr} {getattr(self, attr)} must be at least 1")

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> GrpoParameters:
        """Build from a YAML mapping; unknown keys are an error that names them and lists the valid ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown GRPO setting(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
        return cls(**data)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def overrides(self) -> list[str]:
        """Hydra overrides of VeRL's `ppo_trainer` config (verl/trainer/config/ppo_trainer.yaml)."""
        return [
            "algorithm.adv_estimator=grpo",
            "algorithm.use_kl_in_reward=False",
            f"data.train_files={self.train_files}",
            f"data.val_files={self.val_files}",
            f"data.train_batch_size={self.train_batch_size}",
            f"data.max_prompt_length={self.max_prompt_length}",
            f"data.max_response_length={self.max_response_length}",
            "data.filter_overlong_prompts=True",
            "data.truncation=error",
            f"actor_rollout_ref.model.path={self.model_path}",
            "actor_rollout_ref.model.enable_gradient_checkpointing=True",
            "actor_rollout_ref.model.use_remove_padding=True",
            "actor_rollout_ref.actor.strategy=fsdp",
            f"actor_rollout_ref.actor.optim.lr={self.learning_rate}",
            f"actor_rollout_ref.actor.ppo_mini_batch_size={self.ppo_mini_batch_size}",
            f"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={self.ppo_micro_batch_size_per_gpu}",
            "actor_rollout_ref.actor.use_kl_loss=True",
            f"actor_rollout_ref.actor.kl_loss_coef={self.kl_loss_coef}",
            "actor_rollout_ref.actor.kl_loss_type=low_var_kl",
            f"actor_rollout_ref.actor.entropy_coeff={self.entropy_coeff}",
            "actor_rollout_ref.actor.fsdp_config.param_offload=False",
            "actor_rollout_ref.actor.fsdp_config.optimizer_offload=False",
            "actor_rollout_ref.rollout.name=sglang",
            "actor_rollout_ref.rollout.mode=async",
            f"actor_rollout_ref.rollout.n={self.rollout_n}",
            f"actor_rollout_ref.rollout.tensor_model_parallel_size={self.tensor_parallel_size}",
            f"actor_rollout_ref.rollout.gpu_memory_utilization={self.rollout_gpu_memory_utilization}",
            f"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu={self.log_prob_micro_batch_size_per_gpu}",
            f"actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu={self.log_prob_micro_batch_size_per_gpu}",
            f"actor_rollout_ref.ref.fsdp_config.param_offload={self.ref_param_offload}",
            f"trainer.nnodes={self.nodes}",
            f"trainer.n_gpus_per_node={self.gpus_per_node}",
            f"trainer.default_local_dir={self.checkpoint_dir}",
            "trainer.resume_mode=auto",
            f"trainer.checkpoint_callback_class={SAVE_CALLBACK}",
            f"trainer.save_freq={self.save_freq}",
            f"trainer.test_freq={self.test_freq}",
            f"trainer.max_actor_ckpt_to_keep={self.max_checkpoints_to_keep}",
            f"trainer.total_epochs={self.total_epochs}",
            f"trainer.project_name={self.project_name}",
            f"trainer.experiment_name={self.experiment_name}",
            "trainer.logger=['console','mlflow']",
        ]

    def entrypoint(self) -> str:
        """The RayJob entrypoint: ``llmp-grpo`` validates with VeRL's checks, then starts VeRL's trainer."""
        return ENTRYPOINT + " " + " ".join(shlex.quote(o) for o in self.overrides())
