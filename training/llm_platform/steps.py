"""The step contract: one typed schema per step, read by the step and built by ``llmft``.

Every job type that runs the training package reads one YAML file, the *step file* (``--config``; in a pod
``/etc/llmft/step.yaml``, the job's ConfigMap). Its keys are exactly the fields of one schema:

| job type       | entry point                               | schema                                                |
|----------------|-------------------------------------------|-------------------------------------------------------|
| download-model | ``python -m llm_platform.download_model`` | :class:`llm_platform.download_model.DownloadConfig`   |
| prepare-data   | ``python -m llm_platform.prepare_data``   | :class:`llm_platform.prepare_data.PrepareConfig`      |
| sft            | ``torchrun -m llm_platform.sft``          | :class:`llm_platform.sft.ScriptArguments` (see below) |
| evaluate       | ``torchrun -m llm_platform.evaluate``     | :class:`llm_platform.evaluate.EvaluateConfig`         |
| grpo           | ``python3 -m llm_platform.grpo``          | :class:`llm_platform.grpo_config.GrpoParameters`      |
| benchmark      | ``torchrun -m llm_platform.bench``        | :class:`llm_platform.bench.BenchConfig` (see below)   |

The sft schema is :class:`llm_platform.sft.ScriptArguments` plus the fields of
``transformers.TrainingArguments``; the benchmark's ``recipe`` field holds the sft settings.

``llmft`` builds each step file from a job spec with :func:`check` before anything renders (a renamed field fails at
build time with a message, never in the pod); every entry point runs the same :func:`check` first, and ``--check``
stops there (parse, validate, say what the step would do, exit 0 or 1). Standard library only: ``llmft`` imports
this without torch or transformers. ``TrainingArguments``' fields and their types come from
``training_arguments.json``, generated from the pinned transformers (:func:`training_argument_kinds`;
``training/tests/test_steps.py`` fails when it is stale).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import re
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

STEP_DIR = "/etc/llmft"
STEP_FILE = f"{STEP_DIR}/step.yaml"
TRAINING_ARGUMENTS_FILE = Path(__file__).with_name("training_arguments.json")


@dataclass(frozen=True)
class Step:
    """One job type's step: where its schema lives and how it runs."""

    type: str
    module: str  # `python -m <module> --config <step file>`
    schema: str  # class name in ``schema_module`` (default: ``module``)
    schema_module: str = ""
    distributed: bool = False  # runs under torchrun (a PyTorchJob), one process per device
    inputs: tuple[str, ...] = ()  # fields that name what an earlier step wrote
    outputs: tuple[str, ...] = ()  # fields that name what this step writes
    # the step file also holds transformers.TrainingArguments' fields (training_arguments.json), beside the schema's
    training_arguments: bool = False
    # `function(data) -> [paths]` in ``module``: the files and folders it writes when they are more than ``outputs``
    # name (SFT's merged model, prepare-data's split files); default: the ``outputs`` fields' values
    written: str = ""

    def schema_class(self) -> type:
        return getattr(importlib.import_module(self.schema_module or self.module), self.schema)

    def written_paths(self, data: Mapping[str, Any]) -> list[str] | None:
        """What the step's own module says it writes for ``data`` (``written``), or None when it does not say."""
        if not self.written:
            return None
        return list(getattr(importlib.import_module(self.module), self.written)(data))

    @property
    def prog(self) -> str:
        return "llmp-" + self.type


STEPS: dict[str, Step] = {
    s.type: s
    for s in (
        Step("download-model", "llm_platform.download_model", "DownloadConfig", outputs=("local_dir",)),
        Step(
            "prepare-data",
            "llm_platform.prepare_data",
            "PrepareConfig",
            inputs=("source", "tokenizer_path"),
            outputs=("output_dir",),
            written="written_paths",
        ),
        Step(
            "sft",
            "llm_platform.sft",
            "ScriptArguments",
            distributed=True,
            inputs=("model_id", "train_dataset_path", "test_dataset_path"),
            outputs=("output_dir", "merged_output_dir"),
            training_arguments=True,
            written="written_paths",
        ),
        # evaluate generates on one device (generate() in one process): torchrun would run the whole evaluation once per
        # GPU, each with its own MLflow run
        Step(
            "evaluate",
            "llm_platform.evaluate",
            "EvaluateConfig",
            distributed=False,
            inputs=("base_model_path", "finetuned_model_path", "test_dataset_path"),
            outputs=("output_dir",),
        ),
        Step(
            "grpo",
            "llm_platform.grpo",
            "GrpoParameters",
            schema_module="llm_platform.grpo_config",
            inputs=("model_path", "train_files", "val_files"),
            outputs=("checkpoint_dir",),
        ),
        # one torchrun process (the PyTorchJob's procs_per_node 1); it starts one torchrun of its own per recipe
        Step(
            "benchmark",
            "llm_platform.bench",
            "BenchConfig",
            distributed=True,
            inputs=("data", "tokenizer"),
            outputs=("output_dir",),
        ),
    )
}


