"""`llmp-sft`: LoRA / QLoRA supervised fine-tuning with FSDP, resumable on FSx, merged and registered in MLflow.

    torchrun --nproc-per-node 8 -m llm_platform.sft --config sft.yaml      (what the PyTorchJob runs)

One YAML file (``training/configs/sft.yaml``), laid out like the published ``args-fine-tuning.yaml``: the script
settings of :class:`ScriptArguments` next to any ``transformers.TrainingArguments`` field (``output_dir``,
``bf16``, ``gradient_checkpointing``, ``fsdp``/``fsdp_config``, ``save_steps``
...). Both are parsed by ``transformers.HfArgumentParser``, which rejects an unknown key.

* LoRA on every linear layer (``lora_target_modules: all-linear``); QLoRA with ``load_in_4bit: true``: NF4,
  double quantisation, BF16 compute and BF16 *storage* so FSDP can shard the packed weights
  (https://huggingface.co/docs/peft/accelerate/fsdp#use-peft-qlora-and-fsdp-for-finetuning-large-models-on-multiple-gpus).
* FSDP: ``fsdp: true`` with ``fsdp_config`` (full shard = ``reshard_after_forward: true``, auto wrap =
  ``auto_wrap_policy: TRANSFORMER_BASED_WRAP``, ``cpu_offload``). With FSDP, gradient checkpointing is done as
  FSDP activation checkpointing (transformers' TrainingArguments docs: it avoids a redundant all-gather).
* Checkpoints go to ``output_dir`` on FSx (``/fsx/checkpoints/<run>``) every ``save_steps``; a restarted pod
  finds the newest ``checkpoint-N`` there and resumes from it (model, optimizer, scheduler, RNG, data position),
  and reopens the same MLflow run. HyperPod auto-resume restarts the pods; this makes the restart continue.
* The fast path (docs/training.md): whole examples packed without padding into micro-steps of a token budget
  (:mod:`llm_platform.packing`: position ids restart per example, no attention across examples), the budget and
  activation checkpointing chosen for the GPU by :mod:`llm_platform.memory` (``max_tokens_per_step`` /
  ``gradient_checkpointing`` override it; a recipe that cannot fit is refused with a value that does), Liger's fused
  kernels where installed on CUDA (``liger_kernel: auto``), flash-attention where installed, LoRA dropout 0.
* Loss only on the assistant's answer (prompt tokens are masked).
* MLflow (rank 0): every setting as params, loss / learning rate / grad norm, ``tokens_per_second`` (non-padding
  tokens of all ranks per second of training), ``mfu`` (:mod:`llm_platform.mfu`), system metrics; at the end the
  LoRA weights are merged into the base model, saved under ``merged_output_dir`` and registered.

This module is the step's settings, plan and run; its rows are :mod:`llm_platform.sft_data`, what it reports while it
trains :mod:`llm_platform.sft_tracking`, its checkpoints and merged model :mod:`llm_platform.sft_checkpoints`.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Optional

from llm_platform import (
    data_check,  # issue 32: data before the model loads, disk before the first step
    preemption,  # issue 44: save on eviction, hang watchdog
)
from llm_platform.config import load_yaml
from llm_platform.paths import set_hf_home, share_with_team
from llm_platform.rank_zero import run_on_rank_zero, shutdown_distributed
from llm_platform.sft_checkpoints import (
    ADAPTER_MARKER,
    DEFAULT_SAVE_TOTAL_LIMIT,
    checkpoint_state,
    finished_at,
    last_checkpoint,
    merge,
    planned_saves,
)
from llm_platform.sft_data import Collator, read_jsonl, tokenize
from llm_platform.sft_tracking import ThroughputMeter, counting_trainer, mlflow_callback
from llm_platform.steps import entry_point

SHARDING = ("auto", "fsdp", "none")
FSDP_KEYS = ("fsdp", "fsdp_config")
ALLOC_CONF = "expandable_segments:True"
"""PyTorch's caching allocator with growable segments (torch.cuda docs, "Optimizing memory usage with
PYTORCH_CUDA_ALLOC_CONF"): packed micro-steps of changing shapes fragment fixed-size segments; a job's own
``PYTORCH_CUDA_ALLOC_CONF`` wins. Its effect was not measured apart (0.328 MFU without it, 0.320 with it, on two
different H100 machines)."""


@dataclass
class ScriptArguments:
    model_id: str = field(metadata={"help": "base model directory (e.g. /fsx/models/<name>) or Hub id"})
    train_dataset_path: str = field(metadata={"help": "train.jsonl from llmp-prepare-data (or its directory)"})
    test_dataset_path: Optional[str] = field(default=None, metadata={"help": "test.jsonl, for eval_loss"})
    max_seq_length: int = 2048
    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = field(
        default=0.0,
        metadata={
            "help": "0 (default) lets PEFT skip the dropout copy of every adapted layer's input (memory, kernels)"
        },
    )
    lora_target_modules: str = "all-linear"
    load_in_4bit: bool = field(default=False, metadata={"help": "QLoRA: 4-bit NF4 base weights (bitsandbytes)"})
    merge_weights: bool = True
    merged_output_dir: Optional[str] = field(default=None, metadata={"help": "default: <output_dir>/merged"})
    attn_implementation: str = field(
        default="auto",
        metadata={
            "help": "auto: on CUDA flash_attention_2 where flash-attn is installed, else flex_attention; sdpa on "
            "CPU; or any transformers attn_implementation"
        },
    )
    packing: bool = field(
        default=True,
        metadata={
            "help": "padding-free packing of whole examples into max_tokens_per_step per micro-step "
            "(llm_platform.packing)"
        },
    )
    max_tokens_per_step: Optional[int] = field(
        default=None,
        metadata={
            "help": "packed tokens per GPU per micro-step; default: the memory model's choice (llm_platform.memory)"
        },
    )
    tokens_per_optimizer_step: Optional[int] = field(
        default=None,
        metadata={
            "help": "with packing and no gradient_accumulation_steps in the file: accumulate micro-steps until about "
            "this many tokens (all GPUs) make one optimizer step"
        },
    )
    liger_kernel: str | bool = field(
        default="auto",
        metadata={
            "help": "auto: Liger's fused kernels (TrainingArguments.use_liger_kernel) where liger-kernel is installed "
            "and on CUDA; true; false (YAML's booleans or the words)"
        },
    )
    hang_factor: float = field(
        default=10.0,
        metadata={
            "help": "the hang watchdog (llm_platform/preemption.py): no optimizer step for this many times the run's "
            "median step time (and at least hang_floor_seconds) prints every thread's stack and exits 142 so the "
            "job restarts from its last checkpoint; 0 turns it off"
        },
    )
    hang_floor_seconds: float = field(
        default=900.0,
        metadata={"help": "the shortest wait the watchdog calls a hang (the first steps, a save, an evaluation)"},
    )
    mlflow_tracking: bool = field(
        default=True,
        metadata={
            "help": "false: no MLflow run (the benchmark, a machine without a tracking server); metrics still land in "
            "the trainer's log history (trainer_state.json)"
        },
    )
    mlflow_experiment_name: str = "sft"
    mlflow_run_name: Optional[str] = None
    registered_model_name: Optional[str] = None
    peak_tflops: Optional[float] = field(
        default=None,
        metadata={"help": "peak dense TFLOPS of one device, when the GPU is not in llm_platform.mfu's table"},
    )
    gpu_usd_per_hour: Optional[float] = field(
        default=None,
        metadata={
            "help": "on-demand USD per GPU-hour of the node the job runs on (config/data/prices.yaml); when given, "
            "the step logs cost_usd (= gpu_hours x this) to the MLflow run beside gpu_hours"
        },
    )
    sharding: str = field(
        default="auto",
        metadata={
            "help": "auto: the file's fsdp/fsdp_config only where they are needed (more than one process and the "
            "unsharded step does not fit one GPU; see sharding_decision), else data parallel; fsdp: always; "
            "none: never"
        },
    )

    def __post_init__(self) -> None:
        if str(self.liger_kernel).lower() not in ("auto", "true", "false"):
            raise ValueError(f"liger_kernel: {self.liger_kernel!r}; use auto, true or false")
        self.liger_kernel = str(self.liger_kernel).lower()
        if str(self.sharding).lower() not in SHARDING:
            raise ValueError(f"sharding: {self.sharding!r}; use {', '.join(SHARDING)}")
        self.sharding = str(self.sharding).lower()
        for name in ("max_tokens_per_step", "tokens_per_optimizer_step"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name}: {value}; a positive number of tokens, or leave it out")
        if self.packing and self.max_tokens_per_step is not None and self.max_tokens_per_step < self.max_seq_length:
            raise ValueError(
                f"max_tokens_per_step: {self.max_tokens_per_step} is less than max_seq_length "
                f"{self.max_seq_length} (the longest example must fit one micro-step); set "
                f"max_tokens_per_step: {self.max_seq_length} or more"
            )


def written_paths(data: dict[str, Any]) -> list[str]:
    """What the step writes for the step file ``data`` (llm_platform.steps.Step.written): the output folder and the
    merged model, in ``merged_output_dir`` or ``<output_dir>/merged`` unless ``merge_weights`` is false."""
    out = [str(data[k]) for k in ("output_dir", "merged_output_dir") if data.get(k)]
    if data.get("output_dir") and not data.get("merged_output_dir") and data.get("merge_weights", True):
        out.append(f"{data['output_dir']}/merged")
    return out


def parse_config(path_or_data: str | Path | dict[str, Any]):
    from transformers import HfArgumentParser, TrainingArguments

    data = dict(path_or_data) if isinstance(path_or_data, dict) else load_yaml(path_or_data)
    data.setdefault("report_to", "none")  # MLflow is logged by this module's callback, once
    # checkpoints do not pile up unless the file says so (a run keeps the last DEFAULT_SAVE_TOTAL_LIMIT); the start-up
    # space check counts every one the run keeps (data_check.checkpoints_to_write)
    data.setdefault("save_total_limit", DEFAULT_SAVE_TOTAL_LIMIT)
    (script_only,) = HfArgumentParser((ScriptArguments,)).parse_dict(data, allow_extra_keys=True)
    # the Liger decision the step will make (liger_decision reads only these of the TrainingArguments)
    as_given = SimpleNamespace(
        _llmp_given=frozenset(data), use_liger_kernel=data.get("use_liger_kernel"), use_cpu=bool(data.get("use_cpu"))
    )
    shard, why = sharding_decision(
        script_only,
        recipe_shards=bool(data.get("fsdp")),
        use_cpu=bool(data.get("use_cpu")),
        liger=liger_decision(script_only, as_given)[0],
        checkpointing=data.get("gradient_checkpointing"),
    )
    if not shard:
        data = {k: v for k, v in data.items() if k not in FSDP_KEYS}
    elif "liger_kernel_config" not in data:
        # Liger's fused linear cross-entropy reads lm_head.weight outside lm_head's forward; FSDP2 keeps it a sharded
        # DTensor there ("aten.mm.out got mixed torch.Tensor and DTensor", measured on an H100 with liger-kernel
        # 0.8.5, whose FSDP redirection handles FSDP1 modules only: liger_kernel/transformers/model/llama.py
        # lce_maybe_trainable_lm_head). Under FSDP: Liger's other kernels and its plain cross-entropy.
        data["liger_kernel_config"] = {"fused_linear_cross_entropy": False, "cross_entropy": True}
    script, training = HfArgumentParser((ScriptArguments, TrainingArguments)).parse_dict(data)
    # which settings the file gave (not a field: a default is the memory model's to choose, a given value is not)
    training._llmp_given = frozenset(data)
    training._llmp_sharding = why
    return script, training


def sharding_decision(
    script: ScriptArguments,
    *,
    recipe_shards: bool,
    use_cpu: bool = False,
    liger: bool = True,
    checkpointing: bool | None = None,
) -> tuple[bool, str]:
    """Whether this run shards with the file's ``fsdp``/``fsdp_config``, and why. ``sharding: auto`` shards only
    where it pays: with one process there is nothing to shard over (FSDP only adds its all-gathers, 0.003 MFU
    measured on one H100), and a LoRA/QLoRA base model is frozen, so plain data parallelism keeps one bf16 copy per
    GPU and no optimizer state for it; sharding is chosen when that copy and the step do not fit one GPU
    (:mod:`llm_platform.memory` with ``fsdp=False``, the step's own Liger decision ``liger`` and the recipe's
    ``gradient_checkpointing`` when it gives one)."""
    if not recipe_shards:
        return False, "no fsdp in the recipe: data parallel"
    if script.sharding == "fsdp":
        return True, "sharding: fsdp: FSDP as the recipe configures it"
    if script.sharding == "none":
        return False, "sharding: none: data parallel (the recipe's fsdp settings unused)"
    world = max(1, int(os.environ.get("WORLD_SIZE", "1")))
    if world == 1:
        return False, "sharding: auto: one process, nothing to shard: no FSDP"
    fits = None if use_cpu else _fits_unsharded(script, world, liger=liger, checkpointing=checkpointing)
    if fits is None:
        return True, "sharding: auto: no GPU or model shape to plan with: FSDP as the recipe configures it"
    if fits:
        return False, f"sharding: auto: the frozen base model and the step fit one GPU: data parallel over {world}"
    return True, f"sharding: auto: the unsharded step does not fit one GPU: FSDP over {world} processes"


def _fits_unsharded(script: ScriptArguments, world: int, *, liger: bool, checkpointing: bool | None) -> bool | None:
    """Whether the step fits one GPU unsharded (None: no GPU or no model shape to plan with)."""
    try:
        import torch
    except ImportError:
        return None
    from llm_platform import memory

    dims, _ = memory.resolve_dims(script.model_id)  # its config.json under /fsx, else its name
    if dims is None or not torch.cuda.is_available():
        return None
    gib = torch.cuda.get_device_properties(0).total_memory / memory.GIB
    setup = memory.Setup(
        dims,
        gib,
        max_seq_length=script.max_seq_length,
        lora_r=script.lora_r,
        lora_dropout=script.lora_dropout,
        load_in_4bit=script.load_in_4bit,
        liger=liger,
        world_size=world,
        fsdp=False,
    )
    return memory.plan(setup, tokens=script.max_tokens_per_step, checkpointing=checkpointing).fits


def parse_as_on_gpus(data: dict[str, Any]):
    """:func:`parse_config` for ``--check`` on a machine without the job's GPUs (a laptop, CI, a Studio CPU space):
    TrainingArguments refuses bf16/fp16 there ("Your setup doesn't support bf16/gpu"), which says nothing about the
    file; ``use_cpu`` is added for the check only, and the check says so."""
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except ImportError:
        has_gpu = False
    if has_gpu or not (data.get("bf16") or data.get("fp16")) or "use_cpu" in data:
        return parse_config(data)
    print("llmp-sft: no GPU here; checking with use_cpu: true added (bf16/fp16 need a GPU)", file=sys.stderr)
    return parse_config({**data, "use_cpu": True})


def fsdp_enabled(args) -> bool:
    return bool(getattr(args, "fsdp_plugin_args", None))


def quantization_config(script: ScriptArguments, compute_dtype):
    if not script.load_in_4bit:
        return None
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_use_double_quant=True,
        bnb_4bit_compute_dtype=compute_dtype,
        bnb_4bit_quant_storage=compute_dtype,
    )


def fsdp_loading_environment(args) -> dict[str, str]:
    """What transformers reads before ``from_pretrained`` to load an FSDP model with ``cpu_ram_efficient_loading``
    (rank 0 reads the weights, the others get empty tensors): ``is_fsdp_enabled()`` in transformers
    ``integrations/fsdp.py`` wants ``ACCELERATE_USE_FSDP`` and ``FSDP_CPU_RAM_EFFICIENT_LOADING`` true and the
    process group up. Accelerate sets them only when the Trainer builds its Accelerator, after the model exists,
    so without this every rank loads the whole model into CPU memory."""
    if not fsdp_enabled(args):
        return {}
    env = {"ACCELERATE_USE_FSDP": "true"}
    if str((args.fsdp_config or {}).get("cpu_ram_efficient_loading", False)).lower() == "true":
        env["FSDP_CPU_RAM_EFFICIENT_LOADING"] = "true"
    return env


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def attention_implementation(script: ScriptArguments) -> str:
    """``attn_implementation: auto``: on CUDA, flash-attention 2 where the ``flash_attn`` package is installed (varlen
    kernel over one long packed row), else PyTorch's flex attention (transformers' ``flex_attention``: the packed
    rows' per-example causal mask as a block-sparse ``BlockMask``, compiled once per process); on CPU, sdpa with
    transformers' packed-sequence mask. Flex over sdpa is measured: 0.357 vs 0.320 MFU, 71.9 vs 76.8 GiB reserved,
    8B LoRA on one H100 (docs/training.md, "Measured on an H100")."""
    if script.attn_implementation != "auto":
        return script.attn_implementation
    import torch

    if not torch.cuda.is_available():
        return "sdpa"
    return "flash_attention_2" if _installed("flash_attn") else "flex_attention"


def liger_decision(script: ScriptArguments, args) -> tuple[bool, str]:
    """(use Liger, why). Liger's kernels are Triton kernels for CUDA GPUs: ``auto`` turns them on where
    ``liger_kernel`` and ``triton`` are installed and CUDA is available, and falls back to transformers' modelling
    code otherwise (CPU tests, an image without it) -- and says so. ``use_liger_kernel: true`` in the file (a
    TrainingArguments field) or ``liger_kernel: true`` insists."""
    import torch

    given = getattr(args, "_llmp_given", frozenset())
    if "use_liger_kernel" in given:
        return bool(args.use_liger_kernel), f"use_liger_kernel: {args.use_liger_kernel} (set by the recipe)"
    if script.liger_kernel == "false":
        return False, "liger_kernel: false"
    if script.liger_kernel == "true":
        return True, "liger_kernel: true"
    if not (_installed("liger_kernel") and _installed("triton")):
        return False, "liger-kernel is not installed here: unfused modelling code (slower, more memory)"
    if not torch.cuda.is_available() or getattr(args, "use_cpu", False):
        return False, "no CUDA device: Liger's Triton kernels need one; unfused modelling code"
    return True, "liger-kernel installed and CUDA available: fused RMSNorm, SwiGLU, RoPE, linear cross-entropy"


@dataclass
class StepPlan:
    """What the memory model (or, without a GPU, the recipe) decided for one micro-step."""

    tokens_per_micro_step: int
    rows: int
    row_tokens: int
    gradient_checkpointing: bool
    gradient_accumulation_steps: int
    attn_implementation: str
    use_liger_kernel: bool
    reasons: list[str]

    def params(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k != "reasons"}


def plan_step(
    script: ScriptArguments, args, *, gpu_memory_gib: float | None = None, world_size: int | None = None
) -> StepPlan:
    """Token budget, rows, checkpointing and accumulation of this run, from :mod:`llm_platform.memory` on a GPU
    (``gpu_memory_gib``: the device's, unless given) or from the recipe's own settings without one. Raises
    ValueError naming the setting to change when the recipe cannot fit."""
    import torch

    from llm_platform import memory

    given = getattr(args, "_llmp_given", frozenset())
    attn = attention_implementation(script)
    liger, why_liger = liger_decision(script, args)
    reasons = [why_liger]
    # before the Trainer sets up devices TrainingArguments.world_size says 1; torchrun's WORLD_SIZE is already right
    world = world_size or max(1, int(os.environ.get("WORLD_SIZE", "1")), int(getattr(args, "world_size", 1) or 1))
    ckpt_given = args.gradient_checkpointing if "gradient_checkpointing" in given else None
    if gpu_memory_gib is None and torch.cuda.is_available() and not getattr(args, "use_cpu", False):
        gpu_memory_gib = torch.cuda.get_device_properties(0).total_memory / memory.GIB
    dims, _ = memory.resolve_dims(script.model_id)  # its config.json under /fsx, else its name
    if not script.packing:
        tokens = args.per_device_train_batch_size * script.max_seq_length
        ckpt = bool(args.gradient_checkpointing)
        reasons.append("packing: false: right-padded batches of per_device_train_batch_size")
    elif gpu_memory_gib is not None and dims is not None:
        setup = memory.Setup(
            dims,
            gpu_memory_gib,
            max_seq_length=script.max_seq_length,
            lora_r=script.lora_r,
            lora_dropout=script.lora_dropout,
            load_in_4bit=script.load_in_4bit,
            liger=liger,
            world_size=world,
            fsdp=fsdp_enabled(args),
        )
        chosen = memory.plan(setup, tokens=script.max_tokens_per_step, checkpointing=ckpt_given)
        if not chosen.fits:
            raise ValueError(memory.describe(setup, chosen))
        tokens, ckpt = chosen.tokens_per_micro_step, chosen.gradient_checkpointing
        reasons.append(memory.describe(setup, chosen))
    else:
        tokens = script.max_tokens_per_step or args.per_device_train_batch_size * script.max_seq_length
        ckpt = bool(args.gradient_checkpointing)
        reasons.append(
            "no GPU memory to plan for (CPU) or no config.json: "
            f"{tokens} tokens per micro-step from the recipe, checkpointing {'on' if ckpt else 'off'}"
        )
    # flash-attention's varlen kernel takes one long row; the masked kernels (sdpa/eager) rows of max_seq_length,
    # so attention is never computed over more than one row's tokens
    row = tokens if attn.startswith("flash") else min(tokens, script.max_seq_length)
    rows = max(1, tokens // row) if script.packing else args.per_device_train_batch_size
    accumulation = args.gradient_accumulation_steps
    if script.packing and script.tokens_per_optimizer_step and "gradient_accumulation_steps" not in given:
        accumulation = max(1, round(script.tokens_per_optimizer_step / (rows * row * world)))
    return StepPlan(rows * row if script.packing else tokens, rows, row, ckpt, accumulation, attn, liger, reasons)


def load_model(script: ScriptArguments, args):
    import torch
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
    from transformers import AutoModelForCausalLM

    loading = fsdp_loading_environment(args)
    if loading:
        os.environ.update(loading)
        _ = args.device  # initialises the process group (TrainingArguments._setup_devices) before loading
    dtype = torch.bfloat16 if args.bf16 else torch.float32
    model = AutoModelForCausalLM.from_pretrained(
        script.model_id,
        dtype=dtype,
        quantization_config=quantization_config(script, dtype),
        attn_implementation=attention_implementation(script),
    )
    if script.load_in_4bit:
        model = prepare_model_for_kbit_training(
            model,
            use_gradient_checkpointing=args.gradient_checkpointing,
            gradient_checkpointing_kwargs=args.gradient_checkpointing_kwargs,
        )
    # incompatible with gradient checkpointing, useless in training, and with a KV cache transformers does not read
    # packed sequences from position_ids (masking_utils._preprocess_mask_arguments wants past_key_values None)
    model.config.use_cache = False
    lora = LoraConfig(
        r=script.lora_r,
        lora_alpha=script.lora_alpha,
        lora_dropout=script.lora_dropout,
        target_modules=script.lora_target_modules,
        bias="none",
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, lora)


def apply_plan(step: StepPlan, script: ScriptArguments, args) -> None:
    """Put the plan into the TrainingArguments the Trainer reads (before it exists)."""
    args._llmp_plan = step.params()  # for the benchmark (not a TrainingArguments field, not logged twice)
    args.gradient_checkpointing = step.gradient_checkpointing
    if step.gradient_checkpointing and not args.gradient_checkpointing_kwargs:
        args.gradient_checkpointing_kwargs = {"use_reentrant": False}
    args.use_liger_kernel = step.use_liger_kernel
    args.gradient_accumulation_steps = step.gradient_accumulation_steps
    if script.packing:
        args.per_device_train_batch_size = step.rows
        args.per_device_eval_batch_size = step.rows
        args.group_by_length = False  # rows are all about row_tokens long


def _plan_and_apply(script: ScriptArguments, args) -> StepPlan:
    """Plan the step, apply the plan to the training arguments and hand activation checkpointing to FSDP."""
    step = plan_step(script, args)
    apply_plan(step, script, args)
    if fsdp_enabled(args) and args.gradient_checkpointing:
        args.fsdp_config["activation_checkpointing"] = True
        args.fsdp_plugin_args["activation_checkpointing"] = True
        args.gradient_checkpointing = False
    return step


def _training_data(script: ScriptArguments, tokenizer, *, step: StepPlan):
    """Tokenize the train and test rows (packed when the script asks) and pick their collator; also the example
    count before packing."""
    from llm_platform import packing

    train = tokenize(read_jsonl(script.train_dataset_path, "train"), tokenizer, script.max_seq_length)
    test = (
        tokenize(read_jsonl(script.test_dataset_path, "test"), tokenizer, script.max_seq_length)
        if script.test_dataset_path
        else None
    )
    examples = len(train)
    if script.packing:
        packed = packing.pack(train, step.row_tokens)
        pack_stats = packing.stats(train, packed, step.row_tokens)
        train = packed
        test = packing.pack(test, step.row_tokens) if test else test
        collator: Any = packing.PackedCollator(tokenizer.pad_token_id)
        step.reasons.append(
            f"{examples} examples packed into {len(train)} rows of {step.row_tokens} tokens "
            f"(padding efficiency {pack_stats.padding_efficiency:.3f})"
        )
    else:
        collator = Collator(tokenizer.pad_token_id)
    return train, test, collator, examples


def _print_reasons(step: StepPlan, args) -> None:
    """Put the sharding reason first among the plan's reasons and print them on rank 0."""
    step.reasons.insert(0, getattr(args, "_llmp_sharding", ""))
    if int(os.environ.get("RANK", "0")) == 0:
        for line in filter(None, step.reasons):
            print(f"llmp-sft: {line}", file=sys.stderr)


def build_trainer(script: ScriptArguments, args, *, callbacks=()):
    import torch
    from transformers import AutoTokenizer

    from llm_platform import mfu as mfu_mod

    tokenizer = AutoTokenizer.from_pretrained(script.model_id)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    step = _plan_and_apply(script, args)
    from transformers import set_seed

    set_seed(args.seed)  # LoRA's A matrices are drawn here, before the Trainer seeds: same seed, same run
    model = load_model(script, args)
    if args.gradient_checkpointing:
        model.enable_input_require_grads()  # LoRA: frozen embeddings still need grads flowing into checkpoints
    train, test, collator, examples = _training_data(script, tokenizer, step=step)
    _print_reasons(step, args)
    shape = mfu_mod.model_shape(model)
    gpu = mfu_mod.detect_gpu_name() if torch.cuda.is_available() else None
    peak = script.peak_tflops * 1e12 if script.peak_tflops else (mfu_mod.peak_flops(gpu) if gpu else None)
    meter = ThroughputMeter()
    data = {"train_examples": examples, "train_rows": len(train), "test_examples": len(test) if test else 0}
    trainer = counting_trainer(meter)(
        model=model,
        args=args,
        train_dataset=train,
        eval_dataset=test,
        data_collator=collator,
        processing_class=tokenizer,
        callbacks=[
            mlflow_callback(script, meter=meter, shape=shape, gpu=gpu, peak=peak, step=step, data=data),
            *callbacks,
        ],
    )
    return trainer, tokenizer


def finish_run(script: ScriptArguments, args, adapter_dir: Path, out: dict[str, Any]) -> None:
    """On rank 0: merge (unless the merged model matches), register and tag (one idempotent unit,
    mlflow_utils.register_model_dir), end the MLflow run."""
    from llm_platform import mlflow_utils

    if script.merge_weights:
        merged_dir = Path(script.merged_output_dir or Path(args.output_dir) / "merged")
        out["merged_dir"] = merge(script, adapter_dir, merged_dir, args.bf16)
        if script.registered_model_name and script.mlflow_tracking:
            mlflow_utils.register_model_dir(merged_dir, name=script.registered_model_name)
    if script.mlflow_tracking:
        mlflow_utils.end_run()


def finish_without_training(script: ScriptArguments, args, checkpoint: str, step: int) -> dict[str, Any]:
    """A run resumed at or past its last step: no model is loaded and no step trained; the final adapter (the one
    saved at that step, else the checkpoint's) is merged where the merged model does not match it, and the
    registration and its tags are completed in the job's own MLflow run."""
    adapter_dir = Path(args.output_dir) / "adapter"
    try:
        saved = json.loads((adapter_dir / ADAPTER_MARKER).read_text()).get("global_step")
    except (OSError, ValueError):
        saved = None
    source = adapter_dir if saved == step else Path(checkpoint)
    print(f"llmp-sft: {checkpoint} is the run's last step ({step}): nothing left to train", file=sys.stderr)
    history = checkpoint_state(checkpoint).get("log_history", [])
    losses = [e["train_loss"] for e in history if "train_loss" in e]
    out: dict[str, Any] = {
        "resumed_from": checkpoint,
        "global_step": step,
        "train_loss": losses[-1] if losses else None,
        "adapter_dir": source,
        "merged_dir": None,
        "log_history": history,
    }

    def finish() -> None:
        from llm_platform import mlflow_utils

        if script.mlflow_tracking:
            mlflow_utils.start_run(
                experiment=script.mlflow_experiment_name,
                run_name=script.mlflow_run_name or Path(args.output_dir).name,
                resume_file=Path(args.output_dir) / "mlflow_run_id",
            )
        finish_run(script, args, source, out)

    if os.environ.get("RANK", "0") == "0":  # no process group is started here: the other ranks just leave
        finish()
    return out


def train(config: str | Path | dict[str, Any] | tuple, *, callbacks=()) -> dict[str, Any]:
    """Run (or resume) one fine-tuning job (a step file, its mapping, or :func:`parse_config`'s result); returns
    what it did."""
    set_hf_home()
    script, args = config if isinstance(config, tuple) else parse_config(config)
    resume = last_checkpoint(args.output_dir)
    done = finished_at(resume, args)
    if done is not None:
        return finish_without_training(script, args, resume, done)
    data_check.check_sft_data(script)  # issue 32: refuse bad data before the model loads
    trainer, tokenizer = build_trainer(script, args, callbacks=callbacks)
    # issue 32: room for a checkpoint and the merged model before the first step; a resumed run's true train_loss
    space = data_check.check_checkpoint_space(
        args.output_dir,
        trainer.model,
        bf16=args.bf16,
        merged_dir=(script.merged_output_dir or Path(args.output_dir) / "merged") if script.merge_weights else None,
        checkpoints=data_check.checkpoints_to_write(
            args.output_dir, save_total_limit=args.save_total_limit, planned=planned_saves(args, trainer)
        ),
    )
    from llm_platform.mlflow_utils import ResumedLossCallback

    trainer.callback_handler.callbacks.insert(0, loss_fix := ResumedLossCallback())  # before MLflow's logging
    stop = preemption.Preemption().install()  # issue 44: SIGTERM saves a checkpoint after the step in progress
    watchdog = preemption.Watchdog(
        factor=script.hang_factor,
        floor_seconds=max(script.hang_floor_seconds, 2 * preemption.checkpoint_seconds(space["checkpoint_bytes"])),
    )
    trainer.add_callback(preemption.trainer_callback(stop, watchdog if script.hang_factor > 0 else None))
    try:
        result = trainer.train(resume_from_checkpoint=resume)
    except (OSError, RuntimeError) as exc:  # a full disk: the path and its space, not "basic_ios::clear"
        failure = data_check.write_failure(exc, args.output_dir, space["checkpoint_bytes"])
        if failure is None:
            raise
        raise failure from exc
    if stop.requested:  # the checkpoint is written; the restarted pod resumes from it, nothing is merged now
        return {"preempted": True, "resumed_from": resume, "global_step": trainer.state.global_step}
    adapter_dir = Path(args.output_dir) / "adapter"
    if trainer.is_fsdp_enabled:
        trainer.accelerator.state.fsdp_plugin.set_state_dict_type("FULL_STATE_DICT")
    (adapter_dir / ADAPTER_MARKER).unlink(missing_ok=True)
    trainer.save_model(str(adapter_dir))
    if trainer.is_world_process_zero():
        (adapter_dir / ADAPTER_MARKER).write_text(json.dumps({"global_step": trainer.state.global_step}))
    out: dict[str, Any] = {
        "resumed_from": resume,
        "global_step": trainer.state.global_step,
        "train_loss": loss_fix.train_loss or result.training_loss,  # issue 32
        "adapter_dir": adapter_dir,
        "merged_dir": None,
        "log_history": list(trainer.state.log_history),
    }
    del trainer  # frees the sharded model before rank 0 loads the base model unquantised to merge
    # every rank leaves only after rank 0 has merged and registered (llm_platform/rank_zero.py says why)
    run_on_rank_zero(lambda: finish_run(script, args, adapter_dir, out))
    return out


def _cpu_ranks_on_cpu() -> None:
    """Several ranks without a GPU (gloo: `llmft run --local --nproc N`, the tests): accelerate 1.x places each on
    ``torch.device("cpu", local_rank % 1)`` = ``cpu:0`` (state.py ``PartialState.set_device``), which torch.load cannot
    map ("don't know how to restore data location ... cpu:0") when a resumed run loads its optimizer state; the plain
    device ``cpu`` (``ACCELERATE_TORCH_DEVICE``, read by PartialState) resumes."""
    if os.environ.get("LOCAL_WORLD_SIZE", "1") == "1":
        return
    import torch

    if not torch.cuda.is_available():
        os.environ.setdefault("ACCELERATE_TORCH_DEVICE", "cpu")


def main(argv: list[str] | None = None) -> int:
    share_with_team()
    os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", ALLOC_CONF)  # read when CUDA first allocates, after this
    os.environ.setdefault("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "true")
    _cpu_ranks_on_cpu()

    def run(parsed) -> int:
        try:
            out = train(parsed)
        except data_check.DataError as exc:  # bad data, no room: the step's message, not a traceback
            print(f"llmp-sft: {exc}", file=sys.stderr)
            return 1
        finally:
            shutdown_distributed()
        if out.get("preempted"):
            print(
                f"llmp-sft: stopped by SIGTERM after step {out['global_step']}, checkpoint saved; exiting "
                f"{preemption.EXIT_PREEMPTED} so the job resumes from it",
                file=sys.stderr,
            )
            return preemption.EXIT_PREEMPTED
        print(json.dumps({k: str(v) for k, v in out.items() if k != "log_history"}, indent=2))
        return 0

    def describe(parsed) -> str:
        script, args = parsed
        merged = script.merged_output_dir or f"{args.output_dir}/merged"
        return (
            f"would fine-tune {script.model_id} (LoRA r={script.lora_r}{', 4-bit' if script.load_in_4bit else ''}"
            f"{', FSDP' if fsdp_enabled(args) else ''}) on {script.train_dataset_path}, checkpoints in "
            f"{args.output_dir}, merged model in {merged}"
            + (f", registered as {script.registered_model_name!r}" if script.registered_model_name else "")
            + (
                f"; packed micro-steps of {script.max_tokens_per_step or 'memory-model-chosen'} tokens"
                if script.packing
                else "; right-padded batches (packing: false)"
            )
        )

    def check_build(data):  # issue 32: --check reads the dataset too (lengths where the tokenizer is reachable)
        parsed = parse_as_on_gpus(data)
        data_check.check_sft_data(parsed[0], need_tokenizer=False)
        return parsed

    return entry_point("sft", argv, build=parse_config, run=run, describe=describe, check_build=check_build)


if __name__ == "__main__":
    sys.exit(main())
