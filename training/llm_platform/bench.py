"""Benchmark an SFT recipe: MFU, tokens/s, peak GPU memory, padding efficiency, s/step and the cost of an epoch.

    python -m llm_platform.bench --shape llama-3.1-8b --config training/configs/sft.yaml --steps 12
    python -m llm_platform.bench --shape tiny --config training/configs/sft.yaml --steps 4 --cpu   # a CPU check

Builds a random-initialised model of a named shape (:data:`llm_platform.memory.SHAPES`: the published config.json
values; nothing is downloaded) with a word-level tokenizer (one word = one token), writes synthetic rows in
prepare-data's ``sft-r1`` layout whose lengths follow the medical-o1 measurement (:mod:`llm_platform.bench_data`) -- or
takes real prepared rows (``--data train.jsonl``, with ``--tokenizer`` the model's own tokenizer) -- and runs the real
SFT step (:func:`llm_platform.sft.train`, the code a job runs, memory model included) for ``--steps`` optimizer steps
from the step file, with the paths, step count and MLflow replaced (``mlflow_tracking: false``: the benchmark needs no
tracking server). Several recipes can be compared in one process (``--variant name:key=value,key=value``; the model is
built once).

Figures are medians over the steps after ``--warmup``; tokens/s and MFU come from the step's own meter
(:mod:`llm_platform.mfu`, non-padding tokens only), peak memory from ``torch.cuda.max_memory_reserved`` (what the
allocator held, closer to what nvidia-smi shows than allocated bytes). The epoch projection assumes the instance's
GPUs run data-parallel at the measured per-GPU rate: hours = tokens of the dataset / (tokens/s x GPUs), times the
on-demand price from config/data/prices.yaml.

As a job (``type: benchmark`` through ``llmft``, a one-GPU PyTorchJob in the sft image) the same code runs as a step
of the step contract (:mod:`llm_platform.steps`): ``python -m llm_platform.bench --config /etc/llmft/step.yaml
[--check]``, without ``--shape``, reads a *benchmark* step file (:class:`BenchConfig`: shape, steps, variants, the
SFT ``recipe`` they start from, real rows and tokenizer, the instance type to cost) instead of an SFT step file,
writes ``<output_dir>/results.json`` and, where the pod has the platform's MLflow (``MLFLOW_TRACKING_URI``), logs
one run per recipe to the team's experiment (:mod:`llm_platform.team_names`).

**Eviction.** A benchmark has nothing worth saving (a recipe cut short measures nothing). On SIGTERM (Kueue's
preemption, a drained node: :mod:`llm_platform.preemption`) the harness stops the recipe in progress, its own
process group with its torchrun and worker, at once, says so, and exits :data:`llm_platform.preemption.EXIT_PREEMPTED`
(143, retryable): the GPU is free within seconds of the signal instead of at the end of the grace period, and the
restarted job measures again from the start.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_platform.bench_data import MEDICAL_TRAIN_ROWS, build_model, synthetic_rows, words_for
from llm_platform.memory import SHAPES


@dataclass
class Result:
    name: str
    steps: int
    mfu: float | None
    tokens_per_second: float
    peak_memory_gib: float | None
    padding_efficiency: float
    seconds_per_step: float
    tokens_per_micro_step: int
    gradient_checkpointing: bool
    liger: bool
    attention: str
    loss: float
    epoch_hours: float | None = None
    epoch_usd: float | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)


class StepClock:
    """A TrainerCallback timing optimizer steps (CUDA synchronised) and recording the plan the step printed."""

    def __init__(self, cuda: bool) -> None:
        self.cuda = cuda
        self.ends: list[float] = []

    def __getattr__(self, name):  # every other TrainerCallback event is a no-op
        return lambda *a, **k: None

    def _now(self) -> float:
        if self.cuda:
            import torch

            torch.cuda.synchronize()
        return time.perf_counter()

    def on_train_begin(self, args, state, control, **kw):
        self.ends = [self._now()]

    def on_step_end(self, args, state, control, **kw):
        self.ends.append(self._now())


def hourly_price(instance_type: str, prices_file: Path | None = None) -> tuple[float, int] | None:
    """(USD per hour, GPUs) of ``instance_type`` in us-east-1 from config/data/prices.yaml (EC2 on-demand, or the
    SageMaker/HyperPod price for an ``ml.`` name), None when unknown."""
    import yaml

    from llm_platform.memory import find_specs_file

    path = prices_file or (find_specs_file().with_name("prices.yaml") if find_specs_file() else None)
    if not path or not Path(path).is_file():
        return None
    region = yaml.safe_load(Path(path).read_text())["regions"]["us-east-1"]
    for table in region.values():
        entry = table.get(instance_type) if isinstance(table, dict) else None
        if isinstance(entry, dict) and "usd" in entry and "gpus" in entry:
            return float(entry["usd"]), int(entry["gpus"])
    return None


def run_recipe(
    name: str,
    base: dict[str, Any],
    overrides: dict[str, Any],
    *,
    model_dir: Path,
    data: Path,
    work: Path,
    steps: int,
    warmup: int,
    cuda: bool,
) -> Result:
    """Run the SFT step on ``base`` + ``overrides`` for ``steps`` optimizer steps and summarise it."""
    import torch

    from llm_platform import sft

    config = {
        **base,
        **overrides,
        "model_id": str(model_dir),
        "train_dataset_path": str(data),
        "test_dataset_path": None,
        "output_dir": str(work / name),
        "merged_output_dir": None,
        "merge_weights": False,
        "registered_model_name": None,
        "mlflow_tracking": False,
        "max_steps": steps,
        "logging_steps": 1,
        "save_strategy": "no",
        "eval_strategy": "no",
        "report_to": "none",
        "disable_tqdm": True,
        "dataloader_num_workers": 0,
    }
    if not cuda:
        config.update(use_cpu=True, bf16=False, fsdp=False, fsdp_config=None, load_in_4bit=False)
        config = {k: v for k, v in config.items() if v is not None or k in ("test_dataset_path",)}
    clock = StepClock(cuda)
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    parsed = sft.parse_config({k: v for k, v in config.items() if v is not None})
    out = sft.train(parsed, callbacks=[clock])
    history = [h for h in out["log_history"] if "tokens_per_second" in h]
    kept = history[warmup:] or history
    durations = [b - a for a, b in zip(clock.ends, clock.ends[1:], strict=False)][warmup:] or [0.0]
    plan = {k.removeprefix("plan."): v for k, v in getattr(parsed[1], "_llmp_plan", {}).items()}

    def median(key: str) -> float | None:
        values = [h[key] for h in kept if key in h]
        return statistics.median(values) if values else None

    return Result(
        name=name,
        steps=out["global_step"],
        mfu=median("mfu"),
        tokens_per_second=median("tokens_per_second") or 0.0,
        peak_memory_gib=torch.cuda.max_memory_reserved() / 1024**3 if cuda else None,
        padding_efficiency=median("padding_efficiency") or 0.0,
        seconds_per_step=statistics.median(durations),
        tokens_per_micro_step=int(plan.get("tokens_per_micro_step", 0)),
        gradient_checkpointing=bool(plan.get("gradient_checkpointing", parsed[1].gradient_checkpointing)),
        liger=bool(plan.get("use_liger_kernel", False)),
        attention=str(plan.get("attn_implementation", "")),
        loss=float(kept[-1].get("loss", float("nan"))) if kept else float("nan"),
    )


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    """``name:key=value,key=value`` (values parsed as YAML) -> (name, overrides)."""
    import yaml

    name, _, rest = text.partition(":")
    overrides: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        key, sep, value = part.partition("=")
        if not sep:
            raise SystemExit(f"variant {text!r}: {part!r} is not key=value")
        overrides[key.strip()] = yaml.safe_load(value)
    return name, overrides


def table(results: list[Result], *, instance_type: str | None, dataset_tokens: int) -> str:
    head = (
        f"{'recipe':<14} {'MFU':>6} {'tok/s':>8} {'peak GiB':>8} {'pad eff':>7} {'s/step':>7} {'tok/step':>8} "
        f"{'ckpt':>4} {'liger':>5} {'attention':<17} {'loss':>7}"
    )
    cost = f" {'epoch h':>8} {'epoch $':>8}" if instance_type else ""
    lines = [head + cost]
    for r in results:
        if r.error:
            lines.append(f"{r.name:<14} failed: {r.error}")
            continue
        mfu = f"{r.mfu:.3f}" if r.mfu is not None else "n/a"
        peak = f"{r.peak_memory_gib:.1f}" if r.peak_memory_gib is not None else "n/a"
        line = (
            f"{r.name:<14} {mfu:>6} {r.tokens_per_second:>8.0f} {peak:>8} {r.padding_efficiency:>7.3f} "
            f"{r.seconds_per_step:>7.2f} {r.tokens_per_micro_step:>8} {'on' if r.gradient_checkpointing else 'off':>4} "
            f"{'on' if r.liger else 'off':>5} {r.attention:<17} {r.loss:>7.3f}"
        )
        if instance_type:
            line += (
                f" {r.epoch_hours:>8.2f} {r.epoch_usd:>8.2f}"
                if r.epoch_hours is not None
                else f" {'n/a':>8} {'n/a':>8}"
            )
        lines.append(line)
    if instance_type:
        lines.append(
            f"epoch: {dataset_tokens:,} tokens on one {instance_type} (all its GPUs data-parallel at the "
            f"measured per-GPU rate; on-demand price, config/data/prices.yaml)"
        )
    return "\n".join(lines)


def log_to_mlflow(
    experiment: str,
    results: list[Result],
    *,
    shape: str,
    gpu: str,
    steps: int,
    variants: list[str],
    instance_type: str,
    dataset_tokens: int,
    run_prefix: str = "bench",
) -> list[str]:
    """One MLflow run per recipe (``<run_prefix>/<name>``): the settings it overrode and what was measured."""
    import mlflow

    mlflow.set_experiment(experiment)
    run_ids = []
    for variant, r in zip(variants, results, strict=True):
        name, overrides = parse_variant(variant)
        with mlflow.start_run(run_name=f"{run_prefix}/{name}") as run:
            mlflow.log_params(
                {
                    "shape": shape,
                    "gpu": gpu,
                    "steps": steps,
                    "instance_type": instance_type,
                    "dataset_tokens": dataset_tokens,
                    "attention": r.attention,
                    "liger": r.liger,
                    "gradient_checkpointing": r.gradient_checkpointing,
                    "tokens_per_micro_step": r.tokens_per_micro_step,
                    **{f"recipe.{k}": str(v) for k, v in overrides.items()},
                }
            )
            metrics = {
                k: getattr(r, k)
                for k in (
                    "mfu",
                    "tokens_per_second",
                    "peak_memory_gib",
                    "padding_efficiency",
                    "seconds_per_step",
                    "epoch_hours",
                    "epoch_usd",
                    "loss",
                )
            }
            mlflow.log_metrics({k: float(v) for k, v in metrics.items() if v is not None and math.isfinite(v)})
            if r.error:
                mlflow.set_tag("error", r.error[:500])
            run_ids.append(run.info.run_id)
    return run_ids


def measure(args, variant: str, *, model_dir: Path, data: Path, work: Path, cuda: bool) -> Result:
    """One recipe, in this process."""
    import torch

    from llm_platform.config import load_yaml

    name, overrides = parse_variant(variant)
    try:
        return run_recipe(
            name,
            load_yaml(args.config),
            overrides,
            model_dir=model_dir,
            data=data,
            work=work,
            steps=args.steps,
            warmup=args.warmup,
            cuda=cuda,
        )
    except Exception as exc:  # noqa: BLE001 - one failed recipe (out of memory, missing package) is a row
        first = str(exc).splitlines()[0][:200] if str(exc) else ""
        return Result(
            name,
            0,
            None,
            0.0,
            torch.cuda.max_memory_reserved() / 1024**3 if cuda else None,
            0.0,
            0.0,
            0,
            False,
            False,
            "",
            float("nan"),
            error=f"{type(exc).__name__}: {first}",
        )


# --- the step of a `type: benchmark` job ---------------------------------------------------------------------------
MAX_STEPS = 100  # a benchmark runs minutes; a longer run is an sft job
TORCHRUN_ENV = frozenset(
    {
        "RANK",
        "LOCAL_RANK",
        "WORLD_SIZE",
        "LOCAL_WORLD_SIZE",
        "GROUP_RANK",
        "GROUP_WORLD_SIZE",
        "ROLE_RANK",
        "ROLE_NAME",
        "ROLE_WORLD_SIZE",
        "MASTER_ADDR",
        "MASTER_PORT",
    }
)
# SFT settings the benchmark sets itself (run_recipe): a recipe or variant giving them is refused
BENCH_SETS = (
    "model_id",
    "train_dataset_path",
    "test_dataset_path",
    "output_dir",
    "merged_output_dir",
    "merge_weights",
    "registered_model_name",
    "mlflow_tracking",
    "mlflow_experiment_name",
    "mlflow_run_name",
    "max_steps",
    "num_train_epochs",
    "save_strategy",
    "eval_strategy",
    "report_to",
)
_VARIANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


@dataclass
class BenchConfig:
    """The step file of a ``type: benchmark`` job (``llmft`` writes it from the spec: ``settings`` give shape,
    steps, variants, recipe ...; the spec's dataset, model, output, instance type and experiment give the rest)."""

    shape: str = field(metadata={"help": "model shape to build random-initialised (llm_platform.memory.SHAPES)"})
    output_dir: str = field(metadata={"help": "scratch (model, rows, recipe outputs) and results.json"})
    steps: int = field(default=12, metadata={"help": f"optimizer steps per recipe (1-{MAX_STEPS})"})
    warmup: int = field(default=2, metadata={"help": "steps left out of the medians (below steps)"})
    variants: list = field(
        default_factory=list,
        metadata={"help": "recipes to compare, 'name:key=value,key=value' over recipe (default: the recipe as is)"},
    )
    recipe: dict = field(
        default_factory=dict,
        metadata={
            "help": "SFT settings every variant starts from (an sft job's settings: ScriptArguments + "
            "TrainingArguments)"
        },
    )
    data: str | None = field(default=None, metadata={"help": "prepared train.jsonl (sft-r1) instead of synthetic rows"})
    tokenizer: str | None = field(default=None, metadata={"help": "with data: the model's tokenizer folder"})
    rows: int = field(default=512, metadata={"help": "synthetic rows to write"})
    instance_type: str | None = field(default=None, metadata={"help": "instance type to cost an epoch on"})
    dataset_examples: int = field(default=MEDICAL_TRAIN_ROWS, metadata={"help": "examples in the epoch to cost"})
    variant_timeout: int = field(default=0, metadata={"help": "seconds one recipe may take; 0: no limit"})
    budget: int = field(default=0, metadata={"help": "seconds the whole run may take; 0: no limit"})
    mlflow_tracking: bool = field(default=True, metadata={"help": "log one run per recipe where MLflow is set up"})
    mlflow_experiment_name: str = "benchmark"
    mlflow_run_name: str | None = field(default=None, metadata={"help": "runs are <this>/<recipe>"})

    def __post_init__(self) -> None:
        found = self.problems(vars(self))
        if found:
            raise ValueError("; ".join(found))

    @staticmethod
    def problems(data: dict[str, Any]) -> list[str]:
        """What the step refuses, one line a field (named as in the step file) with the fix."""
        out = []
        shape = data.get("shape")
        if shape not in SHAPES:
            out.append(f"shape: {shape!r} is not a known shape; use one of {', '.join(SHAPES)}")
        steps = data.get("steps", 12)
        if isinstance(steps, int) and not 1 <= steps <= MAX_STEPS:
            out.append(
                f"steps: {steps} is outside 1-{MAX_STEPS}; a benchmark measures a few steps (an sft job "
                f"trains), e.g. 12"
            )
        warmup = data.get("warmup", 2)
        if isinstance(warmup, int) and isinstance(steps, int) and not 0 <= warmup < steps:
            out.append(f"warmup: {warmup} leaves no measured step of {steps}; use 0 to {max(0, steps - 1)}")
        for key in ("rows", "dataset_examples"):
            value = data.get(key, 1)
            if isinstance(value, int) and value < 1:
                out.append(f"{key}: {value} is below 1; give a positive number")
        for key in ("variant_timeout", "budget"):
            value = data.get(key, 0)
            if isinstance(value, int) and value < 0:
                out.append(f"{key}: {value} is negative; give seconds, or 0 for no limit")
        if data.get("tokenizer") and not data.get("data"):
            out.append("tokenizer: applies to real rows; give data (a prepared train.jsonl) or remove tokenizer")
        recipe = data.get("recipe") or {}
        if not isinstance(recipe, dict):
            return out
        found = _recipe_problems(recipe, "recipe.", set(recipe))
        out += found
        names: set[str] = set()
        for i, text in enumerate(data.get("variants") or []):
            where = f"variants[{i}]"
            if not isinstance(text, str):
                out.append(f"{where}: {text!r} is not a string; write 'name:key=value,key=value'")
                continue
            try:
                name, overrides = split_variant(text)
            except ValueError as exc:
                out.append(f"{where}: {exc}")
                continue
            if not _VARIANT_NAME.fullmatch(name):
                out.append(
                    f"{where}: recipe name {name!r} must be 1-40 letters, digits, '-', '_' or '.' (it names "
                    f"the MLflow run and a folder), e.g. 'packed:packing=true'"
                )
            elif name in names:
                out.append(f"{where}: recipe name {name!r} is used twice; give each variant its own name")
            names.add(name)
            if not found:  # the recipe's own problems are named once, under recipe.
                out += _recipe_problems({**recipe, **overrides}, f"{where}.", set(overrides))
        return out


def split_variant(text: str) -> tuple[str, dict[str, Any]]:
    """:func:`parse_variant` raising ValueError (not SystemExit) for a part that is not key=value."""
    try:
        return parse_variant(text)
    except SystemExit as exc:
        raise ValueError(f"{exc}; write 'name:key=value,key=value'") from None


def _recipe_problems(settings: dict[str, Any], prefix: str, given: set[str]) -> list[str]:
    """The SFT step's own check of ``settings`` as the benchmark completes them; ``given``: the keys this part of
    the step file sets (the only ones that may not be what the benchmark sets)."""
    from llm_platform import steps as step_contract

    out = [
        f"{prefix}{k}: set by the benchmark (the built model, the rows, the step count, no checkpoints); remove it"
        for k in sorted(given)
        if k in BENCH_SETS
    ]
    placeholders = {"model_id": "/model", "train_dataset_path": "/data/train.jsonl", "output_dir": "/out"}
    rest = {k: v for k, v in settings.items() if k not in BENCH_SETS}
    return out + step_contract.problems("sft", {**rest, **placeholders}, prefix=prefix)


def step_argv(cfg: BenchConfig, recipe_file: Path) -> list[str]:
    """The CLI arguments that run ``cfg`` (the recipe written as the SFT step file ``recipe_file``)."""
    import torch

    argv = [
        "--shape",
        cfg.shape,
        "--config",
        str(recipe_file),
        "--steps",
        str(cfg.steps),
        "--warmup",
        str(cfg.warmup),
        "--rows",
        str(cfg.rows),
        "--dataset-examples",
        str(cfg.dataset_examples),
        "--work",
        str(Path(cfg.output_dir) / "work"),
        "--json",
        str(Path(cfg.output_dir) / "results.json"),
        "--variant-timeout",
        str(cfg.variant_timeout),
        "--budget",
        str(cfg.budget),
        "--run-prefix",
        cfg.mlflow_run_name or "bench",
    ]
    for variant in cfg.variants:
        argv += ["--variant", variant]
    if cfg.data:
        argv += ["--data", cfg.data]
    if cfg.tokenizer:
        argv += ["--tokenizer", cfg.tokenizer]
    if cfg.instance_type:
        argv += ["--instance-type", cfg.instance_type]
    if not torch.cuda.is_available():
        argv.append("--cpu")
    if cfg.mlflow_tracking and os.environ.get("MLFLOW_TRACKING_URI"):
        from llm_platform.team_names import experiment_name

        argv += ["--mlflow-experiment", experiment_name(cfg.mlflow_experiment_name)]
    return argv


def step_main(argv: list[str] | None = None) -> int:
    """``python -m llm_platform.bench --config <benchmark step file> [--check]``: the step of a benchmark job."""
    from llm_platform.steps import entry_point

    def run(cfg: BenchConfig) -> int:
        import torch
        import yaml

        rank = int(os.environ.get("LOCAL_RANK", "0"))
        if rank:  # more than one process per node (a local run on a multi-GPU machine): the first one measures
            print(f"llmp-benchmark: local rank {rank} idle; the benchmark runs one process per node", file=sys.stderr)
            return 0
        if not torch.cuda.is_available() and cfg.shape != "tiny":
            print(
                f"llmp-benchmark: shape {cfg.shape} needs a GPU and this machine has none; on a CPU (llmft run "
                f"--local) use shape: tiny, a check of the harness",
                file=sys.stderr,
            )
            return 1
        out = Path(cfg.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        recipe_file = out / "recipe.yaml"  # the SFT step file every variant starts from
        recipe_file.write_text(yaml.safe_dump(cfg.recipe, sort_keys=False))
        return cli_main(step_argv(cfg, recipe_file))

    def describe(cfg: BenchConfig) -> str:
        names = [split_variant(v)[0] for v in cfg.variants] or ["the recipe as is"]
        rows = f"the rows of {cfg.data}" if cfg.data else f"{cfg.rows} synthetic rows"
        cost = f", an epoch costed on {cfg.instance_type}" if cfg.instance_type else ""
        return (
            f"would benchmark a random-initialised {cfg.shape} for {cfg.steps} optimizer steps per recipe "
            f"({', '.join(names)}) on {rows}{cost}; results in {cfg.output_dir}/results.json"
            + (f", MLflow experiment {cfg.mlflow_experiment_name!r}" if cfg.mlflow_tracking else "")
        )

    return entry_point("benchmark", argv, build=lambda data: BenchConfig(**data), run=run, describe=describe)


def main(argv: list[str] | None = None) -> int:
    """The CLI (``--shape``: ``--config`` is an SFT step file), else the step of a ``type: benchmark`` job
    (``--config`` is a benchmark step file, :func:`step_main`)."""
    given = sys.argv[1:] if argv is None else argv
    if not any(a == "--shape" or a.startswith("--shape=") for a in given) and not any(
        a in ("-h", "--help") for a in given
    ):
        return step_main(given)
    return cli_main(given)


def _parser() -> argparse.ArgumentParser:
    """The bench command line's argument parser."""
    parser = argparse.ArgumentParser(prog="python -m llm_platform.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", required=True, choices=sorted(SHAPES))
    parser.add_argument("--config", required=True, help="the SFT step file (e.g. training/configs/sft.yaml)")
    parser.add_argument("--steps", type=int, default=12, help="optimizer steps per recipe")
    parser.add_argument("--warmup", type=int, default=2, help="steps left out of the medians")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="name:key=value,... settings over the step file; repeat to compare (default: as is)",
    )
    parser.add_argument("--data", help="prepared train.jsonl (sft-r1 rows) instead of synthetic rows")
    parser.add_argument(
        "--tokenizer",
        help="with --data: the model's tokenizer folder (e.g. /fsx/models/<name>), so "
        "rows have their real token counts (default: one token per word)",
    )
    parser.add_argument("--rows", type=int, default=512, help="synthetic rows to write")
    parser.add_argument("--instance-type", default="p5.48xlarge", help="for the epoch cost (config/data/prices.yaml)")
    parser.add_argument(
        "--dataset-examples",
        type=int,
        default=MEDICAL_TRAIN_ROWS,
        help="examples in the epoch to cost (default: medical-o1's training split)",
    )
    parser.add_argument("--work", help="scratch folder (model, data, outputs); default: a temporary folder")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--cpu", action="store_true", help="run on the CPU (fp32, no FSDP/QLoRA): a harness check")
    parser.add_argument(
        "--mlflow-experiment",
        help="also log each recipe as a run of this MLflow experiment "
        "(MLFLOW_TRACKING_URI; in a pod the team's server)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run every recipe in this process (default: one child process per recipe, so one "
        "recipe's patched modules (Liger) and GPU memory never reach the next)",
    )
    parser.add_argument(
        "--variant-timeout",
        type=int,
        default=0,
        help="seconds one recipe may take (its process is stopped and the row says so); 0: no limit",
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=0,
        help="seconds the whole run may take: a recipe that could not finish within it (by "
        "--variant-timeout) is skipped and its row says so; 0: no limit",
    )
    parser.add_argument("--run-prefix", default="bench", help=argparse.SUPPRESS)  # MLflow run names <prefix>/<recipe>
    parser.add_argument("--child", help=argparse.SUPPRESS)  # internal: measure this one variant, write JSON
    return parser


def _failed(name: str, error: str) -> Result:
    """A recipe's row without measurements, saying why."""
    return Result(name, 0, None, 0.0, None, 0.0, 0.0, 0, False, False, "", float("nan"), error=error)


def _dataset_tokens(args, *, model_dir: Path, data: Path) -> int:
    """Write the synthetic rows (or read --data's) and estimate the tokens of the epoch to cost."""
    if args.data:
        rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    else:
        rows = synthetic_rows(args.rows, words=words_for(args.shape))
        data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    mean_tokens = statistics.mean(len(tokenizer(r["text"])["input_ids"]) + 1 for r in rows[:256])
    return int(args.dataset_examples * mean_tokens)


class Evicted(Exception):
    """SIGTERM reached the harness (:func:`on_sigterm`); raised in the main thread, where a wait is interrupted."""


class _SigtermState:
    """What the handler saw (``received``) and whether a recipe's process is being started (``spawning``)."""

    received: str | None = None
    spawning: bool = False


_SIGTERM = _SigtermState()


def on_sigterm() -> Any:
    """Turn SIGTERM into :class:`Evicted` in the main thread (Python runs signal handlers there, and a wait that a
    handler raises from is not retried, PEP 475), so the recipe in progress is stopped by its ``except``. Returns the
    handler it replaced (None off the main thread, where Python refuses to set one)."""
    import signal
    import threading

    def handle(signum: int, _frame: Any) -> None:
        _SIGTERM.received = f"signal {signal.Signals(signum).name}"
        if not _SIGTERM.spawning:  # during Popen the child is not ours to stop yet: raised once it is
            raise Evicted(_SIGTERM.received)

    if threading.current_thread() is not threading.main_thread():
        return None
    _SIGTERM.received = None
    return signal.signal(signal.SIGTERM, handle)


def _stop_group(proc: Any) -> None:
    """SIGKILL the recipe's process group (its torchrun and worker) and reap the process."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _wait(proc: Any, limit: int) -> Any:
    """The recipe's exit status, or a note after ``limit`` seconds (0: none), when its group is stopped. SIGTERM's
    handler raises :class:`Evicted` out of the wait (``Popen.wait`` with a timeout sleeps in short steps)."""
    import subprocess

    started = time.monotonic()
    while True:
        try:
            return proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            if limit and time.monotonic() - started > limit:
                _stop_group(proc)
                return f"stopped after --variant-timeout {limit} s"


def _measure_in_child(args, variant: str, *, name: str, work: Path, cuda: bool) -> Result:
    """Measure one recipe in a process of its own, stopped after --variant-timeout (or at once on SIGTERM)."""
    import subprocess

    out = work / f"{name}.json"
    out.unlink(missing_ok=True)
    # on a GPU as the job runs it: torchrun, one process (FSDP, the process group, rank 0's MLflow code path)
    launcher = (
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "1"]
        if cuda
        else [sys.executable]
    )
    cmd = (
        launcher
        + [
            "-m",
            "llm_platform.bench",
            "--shape",
            args.shape,
            "--config",
            args.config,
            "--steps",
            str(args.steps),
            "--warmup",
            str(args.warmup),
            "--work",
            str(work),
            "--json",
            str(out),
            "--child",
            variant,
        ]
        + (["--cpu"] if args.cpu else [])
        + (["--data", args.data] if args.data else [])
    )
    # in a job the step itself runs under torchrun: its child starts a torchrun of its own, not a member
    child_env = {k: v for k, v in os.environ.items() if k not in TORCHRUN_ENV and not k.startswith("TORCHELASTIC_")}
    _SIGTERM.spawning = True  # a SIGTERM now is raised below, once the group can be stopped
    try:
        proc = subprocess.Popen(cmd, start_new_session=True, env=child_env)  # its own group: stopped as one
    finally:
        _SIGTERM.spawning = False
    try:
        if _SIGTERM.received:
            raise Evicted(_SIGTERM.received)
        print(f"bench: {name} runs as process group {proc.pid}", file=sys.stderr, flush=True)
        rc: Any = _wait(proc, args.variant_timeout)
    except BaseException:  # SIGTERM (Evicted), Ctrl-C: nothing of this recipe is kept
        _stop_group(proc)
        raise
    if out.is_file():
        return Result(**json.loads(out.read_text()))
    return _failed(name, f"no result from the recipe's process (exit {rc}: out of memory, timeout?)")


def _measure_variants(
    args,
    *,
    t0: float,
    model_dir: Path,
    data: Path,
    work: Path,
    cuda: bool,
    price: tuple[float, int] | None,
    dataset_tokens: int,
) -> list[Result]:
    """Measure every recipe (skipping those the --budget leaves no time for) and cost its epoch."""
    results = []
    for variant in args.variant or ["recipe:"]:
        name = parse_variant(variant)[0]
        print(f"bench: {variant}", file=sys.stderr, flush=True)
        t = time.perf_counter()
        if args.budget and t - t0 + (args.variant_timeout or 0) > args.budget:
            r = _failed(name, f"skipped: --budget {args.budget} s would be exceeded")
        elif args.in_process:
            r = measure(args, variant, model_dir=model_dir, data=data, work=work, cuda=cuda)
        else:
            r = _measure_in_child(args, variant, name=name, work=work, cuda=cuda)
        if price and r.tokens_per_second:
            usd, gpus = price
            r.epoch_hours = dataset_tokens / (r.tokens_per_second * gpus) / 3600
            r.epoch_usd = r.epoch_hours * usd
        results.append(r)
        print(f"bench: {name} done in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    return results


def _report(args, results: list[Result], *, gpu: str, price: tuple[float, int] | None, dataset_tokens: int) -> None:
    """Print the results table, log the recipes to MLflow and write the JSON, as asked."""
    print(f"shape {args.shape} on {gpu}; {args.steps} optimizer steps per recipe, medians after {args.warmup}")
    print(table(results, instance_type=args.instance_type if price else None, dataset_tokens=dataset_tokens))
    if args.mlflow_experiment:
        from llm_platform import mlflow_utils

        try:  # bounded: a tracking outage costs seconds and leaves the table and the JSON (issue 32)
            with mlflow_utils.bounded_http(retries=2):
                log_to_mlflow(
                    args.mlflow_experiment,
                    results,
                    shape=args.shape,
                    gpu=gpu,
                    steps=args.steps,
                    variants=args.variant or ["recipe:"],
                    instance_type=args.instance_type,
                    dataset_tokens=dataset_tokens,
                    run_prefix=args.run_prefix,
                )
        except Exception as exc:  # noqa: BLE001 - the measurement is done; say that it was not logged
            mlflow_utils.warn(f"the results were not logged to MLflow ({type(exc).__name__}: {str(exc)[:200]})")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "shape": args.shape,
                    "gpu": gpu,
                    "steps": args.steps,
                    "instance_type": args.instance_type,
                    "dataset_tokens": dataset_tokens,
                    "results": [vars(r) for r in results],
                },
                indent=1,
            )
        )


def cli_main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.child:
        return _run(parser, args)
    previous = on_sigterm()
    try:
        return _run(parser, args)
    except Evicted as why:
        from llm_platform.preemption import EXIT_PREEMPTED

        print(
            f"llmp-benchmark: {why}: the pod is being evicted; a benchmark has nothing worth saving, so the recipe "
            f"in progress was stopped and no result written; exiting {EXIT_PREEMPTED} so the job is retried and "
            f"measures again",
            file=sys.stderr,
            flush=True,
        )
        return EXIT_PREEMPTED
    finally:
        if previous is not None:
            import signal

            signal.signal(signal.SIGTERM, previous)


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """The harness: the recipe of ``--child``, or the model, the rows, every recipe and the report."""
    import tempfile

    import torch

    cuda = torch.cuda.is_available() and not args.cpu
    if not cuda and args.shape != "tiny":
        parser.error(f"--shape {args.shape} needs a GPU; use --shape tiny on a CPU")
    work = Path(args.work or tempfile.mkdtemp(prefix="llmp-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model_dir = work / "model"
    data = Path(args.data) if args.data else work / "train.jsonl"
    if args.child:
        result = measure(args, args.child, model_dir=model_dir, data=data, work=work, cuda=cuda)
        if int(os.environ.get("RANK", "0")) == 0:
            Path(args.json).write_text(json.dumps(vars(result)))
        return 0
    t0 = time.perf_counter()
    build_model(args.shape, model_dir, device="cuda" if cuda else "cpu", tokenizer_dir=args.tokenizer)
    print(f"bench: built {args.shape} in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    dataset_tokens = _dataset_tokens(args, model_dir=model_dir, data=data)
    price = hourly_price(args.instance_type)
    results = _measure_variants(
        args, t0=t0, model_dir=model_dir, data=data, work=work, cuda=cuda, price=price, dataset_tokens=dataset_tokens
    )
    gpu = torch.cuda.get_device_name(0) if cuda else "CPU"
    _report(args, results, gpu=gpu, price=price, dataset_tokens=dataset_tokens)
    return 0 if all(r.error is None for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