def register(step: Step) -> Step:
    """Add a step to :data:`STEPS` (a new step type: its module, schema, inputs and outputs); a name registers once.
    llmft's job type names it (llmft/job_types/, docs/extending.md "Add a job type")."""
    if step.type in STEPS:
        raise ValueError(f"step {step.type!r} is registered twice")
    STEPS[step.type] = step
    return step


def unregister(step_type: str) -> None:
    """Remove a step (tests that register a toy step clean up with this)."""
    STEPS.pop(step_type, None)


class StepConfigError(ValueError):
    """A step file that the step would refuse; ``problems`` holds one line per field (field, value, fix)."""

    def __init__(self, where: str, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{where}: invalid step configuration:\n  - " + "\n  - ".join(problems))


# --- field kinds --------------------------------------------------------------------------------------------------
# A kind is what YAML can give: str, int, float, bool, list, dict, null, or any (not checked here).


def _kinds_of_annotation(tp: Any) -> set[str]:
    if isinstance(tp, str):
        return _kinds_of_text(tp)
    if tp is Any:
        return {"any"}
    if tp is type(None):
        return {"null"}
    origin = typing.get_origin(tp)
    if origin is typing.Union or type(tp).__name__ == "UnionType":
        return set().union(*(_kinds_of_annotation(a) for a in typing.get_args(tp)))
    if origin is typing.Literal:
        return {type(a).__name__ for a in typing.get_args(tp)} & {"str", "int", "float", "bool"} or {"any"}
    if origin in (list, tuple, set, frozenset) or tp in (list, tuple, set, frozenset):
        return {"list"}
    if origin is dict or tp is dict:
        return {"dict"}
    for simple in (bool, int, float, str):
        if tp is simple:
            return {simple.__name__}
    import enum

    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"str"}  # YAML gives the enum's value
    return {"any"}


def _kinds_of_text(text: str) -> set[str]:
    """Kinds of an annotation written as text (``from __future__ import annotations``): ``str | None``,
    ``Optional[int]``, ``list[str]``, ``dict[str, Any]``."""
    text = text.strip()
    optional = re.fullmatch(r"Optional\[(.*)\]", text)
    if optional:
        return _kinds_of_text(optional.group(1)) | {"null"}
    parts = _split_top(text, "|")
    if len(parts) > 1:
        return set().union(*(_kinds_of_text(p) for p in parts))
    head = text.split("[", 1)[0]
    return {
        "None": {"null"},
        "str": {"str"},
        "int": {"int"},
        "float": {"float"},
        "bool": {"bool"},
        "list": {"list"},
        "tuple": {"list"},
        "dict": {"dict"},
    }.get(head, {"any"})


