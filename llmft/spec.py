"""The job spec: a short YAML file an ML engineer writes (examples/jobs/). Validated with the same care as the
platform config (config._base.ConfigModel: unknown keys, YAML 1.1 surprises and wrong types are errors that name
the field, the value and the fix; config.strict_yaml: duplicate keys and alias bombs are refused)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from llm_platform.engine_flags import flag_problems
from llm_platform.steps import odd_characters
from pydantic import Field, ValidationError, field_validator, model_validator

from config._base import ConfigError, ConfigModel
from config.kubernetes import TIERS, Tier
from config.strict_yaml import load_yaml
from k8s_charts.serving import DEFAULT_TARGET_REQUESTS, ENGINES, EVALUATED_ALIAS, PRODUCTION_TIERS
from llmft.job_types.base import get as job_type
from llmft.job_types.base import registered


def job_types() -> tuple[str, ...]:
    """Every `type:` a spec may name: the registry's (llmft/job_types/, one module per type)."""
    return tuple(registered())


_NAME = re.compile(r"[a-z]([-a-z0-9]{0,38}[a-z0-9])?")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# An image reference with a tag or a digest: [registry/]repository[:tag][@sha256:<64 hex>]
_IMAGE = re.compile(
    r"(?P<repo>[a-z0-9]+(?:[._/:-][a-z0-9]+)*?)(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?"
)
_SECRET_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
_SECRET_KEY = re.compile(r"[-._a-zA-Z0-9]{1,253}")
# What the platform sets in every job pod and a spec may not change: the MLflow server and the team's MLflow user
# (ConfigMap `mlflow`, Secret `mlflow-credentials`), the team's identity and storage (k8s_charts/pods.py), AWS
# credentials (EKS Pod Identity injects AWS_CONTAINER_*), Ray's and Kubernetes' own variables.
PROTECTED_ENV = frozenset({"HOME", "TEAM_DATA_DIR", "TEAM_DIR", "HF_HOME", "CHECKPOINT_DIR"})
PROTECTED_ENV_PREFIXES = ("MLFLOW_", "AWS_", "RAY_", "KUBERNETES_", "PLATFORM_")
# What a built-in step's pod may not be given (issue 41): variables that load other code into the step (the Python
# path and start-up file, the dynamic loader's preload and search path), that choose other devices than the GPUs the
# job holds (the container runtime's NVIDIA_VISIBLE_DEVICES, CUDA's CUDA_VISIBLE_DEVICES, ROCm's), or that send the
# step's traffic and credentials elsewhere (huggingface_hub's HF_ENDPOINT: the HF_TOKEN goes to that host; proxies;
# CA bundles that would let another host pass as the Hub). A custom job's image and command are its own.
REDIRECTING_ENV = frozenset(
    {
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "PYTHONSAFEPATH",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "CUDA_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "HIP_VISIBLE_DEVICES",
        "HF_ENDPOINT",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
    }
)
MIN_TOKEN_AUTH_RAY = (2, 52, 0)  # = k8s_charts.ray_job.MIN_TOKEN_AUTH_RAY (tests/test_bad_specs.py checks)
# Secrets of the team's namespace that the platform fills and its pods read under fixed names (the team's MLflow user,
# k8s_charts.values.MLFLOW_CREDENTIALS_SECRET): a spec may not copy them into a variable of its choosing.
PLATFORM_SECRETS = frozenset({"mlflow-credentials"})
# Sizes: one environment value may be at most 32 KiB and all of them 64 KiB (Linux refuses an exec whose single
# string exceeds 128 KiB, MAX_ARG_STRLEN: E2BIG); a spec nests at most 32 levels (a deeper one is no job spec, and
# Python's parsers recurse).
MAX_ENV_VALUE = 32 * 1024
MAX_ENV_TOTAL = 64 * 1024
MAX_DEPTH = 32
# Kubernetes expands $(VAR) in an env value (dependent environment variables); `$$(` is its escape.
_K8S_INTERPOLATION = re.compile(r"(?<!\$)\$\([A-Za-z_][A-Za-z0-9_]*\)")


def protected_env(name: str) -> bool:
    return name in PROTECTED_ENV or name.startswith(PROTECTED_ENV_PREFIXES)


