"""The step contract: one typed schema per step, read by the step and built by ``llmft``.

Every job type that runs the training package reads one YAML file, the *step file* (``--config``; in a pod
``/etc/llmft/step.yaml``, the job's ConfigMap). Its keys are exactly the fields of one schema:

| job type        | entry point                           | schema                                                    |
|-----------------|---------------------------------------|-----------------------------------------------------------|
| download-model  | ``python -m llm_platform.download_model`` | :class:`llm_platform.download_model.DownloadConfig`   |
| prepare-data    | ``python -m llm_platform.prepare_data``   | :class:`llm_platform.prepare_data.PrepareConfig`      |
| sft             | ``torchrun -m llm_platform.sft``          | :class:`llm_platform.sft.ScriptArguments` + the fields of ``transformers.TrainingArguments`` |
| evaluate        | ``torchrun -m llm_platform.evaluate``     | :class:`llm_platform.evaluate.EvaluateConfig`         |
| grpo            | ``python3 -m llm_platform.grpo``          | :class:`llm_platform.grpo_config.GrpoParameters`      |
| benchmark       | ``torchrun -m llm_platform.bench``        | :class:`llm_platform.bench.BenchConfig` (``recipe``: the sft settings) |

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
    module: str                   # `python -m <module> --config <step file>`
    schema: str                   # class name in ``schema_module`` (default: ``module``)
    schema_module: str = ""
    distributed: bool = False     # runs under torchrun (a PyTorchJob), one process per device
    inputs: tuple[str, ...] = ()  # fields that name what an earlier step wrote
    outputs: tuple[str, ...] = ()  # fields that name what this step writes

    def schema_class(self) -> type:
        return getattr(importlib.import_module(self.schema_module or self.module), self.schema)

    @property
    def prog(self) -> str:
        return "llmp-" + self.type


STEPS: dict[str, Step] = {s.type: s for s in (
    Step("download-model", "llm_platform.download_model", "DownloadConfig", outputs=("local_dir",)),
    Step("prepare-data", "llm_platform.prepare_data", "PrepareConfig", inputs=("source", "tokenizer_path"),
         outputs=("output_dir",)),
    Step("sft", "llm_platform.sft", "ScriptArguments", distributed=True,
         inputs=("model_id", "train_dataset_path", "test_dataset_path"), outputs=("output_dir", "merged_output_dir")),
    Step("evaluate", "llm_platform.evaluate", "EvaluateConfig", distributed=True,
         inputs=("base_model_path", "finetuned_model_path", "test_dataset_path"), outputs=("output_dir",)),
    Step("grpo", "llm_platform.grpo", "GrpoParameters", schema_module="llm_platform.grpo_config",
         inputs=("model_path", "train_files", "val_files"), outputs=("checkpoint_dir",)),
    # one torchrun process (the PyTorchJob's procs_per_node 1); it starts one torchrun of its own per recipe
    Step("benchmark", "llm_platform.bench", "BenchConfig", distributed=True, inputs=("data", "tokenizer"),
         outputs=("output_dir",)),
)}


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
    return {"None": {"null"}, "str": {"str"}, "int": {"int"}, "float": {"float"}, "bool": {"bool"},
            "list": {"list"}, "tuple": {"list"}, "dict": {"dict"}}.get(head, {"any"})


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
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str), ("list", (list, tuple)),
                        ("dict", Mapping)):
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
    out = {f.name: Field(f.name, frozenset(_kinds_of_annotation(hints.get(f.name, f.type))),
                         f.default is MISSING and f.default_factory is MISSING, f.metadata.get("help", ""))
           for f in fields(cls) if f.init}
    if step_type == "sft":
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
            out.append(f"{prefix}{key}: not a setting of the {step_type} step; {hint}remove it or use one of: {shown}")
            continue
        if not accepts(set(known[key].kinds), data[key]):
            wanted = " or ".join(sorted(known[key].kinds - {"null"})) or "null"
            out.append(f"{prefix}{key}: {data[key]!r} is a {kind_of_value(data[key])}; {step_type} expects "
                       f"{wanted} (e.g. {_example(sorted(known[key].kinds))})")
    for name, f in known.items():
        if f.required and name not in data:
            out.append(f"{prefix}{name}: required by the {step_type} step and missing; add it")
    if not out:
        out += _schema_rules(step_type, data, prefix)
    return out


def _example(kinds: list[str]) -> str:
    return {"int": "8", "float": "0.0002", "bool": "true", "str": "'text'", "list": "[a, b]",
            "dict": "{key: value}"}.get(next((k for k in kinds if k != "null"), "str"), "a value")


def _schema_rules(step_type: str, data: Mapping[str, Any], prefix: str) -> list[str]:
    """The schema's own rules (``__post_init__``: pinned revisions, batch divisibility, ...)."""
    if step_type == "sft":
        from llm_platform.sft import ScriptArguments

        script_keys = {f.name for f in fields(ScriptArguments)}
        data = {k: v for k, v in data.items() if k in script_keys}
        cls: type = ScriptArguments
    else:
        cls = STEPS[step_type].schema_class()
        rules = getattr(cls, "problems", None)
        if callable(rules):  # a schema that names each field it refuses (BenchConfig)
            return [f"{prefix}{line}" for line in rules(dict(data))]
    try:
        cls(**dict(data))
    except (ValueError, TypeError) as exc:
        return [f"{prefix.rstrip('.') or step_type}: {exc}"]
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
    if step_type == "sft" and not data.get("merged_output_dir") and data.get("merge_weights", True):
        outputs.append(f"{data['output_dir']}/merged")
    if step_type == "prepare-data":
        from llm_platform.prepare_data import FORMAT_FILES, output_format

        fmt = output_format(str(data.get("source")), data.get("format"))
        outputs = [f"{data['output_dir']}/{name}" for name in FORMAT_FILES.get(fmt or "", ())] or outputs
    return inputs, outputs


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


def entry_point(step_type: str, argv: list[str] | None, *, build: Callable[[dict[str, Any]], Any],
                run: Callable[[Any], int], describe: Callable[[Any], str] | None = None,
                check_build: Callable[[dict[str, Any]], Any] | None = None) -> int:
    """What every ``llmp-*`` entry point does: read ``--config``, :func:`check` it, build the typed
    configuration (``build``, which may raise ValueError), then ``run`` it -- or, with ``--check``, build it with
    ``check_build`` (default ``build``), print what it would do and exit 0; an invalid file exits 1 with every problem named, never a traceback."""
    step = STEPS[step_type]
    module = sys.modules.get(step.module) or sys.modules.get("__main__")  # `python -m` runs it as __main__
    parser = argparse.ArgumentParser(prog=step.prog, description=(getattr(module, "__doc__", None) or "")
                                     .split("\n\n")[0].strip("`"))
    parser.add_argument("--config", required=True, help=f"the step file (in a pod: {STEP_FILE})")
    parser.add_argument("--check", action="store_true",
                        help="parse and validate the step file, print what the step would do, and exit (0 ok, 1 not)")
    args = parser.parse_args(argv)
    try:
        data = load_yaml(args.config)
        check(step_type, data, where=args.config)
        try:
            config = (check_build or build)(data) if args.check else build(data)
        except (ValueError, TypeError) as exc:
            raise StepConfigError(args.config, [str(exc)]) from None
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
