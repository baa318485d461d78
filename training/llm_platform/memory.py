"""Memory and throughput model of the SFT step: which micro-step token budget and whether activation checkpointing.

From the model's shape (its ``config.json``), LoRA/QLoRA, the GPU's memory and the GPUs sharing the weights (FSDP),
:func:`plan` picks

* ``tokens_per_micro_step``: the packed tokens one GPU runs per forward/backward, a multiple of the row length
  (``max_seq_length``), as large as fits up to ``MAX_TOKENS`` (beyond ~16k tokens the matmuls are saturated and a
  bigger step only delays the optimizer);
* ``gradient_checkpointing``: off whenever at least ``MIN_FAST_TOKENS`` fit without it. For LoRA, recomputation is
  expensive: the frozen base has no weight gradients, so a step is forward (2N FLOPs/token) + input gradients (2N),
  and recomputing the forward adds 2N more: 50% longer steps (the measured 0.144 -> 0.102 MFU on an H100);

or refuses with the setting to change and a value that fits. Users override either (``max_tokens_per_step``,
``gradient_checkpointing``); an override that cannot fit is refused the same way. Standard library only: ``llmft
preflight`` runs the same model without torch.

Bytes, per GPU (bf16 = 2 bytes; d = hidden_size, f = intermediate_size, kv = key/value width, V = vocabulary, L =
layers, r = LoRA rank):

* weights: every parameter in bf16, or for QLoRA the linear layers of the decoder in NF4 (0.5 byte + 1/64 byte of
  double-quantised absmax per parameter, bitsandbytes' 64-element blocks) and embeddings/LM head/norms in fp32
  (peft 0.21.2 ``prepare_model_for_kbit_training`` casts every non-``Params4bit`` bf16 parameter to fp32); divided by
  the GPUs when FSDP shards them, plus two decoder layers gathered at a time (FSDP2 prefetches the next one);
* LoRA: fp32 adapter (PEFT upcasts adapters to fp32), its gradient and two AdamW moments: 16 bytes per parameter;
* activations kept for backward, per token per layer, without checkpointing: ``2 * (A_D*d + A_KV*kv + A_F*f)``
  bytes (the inputs of the norms, q/k/v after RoPE, the attention output, gate/up and the MLP product; LoRA's A
  needs its layer's input, which is already one of these). Liger's fused RMSNorm/SwiGLU keep fewer (``_LIGER``).
  LoRA dropout > 0 keeps one dropped-out copy of each adapted layer's input (``A_DROPOUT``): one reason dropout 0 is
  the default. With checkpointing: the layer inputs (``2*d`` per layer) plus one layer's full activations during
  its recomputation;
* the loss head: without Liger the logits in bf16, their fp32 copy, the log-softmax and its gradient (``2+4+4+4``
  bytes x V per token); Liger's fused linear cross-entropy never materialises them (fixed chunk buffers, counted in
  the workspace);
* the allocator's fragmentation (``FRAGMENTATION``) and a reserve for the CUDA context, cuBLAS/NCCL workspaces
  (``RESERVE_GIB``); only ``USABLE_FRACTION`` of the card's memory is planned.

Calibration: every measured H100 row in ``docs/benchmarks/`` (the bench's torch max-reserved peaks, the harness's
NVML peaks) is a test (``training/tests/test_memory.py``): the model is never below it and at most
``CALIBRATION_TOLERANCE`` above. Where the count fell short the constants are fitted and say so (``A_D_LIGER``,
``RECOMPUTE_LAYERS``, ``LOSS_HEAD_BYTES``; docs/training.md "The memory model" has the table).

The model's shape (:func:`resolve_dims`): its config.json, else a given shape (the spec's ``model_shape``), else a
known shape in its name, else a parameter count in its name (:func:`shape_for_params`, an over-estimate). Inference:
:func:`generation_check` (the evaluate step's ``generate``) and :func:`serve_check` (SGLang's static pool).

Throughput: ``expected_mfu`` is the planning figure the cost estimate uses before a benchmark exists (the fast
path's design target on H100-class GPUs, reduced by the recomputation when checkpointing); ``python -m
llm_platform.bench`` measures the real one.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from llm_platform.model_shapes import SHAPE_ALIASES, SHAPES

GIB = 1024**3
A_D, A_KV, A_F = 8, 4, 5  # saved activations per layer per token, in units of d / kv / f (bf16)
# Liger: the fused SwiGLU keeps gate and up only (3 f-units, as counted); the d-units are fitted to the H100 fast
# row (docs/benchmarks/h100-2026-11-26-machine2.json "fast": 76.8 GiB reserved at 10,240 tokens): the count (the
# fused RMSNorm's input + rstd: 6) gave 68.8 GiB, below the measurement; 9 is the least whole value that is not.
A_D_LIGER, A_F_LIGER = 9, 3
A_DROPOUT = 5  # dropout copies: q/k/v share the norm output but each adapter drops its own
# The unfused loss head, x vocab per token: bf16 logits (2), their fp32 copy (4), the log-softmax (4); in backward
# the fp32 gradients of the log-softmax, of its input and of the upcast (4+4+4) and their bf16 cast (2), taken as
# all live at the peak (the upper bound; with it the unpacked H100 rows of harness-run3.json are not under-counted).
LOSS_HEAD_BYTES = 2 + 4 + 4 + 4 + 4 + 4 + 2
# Liger's plain cross-entropy (what the step uses under FSDP instead of the fused linear one): the bf16 logits,
# their gradient written in place (liger-kernel computes it in the forward into the logits' buffer).
LIGER_CE_BYTES = 2
# With checkpointing: the layer inputs plus this many layers' full activations (the layer being recomputed, its
# gradients and the allocator's cached blocks of the unfused loss head). Fitted, not counted: one layer gave 27.0 GiB
# for the baseline row (docs/benchmarks/h100-2026-11-26-machine1.json "baseline": 39.6 GiB reserved at 4,096 token
# slots); the highest checkpointing peaks are the harness's A and B (h100-2026-11-26-harness-run2.json, recipes in
# docs/benchmarks/harness-recipes.yaml: 47.9 / 46.7 GB NVML at 2 x 2,010 token slots, 43.6 / 42.5 GiB without the
# CUDA context's RESERVE_GIB); 10 is the least whole value not below any of them (the baseline row is then +12.7%).
RECOMPUTE_LAYERS = 10
FRAGMENTATION = 1.2
USABLE_FRACTION = 0.92  # >= 5% of every card is never planned (tests/test_memory.py holds this)
RESERVE_GIB = 1.0  # CUDA context, cuBLAS / NCCL workspaces
WORKSPACE_GIB = 1.0  # transient: fused-CE chunks, 4-bit dequantisation, attention workspace
MIN_FAST_TOKENS = 4096  # below this many tokens per micro-step, checkpointing with more tokens wins
MAX_TOKENS = 16384
DESIGN_MFU = 0.40  # the fast path's target without checkpointing (docs/training.md)
# How far above a measured peak the model may be (training/tests/test_memory.py checks every measured row in
# docs/benchmarks/: never below, at most this much above).
CALIBRATION_TOLERANCE = 0.20


@dataclass(frozen=True)
class ModelDims:
    """What the model needs from a decoder-only transformer's config.json."""

    name: str
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    vocab_size: int
    tie_word_embeddings: bool = False
    head_dim: int | None = None
    attention_bias: bool = False
    max_position_embeddings: int | None = None

    @classmethod
    def from_config(cls, config: dict[str, Any], name: str = "model") -> "ModelDims":
        text = config.get("text_config") or config
        try:
            return cls(
                name=name,
                hidden_size=int(text["hidden_size"]),
                intermediate_size=int(text["intermediate_size"]),
                num_hidden_layers=int(text["num_hidden_layers"]),
                num_attention_heads=int(text["num_attention_heads"]),
                num_key_value_heads=int(text.get("num_key_value_heads") or text["num_attention_heads"]),
                vocab_size=int(text["vocab_size"]),
                tie_word_embeddings=bool(text.get("tie_word_embeddings", False)),
                head_dim=text.get("head_dim"),
                attention_bias=bool(text.get("attention_bias", False)),
                max_position_embeddings=text.get("max_position_embeddings"),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(
                f"{name}: config.json has no {exc.args[0]}; not a decoder-only transformer the memory model knows"
            ) from None

    @property
    def d_head(self) -> int:
        return int(self.head_dim or self.hidden_size // self.num_attention_heads)

    @property
    def q_width(self) -> int:
        return self.num_attention_heads * self.d_head

    @property
    def kv_width(self) -> int:
        return self.num_key_value_heads * self.d_head

    def linear_shapes(self) -> list[tuple[int, int]]:
        """(in, out) of every linear layer of one decoder layer (q, k, v, o, gate, up, down)."""
        d, f = self.hidden_size, self.intermediate_size
        return [(d, self.q_width), (d, self.kv_width), (d, self.kv_width), (self.q_width, d), (d, f), (d, f), (f, d)]

    @property
    def layer_linear_params(self) -> int:
        return sum(i * o for i, o in self.linear_shapes())

    @property
    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def head_params(self) -> int:
        return 0 if self.tie_word_embeddings else self.vocab_size * self.hidden_size

    @property
    def params(self) -> int:
        norms = (2 * self.num_hidden_layers + 1) * self.hidden_size
        return self.num_hidden_layers * self.layer_linear_params + self.embedding_params + self.head_params + norms

    def lora_params(self, r: int) -> int:
        return self.num_hidden_layers * sum(r * (i + o) for i, o in self.linear_shapes())

    def training_flops_per_token(self, r: int, seq_len: float) -> float:
        """The same count as :class:`llm_platform.mfu.ModelShape` (LM head always a matmul, frozen 4n, trained 6n)."""
        frozen = self.num_hidden_layers * self.layer_linear_params + self.vocab_size * self.hidden_size
        return 6 * self.lora_params(r) + 4 * frozen + 12 * self.num_hidden_layers * self.hidden_size * seq_len


# The published shapes (SHAPES) and the names that point at them (SHAPE_ALIASES): llm_platform.model_shapes, which
# the step contract reads too.


def shape_named(name: str) -> ModelDims:
    if name not in SHAPES:
        raise ValueError(f"unknown shape {name!r}; known: {', '.join(SHAPES)}")
    return ModelDims.from_config(SHAPES[name], name)


# A parameter count in a model's name: "Llama-3.3-70B", "Qwen2.5-1.5B", "SmolLM2-135M", "Mixtral-8x7B" (8 x 7B);
# not preceded by a letter or digit ("Qwen3-30B-A3B" counts 30B, not the active 3B).
_PARAMS_IN_NAME = re.compile(r"(?<![0-9A-Za-z.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bBmM])(?![A-Za-z0-9])")


def params_in_name(name: str) -> float | None:
    """The largest parameter count the name states (None: none)."""
    counts = [
        float(n) * float(count or 1) * (1e9 if unit in "bB" else 1e6)
        for count, n, unit in _PARAMS_IN_NAME.findall(name)
    ]
    return max(counts) if counts else None


def shape_for_params(n_params: float) -> ModelDims:
    """A conservative stand-in for a model of ``n_params`` parameters whose shape is not known: the largest known
    shape (:data:`SHAPES`) with at most that many parameters, given as many decoder layers as it takes to reach the
    count (same width and vocabulary). Models grow wider as well as deeper, so a real model of that size is at least
    as wide: its weights are the same, its activations and KV cache per token (which grow with layers x width, i.e.
    parameters / width) no larger, so the stand-in over-estimates. Below the smallest known shape, that shape as it
    is (more parameters than the model: again an over-estimate)."""
    known = sorted((shape_named(k) for k in SHAPES if k != "tiny"), key=lambda d: d.params)
    below = [d for d in known if d.params <= n_params]
    base = below[-1] if below else known[0]
    per_layer = base.layer_linear_params + 2 * base.hidden_size
    outside = base.params - base.num_hidden_layers * per_layer
    layers = max(base.num_hidden_layers, math.ceil((n_params - outside) / per_layer))
    name = f"~{n_params / 1e9:g}B (as {base.name} with {layers} layers)"
    return replace(base, name=name, num_hidden_layers=layers)


def resolve_dims(
    model: str, *, readable: tuple[str, ...] = (), shape: str | dict[str, Any] | None = None
) -> tuple[ModelDims | None, str]:
    """(the shape of ``model``, where it came from) or (None, why there is none and the fix), in this order: the
    ``config.json`` of the first directory of ``readable`` (default: ``model`` itself) that has one; ``shape`` (a
    name of :data:`SHAPES` or a config.json's dimensions: the spec's ``model_shape``); a known shape the name
    contains (:data:`SHAPE_ALIASES`); a parameter count in the name (:func:`shape_for_params`)."""
    for directory in readable or (model,):
        try:
            config = json.loads((Path(directory) / "config.json").read_text())
            return ModelDims.from_config(config, Path(model).name), f"{directory}/config.json"
        except (OSError, ValueError, AttributeError):
            continue
    if isinstance(shape, str):
        return shape_named(shape), f"model_shape {shape}"
    if isinstance(shape, dict):
        return ModelDims.from_config(shape, "model_shape"), "model_shape"
    last = Path(model).name.lower()
    for fragment, known in SHAPE_ALIASES:
        if fragment in last:
            return shape_named(known), f"the known shape {known} (named in {Path(model).name!r})"
    n_params = params_in_name(Path(model).name)
    if n_params:
        dims = shape_for_params(n_params)
        return dims, f"{dims.name}, from the parameter count in {Path(model).name!r} (an over-estimate)"
    return None, (
        f"model {model}: its config.json is not readable here and its name states no known shape "
        f"({', '.join(k for k in SHAPES if k != 'tiny')}) or parameter count (e.g. 70B); set model_shape in the "
        f"spec (one of those, or the config.json's hidden_size, intermediate_size, num_hidden_layers, "
        f"num_attention_heads, num_key_value_heads, vocab_size), or run llmft where the model directory is "
        f"readable (the Studio terminal, /teams/<team>)"
    )


@dataclass(frozen=True)
class Setup:
    """Everything the memory model reads from a recipe."""

    dims: ModelDims
    gpu_memory_gib: float
    max_seq_length: int = 2048
    lora_r: int = 8
    lora_dropout: float = 0.0
    load_in_4bit: bool = False
    liger: bool = True
    world_size: int = 1  # GPUs sharing the weights (FSDP)
    fsdp: bool = False


@dataclass
class Plan:
    tokens_per_micro_step: int
    gradient_checkpointing: bool
    fits: bool
    estimate_gib: float
    usable_gib: float
    breakdown: dict[str, float] = field(default_factory=dict)
    reason: str = ""

    @property
    def expected_mfu(self) -> float:
        return DESIGN_MFU * (4 / 6 if self.gradient_checkpointing else 1.0)

    def refused(self, hint: str = "") -> "Plan":
        self.fits = False
        self.reason = self.reason or (
            f"needs {self.estimate_gib} GiB of the {self.usable_gib} GiB planned on this GPU; {hint}"
        )
        return self


def static_gib(s: Setup) -> dict[str, float]:
    d = s.dims
    linear = d.num_hidden_layers * d.layer_linear_params
    other = d.params - linear
    if s.load_in_4bit:
        weights = linear * (0.5 + 1 / 64) + other * 4  # peft's prepare_model_for_kbit_training upcasts the rest
    else:
        weights = d.params * 2
    shards = s.world_size if s.fsdp and s.world_size > 1 else 1
    gathered = 2 * d.layer_linear_params * (0.5 + 1 / 64 if s.load_in_4bit else 2) if shards > 1 else 0
    return {
        "weights": (weights / shards + gathered) / GIB,
        "lora_states": 16 * d.lora_params(s.lora_r) / shards / GIB,
        "workspace": WORKSPACE_GIB,
    }


def per_token_bytes(s: Setup, checkpointing: bool) -> float:
    d = s.dims
    a_d, a_f = (A_D_LIGER, A_F_LIGER) if s.liger else (A_D, A_F)
    layer = 2 * (a_d * d.hidden_size + A_KV * d.kv_width + a_f * d.intermediate_size)
    if s.lora_dropout > 0:
        layer += 2 * (A_DROPOUT * d.hidden_size + d.intermediate_size)
    # under FSDP the step swaps Liger's fused linear cross-entropy for its plain one (docs/training.md, sharding)
    head = (LIGER_CE_BYTES if s.fsdp else 0) * d.vocab_size if s.liger else LOSS_HEAD_BYTES * d.vocab_size
    if checkpointing:
        kept = d.num_hidden_layers * 2 * d.hidden_size + RECOMPUTE_LAYERS * layer
    else:
        kept = d.num_hidden_layers * layer
    return (kept + head) * FRAGMENTATION


def usable_gib(gpu_memory_gib: float) -> float:
    return gpu_memory_gib * USABLE_FRACTION - RESERVE_GIB


def estimate_gib(s: Setup, tokens: int, checkpointing: bool) -> tuple[float, dict[str, float]]:
    parts = static_gib(s)
    parts["activations"] = tokens * per_token_bytes(s, checkpointing) / GIB
    return sum(parts.values()), parts


def max_tokens(s: Setup, checkpointing: bool) -> int:
    """The most tokens per micro-step that fit, rounded down to whole rows of ``max_seq_length`` (0: not one row)."""
    room = usable_gib(s.gpu_memory_gib) - sum(static_gib(s).values())
    if room <= 0:
        return 0
    tokens = int(room * GIB / per_token_bytes(s, checkpointing))
    return min(max(MAX_TOKENS, s.max_seq_length), tokens) // s.max_seq_length * s.max_seq_length


def plan(s: Setup, *, tokens: int | None = None, checkpointing: bool | None = None) -> Plan:
    """The settings for ``s``; ``tokens`` / ``checkpointing`` are the user's overrides (None: choose)."""
    usable = usable_gib(s.gpu_memory_gib)

    def make(n: int, ckpt: bool, reason: str) -> Plan:
        total, parts = estimate_gib(s, n, ckpt)
        return Plan(
            n,
            ckpt,
            total <= usable,
            round(total, 2),
            round(usable, 2),
            {k: round(v, 2) for k, v in parts.items()},
            reason,
        )

    if tokens is not None and tokens < s.max_seq_length:
        return make(
            tokens,
            bool(checkpointing),
            f"max_tokens_per_step {tokens} is less than max_seq_length "
            f"{s.max_seq_length}: the longest example would not fit; set "
            f"max_tokens_per_step: {s.max_seq_length} or more",
        ).refused()
    fast, slow = max_tokens(s, False), max_tokens(s, True)
    if tokens is None:
        if checkpointing is None:
            if fast >= max(MIN_FAST_TOKENS, s.max_seq_length):
                return make(fast, False, f"{fast} tokens fit without activation checkpointing")
            if slow > 0:
                without = (
                    f"only {fast} tokens fit without activation checkpointing"
                    if fast
                    else f"not one {s.max_seq_length}-token row fits without activation checkpointing"
                )
                return make(slow, True, f"{without}; with it {slow}")
        elif checkpointing is False and fast > 0:
            return make(fast, False, "gradient_checkpointing: false (set by the recipe)")
        elif checkpointing is True and slow > 0:
            return make(slow, True, "gradient_checkpointing: true (set by the recipe)")
        return make(s.max_seq_length, checkpointing is not False, "").refused(hint=_fix(s, checkpointing))
    for ckpt in (checkpointing,) if checkpointing is not None else (False, True):
        p = make(tokens, ckpt, f"max_tokens_per_step {tokens} (set by the recipe)")
        if p.fits:
            return p
    fit = fast if checkpointing is False else slow if checkpointing is True else max(fast, slow)
    hint = f"set max_tokens_per_step: {fit}" if fit else _fix(s, checkpointing)
    return make(tokens, bool(checkpointing) if checkpointing is not None else True, "").refused(hint=hint)


def _fix(s: Setup, checkpointing: bool | None) -> str:
    if checkpointing is False and max_tokens(s, True):
        return f"set gradient_checkpointing: true (then {max_tokens(s, True)} tokens per micro-step fit)"
    if not s.load_in_4bit and max_tokens(Setup(**{**vars(s), "load_in_4bit": True}), True):
        return "set load_in_4bit: true (QLoRA)"
    for n in (2, 4, 8, 16, 32, 64):
        if n > s.world_size and max_tokens(Setup(**{**vars(s), "world_size": n, "fsdp": True}), True):
            return f"shard it with fsdp over {n} GPUs (or a GPU with more memory)"
    for length in (1024, 512):
        if length < s.max_seq_length and max_tokens(Setup(**{**vars(s), "max_seq_length": length}), True):
            return f"set max_seq_length: {length}"
    return "use a GPU with more memory"


def describe(s: Setup, p: Plan) -> str:
    what = f"{s.dims.name} {'QLoRA' if s.load_in_4bit else 'LoRA'} r{s.lora_r}"
    where = f"{s.gpu_memory_gib:g} GiB GPU" + (f" x{s.world_size} FSDP" if s.fsdp and s.world_size > 1 else "")
    if not p.fits:
        return f"{what} on {where}: does not fit: {p.reason}"
    return (
        f"{what} on {where}: {p.tokens_per_micro_step} tokens per micro-step, activation checkpointing "
        f"{'on' if p.gradient_checkpointing else 'off'} (~{p.estimate_gib} of {p.usable_gib} GiB; {p.reason})"
    )


# --- inference: what an evaluate job (transformers' generate) and a serve job (SGLang) hold on one GPU -----------

GENERATE_PROMPT_TOKENS = 2048  # evaluate: prompt length planned for (the SFT step's rows, max_seq_length's default)
DEFAULT_CONTEXT = 32768  # serve: context when neither --context-length nor the model's max_position_embeddings says


def weights_gib(dims: ModelDims, shards: int = 1) -> float:
    """bf16 weights per GPU when ``shards`` GPUs split them (tensor parallel)."""
    return dims.params * 2 / shards / GIB


def kv_bytes_per_token(dims: ModelDims) -> int:
    """Key and value of every layer in bf16: what one token of context holds in the KV cache."""
    return 2 * dims.num_hidden_layers * dims.kv_width * 2


def generation_gib(dims: ModelDims, *, batch: int, prompt_tokens: int, new_tokens: int) -> dict[str, float]:
    """One model generating ``batch`` sequences (llm_platform.evaluate: one model at a time, bf16): the weights,
    the KV cache of prompt + new tokens, the prefill's transient activations of one layer (hidden states, q/k/v,
    the MLP's gate/up/product; sdpa's kernels keep no score matrix) and the last position's logits in fp32 with
    their processed copy, with the allocator's fragmentation; plus the workspace."""
    d = dims
    prefill = batch * prompt_tokens * 2 * (4 * d.hidden_size + d.q_width + 2 * d.kv_width + 3 * d.intermediate_size)
    logits = batch * d.vocab_size * 4 * 2
    return {
        "weights": weights_gib(dims),
        "kv_cache": batch * (prompt_tokens + new_tokens) * kv_bytes_per_token(dims) / GIB,
        "activations": (prefill + logits) * FRAGMENTATION / GIB,
        "workspace": WORKSPACE_GIB,
    }


def generation_check(
    dims: ModelDims, gpu_memory_gib: float, *, batch: int, new_tokens: int, prompt_tokens: int = GENERATE_PROMPT_TOKENS
) -> tuple[bool, str]:
    """(fits, what it needs and, when it does not fit, the fix) for :func:`generation_gib` on one GPU."""
    usable = usable_gib(gpu_memory_gib)

    def need(b: int) -> float:
        return sum(generation_gib(dims, batch=b, prompt_tokens=prompt_tokens, new_tokens=new_tokens).values())

    what = f"{dims.name} generating {batch} x ({prompt_tokens} prompt + {new_tokens} new) tokens"
    total = need(batch)
    if total <= usable:
        return True, f"{what}: ~{total:.1f} of {usable:.1f} GiB planned on a {gpu_memory_gib:g} GiB GPU"
    smaller = next((b for b in range(batch - 1, 0, -1) if need(b) <= usable), 0)
    fix = f"set settings.batch_size: {smaller}" if smaller else "use a GPU with more memory (gpu_type)"
    return (
        False,
        f"{what}: needs ~{total:.1f} GiB, more than the {usable:.1f} GiB planned on a {gpu_memory_gib:g} GiB "
        f"GPU; {fix}",
    )


# SGLang 0.5.21 (sglang/srt/arg_groups/memory_hook.py, _handle_gpu_memory_settings): by the GPU's memory (MiB, upper
# bound) the default chunked_prefill_size and CUDA-graph max batch size (tp < 4, tp >= 4); the engine then reserves
# 512 MiB + 1.5 MiB per chunked-prefill token + tp/8 GiB + 2 MiB per graph batch (at least 10 GiB on GPUs over
# 60 GiB) and sets --mem-fraction-static to (memory - reserve) / memory: weights and the KV cache pool live in that.
_SGLANG_DEFAULTS = (
    (20 * 1024, 2048, 8, 8),
    (35 * 1024, 4096, 48, 160),
    (60 * 1024, 4096, 32, 160),
    (90 * 1024, 8192, 256, 512),
    (160 * 1024, 8192, 256, 512),
)


def sglang_static_gib(gpu_memory_gib: float, tp: int, mem_fraction_static: float | None = None) -> float:
    """The memory SGLang gives weights + KV cache on one GPU (``--mem-fraction-static`` x the GPU's memory)."""
    if mem_fraction_static is not None:
        return gpu_memory_gib * mem_fraction_static
    mib = gpu_memory_gib * 1024
    _, chunk, small, large = next((row for row in _SGLANG_DEFAULTS if mib < row[0]), (0, 16384, 512, 512))
    reserved = 512 + 1.5 * max(chunk, 2048) + tp / 8 * 1024 + 2 * (small if tp < 4 else large)
    if mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return (mib - reserved) / 1024


def serve_check(
    dims: ModelDims,
    gpu_memory_gib: float,
    *,
    tp: int,
    context_length: int | None = None,
    mem_fraction_static: float | None = None,
) -> tuple[bool, str]:
    """(fits, what it needs and the fix) for SGLang serving ``dims`` over ``tp`` GPUs: the bf16 weights / tp and
    the KV cache of one request of the whole context / tp within the static pool (:func:`sglang_static_gib`), and
    at least 1 - ``USABLE_FRACTION`` of the card left outside it."""
    context = context_length or dims.max_position_embeddings or DEFAULT_CONTEXT
    pool = sglang_static_gib(gpu_memory_gib, tp, mem_fraction_static)
    weights = weights_gib(dims, tp)
    kv = context * kv_bytes_per_token(dims) / tp / GIB
    what = (
        f"{dims.name} on {tp} x {gpu_memory_gib:g} GiB GPU(s): {weights:.1f} GiB weights + {kv:.1f} GiB KV cache "
        f"for a {context}-token context per GPU"
    )
    if mem_fraction_static is not None and mem_fraction_static > USABLE_FRACTION:
        return False, (
            f"--mem-fraction-static {mem_fraction_static} leaves less than {1 - USABLE_FRACTION:.0%} of the GPU for "
            f"activations and CUDA graphs; use {USABLE_FRACTION} or less, or leave it out (SGLang sizes it)"
        )
    if weights + kv <= pool:
        return True, f"{what}: within SGLang's {pool:.1f} GiB static pool"
    if weights >= pool:
        wider = next(
            (
                n
                for n in (2, 4, 8)
                if n > tp and weights_gib(dims, n) < sglang_static_gib(gpu_memory_gib, n, mem_fraction_static)
            ),
            0,
        )
        fix = (
            f"set serve.tensor_parallel: {wider} (and gpus_per_node: {wider})"
            if wider
            else "use a GPU with more memory (gpu_type)"
        )
    else:
        fits = int((pool - weights) * GIB * tp / kv_bytes_per_token(dims)) // 1024 * 1024
        fix = (
            f"add --context-length {fits} to serve.engine_args" if fits >= 1024 else "set serve.tensor_parallel higher"
        )
    return False, f"{what}: more than SGLang's {pool:.1f} GiB static pool; {fix}"


# --- GPU memory per instance type: config/data/instance_specs.yaml (gpu section + gpu_memory_gib) ------------------


def find_specs_file(start: Path | None = None) -> Path | None:
    """config/data/instance_specs.yaml of the checkout this runs from (cwd or this package's repository)."""
    for base in (start or Path.cwd(), Path(__file__).resolve().parents[2]):
        for folder in (base, *base.parents):
            candidate = folder / "config" / "data" / "instance_specs.yaml"
            if candidate.is_file():
                return candidate
    return None


@functools.lru_cache(maxsize=8)
def _specs(path: str, mtime_ns: int) -> dict[str, Any]:
    """The parsed specs file, once per file version (``mtime_ns`` is the key's part that changes with the file):
    a preflight asks for every pool's instance type and the pure-Python parse took 0.2 s each time."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(Path(path).read_text(), Loader=loader)


def gpu_memory_gib(instance_type: str, specs_file: Path | None = None) -> tuple[float, int]:
    """(memory of one GPU in GiB, GPUs) of ``instance_type`` (EC2 or HyperPod ``ml.`` name) from the specs file."""
    path = specs_file or find_specs_file()
    if path is None:
        raise ValueError("config/data/instance_specs.yaml not found; run from the platform's checkout")
    data = _specs(str(path), Path(path).stat().st_mtime_ns)
    spec = data.get("gpu", {}).get(instance_type.removeprefix("ml."))
    if not spec:
        raise ValueError(f"{instance_type!r} is not a GPU instance type of {path}; known: {', '.join(data['gpu'])}")
    memory = data.get("gpu_memory_gib", {}).get(spec["gpu_type"])
    if memory is None:
        raise ValueError(f"{path}: gpu_memory_gib has no entry for gpu_type {spec['gpu_type']!r}")
    return float(memory), int(spec["gpus"])


def preflight_check(
    step: dict[str, Any],
    *,
    instance_type: str,
    gpus: int,
    specs_file: Path | None = None,
    dims: ModelDims | None = None,
) -> tuple[str, str]:
    """("ok" | "FAIL", message) for an SFT step file on ``instance_type`` with ``gpus`` GPUs in all (FSDP shards over
    them when the file sets ``fsdp``): what ``llmft preflight`` reports. ``dims``: the model's shape (default: from
    the step's ``model_id``, :func:`resolve_dims`); none is a failure naming the fix, never a skip. Unset settings
    take the step's own defaults (:class:`llm_platform.sft.ScriptArguments`); Liger is assumed where the file does
    not turn it off (the sft image has it)."""
    from dataclasses import fields

    from llm_platform.steps import STEPS

    defaults = {f.name: f.default for f in fields(STEPS["sft"].schema_class())}  # the SFT step's own schema

    def get(name: str) -> Any:
        return step.get(name, defaults.get(name))

    if dims is None:
        dims, why = resolve_dims(str(step.get("model_id", "")))
        if dims is None:
            return "FAIL", why
    try:
        memory, _ = gpu_memory_gib(instance_type, specs_file)
    except ValueError as exc:
        return "FAIL", f"{exc}; add the instance type and its GPU to config/data/instance_specs.yaml"
    liger = str(get("liger_kernel")).lower() != "false" and step.get("use_liger_kernel", True) is not False
    s = Setup(
        dims,
        memory,
        max_seq_length=int(get("max_seq_length")),
        lora_r=int(get("lora_r")),
        lora_dropout=float(get("lora_dropout")),
        load_in_4bit=bool(get("load_in_4bit")),
        liger=liger,
        world_size=max(1, gpus),
        fsdp=bool(step.get("fsdp")) or step.get("sharding") == "fsdp",
    )
    checkpointing = bool(step["gradient_checkpointing"]) if "gradient_checkpointing" in step else None
    tokens = get("max_tokens_per_step")
    if not get("packing"):
        tokens = int(step.get("per_device_train_batch_size", 8)) * s.max_seq_length
    p = plan(s, tokens=tokens, checkpointing=checkpointing)
    return ("ok" if p.fits else "FAIL"), f"{instance_type}: {describe(s, p)}"


def main(argv: list[str] | None = None) -> int:
    """``python -m llm_platform.memory --shape llama-3.1-8b --instance-type g5.2xlarge g6e.xlarge p5.48xlarge``"""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m llm_platform.memory", description=main.__doc__)
    parser.add_argument(
        "--shape",
        default="llama-3.1-8b",
        help=f"one of {', '.join(SHAPES)}, a model directory or a name with a parameter count (70B)",
    )
    parser.add_argument(
        "--instance-type", nargs="+", default=["g5.2xlarge", "g6e.xlarge", "p4d.24xlarge", "p5.48xlarge"]
    )
    parser.add_argument("--max-seq-length", type=int, default=2048)
    parser.add_argument("--lora-r", type=int, default=8)
    parser.add_argument("--qlora", action="store_true")
    parser.add_argument("--no-liger", action="store_true")
    parser.add_argument("--fsdp-gpus", type=int, default=1)
    args = parser.parse_args(argv)
    dims, why = (shape_named(args.shape), "") if args.shape in SHAPES else resolve_dims(args.shape)
    if dims is None:
        parser.error(why)
    for instance_type in args.instance_type:
        memory, _ = gpu_memory_gib(instance_type)
        s = Setup(
            dims,
            memory,
            max_seq_length=args.max_seq_length,
            lora_r=args.lora_r,
            load_in_4bit=args.qlora,
            liger=not args.no_liger,
            world_size=args.fsdp_gpus,
            fsdp=args.fsdp_gpus > 1,
        )
        print(f"{instance_type:>14}: {describe(s, plan(s))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
