"""MLflow for every step: one run per job, resumed after a pod restart, system metrics, the final model registered.

The tracking server and credentials come from the pod's environment (ConfigMap ``mlflow`` and Secret
``mlflow-credentials`` in the team namespace: ``MLFLOW_TRACKING_URI``, ``MLFLOW_TRACKING_USERNAME``,
``MLFLOW_TRACKING_PASSWORD``). System metrics (CPU, memory, disk, network and, with nvidia-ml-py, GPU utilisation
and memory) are sampled by MLflow itself when ``MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING`` is true, which
:func:`start_run` sets unless the pod chose otherwise (https://mlflow.org/docs/latest/ml/tracking/system-metrics/).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# MLflow limits a param value to 6000 characters (mlflow/utils/validation.py MAX_PARAM_VAL_LENGTH).
MAX_PARAM_LENGTH = 6000


def start_run(*, experiment: str, run_name: str, resume_file: str | Path | None = None) -> str:
    """Start (or, when ``resume_file`` names an earlier run of this job, reopen) the MLflow run; returns its id."""
    import mlflow

    os.environ.setdefault("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "true")
    if mlflow.active_run():
        return mlflow.active_run().info.run_id
    mlflow.set_experiment(experiment)
    run_id = None
    if resume_file and Path(resume_file).is_file():
        run_id = Path(resume_file).read_text().strip() or None
    if run_id:
        run = mlflow.start_run(run_id=run_id, log_system_metrics=_system_metrics())
    else:
        run = mlflow.start_run(run_name=run_name, log_system_metrics=_system_metrics())
        if resume_file:
            Path(resume_file).parent.mkdir(parents=True, exist_ok=True)
            Path(resume_file).write_text(run.info.run_id)
    return run.info.run_id


def _system_metrics() -> bool:
    return os.environ.get("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "").lower() in ("1", "true", "yes")


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        else:
            out[name] = str(value)[:MAX_PARAM_LENGTH]
    return out


def log_params_flat(data: Mapping[str, Any]) -> None:
    """Log nested settings as dotted params. Params are immutable in MLflow, so on a resumed run only the ones
    not logged yet are sent (a resumed run has the same settings)."""
    import mlflow

    params = flatten(data)
    run = mlflow.active_run()
    existing = mlflow.get_run(run.info.run_id).data.params if run else {}
    new = {k: v for k, v in params.items() if k not in existing}
    if new:
        mlflow.log_params(new)


def log_metrics(metrics: Mapping[str, float], step: int | None = None) -> None:
    import mlflow

    mlflow.log_metrics({k: float(v) for k, v in metrics.items()}, step=step)


def register_model_dir(model_dir: str | Path, *, name: str, artifact_path: str = "model") -> Any:
    """Log a Hugging Face model directory with the MLflow transformers flavour and register it as ``name``."""
    import mlflow

    info = mlflow.transformers.log_model(transformers_model=str(model_dir), name=artifact_path,
                                         task="text-generation", registered_model_name=name,
                                         pip_requirements=serving_requirements())
    return info


def serving_requirements() -> list[str]:
    """What loading the registered model needs, from the versions installed here. Given explicitly: MLflow's
    inference of requirements imports every optional package it knows of (torchvision, ...) and can fail."""
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for package in ("torch", "transformers", "tokenizers", "safetensors", "accelerate"):
        try:
            out.append(f"{package}=={version(package).split('+')[0]}")  # no local label such as +cpu / +cu128
        except PackageNotFoundError:
            continue
    return out


def end_run() -> None:
    """End the active run; first record one last system-metrics sample (:func:`flush_system_metrics`)."""
    import mlflow

    run = mlflow.active_run()
    if run:
        flush_system_metrics(run.info.run_id)
        mlflow.end_run()


def flush_system_metrics(run_id: str) -> bool:
    """Publish the system metrics sampled so far, plus one sample taken now, for ``run_id``.

    MLflow's monitor (mlflow 3.17.2 ``system_metrics/system_metrics_monitor.py``) samples at once, then publishes
    only after ``MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL`` (10 s) and drops what it holds when the run ends
    (``finish()`` stops the loop without publishing). A step shorter than the interval (evaluation of a small set,
    a resumed run that only merges) would record no ``system/*`` metric at all. Returns whether a sample was
    published; a monitor without these methods (another MLflow) is left alone."""
    from mlflow.tracking import fluent

    monitor = getattr(fluent, "run_id_to_system_metrics_monitor", {}).get(run_id)
    collect, aggregate = getattr(monitor, "collect_metrics", None), getattr(monitor, "aggregate_metrics", None)
    publish = getattr(monitor, "publish_metrics", None)
    if not (collect and aggregate and publish):
        return False
    try:
        collect()
        publish(aggregate())
    except Exception:  # noqa: BLE001 - system metrics are best effort, never a reason to fail a job
        return False
    return True