def _split_top(text: str, sep: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    return out + [text[start:]]


def kind_of_value(value: Any) -> str:
    if value is None:
        return "null"
    for kind, types in (
        ("bool", bool),
        ("int", int),
        ("float", float),
        ("str", str),
        ("list", (list, tuple)),
        ("dict", Mapping),
    ):
        if isinstance(value, types):
            return kind
    return type(value).__name__


def accepts(kinds: set[str], value: Any) -> bool:
    kind = kind_of_value(value)
    return "any" in kinds or kind in kinds or (kind == "int" and "float" in kinds)


def training_argument_kinds(cls: type | None = None) -> dict[str, list[str]]:
    """``{field: kinds}`` of ``transformers.TrainingArguments`` (the generator of ``training_arguments.json``; run
    where transformers is installed)."""
    if cls is None:
        from transformers import TrainingArguments as cls  # noqa: N813
    hints = typing.get_type_hints(cls)
    out = {}
    for f in fields(cls):
        if not f.init or f.name.startswith("_"):
            continue
        kinds = _kinds_of_annotation(hints.get(f.name, Any))
        if f"{f.name}=True" in f.metadata.get("help", ""):
            kinds.add("bool")  # `fsdp: str | None` whose help says "Pass --fsdp (or fsdp=True)"; __post_init__ takes it
        out[f.name] = sorted(kinds)
    return out


def write_training_arguments() -> Path:
    """Regenerate ``training_arguments.json`` from the installed transformers."""
    from importlib.metadata import version

    data = {"transformers": version("transformers"), "fields": training_argument_kinds()}
    TRAINING_ARGUMENTS_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return TRAINING_ARGUMENTS_FILE


def _training_arguments() -> dict[str, set[str]]:
    data = json.loads(TRAINING_ARGUMENTS_FILE.read_text())
    return {name: set(kinds) for name, kinds in data["fields"].items()}


# --- enums of the sft step's values (step_enums.json, generated like training_arguments.json) --------------------
# Values the pod would refuse only after queueing, checked in llmft's process without torch. Sources, at the pinned
# versions: attn_implementation: transformers/modeling_utils.py (get_correct_attn_implementation accepts "eager" and
# AttentionInterface's keys); optim: transformers/training_args.py OptimizerNames; lr_scheduler_type:
# transformers/trainer_utils.py SchedulerType; the linear modules of each model family: the model built from
# transformers' modeling source on the meta device (PEFT fullmatches a string lora_target_modules against these
# names: peft/utils/other.py match_target_against_key); flash-attn in the sft image: images/sft/requirements.lock.
STEP_ENUMS_FILE = Path(__file__).with_name("step_enums.json")
SFT_IMAGE_LOCK = "images/sft/requirements.lock"
# the distribution each flash implementation imports (transformers/utils/import_utils.py is_flash_attn_2_available:
# flash_attn; is_flash_attn_3_available: flash_attn_interface; is_flash_attn_4_available: flash_attn.cute)
FLASH_DISTRIBUTIONS = {
    "flash_attention_2": "flash-attn",
    "flash_attention_3": "flash-attn-3",
    "flash_attention_4": "flash-attn-4",
}
# the decoder families whose linear module names are shipped (the shapes of llm_platform.memory and their kin)
LORA_FAMILIES = ("llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi3", "mixtral", "qwen3_moe")


def _linear_modules(model_type: str) -> list[str]:
    """The names of ``model_type``'s nn.Linear modules, built on the meta device from transformers' modeling source;
    a decoder layer's index is ``#``."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model(model_type, num_hidden_layers=1)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return sorted({re.sub(r"\.\d+\.", ".#.", n) for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)})


def lock_distributions(lock: Path) -> set[str]:
    """The distributions pinned in a ``uv pip compile`` lock (``name==version``), normalised (PEP 503)."""
    names = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", lock.read_text(), flags=re.M)
    return {re.sub(r"[-_.]+", "-", n).lower() for n in names}


def step_enums(repo: Path | None = None) -> dict[str, Any]:
    """The content of ``step_enums.json`` from the installed transformers and the sft image's lock (run in the
    training virtualenv of the checkout)."""
    from importlib.metadata import version

    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    from transformers.trainer_utils import SchedulerType
    from transformers.training_args import OptimizerNames

    repo = repo or Path(__file__).resolve().parents[2]
    in_image = lock_distributions(repo / SFT_IMAGE_LOCK)
    return {
        "transformers": version("transformers"),
        "attn_implementation": sorted({"eager", *ALL_ATTENTION_FUNCTIONS.valid_keys()}),
        "optim": sorted(o.value for o in OptimizerNames),
        "lr_scheduler_type": sorted(s.value for s in SchedulerType),
        "sft_image_flash": {impl: dist in in_image for impl, dist in FLASH_DISTRIBUTIONS.items()},
        "lora_linear_modules": {t: _linear_modules(t) for t in LORA_FAMILIES},
    }


def write_step_enums() -> Path:
    """Regenerate ``step_enums.json`` (``training/tests/test_steps.py`` fails when it is stale)."""
    STEP_ENUMS_FILE.write_text(json.dumps(step_enums(), indent=1, sort_keys=True) + "\n")
    return STEP_ENUMS_FILE


def _enums() -> dict[str, Any]:
    return json.loads(STEP_ENUMS_FILE.read_text())


@dataclass(frozen=True)
class Field:
    name: str
    kinds: frozenset[str]
    required: bool
    help: str = ""


def schema_fields(step_type: str) -> dict[str, Field]:
    """Every key the step file of ``step_type`` may hold."""
    step = STEPS[step_type]
    cls = step.schema_class()
    assert is_dataclass(cls)
    hints: dict[str, Any]
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation that needs a package not installed here: read its text
        hints = {f.name: f.type for f in fields(cls)}
    out = {
        f.name: Field(
            f.name,
            frozenset(_kinds_of_annotation(hints.get(f.name, f.type))),
            f.default is MISSING and f.default_factory is MISSING,
            f.metadata.get("help", ""),
        )
        for f in fields(cls)
        if f.init
    }
    if step.training_arguments:
        for name, kinds in _training_arguments().items():
            out.setdefault(name, Field(name, frozenset(kinds), False))
    return out


# --- the check ----------------------------------------------------------------------------------------------------


def problems(step_type: str, data: Mapping[str, Any], *, prefix: str = "") -> list[str]:
    """Everything the step would refuse in ``data``, one line per field naming the value and the fix; [] when it
    parses. ``prefix`` is prepended to field names (``settings.`` when the keys came from a job spec)."""
    if step_type not in STEPS:
        return [f"type {step_type!r} has no step of the training package; known: {', '.join(STEPS)}"]
    known = schema_fields(step_type)
    out = []
    for key in data:
        if key not in known:
            near = difflib.get_close_matches(str(key), list(known), n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            shown = ", ".join(sorted(k for k in known if not known[k].required))
            out.append(
                f"{prefix}{key}: not a setting of the {step_type} step{odd_characters(key)}; {hint}remove it "
                f"or use one of: {shown}"
            )
            continue
        if not accepts(set(known[key].kinds), data[key]):
            wanted = " or ".join(sorted(known[key].kinds - {"null"})) or "null"
            example = EXAMPLES.get(key) or f"e.g. {_example(sorted(known[key].kinds))}"
            out.append(
                f"{prefix}{key}: {data[key]!r} is a {kind_of_value(data[key])}; {step_type} expects "
                f"{wanted} ({example})"
            )
    for name, f in known.items():
        if f.required and name not in data:
            out.append(f"{prefix}{name}: required by the {step_type} step and missing; add it")
    if not out:
        out += value_problems(step_type, data, prefix=prefix)
    if not out:
        out += _schema_rules(step_type, data, prefix)
    return out


# --- values: ranges and the rules between settings ----------------------------------------------------------------
# Values that parse but make no sense, refused with the reason. One table for every step (the schema classes and
# transformers' TrainingArguments alike); the step runs it first in the pod, llmft at preflight, and
# GrpoParameters in its own __post_init__ (the GRPO builders construct it directly).


@dataclass(frozen=True)
class Limit:
    low: float | None = None  # inclusive unless low_open
    high: float | None = None  # inclusive unless high_open
    reason: str = ""
    low_open: bool = False
    high_open: bool = False
    also: tuple[Any, ...] = ()  # values allowed outside the range (e.g. max_steps -1: "no limit")

    def problem(self, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value in self.also:
            return None
        below = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        above = self.high is not None and (value >= self.high if self.high_open else value > self.high)
        if not (below or above):
            return None
        return f"{value!r} is out of range: {self.describe()} ({self.reason})"

    def describe(self) -> str:
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {self.high:g}")
        text = "use a value " + " and ".join(parts)
        return text + "".join(f" or {a!r}" for a in self.also)


_POSITIVE_STEPS = "a number of steps; 0 or less never happens"
_BATCH = "a batch of 0 examples trains on nothing"
LIMITS: dict[str, dict[str, Limit]] = {
    "sft": {
        "hang_factor": Limit(
            1,
            None,
            "a watchdog that fires before the median step ends would kill a healthy run; 0 turns it off",
            also=(0,),
        ),
        "hang_floor_seconds": Limit(60, None, "under a minute, model loading or one save would read as a hang"),
        "learning_rate": Limit(
            0,
            1,
            "a learning rate of 0 or less does not learn or climbs the loss; typical LoRA rates are 1e-5 to 5e-4",
            low_open=True,
        ),
        "lora_r": Limit(1, 1024, "rank 0 adapts nothing"),
        "lora_alpha": Limit(0, None, "alpha scales the adapter; 0 switches it off", low_open=True),
        "lora_dropout": Limit(0, 1, "a probability", high_open=True),
        "max_seq_length": Limit(1, 1 << 20, "tokens per example; the longest example is truncated to it"),
        "per_device_train_batch_size": Limit(1, None, _BATCH),
        "per_device_eval_batch_size": Limit(1, None, _BATCH),
        "gradient_accumulation_steps": Limit(1, None, "micro-steps per optimizer step; 0 never steps"),
        "num_train_epochs": Limit(
            0, None, "0 epochs trains nothing, exits 0 and registers the untrained base model", low_open=True
        ),
        "max_steps": Limit(1, None, "optimizer steps in total; -1 means: num_train_epochs decides", also=(-1,)),
        "save_steps": Limit(0, None, "steps between checkpoints (below 1: a fraction of the run)", low_open=True),
        "logging_steps": Limit(0, None, "steps between logs (below 1: a fraction of the run)", low_open=True),
        "eval_steps": Limit(0, None, "steps between evaluations (below 1: a fraction of the run)", low_open=True),
        "save_total_limit": Limit(1, None, "checkpoints kept; 0 keeps none to resume from"),
        "warmup_ratio": Limit(0, 1, "a fraction of the run", high_open=True),
        "warmup_steps": Limit(0, None, "a number of steps"),
        "weight_decay": Limit(0, 1, "a fraction of the weights"),
        "max_grad_norm": Limit(0, None, "a norm; 0 switches clipping off"),
        "adam_beta1": Limit(0, 1, "a decay rate", high_open=True),
        "adam_beta2": Limit(0, 1, "a decay rate", high_open=True),
        "adam_epsilon": Limit(0, None, "a small positive constant", low_open=True),
        "dataloader_num_workers": Limit(0, 64, "worker processes per rank"),
        "seed": Limit(0, 2**32 - 1, "a random seed"),
        "max_tokens_per_step": Limit(1, None, "tokens per micro-step"),
        "tokens_per_optimizer_step": Limit(1, None, "tokens per optimizer step"),
        "peak_tflops": Limit(0, None, "the device's peak dense TFLOPS", low_open=True),
    },
    "evaluate": {
        "max_samples": Limit(1, None, "test examples to score; leave it out (null) for all of them"),
        "max_new_tokens": Limit(1, 1 << 17, "tokens each model generates per example"),
        "batch_size": Limit(1, None, _BATCH),
    },
    "prepare-data": {
        "max_samples": Limit(1, None, "examples to keep; leave it out (null) for all of them"),
        "seed": Limit(0, 2**32 - 1, "a random seed"),
        "max_row_bytes": Limit(1, None, "the longest source row taken, in bytes"),
    },
    "download-model": {
        "max_workers": Limit(1, 64, "parallel downloads"),
    },
    "grpo": {
        "nodes": Limit(1, 512, "nodes of the Ray cluster"),
        "gpus_per_node": Limit(1, 8, "GPUs of one node"),
        "rollout_n": Limit(2, 64, "GRPO compares a group of responses per prompt"),
        "tensor_parallel_size": Limit(1, 8, "GPUs that shard one rollout engine, on one node"),
        "save_freq": Limit(1, None, _POSITIVE_STEPS),
        "test_freq": Limit(1, None, "steps between validations; -1 switches validation off", also=(-1,)),
        "total_epochs": Limit(1, None, "0 epochs trains nothing"),
        "train_batch_size": Limit(1, None, _BATCH),
        "ppo_mini_batch_size": Limit(1, None, "prompts per actor update; it divides train_batch_size"),
        "ppo_micro_batch_size_per_gpu": Limit(1, None, _BATCH),
        "log_prob_micro_batch_size_per_gpu": Limit(1, None, _BATCH),
        "max_prompt_length": Limit(1, None, "tokens of a prompt"),
        "max_response_length": Limit(1, None, "tokens of a response"),
        "learning_rate": Limit(0, 1, "a learning rate of 0 or less does not learn or climbs the loss", low_open=True),
        "kl_loss_coef": Limit(0, None, "a weight of the KL loss"),
        "entropy_coeff": Limit(0, None, "a weight of the entropy bonus"),
        "rollout_gpu_memory_utilization": Limit(0, 1, "the fraction of GPU memory SGLang may take", low_open=True),
        "max_checkpoints_to_keep": Limit(1, None, "checkpoints kept; 0 keeps none to resume from"),
    },
}
# Reporting to services outside the platform: the platform logs to its own MLflow; these would send the team's
# metrics (and, push_to_hub, its weights) elsewhere.
LOCAL_REPORTERS = ("none", "mlflow", "tensorboard")
FSDP_OPTIONS = ("full_shard", "shard_grad_op", "hybrid_shard", "hybrid_shard_zero2", "no_shard", "offload", "auto_wrap")
FSDP_CONFIG_BOOLS = (
    "reshard_after_forward",
    "cpu_offload",
    "cpu_ram_efficient_loading",
    "activation_checkpointing",
    "use_orig_params",
    "sync_module_states",
    "limit_all_gathers",
    "forward_prefetch",
    "xla",
)
FSDP_WRAP = ("TRANSFORMER_BASED_WRAP", "SIZE_BASED_WRAP", "NO_WRAP")


def limit_problems(step_type: str, data: Mapping[str, Any], *, prefix: str = "") -> list[str]:
    """Values outside :data:`LIMITS`, one line each with the range and the reason."""
    out = []
    for name, limit in LIMITS.get(step_type, {}).items():
        if name in data:
            problem = limit.problem(data[name])
            if problem:
                out.append(f"{prefix}{name}: {problem}")
    return out


def value_problems(step_type: str, data: Mapping[str, Any], *, prefix: str = "") -> list[str]:
    """Ranges (:data:`LIMITS`) and the rules between settings that the schema's types cannot say."""
    out = limit_problems(step_type, data, prefix=prefix)
    if step_type == "sft":
        out += _sft_rules(data, prefix)
    return out


