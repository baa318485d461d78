"""`llmp-grpo`: VeRL GRPO with SGLang rollouts and the GSM8K rule reward, validated before anything starts.

    llmp-grpo --config grpo.yaml [hydra.override=value ...]
    llmp-grpo algorithm.adv_estimator=grpo data.train_files=... ...      (what the RayJob runs)

The settings come from :class:`llm_platform.grpo_config.GrpoParameters` (YAML file) and/or Hydra overrides. They
are composed with the ``ppo_trainer`` defaults shipped inside the installed VeRL package and checked with VeRL's
own code (``verl.utils.config.validate_config``, the actor/rollout dataclass checks) before Ray starts, so a bad
configuration fails in seconds on the submitter instead of after the cluster spent GPU time.

MLflow: this process opens the run (experiment = project name, run name = experiment name, system metrics on),
records the run id next to the checkpoints so a restarted job continues the same run, and hands it to VeRL's
MLflow logger through ``MLFLOW_RUN_ID`` (verl/utils/tracking.py attaches to that run). VeRL logs its metrics
there, including ``perf/throughput`` (tokens/s per GPU) and ``perf/mfu/actor`` (its FlopsCounter with the same
dense BF16 peaks as :mod:`llm_platform.mfu`). After training the newest actor checkpoint is merged to Hugging
Face format with ``verl.model_merger`` and registered in MLflow.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llm_platform.config import load_yaml
from llm_platform.grpo_config import GrpoParameters
from llm_platform.paths import share_with_team

CONFIG_MODULE = "verl.trainer.config"
CONFIG_NAME = "ppo_trainer"


def compose(overrides: Sequence[str]) -> Any:
    """VeRL's own Hydra defaults (from the installed package) with ``overrides`` applied.

    Hydra's struct mode rejects a key VeRL does not define, so a misspelt override fails here.
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    with initialize_config_module(config_module=CONFIG_MODULE, version_base=None):
        return hydra_compose(config_name=CONFIG_NAME, overrides=list(overrides))


def validate(cfg: Any) -> None:
    """Run VeRL's configuration checks, exactly as ``verl.trainer.main_ppo.main`` does before training, plus the
    rollout and reference dataclass checks its workers run at start-up; then the platform's own choices."""
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import omega_conf_to_dataclass, validate_config

    validate_config(config=cfg, use_reference_policy=need_reference_policy(cfg), use_critic=need_critic(cfg))
    omega_conf_to_dataclass(cfg.actor_rollout_ref.rollout)  # RolloutConfig.__post_init__
    if cfg.algorithm.adv_estimator != "grpo":
        raise ValueError(f"algorithm.adv_estimator is {cfg.algorithm.adv_estimator!r}; llmp-grpo runs GRPO only")
    if cfg.actor_rollout_ref.rollout.name != "sglang":
        raise ValueError(
            f"actor_rollout_ref.rollout.name is {cfg.actor_rollout_ref.rollout.name!r}; the "
            f"verl-sglang image ships SGLang as the rollout engine"
        )


def build_overrides(config_path: str | None, extra: Sequence[str]) -> list[str]:
    overrides: list[str] = []
    if config_path:
        overrides += GrpoParameters.from_mapping(load_yaml(config_path)).overrides()
    return overrides + list(extra)


def _mlflow_run(cfg: Any) -> str | None:
    """Open (or reopen after a restart) the MLflow run VeRL will log into; returns its id."""
    if "mlflow" not in list(cfg.trainer.logger):
        return None
    from llm_platform import mlflow_utils, team_names

    run_id = mlflow_utils.start_run(
        experiment=team_names.experiment_name(cfg.trainer.project_name),
        run_name=cfg.trainer.experiment_name,
        resume_file=Path(cfg.trainer.default_local_dir) / "mlflow_run_id",
    )
    mlflow_utils.log_params_flat({"grpo": _plain(cfg)})
    return run_id


def _plain(cfg: Any) -> dict:
    from omegaconf import OmegaConf

    data = OmegaConf.to_container(cfg, resolve=False)
    return {k: data[k] for k in ("algorithm", "data", "trainer") if k in data}


def _with_run_env(cfg: Any, env: dict[str, str]) -> None:
    from omegaconf import open_dict

    with open_dict(cfg):
        runtime_env = cfg.ray_kwargs.ray_init.setdefault("runtime_env", {})
        env_vars = runtime_env.setdefault("env_vars", {})
        for key, value in env.items():
            env_vars[key] = value


RUN_ENV = ("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING",)
"""What the Ray workers get through ``runtime_env`` besides the run id. Never the tracking URI, user or password:
Ray keeps a job's ``runtime_env`` in its job table, readable by anyone who can reach the dashboard or job API, and
every Ray pod already has the three from the namespace's ``mlflow`` ConfigMap and ``mlflow-credentials`` Secret
(k8s_charts/pods.py ``mlflow_credentials``, in every head and worker container), which Ray's worker processes
inherit from the raylet they are started by."""


def run_env(run_id: str) -> dict[str, str]:
    env = {"MLFLOW_RUN_ID": run_id}
    env.update({k: os.environ[k] for k in RUN_ENV if k in os.environ})
    return env


def latest_actor_checkpoint(checkpoint_dir: str | Path) -> Path | None:
    """The newest ``global_step_N/actor`` directory VeRL wrote (it records N in latest_checkpointed_iteration.txt)."""
    root = Path(checkpoint_dir)
    marker = root / "latest_checkpointed_iteration.txt"
    if not marker.is_file():
        return None
    actor = root / f"global_step_{marker.read_text().strip()}" / "actor"
    return actor if actor.is_dir() else None