class SecretKeyRef(ConfigModel):
    """One key of a Secret in the team's namespace, e.g. `{secret: hf-token, key: token}`."""

    secret: str = Field(description="Name of the Secret in the team's namespace.")
    key: str = Field(description="Key inside the Secret.")

    @field_validator("secret")
    @classmethod
    def _secret(cls, v: str) -> str:
        if not _SECRET_NAME.fullmatch(v):
            raise ValueError(f"secret {v!r} is not a Secret name; use lower-case letters, digits, '-' and '.'")
        return v

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        if not _SECRET_KEY.fullmatch(v):
            raise ValueError(f"key {v!r} is not a Secret key; use letters, digits, '-', '_' and '.'")
        return v


class CustomJob(ConfigModel):
    """`type: custom`: any image and command, as a PyTorchJob (one pod per node) or a RayJob."""

    kind: Literal["pytorch", "ray"] = Field(
        "pytorch",
        description="`pytorch`: a PyTorchJob whose pods run "
        "`command`; `ray`: a RayJob whose entrypoint is "
        "`command` (run on the Ray head).",
    )
    command: tuple[str, ...] = Field(description="Command (and arguments) of the container, or the Ray entrypoint.")
    ray_version: str | None = Field(
        None,
        description="kind ray: the Ray version in the image (>= 2.52.0, token "
        "authentication); default: the platform image's.",
    )

    @field_validator("command")
    @classmethod
    def _command(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v or not v[0].strip():
            raise ValueError("custom.command is empty; give the command to run, e.g. [python, -m, my_pkg.train]")
        return v

    @field_validator("ray_version")
    @classmethod
    def _ray_version(cls, v: str | None) -> str | None:
        if v is None:
            return v
        match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", v)
        if not match:
            raise ValueError(
                f"custom.ray_version {v!r} is not a Ray version; give the image's Ray release, e.g. 2.55.1"
            )
        if tuple(int(p) for p in match.groups()) < MIN_TOKEN_AUTH_RAY:
            raise ValueError(
                f"custom.ray_version: Ray {v} is older than 2.52.0, the first release with token "
                f"authentication, which every platform RayJob uses; use an image with Ray >= 2.52.0"
            )
        return v


_MODEL_NAME = re.compile(r"(?P<team>[a-z0-9]([-a-z0-9]*[a-z0-9])?)\.(?P<name>[A-Za-z0-9][\w.-]{0,200})")
_ALIAS = re.compile(r"[A-Za-z_][\w-]{0,255}")
SERVE_MISSING = "type serve needs a serve section"


class ModelShape(ConfigModel):
    """A decoder-only transformer's dimensions, as its config.json gives them: what preflight's memory check reads
    when it cannot read the model's config.json (llm_platform.memory.ModelDims)."""

    hidden_size: int = Field(ge=1, le=65536, description="config.json hidden_size.")
    intermediate_size: int = Field(ge=1, le=262144, description="config.json intermediate_size.")
    num_hidden_layers: int = Field(ge=1, le=1024, description="config.json num_hidden_layers.")
    num_attention_heads: int = Field(ge=1, le=1024, description="config.json num_attention_heads.")
    num_key_value_heads: int | None = Field(
        None, ge=1, le=1024, description="config.json num_key_value_heads (default: num_attention_heads)."
    )
    vocab_size: int = Field(ge=1, le=4_000_000, description="config.json vocab_size.")
    head_dim: int | None = Field(None, ge=1, le=4096, description="config.json head_dim (default: hidden / heads).")
    tie_word_embeddings: bool = Field(False, description="config.json tie_word_embeddings.")
    max_position_embeddings: int | None = Field(
        None, ge=1, description="config.json max_position_embeddings (serve: the context when no --context-length)."
    )


class ServeSection(ConfigModel):
    """`type: serve`: which registered model version to serve, with which engine, how many replicas."""

    model: str = Field(
        description="Registered MLflow model `<team>.<name>` (the team's own, e.g. ml-research.medical-sft)."
    )
    version: int | None = Field(None, ge=1, description="Model version to serve (give version or alias).")
    alias: str | None = Field(
        None, description="Model alias to serve, resolved to its version at submit (e.g. evaluated)."
    )
    engine: str = Field("sglang", description="Serving engine: sglang (an OpenAI-compatible API).")
    tensor_parallel: int | None = Field(
        None, ge=1, le=8, description="GPUs one engine shards the model over (default: the GPUs of the pod)."
    )
    min_replicas: int = Field(
        1, ge=0, le=64, description="Fewest replicas; 0 scales to zero when idle (not in the production tier)."
    )
    max_replicas: int = Field(1, ge=1, le=64, description="Most replicas the autoscaler may run.")
    target_requests_per_replica: int = Field(
        DEFAULT_TARGET_REQUESTS,
        ge=1,
        le=4096,
        description="Running + queued requests per replica the autoscaler aims at.",
    )
    engine_args: tuple[str, ...] = Field(
        (), description="Extra engine command-line flags, e.g. [--context-length, '8192']."
    )

    @field_validator("model")
    @classmethod
    def _model(cls, v: str) -> str:
        if not _MODEL_NAME.fullmatch(v):
            raise ValueError(
                f"serve.model {v!r} is not a registered model name; write <team>.<name>, e.g. "
                f"ml-research.medical-sft (the name an sft job registers)"
            )
        return v

    @field_validator("alias")
    @classmethod
    def _alias(cls, v: str | None) -> str | None:
        if v is not None and not _ALIAS.fullmatch(v):
            raise ValueError(
                f"serve.alias {v!r} is not an MLflow alias; use letters, digits, '_' and '-', e.g. {EVALUATED_ALIAS}"
            )
        return v

    @field_validator("engine")
    @classmethod
    def _engine(cls, v: str) -> str:
        if v not in ENGINES:
            raise ValueError(f"serve.engine {v!r} is not a serving engine; use one of {', '.join(ENGINES)}")
        return v

    @field_validator("engine_args")
    @classmethod
    def _engine_args(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        # the platform's allowlist: exact flag names, checked values, no engine needed (llm_platform/engine_flags.py;
        # paths are checked against the resolved version in preflight, SGLang's own parser where it is installed)
        problems = flag_problems(list(v))
        if problems:
            raise ValueError("; ".join(f"serve.{p}" for p in problems))
        return v

    @model_validator(mode="after")
    def _choice(self) -> ServeSection:
        problems = []
        if (self.version is None) == (self.alias is None):
            given = "both" if self.version is not None else "neither"
            problems.append(
                f"serve: {given} of version and alias given; give exactly one: version: <number> (a "
                f"fixed version) or alias: <name> (e.g. alias: {EVALUATED_ALIAS})"
            )
        if self.min_replicas > self.max_replicas:
            problems.append(
                f"serve.min_replicas {self.min_replicas} is above serve.max_replicas "
                f"{self.max_replicas}; use min_replicas <= max_replicas"
            )
        if problems:
            raise ValueError("\n  - ".join(problems))
        return self


class JobSpec(ConfigModel):
    """One training job."""

    name: str = Field(description="Job name: 1-40 lower-case letters, digits and '-', starting with a letter.")
    team: str | None = Field(
        None, description="Team (= namespace). Default: the namespace of the current kube context."
    )
    tier: Tier = Field(description="production, development, research or experiment: where the job may run.")
    type: str = Field(description="The job type: one of llmft/job_types/ (sft, evaluate, grpo, download-model, ...).")
    model: str | None = Field(None, description="Hugging Face model id (download-model) or a path under /fsx.")
    dataset: str | None = Field(None, description="Dataset id (prepare-data) or a path under /fsx.")
    output: str | None = Field(None, description="Where results go, under /fsx (default per type).")
    experiment: str | None = Field(
        None,
        description="MLflow experiment of sft, evaluate, grpo and benchmark jobs "
        "(default: the job's name); the platform names it "
        "'<team>/<experiment>'.",
    )
    nodes: int | None = Field(None, ge=1, le=512, description="Nodes (fixed size). Or min_nodes/max_nodes.")
    min_nodes: int | None = Field(None, ge=1, le=512, description="Elastic PyTorchJobs: fewest nodes to run on.")
    max_nodes: int | None = Field(None, ge=1, le=512, description="Elastic PyTorchJobs: most nodes.")
    gpus_per_node: int | None = Field(None, ge=1, le=8, description="GPUs per node (default: all of the node).")
    gpu_type: str | None = Field(
        None,
        description="GPU type (`gpu-type` label, e.g. h100, a100, a10g); default: "
        "the platform picks from the tier's node kinds.",
    )
    instance_type: str | None = Field(None, description="Pin one instance type (EC2 or HyperPod ml. name).")
    image: str | None = Field(None, description="Container image; default: the platform's image for the type.")
    priority_class: str | None = Field(
        None, description="A PriorityClass the tier allows (experiment: low or preemptible)."
    )
    cpu: int | None = Field(None, ge=1, description="CPU cores per pod (default: sized from the node kind).")
    memory_gib: int | None = Field(None, ge=1, description="Memory per pod in GiB (default: sized from the node kind).")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Extra environment variables (literals; the platform's MLflow and team variables are fixed).",
    )
    secret_env: dict[str, SecretKeyRef] = Field(
        default_factory=dict,
        description="Environment variables read "
        "from Secrets of the team's namespace, e.g. HF_TOKEN: {secret: "
        "hf-token, key: token}.",
    )
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="Step settings: the YAML the training package's step reads (e.g. the SFT hyper-parameters).",
    )
    grpo: dict[str, Any] = Field(
        default_factory=dict,
        description="type grpo: VeRL settings (rollout_n, tensor_parallel_size, train_batch_size, ...).",
    )
    custom: CustomJob | None = Field(None, description="type custom: kind and command.")
    serve: ServeSection | None = Field(None, description="type serve: the registered model, engine and replicas.")
    model_shape: str | ModelShape | None = Field(
        None,
        description="The model's shape for preflight's memory check when llmft cannot read its config.json: a known "
        "shape (llm_platform.memory.SHAPES, e.g. qwen2.5-1.5b) or its config.json dimensions.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.fullmatch(v):
            raise ValueError(
                f"name {v!r} is not a valid job name; use 1-40 lower-case letters, digits and '-', "
                f"starting with a letter, e.g. 'medical-sft'"
            )
        return v

    @field_validator("experiment")
    @classmethod
    def _experiment(cls, v: str | None) -> str | None:
        if v is not None and not _NAME.fullmatch(v):
            raise ValueError(
                f"experiment {v!r} is not a valid experiment name; use 1-40 lower-case letters, digits "
                f"and '-', starting with a letter, e.g. the name of the SFT job it belongs to"
            )
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
        if isinstance(v, str) and v not in job_types():
            raise ValueError(f"type {v!r} is not a job type; use one of {', '.join(job_types())}")
        return v

    @field_validator("env", "secret_env")
    @classmethod
    def _env(cls, v: dict[str, Any], info: Any) -> dict[str, Any]:
        bad = [k for k in v if not _ENV_NAME.fullmatch(k)]
        if bad:
            raise ValueError(
                f"{info.field_name} names {bad!r} are not environment variable names; use letters, digits and '_'"
            )
        fixed = [k for k in v if protected_env(k)]
        if fixed:
            raise ValueError(
                f"{info.field_name}: {', '.join(fixed)} are set by the platform (MLflow, the team's "
                f"identity and storage, AWS credentials) and cannot be overridden; remove them"
            )
        if info.field_name == "secret_env":
            taken = [f"{k} ({ref.secret})" for k, ref in v.items() if ref.secret in PLATFORM_SECRETS]
            if taken:
                raise ValueError(
                    f"secret_env: {', '.join(taken)} reads a Secret the platform owns (the team's MLflow "
                    f"user, given to every pod as MLFLOW_TRACKING_USERNAME/PASSWORD only); it cannot be "
                    f"copied into another variable: remove it, or store your own Secret and name that"
                )
            return v
        problems = []
        for k, value in v.items():
            if _K8S_INTERPOLATION.search(value):
                problems.append(
                    f"env.{k}: {value[:60]!r} contains {_K8S_INTERPOLATION.search(value).group(0)}, "
                    f"which Kubernetes replaces with another variable's value; env values are literal: "
                    f"write $$(...) for the text itself, or use secret_env for a Secret"
                )
            if len(value.encode()) > MAX_ENV_VALUE:
                problems.append(
                    f"env.{k}: {len(value.encode())} bytes, more than the {MAX_ENV_VALUE // 1024} KiB an "
                    f"environment value may have (the kernel refuses to start a process whose single "
                    f"string exceeds 128 KiB); put the data in a file under /fsx and pass its path"
                )
        total = sum(len(k) + len(x.encode()) + 2 for k, x in v.items())
        if total > MAX_ENV_TOTAL:
            problems.append(
                f"env: {total} bytes in all, more than {MAX_ENV_TOTAL // 1024} KiB; put large values in "
                f"files under /fsx and pass their paths"
            )
        if problems:
            raise ValueError("\n  - ".join(problems))
        return v

    @field_validator("image")
    @classmethod
    def _image(cls, v: str | None) -> str | None:
        if v is None:
            return v
        m = _IMAGE.fullmatch(v)
        if not m:
            raise ValueError(
                f"image {v!r} is not an image reference; use registry/repository:tag or "
                f"registry/repository@sha256:<digest>"
            )
        if not m.group("digest") and (not m.group("tag") or m.group("tag") == "latest"):
            raise ValueError(
                f"image {v!r} is not pinned: {'latest moves' if m.group('tag') else 'no tag means latest'}"
                f", so a resubmit or a restarted pod can run other code; give a version tag "
                f"(e.g. {m.group('repo')}:1.2.3) or a digest (@sha256:...)"
            )
        return v

    @model_validator(mode="after")
    def _shape(self) -> JobSpec:
        problems = self.problems()
        if problems:
            raise ValueError("\n  - ".join(problems))
        return self

    def problems(self) -> list[str]:
        """Every rule of the spec as a whole that it breaks (all at once), each with the field and the fix: the
        rules of every spec, then the type's own (its record's ``rules``, llmft/job_types/)."""
        kind = job_type(self.type)
        out = self._size_problems() + self._type_field_problems() + self._input_problems()
        out += kind.rules(self) if kind.rules else []
        if self.type == "serve" or self.serve is not None:
            out += self._serve_problems()
        out += self._model_shape_problems()
        redirecting = sorted((set(self.env) | set(self.secret_env)) & REDIRECTING_ENV)
        if redirecting and kind.step is not None:
            out.append(
                f"env: {', '.join(redirecting)} would load other code, use other devices or send the step's traffic "
                f"and credentials elsewhere; type {self.type} runs the platform's step as it is: remove them (type "
                f"custom runs your own image and command)"
            )
        clash = sorted(set(self.env) & set(self.secret_env))
        if clash:
            out.append(f"{', '.join(clash)} given in both env and secret_env; keep one")
        return out

    def _size_problems(self) -> list[str]:
        """The rules of nodes, min_nodes/max_nodes and gpus_per_node the spec breaks."""
        out: list[str] = []
        t, kind = self.type, job_type(self.type)
        if self.nodes is not None and (self.min_nodes is not None or self.max_nodes is not None):
            out.append("give either nodes (fixed size) or min_nodes/max_nodes (elastic), not both")
        low, high = self.node_range
        if low > high:
            out.append(f"min_nodes {low} is above max_nodes {high}; use min_nodes <= max_nodes")
        if (self.min_nodes or self.max_nodes) and not kind.elastic:
            elastic = " and ".join(n for n, k in registered().items() if k.elastic)
            out.append(
                f"min_nodes/max_nodes (elastic) apply to {elastic} PyTorchJobs; type {t} runs on a fixed "
                f"number of nodes, use nodes"
            )
        if not kind.gpus:
            given = [
                f
                for f in ("nodes", "min_nodes", "max_nodes", "gpus_per_node", "gpu_type", "instance_type")
                if getattr(self, f) is not None
            ]
            if given:
                out.append(f"type {t} is one CPU pod on the system nodes or the CPU pool; remove {', '.join(given)}")
        return out

    def _type_field_problems(self) -> list[str]:
        """The rules of experiment, custom and the settings sections: given only for the types they apply to."""
        out: list[str] = []
        t, kind = self.type, job_type(self.type)
        if self.experiment is not None and not kind.mlflow:
            logging = [n for n, k in registered().items() if k.mlflow]
            out.append(
                f"experiment applies to {', '.join(logging[:-1])} and {logging[-1]} (the steps that "
                f"log to MLflow); remove it (type is {t})"
            )
        if self.custom is not None and self.custom.ray_version and self.custom.kind != "ray":
            out.append("custom.ray_version applies to kind ray; remove it")
        if kind.workload != "custom" and self.custom is not None:
            out.append(f"custom applies to type custom only; remove it (type is {t})")
        if kind.settings_section != "grpo" and self.grpo:
            out.append(f"grpo settings apply to type grpo only; remove them (type is {t})")
        if kind.settings_section == "grpo" and self.settings:
            out.append(f"type {t} takes its settings under grpo:, not settings:; move them")
        return out

    def _model_shape_problems(self) -> list[str]:
        """model_shape: a known shape or consistent dimensions, for a type whose memory preflight checks."""
        from llm_platform.memory import SHAPES

        shape = self.model_shape
        if shape is None:
            return []
        checked = [n for n, k in registered().items() if k.memory is not None]
        if job_type(self.type).memory is None:
            return [
                f"model_shape applies to the types whose GPU memory preflight checks ({', '.join(checked)}); "
                f"remove it (type is {self.type})"
            ]
        known = ", ".join(k for k in SHAPES if k != "tiny")
        if isinstance(shape, str):
            if shape not in SHAPES:
                return [
                    f"model_shape {shape!r} is not a known shape; use one of {known}, or give the model's "
                    f"config.json dimensions (model_shape: {{hidden_size: ..., intermediate_size: ..., "
                    f"num_hidden_layers: ..., num_attention_heads: ..., num_key_value_heads: ..., vocab_size: ...}})"
                ]
            return []
        out = []
        kv = shape.num_key_value_heads or shape.num_attention_heads
        if shape.num_attention_heads % kv:
            out.append(
                f"model_shape.num_key_value_heads {kv} does not divide num_attention_heads "
                f"{shape.num_attention_heads}; copy both from the model's config.json"
            )
        if shape.head_dim is None and shape.hidden_size % shape.num_attention_heads:
            out.append(
                f"model_shape.hidden_size {shape.hidden_size} is not a multiple of num_attention_heads "
                f"{shape.num_attention_heads}; give head_dim from the model's config.json"
            )
        return out

    def _input_problems(self) -> list[str]:
        """The model and dataset the type needs (its record's ``needs``)."""
        out: list[str] = []
        t, kind = self.type, job_type(self.type)
        if "model" in kind.needs and not self.model:
            out.append(f"type {t} needs model: a Hugging Face id (download-model) or a path under /fsx")
        if "dataset" in kind.needs and not self.dataset:
            out.append(f"type {t} needs dataset: a built-in dataset name (prepare-data) or a path under /fsx")
        return out

    # --- type: serve (issue 34) ---------------------------------------------------------------------------------
    # One engine per pod on one node (multi-node serving is not supported); the registered model is resolved at
    # render time (llmft/registry.py), the node kind at build time (llmft/serve_build.py).
    def _serve_problems(self) -> list[str]:
        if self.type != "serve":
            return [f"serve applies to type serve only; remove it (type is {self.type})"]
        if self.serve is None:
            return [SERVE_MISSING + ": serve: {model: <team>.<name>, alias: evaluated}"]
        out = []
        given = [
            f
            for f in ("model", "dataset", "output", "experiment", "min_nodes", "max_nodes")
            if getattr(self, f) is not None
        ] + [f for f in ("settings", "grpo") if getattr(self, f)]
        if given:
            out.append(
                f"type serve takes its model under serve: (serve.model, serve.version/alias); remove {', '.join(given)}"
            )
        if self.nodes not in (None, 1):
            out.append(
                f"nodes {self.nodes}: multi-node serving is not supported, one replica runs on one node; use "
                f"nodes: 1 (or leave it out) and raise serve.max_replicas for more throughput"
            )
        tp, gpus = self.serve.tensor_parallel, self.gpus_per_node
        if tp and gpus and gpus % tp:
            out.append(
                f"serve.tensor_parallel {tp} does not divide gpus_per_node {gpus}: each pod runs "
                f"gpus_per_node / tensor_parallel engines of tensor_parallel GPUs; use a divisor of {gpus}"
            )
        if self.serve.min_replicas == 0 and self.tier in PRODUCTION_TIERS:
            out.append(
                f"serve.min_replicas 0 (scale to zero) is not allowed in tier {self.tier}: a production "
                f"endpoint keeps a replica up; use min_replicas >= 1, or a development tier to scale to zero"
            )
        return out

    @property
    def node_range(self) -> tuple[int, int]:
        if self.nodes is not None:
            return self.nodes, self.nodes
        low = self.min_nodes or 1
        return low, self.max_nodes or low

    @property
    def uses_gpus(self) -> bool:
        return job_type(self.type).gpus


def _model_at(loc: tuple[Any, ...]) -> type[ConfigModel]:
    """The model whose keys are at ``loc`` (the spec, a secret_env entry, the custom section)."""
    if len(loc) >= 3 and loc[0] == "secret_env":
        return SecretKeyRef
    if len(loc) >= 2 and loc[0] == "custom":
        return CustomJob
    if len(loc) >= 2 and loc[0] == "serve":
        return ServeSection
    return JobSpec


def _format(err: dict[str, Any], source: str) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    odd = odd_characters(loc) or (odd_characters(err["input"]) if isinstance(err.get("input"), str) else "")
    if err["type"] == "extra_forbidden":
        known = ", ".join(_model_at(tuple(err["loc"])).model_fields)
        return f"{loc}: unknown key{odd}; remove it or fix its spelling (known keys here: {known})"
    if err["type"] == "missing":
        return f"{loc}: required field is missing; add it to {source}"
    if err["type"] == "yaml_type":
        return f"{loc}: {msg}"
    if err["type"].startswith("value_error"):
        return msg + odd
    return f"{loc}: {msg} (got {err['input']!r}){odd}"


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of ``value`` (mappings and lists), counting no further than ``limit`` + 1, without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if level > limit:
            return level
        if isinstance(item, dict):
            stack += [(v, level + 1) for v in item.values()]
        elif isinstance(item, (list, tuple)):
            stack += [(v, level + 1) for v in item]
    return deepest


def parse_spec(data: Any, *, source: str = "<spec>") -> JobSpec:
    if data is None:
        raise ConfigError(f"{source} is empty; a job spec needs at least name, tier and type (see examples/jobs/)")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a job spec is a YAML mapping (name, tier, type, ...), got {type(data).__name__}")
    if depth(data) > MAX_DEPTH:
        raise ConfigError(
            f"invalid job spec {source}: nested more than {MAX_DEPTH} levels deep; a job spec's "
            f"settings are a few levels of mappings and lists"
        )
    try:
        return JobSpec.model_validate(data)
    except ValidationError as exc:
        lines = [_format(e, source) for e in exc.errors()]
        if not any(e["loc"] == () for e in exc.errors()):
            lines += _shape_problems(data, exc.errors(), lines)  # every problem at once: the whole-spec rules too
        raise ConfigError(f"invalid job spec {source}:\n  - " + "\n  - ".join(lines)) from None


def _shape_problems(data: dict[str, Any], errors: list[dict[str, Any]], already: list[str]) -> list[str]:
    """The whole-spec rules (JobSpec.problems) of a spec whose fields did not all validate: checked on the fields that
    did, so a typo does not hide the rest."""
    bad = {e["loc"][0] for e in errors if e["loc"]}
    if "type" in bad:
        return []  # the rules are the type's
    stand_in = {"name": "x", "tier": "research"}  # the rules do not read them
    reduced = {
        k: (stand_in[k] if k in bad and k in stand_in else v) for k, v in data.items() if k not in bad or k in stand_in
    }
    try:
        JobSpec.model_validate(reduced)
    except ValidationError as exc:
        found = [
            line
            for e in exc.errors()
            if not e["loc"]
            for line in e["msg"].removeprefix("Value error, ").split("\n  - ")
        ]
        return [
            p for p in found if p not in already and not (p.startswith(SERVE_MISSING) and "serve" in bad)
        ]  # it is there, with errors above
    except Exception:  # noqa: BLE001 - the field errors are reported already
        return []
    return []


def merge_keys(text: bytes | str) -> list[str]:
    """Lines with a YAML merge key (``<<: *anchor``), which override values without a duplicate-key error."""
    import yaml

    if b"<<" not in (text.encode() if isinstance(text, str) else text):
        return []
    found: list[str] = []
    try:
        stack = [yaml.compose(text, Loader=yaml.SafeLoader)]
    except (yaml.YAMLError, RecursionError):
        return []  # the loader reports it
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":
                    found.append(f"line {key.start_mark.line + 1}")
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return sorted(set(found))


def load_spec(path: str | Path) -> JobSpec:
    path = Path(path)
    if not path.is_file():
        examples = sorted(p.name for p in (Path(__file__).resolve().parents[1] / "examples" / "jobs").glob("*.yaml"))
        example = next((n for n in examples if "sft" in n), "04-sft-medical.yaml")
        raise ConfigError(f"job spec {path} does not exist; pass a YAML file such as examples/jobs/{example}")
    raw = path.read_bytes()
    try:
        data = load_yaml(raw, source=str(path))
    except RecursionError:
        raise ConfigError(
            f"invalid job spec {path}: nested too deeply to read; a job spec nests at most {MAX_DEPTH} levels"
        ) from None
    merges = merge_keys(raw)
    if merges:
        raise ConfigError(
            f"invalid job spec {path}: YAML merge keys (<<) at {', '.join(merges)} override values "
            f"silently, past the duplicate-key check; write the settings out"
        )
    return parse_spec(data, source=str(path))