def _liger_rules(data: Mapping[str, Any], p: str) -> list[str]:
    """The step's own switch ``liger_kernel`` (auto/true/false) and TrainingArguments' ``use_liger_kernel`` may not
    contradict each other: the run would use one while preflight planned the memory with the other."""
    ours = str(data.get("liger_kernel", "auto")).lower()
    theirs = data.get("use_liger_kernel")
    if isinstance(theirs, bool) and ours in ("true", "false") and (ours == "true") != theirs:
        return [
            f"{p}liger_kernel: {ours} and {p}use_liger_kernel: {str(theirs).lower()} contradict each other; "
            f"keep liger_kernel (the step's switch: auto, true or false) and remove use_liger_kernel"
        ]
    return []


def _sft_rules(data: Mapping[str, Any], p: str) -> list[str]:
    out = _liger_rules(data, p) + _pod_time_rules(data, p)
    out += model_problems(data, p, model_facts(str(data.get("model_id", ""))))
    if data.get("bf16") is True and data.get("fp16") is True:
        out.append(
            f"{p}bf16, {p}fp16: both true; mixed precision is one of them, bf16 on the platform's GPUs: remove fp16"
        )
    if data.get("deepspeed") not in (None, "", {}):
        out.append(
            f"{p}deepspeed: the platform's sft image has no DeepSpeed; shard with fsdp: true and fsdp_config "
            f"(docs/training.md), remove deepspeed"
        )
    fsdp = data.get("fsdp")
    if isinstance(fsdp, str) and fsdp.strip():
        bad = [o for o in fsdp.split() if o not in FSDP_OPTIONS]
        if bad:
            out.append(
                f"{p}fsdp: {fsdp!r} has unknown option(s) {', '.join(bad)}; use fsdp: true with fsdp_config "
                f"{{reshard_after_forward: true}} (full shard), or options of {', '.join(FSDP_OPTIONS)}"
            )
        else:
            out.append(
                f"{p}fsdp: {fsdp!r} as a string; write fsdp: true and put the sharding in fsdp_config "
                f"(full_shard = fsdp_config: {{reshard_after_forward: true, auto_wrap_policy: "
                f"TRANSFORMER_BASED_WRAP}}), the form the step and the memory model read"
            )
    config = data.get("fsdp_config")
    if isinstance(config, str):
        out.append(
            f"{p}fsdp_config: {config!r} is a file name; the pod has only the step file, so give fsdp_config "
            f"as a mapping, e.g. {{reshard_after_forward: true, auto_wrap_policy: TRANSFORMER_BASED_WRAP}}"
        )
    elif isinstance(config, Mapping):
        for key in FSDP_CONFIG_BOOLS:
            if key in config and not isinstance(config[key], bool):
                out.append(f"{p}fsdp_config.{key}: {config[key]!r} is not true or false; write true or false")
        wrap = config.get("auto_wrap_policy")
        if wrap is not None and wrap not in FSDP_WRAP:
            out.append(f"{p}fsdp_config.auto_wrap_policy: {wrap!r}; use one of {', '.join(FSDP_WRAP)}")
        version = config.get("version")
        if version is not None and version not in (1, 2):
            out.append(f"{p}fsdp_config.version: {version!r}; use 1 or 2")
        if config and not fsdp:
            out.append(
                f"{p}fsdp_config: given without fsdp: true, so nothing is sharded; add fsdp: true or remove fsdp_config"
            )
    reporters = data.get("report_to")
    given = [reporters] if isinstance(reporters, str) else list(reporters or [])
    outside = [r for r in given if r not in LOCAL_REPORTERS]
    if outside:
        out.append(
            f"{p}report_to: {', '.join(map(str, outside))} would send the team's metrics outside the platform; "
            f"the step logs to the platform's MLflow itself: use none (or mlflow, tensorboard)"
        )
    if data.get("push_to_hub") is True:
        out.append(
            f"{p}push_to_hub: true would upload the team's weights to the Hugging Face Hub; the step registers "
            f"the merged model in the platform's MLflow: remove it"
        )
    max_steps, save_steps = data.get("max_steps"), data.get("save_steps")
    if (
        isinstance(max_steps, int)
        and not isinstance(max_steps, bool)
        and max_steps > 0
        and isinstance(save_steps, (int, float))
        and save_steps >= 1
        and save_steps > max_steps
        and data.get("save_strategy", "steps") == "steps"
    ):
        out.append(
            f"{p}save_steps: {save_steps} is more than max_steps {max_steps}, so the run writes no checkpoint "
            f"and a restarted pod starts from zero; use save_steps <= {max_steps}"
        )
    return out