def merge_and_register(cfg: Any, run_id: str | None) -> Path | None:
    actor = latest_actor_checkpoint(cfg.trainer.default_local_dir)
    if actor is None:
        return None
    target = actor.parent / "huggingface_merged"
    if not (target / "config.json").is_file():
        merge_on_gpu_worker(actor, target)
    if run_id:
        from llm_platform import mlflow_utils, team_names

        mlflow_utils.register_model_dir(target, name=team_names.registered_model_name(cfg.trainer.experiment_name))
    return target


MERGE_COMMAND = ("-m", "verl.model_merger", "merge", "--backend", "fsdp")


def merge_command(actor: Path, target: Path) -> list[str]:
    return [sys.executable, *MERGE_COMMAND, "--local_dir", str(actor), "--target_dir", str(target)]


def _merge(actor: str, target: str) -> str:
    subprocess.run(merge_command(Path(actor), Path(target)), check=True)
    return target


def merge_on_gpu_worker(actor: Path, target: Path, *, ray_module: Any = None) -> Path:
    """Merge the FSDP shards into a Hugging Face model as a Ray task on a GPU worker, not in this driver.

    The driver runs on the Ray head, whose container is limited to a few GiB (k8s_charts/ray_job.py), while
    ``verl.model_merger`` loads every shard and the full model into CPU memory (a 1.5B model: ~6 GiB in FP32, more
    while shards are concatenated) and is OOM-killed there. A GPU worker pod has the node's memory; asking for one
    GPU is what places the task on a worker (the head offers no GPU). The shards are on the team's FSx, which every
    Ray pod mounts."""
    ray = ray_module
    if ray is None:
        import ray
    if not ray.is_initialized():
        ray.init(address="auto")
    task = ray.remote(num_gpus=1, max_retries=2)(_merge)
    return Path(ray.get(task.remote(str(actor), str(target))))


def run(cfg: Any) -> None:
    from verl.trainer.main_ppo import TaskRunnerV1, run_ppo
    from verl.utils.device import auto_set_device

    auto_set_device(cfg)
    validate(cfg)
    os.environ.setdefault("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "true")
    run_id = _mlflow_run(cfg)
    if run_id:
        _with_run_env(cfg, run_env(run_id))
    if cfg.trainer.use_v1:
        run_ppo(cfg, task_runner_class=TaskRunnerV1)
    else:  # VeRL's legacy trainer
        from verl.trainer.main_ppo_v0 import TaskRunner

        run_ppo(cfg, task_runner_class=TaskRunner)
    merge_and_register(cfg, run_id)
    if run_id:
        from llm_platform import mlflow_utils

        mlflow_utils.end_run()


def main(argv: Sequence[str] | None = None) -> int:
    share_with_team()  # the driver's writes; Ray workers get the umask from their container (k8s_charts/ray_job.py)
    parser = argparse.ArgumentParser(prog="llmp-grpo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="YAML file with GrpoParameters fields (see training/configs/grpo.yaml)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="parse and validate the step file with VeRL's own checks, say what would run, exit 0/1",
    )
    parser.add_argument(
        "--validate-only", action="store_true", help="compose and validate the configuration, print it, and exit"
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of VeRL's ppo_trainer config")
    args = parser.parse_args(argv)
    if args.config:
        from llm_platform.steps import StepConfigError, check
        from llm_platform.steps import load_yaml as load_step

        try:
            check("grpo", load_step(args.config), where=args.config)
        except StepConfigError as error:
            print(f"llmp-grpo: {error}", file=sys.stderr)
            return 1
    try:
        cfg = compose(build_overrides(args.config, args.overrides))
        validate(cfg)
    except Exception as error:  # noqa: BLE001 - one line naming what is wrong, not a traceback
        print(f"llmp-grpo: invalid configuration: {error}", file=sys.stderr)
        return 1
    if not (args.check or args.validate_only):
        # the checkpoints (and the MLflow run id kept next to them) are this job's own: the RayJob's entrypoint
        # passes them as trainer.default_local_dir, so the guard reads the composed configuration
        from llm_platform.steps import StepConfigError, guard_outputs

        try:
            guard_outputs("grpo", {"checkpoint_dir": str(cfg.trainer.default_local_dir)}, args.config or "llmp-grpo")
        except StepConfigError as error:
            print(f"llmp-grpo: {error}", file=sys.stderr)
            return 1
    if args.check:
        from llm_platform.steps import load_yaml as load_step
        from llm_platform.steps import paths

        inputs, outputs = paths("grpo", load_step(args.config)) if args.config else ([], [])
        print(f"llmp-grpo: {args.config or 'the overrides'} is valid (VeRL's validate_config passed)")
        print(f"  reads:  {', '.join(inputs) or '-'}")
        print(f"  writes: {', '.join(outputs) or '-'}")
        print(
            f"  would run GRPO on {cfg.trainer.nnodes} x {cfg.trainer.n_gpus_per_node} GPUs, experiment "
            f"{cfg.trainer.project_name!r}, run {cfg.trainer.experiment_name!r}"
        )
        return 0
    if args.validate_only:
        from omegaconf import OmegaConf

        print(OmegaConf.to_yaml(cfg))
        return 0
    run(cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
