"""The job spec: a short YAML file an ML engineer writes (examples/jobs/). Validated with the same care as the
platform config (config._base.ConfigModel: unknown keys, YAML 1.1 surprises and wrong types are errors that name
the field, the value and the fix; config.strict_yaml: duplicate keys and alias bombs are refused)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from config._base import ConfigError, ConfigModel
from config.kubernetes import TIERS, Tier
from config.strict_yaml import load_yaml

JobType = Literal["sft", "evaluate", "grpo", "download-model", "prepare-data", "custom"]
JOB_TYPES: tuple[str, ...] = ("sft", "evaluate", "grpo", "download-model", "prepare-data", "custom")
GPU_TYPES = ("sft", "evaluate", "grpo")          # need GPU nodes; download-model / prepare-data are CPU jobs
_NAME = re.compile(r"[a-z]([-a-z0-9]{0,38}[a-z0-9])?")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CustomJob(ConfigModel):
    """`type: custom`: any image and command, as a PyTorchJob (one pod per node) or a RayJob."""

    kind: Literal["pytorch", "ray"] = Field("pytorch", description="`pytorch`: a PyTorchJob whose pods run "
                                                                   "`command`; `ray`: a RayJob whose entrypoint is "
                                                                   "`command` (run on the Ray head).")
    command: tuple[str, ...] = Field(description="Command (and arguments) of the container, or the Ray entrypoint.")

    @field_validator("command")
    @classmethod
    def _command(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v or not v[0].strip():
            raise ValueError("custom.command is empty; give the command to run, e.g. [python, -m, my_pkg.train]")
        return v


class JobSpec(ConfigModel):
    """One training job."""

    name: str = Field(description="Job name: 1-40 lower-case letters, digits and '-', starting with a letter.")
    team: str | None = Field(None, description="Team (= namespace). Default: the namespace of the current kube "
                                               "context.")
    tier: Tier = Field(description="production, development, research or experiment: where the job may run.")
    type: JobType = Field(description="sft, evaluate, grpo, download-model, prepare-data or custom.")
    model: str | None = Field(None, description="Hugging Face model id (download-model) or a path under /fsx.")
    dataset: str | None = Field(None, description="Dataset id (prepare-data) or a path under /fsx.")
    output: str | None = Field(None, description="Where results go, under /fsx (default per type).")
    experiment: str | None = Field(None, description="MLflow experiment of sft, evaluate and grpo jobs (default: the "
                                                     "job's name); the platform names it '<team>/<experiment>'.")
    nodes: int | None = Field(None, ge=1, le=512, description="Nodes (fixed size). Or min_nodes/max_nodes.")
    min_nodes: int | None = Field(None, ge=1, le=512, description="Elastic PyTorchJobs: fewest nodes to run on.")
    max_nodes: int | None = Field(None, ge=1, le=512, description="Elastic PyTorchJobs: most nodes.")
    gpus_per_node: int | None = Field(None, ge=1, le=8, description="GPUs per node (default: all of the node).")
    gpu_type: str | None = Field(None, description="GPU type (`gpu-type` label, e.g. h100, a100, a10g); default: "
                                                   "the platform picks from the tier's node kinds.")
    instance_type: str | None = Field(None, description="Pin one instance type (EC2 or HyperPod ml. name).")
    image: str | None = Field(None, description="Container image; default: the platform's image for the type.")
    priority_class: str | None = Field(None, description="A PriorityClass the tier allows (experiment: low or "
                                                         "preemptible).")
    cpu: int | None = Field(None, ge=1, description="CPU cores per pod (default: sized from the node kind).")
    memory_gib: int | None = Field(None, ge=1, description="Memory per pod in GiB (default: sized from the node "
                                                           "kind).")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables.")
    settings: dict[str, Any] = Field(default_factory=dict, description="Step settings: the YAML the training "
                                                                       "package's step reads (e.g. the SFT "
                                                                       "hyper-parameters).")
    grpo: dict[str, Any] = Field(default_factory=dict, description="type grpo: VeRL settings (rollout_n, "
                                                                   "tensor_parallel_size, train_batch_size, ...).")
    custom: CustomJob | None = Field(None, description="type custom: kind and command.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.fullmatch(v):
            raise ValueError(f"name {v!r} is not a valid job name; use 1-40 lower-case letters, digits and '-', "
                             f"starting with a letter, e.g. 'medical-sft'")
        return v

    @field_validator("experiment")
    @classmethod
    def _experiment(cls, v: str | None) -> str | None:
        if v is not None and not _NAME.fullmatch(v):
            raise ValueError(f"experiment {v!r} is not a valid experiment name; use 1-40 lower-case letters, digits "
                             f"and '-', starting with a letter, e.g. the name of the SFT job it belongs to")
        return v

    @field_validator("tier", mode="before")
    @classmethod
    def _tier(cls, v: object) -> object:
        if isinstance(v, str) and v not in TIERS:
            raise ValueError(f"tier {v!r} is not a job tier; use one of {', '.join(TIERS)}")
        return v

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: object) -> object:
        if isinstance(v, str) and v not in JOB_TYPES:
            raise ValueError(f"type {v!r} is not a job type; use one of {', '.join(JOB_TYPES)}")
        return v

    @field_validator("env")
    @classmethod
    def _env(cls, v: dict[str, str]) -> dict[str, str]:
        bad = [k for k in v if not _ENV_NAME.fullmatch(k)]
        if bad:
            raise ValueError(f"env names {bad!r} are not environment variable names; use letters, digits and '_'")
        return v

    @model_validator(mode="after")
    def _shape(self) -> JobSpec:
        if self.nodes is not None and (self.min_nodes is not None or self.max_nodes is not None):
            raise ValueError("give either nodes (fixed size) or min_nodes/max_nodes (elastic), not both")
        low, high = self.node_range
        if low > high:
            raise ValueError(f"min_nodes {low} is above max_nodes {high}; use min_nodes <= max_nodes")
        if (self.min_nodes or self.max_nodes) and self.type not in ("sft", "custom"):
            raise ValueError(f"min_nodes/max_nodes (elastic) apply to sft and custom PyTorchJobs; type {self.type} "
                             f"runs on a fixed number of nodes, use nodes")
        if self.type == "custom" and self.custom is None:
            raise ValueError("type custom needs a custom section: custom: {kind: pytorch, command: [...]}, and image")
        if self.type == "custom" and not self.image:
            raise ValueError("type custom needs image: the platform has no default image for arbitrary commands")
        if self.type != "custom" and self.custom is not None:
            raise ValueError(f"custom applies to type custom only; remove it (type is {self.type})")
        if self.type != "grpo" and self.grpo:
            raise ValueError(f"grpo settings apply to type grpo only; remove them (type is {self.type})")
        if self.type in ("download-model", "prepare-data") and (self.gpus_per_node or self.gpu_type
                                                                 or self.instance_type):
            raise ValueError(f"type {self.type} runs on CPU nodes; remove gpus_per_node/gpu_type/instance_type")
        if self.type in ("download-model", "sft", "evaluate", "grpo") and not self.model:
            raise ValueError(f"type {self.type} needs model: a Hugging Face id (download-model) or a path under /fsx")
        if self.type in ("prepare-data", "sft", "evaluate", "grpo") and not self.dataset:
            raise ValueError(f"type {self.type} needs dataset: a dataset id (prepare-data) or a path under /fsx")
        return self

    @property
    def node_range(self) -> tuple[int, int]:
        if self.nodes is not None:
            return self.nodes, self.nodes
        low = self.min_nodes or 1
        return low, self.max_nodes or low

    @property
    def uses_gpus(self) -> bool:
        return self.type in GPU_TYPES or self.type == "custom"


def _format(err: dict[str, Any], source: str) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        return f"{loc}: unknown key; remove it or fix its spelling (known keys: {', '.join(JobSpec.model_fields)})"
    if err["type"] == "missing":
        return f"{loc}: required field is missing; add it to {source}"
    if err["type"] == "yaml_type":
        return f"{loc}: {msg}"
    if err["type"].startswith("value_error"):
        return msg
    return f"{loc}: {msg} (got {err['input']!r})"


def parse_spec(data: Any, *, source: str = "<spec>") -> JobSpec:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a job spec is a YAML mapping (name, tier, type, ...), got "
                          f"{type(data).__name__}")
    try:
        return JobSpec.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid job spec {source}:\n  - " + "\n  - ".join(_format(e, source)
                                                                             for e in exc.errors())) from None


def load_spec(path: str | Path) -> JobSpec:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"job spec {path} does not exist; pass a YAML file such as examples/jobs/sft-medical.yaml")
    return parse_spec(load_yaml(path.read_bytes(), source=str(path)), source=str(path))