def _choice_problem(p: str, name: str, value: Any, allowed: list[str], source: str) -> list[str]:
    if value is None or value in allowed:
        return []
    near = difflib.get_close_matches(str(value), allowed, n=1)
    hint = f"did you mean {near[0]!r}? " if near else ""
    return [f"{p}{name}: {value!r} is not one of {source}; {hint}use one of: {', '.join(allowed)}"]


def _pod_time_rules(data: Mapping[str, Any], p: str) -> list[str]:
    """What transformers refuses only in the pod, after queueing: values outside its enums (step_enums.json), FSDP
    activation checkpointing beside gradient_checkpointing (transformers/trainer.py refuses the pair), a flash
    attention the sft image does not install."""
    enums = _enums()
    attn = data.get("attn_implementation")
    out = _choice_problem(
        p,
        "attn_implementation",
        attn,
        ["auto", *enums["attn_implementation"]],
        f"auto and transformers {enums['transformers']}'s attention implementations",
    )
    out += _choice_problem(p, "optim", data.get("optim"), enums["optim"], "TrainingArguments' optimizers")
    out += _choice_problem(
        p, "lr_scheduler_type", data.get("lr_scheduler_type"), enums["lr_scheduler_type"], "the scheduler types"
    )
    base = str(attn).removeprefix("paged|")
    if not out and base in FLASH_DISTRIBUTIONS and not enums["sft_image_flash"][base]:
        out.append(
            f"{p}attn_implementation: {attn!r} needs {FLASH_DISTRIBUTIONS[base]}, which the sft image does not "
            f"install ({SFT_IMAGE_LOCK}); use auto (flex_attention on a GPU) or sdpa"
        )
    config = data.get("fsdp_config")
    if isinstance(config, Mapping) and config.get("activation_checkpointing") is True:
        if data.get("gradient_checkpointing") is True:
            out.append(
                f"{p}fsdp_config.activation_checkpointing, {p}gradient_checkpointing: both true, which transformers' "
                f"Trainer refuses at start; keep fsdp_config.activation_checkpointing and remove gradient_checkpointing"
            )
    return out


