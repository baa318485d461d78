"""The job-type record and its registry: one :class:`JobType` per `type:` a spec may name, registered by the type's
own module in this package (the way Kueue registers its integrations: each one declares itself, the framework
iterates). Everything llmft knows about a type lives in its record; the spec rules, the step file, the image, the
workload, the default output, the local CPU adaptation and the preflight checks are read from it, never from a list
of type names. ``docs/extending.md`` "Add a job type" walks through a new one.

This module imports nothing of llmft above it (the spec, the builders), so every layer may read the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from llm_platform import steps as step_contract

if TYPE_CHECKING:
    from config import TeamConfig

# A job spec (llmft.spec.JobSpec). This module sits below the spec, which reads the registry to validate `type:`, so
# it names the spec's type without importing it; the type modules import the real one.
JobSpec = Any

Workload = Literal["pytorch", "ray", "job", "deployment", "custom"]
# What a spec field the type needs must be: a path under /fsx (what an earlier job wrote there), a Hugging Face id
# (download-model fetches it at a pinned revision), or a dataset source (a built-in name or a file under /fsx).
Need = Literal["path", "hub-id", "source"]
# (the step file's fields the spec sets, the spec field each comes from): `settings.<key>` may not repeat them
Fields = tuple[dict[str, Any], dict[str, str]]


@dataclass(frozen=True)
class FieldContext:
    """What a type's :attr:`JobType.fields` may read besides the spec (decided by the builder before it renders)."""

    team: TeamConfig
    output: str
    experiment: str
    gpus_per_node: int = 1
    instance_type: str | None = None
    # on-demand USD per GPU-hour of the dearest instance type the job may be placed on (config/data/prices.yaml);
    # None: a CPU job, or no price for the environment's region
    usd_per_gpu_hour: float | None = None


@dataclass(frozen=True)
class JobType:
    """One job type: what a spec of ``type: <name>`` becomes.

    - ``workload``: ``pytorch`` (a PyTorchJob, torchrun), ``ray`` (a RayJob), ``job`` (one CPU pod, batch/v1 Job),
      ``deployment`` (a served model), ``custom`` (the spec's ``custom.kind`` decides).
    - ``step``: the training package's step it runs (``llm_platform.steps.STEPS``; its module, schema, inputs and
      outputs), None for a type without a step file (custom, serve).
    - ``image``: the platform image it runs (``images/<name>/``); None: the spec's own (custom).
    - ``gpus``/``mlflow``: it holds GPUs / logs to MLflow (the spec's ``experiment`` applies).
    - ``needs``: the spec fields it cannot run without (``model``, ``dataset``), with what each must be
      (:data:`Need`).
    - ``output_root``: the team folder of its default output (:func:`k8s_charts.team_storage.team_paths`);
      ``default_output`` overrides it.
    - ``elastic``: ``min_nodes``/``max_nodes`` apply; ``fixed_gpus_per_node``: GPUs per node whatever the node has
      (a benchmark measures one); ``one_process``/``efa``: the PyTorchJob's processes per node and network.
    - ``settings_section``: the spec section that adds step fields (``settings``, GRPO's ``grpo``).
    - ``fields``: the step file's fields from the spec (:data:`Fields`); ``rules``: the type's own spec rules
      (each a problem naming the field and the fix), checked when the spec loads; ``settings_rules``: rules of its
      settings that depend on the job (tier, ...), checked by preflight; ``memory``: whether the model fits a
      GPU, called by preflight with the plan and each instance type the job may land on, returning ("ok" |
      "FAIL", message) (llmft/memory_check.py: every type that loads weights has one; a model of unknown shape
      fails, never skips); ``cpu_adaptation``: what `llmft run --local`
      changes in its step file on a machine without GPUs; ``local_check_only``: a local run only checks its step
      file.
    """

    name: str
    summary: str
    workload: Workload
    gpus: bool
    step: str | None = None
    image: str | None = "sft"
    mlflow: bool = False
    needs: Mapping[str, Need] = field(default_factory=dict)
    output_root: str = "checkpoints"
    default_output: Callable[[JobSpec], str] | None = None
    elastic: bool = False
    fixed_gpus_per_node: int | None = None
    one_process: bool = False
    efa: bool = True
    settings_section: str = "settings"
    fields: Callable[[JobSpec, FieldContext], Fields] | None = None
    rules: Callable[[JobSpec], list[str]] | None = None
    settings_rules: Callable[[JobSpec], list[str]] | None = None
    memory: Callable[[Any, str], tuple[str, str]] | None = None
    cpu_adaptation: Mapping[str, Any] = field(default_factory=dict)
    local_check_only: bool = False

    @property
    def module(self) -> str | None:
        """The step's module (`python -m <module> --config <step file>`), from the training package's contract."""
        step = step_contract.STEPS.get(self.step or "")
        return step.module if step else None

    @property
    def distributed(self) -> bool:
        """Runs under torchrun, one process per device (the step contract's ``distributed``)."""
        step = step_contract.STEPS.get(self.step or "")
        return bool(step and step.distributed)

    def output_for(self, spec: JobSpec) -> str:
        """The directory the job writes when the spec names no ``output``."""
        if self.default_output is not None:
            return self.default_output(spec)
        from k8s_charts.team_storage import team_paths  # not at import: `llmft --help` loads no chart library

        return f"{getattr(team_paths(), self.output_root)}/{spec.name}"


_REGISTRY: dict[str, JobType] = {}


def register(job_type: JobType) -> JobType:
    """Add ``job_type`` to the registry (its module does this when imported); a name registers once, and a type with
    a step names one of the training package's steps."""
    if job_type.name in _REGISTRY:
        raise ValueError(f"job type {job_type.name!r} is registered twice")
    if job_type.step is not None and job_type.step not in step_contract.STEPS:
        raise ValueError(
            f"job type {job_type.name!r} names step {job_type.step!r}, which the training package does not have "
            f"(llm_platform.steps.STEPS: {', '.join(step_contract.STEPS)})"
        )
    _REGISTRY[job_type.name] = job_type
    return job_type


def unregister(name: str) -> None:
    """Remove a type (tests that register a toy type clean up with this)."""
    _REGISTRY.pop(name, None)


def registered() -> dict[str, JobType]:
    """Every registered type by name, in registration order."""
    return dict(_REGISTRY)


def get(name: str) -> JobType:
    """The type ``name``; a KeyError naming the known types otherwise."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"type {name!r} is not a job type; use one of {', '.join(_REGISTRY)}") from None


def experiment_name(team: TeamConfig, spec: JobSpec) -> str:
    """The MLflow experiment of a job: ``<team>/<spec.experiment or job name>``."""
    return f"{team.name}/{spec.experiment or spec.name}"


def registered_model_name(team: TeamConfig, spec: JobSpec) -> str:
    """The registered model a job creates: ``<team>.<job name>``."""
    return f"{team.name}.{spec.name}"


def files(directory: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` inside ``directory``."""
    return tuple(f"{directory.rstrip('/')}/{n}" for n in names)


def present(**values: Any) -> dict[str, Any]:
    """``values`` without those that are None."""
    return {k: v for k, v in values.items() if v is not None}