def model_facts(model_id: str, readable: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The model's config.json (the first of ``readable``, default ``model_id``, that has one) or the published
    config of a known shape its name contains (llm_platform.model_shapes.SHAPES), with ``_source``; None when
    neither."""
    from llm_platform.model_shapes import SHAPE_ALIASES, SHAPES

    for directory in readable or (model_id,):
        try:
            config = json.loads((Path(directory) / "config.json").read_text())
        except (OSError, ValueError):
            continue
        if isinstance(config, dict):
            return {**(config.get("text_config") or config), "_source": f"{directory}/config.json"}
    last = Path(model_id).name.lower()
    for fragment, shape in SHAPE_ALIASES:
        if fragment in last:
            return {**SHAPES[shape], "_source": f"the known shape {shape}"}
    return None


def model_problems(data: Mapping[str, Any], p: str, facts: Mapping[str, Any] | None) -> list[str]:
    """Settings the model itself refuses: max_seq_length beyond its positions, a LoRA target pattern that matches
    none of its family's linear modules (step_enums.json) or is no regular expression."""
    out = []
    positions, length = (facts or {}).get("max_position_embeddings"), data.get("max_seq_length")
    if isinstance(positions, int) and isinstance(length, int) and length > positions:
        out.append(
            f"{p}max_seq_length: {length} is beyond the model's {positions} positions (max_position_embeddings, "
            f"{facts['_source']}); use max_seq_length <= {positions}"
        )
    pattern = data.get("lora_target_modules")
    if not isinstance(pattern, str) or pattern.lower() == "all-linear":
        return out
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        return [
            *out,
            f"{p}lora_target_modules: {pattern!r} is not a regular expression ({exc}); "
            f"{EXAMPLES['lora_target_modules']}",
        ]
    model_type = (facts or {}).get("model_type")
    names = _enums()["lora_linear_modules"].get(model_type)
    if not names:
        return out
    layers = range(int((facts or {}).get("num_hidden_layers") or 1))
    if not any(compiled.fullmatch(n.replace("#", str(i))) for n in names for i in layers):
        leaves = sorted({n.rsplit(".", 1)[-1] for n in names})
        out.append(
            f"{p}lora_target_modules: {pattern!r} matches no linear module of the {model_type} model (PEFT matches "
            f"the whole name, e.g. {names[-1].replace('#', '0')}); use all-linear or a pattern such as "
            f"'.*({'|'.join(n for n in leaves if n != 'lm_head')})$' (its linear modules: {', '.join(leaves)})"
        )
    return out


# Settings whose type alone gives a misleading example.
EXAMPLES = {
    "lora_target_modules": "one string: all-linear (every linear layer), or a regular expression of module names such "
    "as '.*(q_proj|k_proj|v_proj|o_proj)$' for a list of modules",
}


def odd_characters(text: Any) -> str:
    """`` (character 3 is U+0430 CYRILLIC SMALL LETTER A, ...)`` for text outside ASCII (look-alikes, invisible
    spaces), else ''."""
    if not isinstance(text, str) or text.isascii():
        return ""
    import unicodedata

    odd = [(i + 1, ch) for i, ch in enumerate(text) if not ch.isascii()][:3]
    named = "; ".join(f"character {i} is U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}" for i, ch in odd)
    return f" ({named}, not ASCII: a look-alike or invisible character; retype it)"


def _example(kinds: list[str]) -> str:
    return {
        "int": "8",
        "float": "0.0002",
        "bool": "true",
        "str": "'text'",
        "list": "[a, b]",
        "dict": "{key: value}",
    }.get(next((k for k in kinds if k != "null"), "str"), "a value")


def _schema_rules(step_type: str, data: Mapping[str, Any], prefix: str) -> list[str]:
    """The schema's own rules (``__post_init__``: pinned revisions, batch divisibility, ...)."""
    step = STEPS[step_type]
    cls = step.schema_class()
    if step.training_arguments:  # TrainingArguments' own fields are checked by kind and range above
        script_keys = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in script_keys}
    else:
        rules = getattr(cls, "problems", None)
        if callable(rules):  # a schema that names each field it refuses (BenchConfig)
            return [f"{prefix}{line}" for line in rules(dict(data))]
    try:
        cls(**dict(data))
    except (ValueError, TypeError, ArithmeticError) as exc:
        return [f"{prefix.rstrip('.') or step_type}: {exc}"]
    except Exception as exc:  # noqa: BLE001 - a schema rule that crashes is still a refusal, never a traceback
        return [
            f"{prefix.rstrip('.') or step_type}: the {step_type} step cannot use these settings "
            f"({type(exc).__name__}: {exc})"
        ]
    return []


def check(step_type: str, data: Mapping[str, Any], *, where: str = "step file", prefix: str = "") -> None:
    """Raise :class:`StepConfigError` naming every problem of ``data`` at once."""
    found = problems(step_type, data, prefix=prefix)
    if found:
        raise StepConfigError(where, found)


def paths(step_type: str, data: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(inputs, outputs): the paths a step reads that an earlier step wrote, and the paths it writes. SFT also
    writes ``<output_dir>/merged`` unless ``merged_output_dir`` says where."""
    step = STEPS[step_type]
    inputs = [str(data[k]) for k in step.inputs if data.get(k)]
    outputs = [str(data[k]) for k in step.outputs if data.get(k)]
    return inputs, step.written_paths(data) or outputs


# --- outputs belong to one job ------------------------------------------------------------------------------------
# `llmft` sets the job's name in every container (PLATFORM_JOB_NAME, a variable no spec may set); the step writes it
# into each directory it writes (OWNER_MARKER) and refuses a directory that another job's marker claims, in it or
# above it -- so a new job pointed at another's output never resumes its checkpoints, reopens its MLflow run or
# overwrites its model, on the cluster (even after that job was deleted) and locally alike. The same job again (a
# restarted pod, HyperPod auto-resume, a resubmit of the same name) finds its own marker and resumes.
OWNER_MARKER = ".llmft-job.json"
JOB_ENV = "PLATFORM_JOB_NAME"


def output_dirs(step_type: str, data: Mapping[str, Any]) -> list[str]:
    """The directories the step of ``data`` writes (its schema's output fields)."""
    return [str(data[k]) for k in STEPS[step_type].outputs if data.get(k)]


def owner_of(directory: str | Path) -> tuple[str | None, Path | None]:
    """(the job whose marker claims ``directory`` -- in it or a directory above it --, that marker), or (None, None)."""
    path = Path(directory)
    for where in (path, *path.parents):
        marker = where / OWNER_MARKER
        try:
            if marker.is_file():
                return json.loads(marker.read_text()).get("job"), marker
        except (OSError, ValueError, AttributeError):
            return None, None
    return None, None


def owner_problems(
    step_type: str, data: Mapping[str, Any], job: str, *, shown: Callable[[str], str] = str
) -> list[str]:
    """One line per output directory of ``data`` that another job than ``job`` owns. ``shown`` maps a directory to
    the name the user wrote (llmft run --local shows /fsx paths)."""
    out = []
    for directory in output_dirs(step_type, data):
        owner, marker = owner_of(directory)
        if owner and owner != job:
            out.append(
                f"output {shown(directory)!r} belongs to job {owner!r} ({marker}): this job would resume its "
                f"checkpoints, log into its MLflow run and overwrite its results; give this job its own output "
                f"(or leave output out), or run {owner!r} itself to resume it"
            )
    return out


def claim_outputs(step_type: str, data: Mapping[str, Any], job: str) -> None:
    """Write ``job``'s marker into each output directory that has none (every rank may: same content, atomic)."""
    import os

    for directory in output_dirs(step_type, data):
        path = Path(directory)
        if (path / OWNER_MARKER).exists():
            continue
        try:
            path.mkdir(parents=True, exist_ok=True)
            tmp = path / f"{OWNER_MARKER}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps({"job": job, "type": step_type}) + "\n")
            tmp.replace(path / OWNER_MARKER)
        except OSError as exc:  # the step itself will say whether it can write there
            print(f"llmp-{step_type}: could not mark {directory} as {job}'s ({exc})", file=sys.stderr)


def guard_outputs(step_type: str, data: Mapping[str, Any], where: str) -> None:
    """In a job (``PLATFORM_JOB_NAME`` set): refuse another job's outputs, then claim this job's."""
    import os

    job = os.environ.get(JOB_ENV)
    if not job:
        return
    found = owner_problems(step_type, data, job)
    if found:
        raise StepConfigError(where, found)
    claim_outputs(step_type, data, job)


# --- entry points -------------------------------------------------------------------------------------------------


def load_yaml(path: str | Path) -> Any:
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StepConfigError(str(path), [f"cannot read the step file ({exc}); pass --config FILE"]) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise StepConfigError(str(path), [f"not valid YAML: {exc}"]) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise StepConfigError(str(path), [f"a step file is a mapping of settings, got {type(data).__name__}"])
    return data


def entry_point(
    step_type: str,
    argv: list[str] | None,
    *,
    build: Callable[[dict[str, Any]], Any],
    run: Callable[[Any], int],
    describe: Callable[[Any], str] | None = None,
    check_build: Callable[[dict[str, Any]], Any] | None = None,
) -> int:
    """What every ``llmp-*`` entry point does: read ``--config``, :func:`check` it, build the typed
    configuration (``build``, which may raise ValueError), then ``run`` it -- or, with ``--check``, build it with
    ``check_build`` (default ``build``), print what it would do and exit 0; an invalid file exits 1 with every problem
    named, never a traceback."""
    step = STEPS[step_type]
    module = sys.modules.get(step.module) or sys.modules.get("__main__")  # `python -m` runs it as __main__
    parser = argparse.ArgumentParser(
        prog=step.prog, description=(getattr(module, "__doc__", None) or "").split("\n\n")[0].strip("`")
    )
    parser.add_argument("--config", required=True, help=f"the step file (in a pod: {STEP_FILE})")
    parser.add_argument(
        "--check",
        action="store_true",
        help="parse and validate the step file, print what the step would do, and exit (0 ok, 1 not)",
    )
    args = parser.parse_args(argv)
    try:
        data = load_yaml(args.config)
        check(step_type, data, where=args.config)
        if not args.check:
            guard_outputs(step_type, data, args.config)
        try:
            config = (check_build or build)(data) if args.check else build(data)
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise StepConfigError(args.config, [str(exc)]) from None
        except Exception as exc:  # noqa: BLE001 - e.g. transformers asks for a package the image lacks: a refusal
            raise StepConfigError(
                args.config, [f"the {step_type} step cannot run these settings here ({type(exc).__name__}: {exc})"]
            ) from None
    except StepConfigError as exc:
        print(f"{step.prog}: {exc}", file=sys.stderr)
        return 1
    if args.check:
        inputs, outputs = paths(step_type, data)
        print(f"{step.prog}: {args.config} is valid")
        print(f"  reads:  {', '.join(inputs) or '-'}")
        print(f"  writes: {', '.join(outputs) or '-'}")
        if describe:
            print("  " + describe(config))
        return 0
    return run(config)
