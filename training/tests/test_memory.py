"""The SFT memory model: what it chooses for 8B LoRA on the platform's GPUs, what it refuses, and its calibration
against the H100 measurement of the old recipe."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from llm_platform import memory

SPECS = Path(__file__).resolve().parents[2] / "config" / "data" / "instance_specs.yaml"
EIGHT_B = memory.shape_named("llama-3.1-8b")


def setup(instance_type: str, **kw) -> memory.Setup:
    gib, _ = memory.gpu_memory_gib(instance_type, SPECS)
    return memory.Setup(EIGHT_B, gib, **kw)


def test_shapes_match_their_published_parameter_counts() -> None:
    # Llama-3.1-8B: 8.03e9 parameters; Qwen2.5-7B: 7.62e9; Qwen2.5-14B: 14.77e9 (model cards)
    assert EIGHT_B.params == pytest.approx(8.03e9, rel=0.005)
    assert memory.shape_named("qwen2.5-7b").params == pytest.approx(7.62e9, rel=0.01)
    assert memory.shape_named("qwen2.5-14b").params == pytest.approx(14.77e9, rel=0.01)
    # LoRA r8 on all linear layers of Llama-3.1-8B: 20,971,520 parameters (PEFT's print_trainable_parameters)
    assert EIGHT_B.lora_params(8) == 20_971_520


def test_gpu_memory_comes_from_the_instance_specs() -> None:
    assert memory.gpu_memory_gib("g5.2xlarge", SPECS) == (24.0, 1)
    assert memory.gpu_memory_gib("ml.p5.48xlarge", SPECS) == (80.0, 8)
    with pytest.raises(ValueError, match="not a GPU instance type"):
        memory.gpu_memory_gib("m5.large", SPECS)


def test_h100_runs_without_checkpointing_and_a10g_needs_it() -> None:
    h100 = memory.plan(setup("p5.48xlarge"))
    assert h100.fits and not h100.gradient_checkpointing and h100.tokens_per_micro_step >= 8192
    l40s = memory.plan(setup("g6e.xlarge"))
    assert l40s.fits and not l40s.gradient_checkpointing and l40s.tokens_per_micro_step >= 4096
    a10g = memory.plan(setup("g5.2xlarge"))
    assert a10g.fits and a10g.gradient_checkpointing and a10g.tokens_per_micro_step >= 2048
    qlora = memory.plan(setup("g5.2xlarge", load_in_4bit=True))
    assert qlora.fits and qlora.estimate_gib < a10g.estimate_gib
    for p in (h100, l40s, a10g, qlora):
        assert p.tokens_per_micro_step % 2048 == 0 and p.estimate_gib <= p.usable_gib


def test_without_liger_the_logits_cost_tokens() -> None:
    fused = memory.max_tokens(setup("p5.48xlarge"), False)
    unfused = memory.max_tokens(setup("p5.48xlarge", liger=False), False)
    assert unfused < fused


def test_a_recipe_that_cannot_fit_is_refused_naming_the_setting_and_a_value_that_fits() -> None:
    s = setup("g5.2xlarge")
    forced = memory.plan(s, checkpointing=False)
    assert not forced.fits and "gradient_checkpointing: true" in forced.reason
    too_many = memory.plan(s, tokens=65536)
    fit = memory.max_tokens(s, True)
    assert not too_many.fits and f"max_tokens_per_step: {fit}" in too_many.reason
    assert memory.plan(s, tokens=fit, checkpointing=True).fits
    big = memory.Setup(memory.shape_named("qwen2.5-14b"), 24.0)
    refused = memory.plan(big)
    assert not refused.fits and "load_in_4bit: true" in refused.reason
    assert "does not fit" in memory.describe(big, refused)


def test_user_overrides_that_fit_are_kept() -> None:
    p = memory.plan(setup("p5.48xlarge"), tokens=4096, checkpointing=True)
    assert (p.fits, p.tokens_per_micro_step, p.gradient_checkpointing) == (True, 4096, True)


BENCHMARKS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks"
GPU_BENCH = Path(__file__).resolve().parents[2] / "tools" / "gpu_bench.sh"


def _bench_overrides() -> dict[str, dict]:
    """Each named recipe of tools/gpu_bench.sh (the variants the H100 rows ran) as its overrides."""
    from llm_platform.bench import parse_variant

    text = GPU_BENCH.read_text()
    variants = re.findall(r'BASELINE="([^"]+)"', text) + re.findall(r'--variant "([a-z][\w-]*:[^"$]*)"', text)
    return dict(parse_variant(v) for v in variants)


def _bench_rows() -> list[tuple[str, memory.Setup, int, bool, float]]:
    """(row, setup, tokens, checkpointing, measured GiB) of every measured bench row (torch max reserved: compared
    with the model's estimate, which leaves out the CUDA context). A row's recipe: the variant of gpu_bench.sh it
    ran (the baseline: LoRA dropout 0.1, FSDP) else the step's defaults; Liger, checkpointing and the tokens per
    micro-step as the row records them."""
    from llm_platform.sft import ScriptArguments

    overrides, rows = _bench_overrides(), []
    for path in sorted(BENCHMARKS.glob("h100-*.json")):
        data = json.loads(path.read_text())
        for r in data.get("results", []):
            if r["error"] or r["peak_memory_gib"] is None:
                continue  # a crashed or skipped recipe measured no step
            o = overrides.get(r["name"], {})
            gib, _ = memory.gpu_memory_gib(data["instance_type"], SPECS)
            s = memory.Setup(
                memory.shape_named(data["shape"]),
                gib,
                lora_dropout=float(o.get("lora_dropout", ScriptArguments.lora_dropout)),
                liger=r["liger"],
                fsdp=o.get("sharding") == "fsdp" or r["name"].endswith("-fsdp") and "no-fsdp" not in r["name"],
            )
            rows.append(
                (
                    f"{path.stem} {r['name']}",
                    s,
                    r["tokens_per_micro_step"],
                    r["gradient_checkpointing"],
                    r["peak_memory_gib"],
                )
            )
    return rows


HARNESS_RECIPES = BENCHMARKS / "harness-recipes.yaml"


def _harness_recipes() -> dict:
    import yaml

    return yaml.safe_load(HARNESS_RECIPES.read_text())


def _harness_rows() -> list[tuple[str, memory.Setup, int, bool, float]]:
    """Every variant of the harness runs (NVML peaks, MB) with the recipe docs/benchmarks/harness-recipes.yaml records
    for it: the shipped step file of the time and the variant's edits. A micro-step holds at most the batch times the
    data's longest row (padded batches)."""
    recipes = _harness_recipes()
    gib, _ = memory.gpu_memory_gib("p5.48xlarge", SPECS)
    rows = []
    for name, edits in recipes["variants"].items():
        r = {**recipes["shipped"], **edits}
        data = json.loads((BENCHMARKS / r["file"]).read_text())
        s = memory.Setup(
            EIGHT_B, gib, lora_dropout=float(r["lora_dropout"]), liger=r["liger_kernel"], fsdp=r["sharding"] == "fsdp"
        )
        rows.append(
            (
                f"{Path(r['file']).stem} {name}",
                s,
                r["per_device_train_batch_size"] * data["data"]["max_tokens"],
                r["gradient_checkpointing"],
                # NVML counts the CUDA context too: compare with the estimate plus RESERVE_GIB
                data["variants"][name]["gpu_mem_max_mb"] * 1e6 / memory.GIB - memory.RESERVE_GIB,
            )
        )
    return rows


def test_every_harness_variant_has_its_recipe_or_a_reason() -> None:
    """A measured variant is compared (its recipe recorded) or named as not the step; none is skipped silently."""
    recipes = _harness_recipes()
    assert recipes["shipped"]["attn_implementation"] == "sdpa" and not recipes["shipped"]["liger_kernel"]
    for path in sorted(BENCHMARKS.glob("h100-*-harness-*.json")):
        measured = set(json.loads(path.read_text())["variants"])
        listed = {
            name
            for section in ("variants", "not_the_step")
            for name, r in recipes[section].items()
            if r["file"] == path.name
        }
        assert measured == listed, (path.name, measured ^ listed)


@pytest.mark.parametrize("row", _bench_rows() + _harness_rows(), ids=lambda r: r[0])
def test_the_model_is_never_below_a_measured_h100_peak(row) -> None:
    """Every measured row of docs/benchmarks/: the estimate is at or above the measured peak and at most
    CALIBRATION_TOLERANCE above it."""
    name, s, tokens, checkpointing, measured = row
    estimate, _ = memory.estimate_gib(s, tokens, checkpointing)
    assert measured <= estimate <= measured * (1 + memory.CALIBRATION_TOLERANCE), (name, estimate, measured)


def test_every_measured_recipe_shape_is_compared() -> None:
    rows = _bench_rows()
    assert {ckpt for _, _, _, ckpt, _ in rows} == {True, False}  # both branches calibrated
    assert {s.liger for _, s, _, _, _ in rows} == {True, False}
    assert any(s.fsdp for _, s, _, _, _ in rows)


def test_every_plan_keeps_five_percent_of_the_card() -> None:
    assert memory.USABLE_FRACTION <= 0.95
    for instance_type in ("g5.2xlarge", "g6e.xlarge", "p4d.24xlarge", "p5.48xlarge"):
        for shape in ("llama-3.1-8b", "qwen2.5-14b", "qwen2.5-1.5b"):
            gib, _ = memory.gpu_memory_gib(instance_type, SPECS)
            for qlora in (False, True):
                p = memory.plan(memory.Setup(memory.shape_named(shape), gib, load_in_4bit=qlora))
                assert not p.fits or p.estimate_gib + memory.RESERVE_GIB <= 0.95 * gib, (instance_type, shape)


def test_model_names_map_to_shapes_when_config_json_is_not_readable(tmp_path) -> None:
    assert memory.resolve_dims("/fsx/models/deepseek-r1-distill-llama-8b")[0].name == "llama-3.1-8b"
    assert memory.resolve_dims("/fsx/models/DeepSeek-R1-Distill-Qwen-14B")[0].name == "qwen2.5-14b"
    assert memory.resolve_dims("/fsx/models/something-else")[0] is None
    (tmp_path / "config.json").write_text(
        '{"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, '
        '"num_attention_heads": 4, "vocab_size": 100}'
    )
    dims, source = memory.resolve_dims(str(tmp_path))
    assert source == f"{tmp_path}/config.json"
    assert (dims.hidden_size, dims.num_key_value_heads) == (64, 4)


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("Llama-3.3-70B-Instruct", 70e9),
        ("Qwen2.5-72B", 72e9),
        ("Qwen2.5-1.5B-Instruct", 1.5e9),
        ("SmolLM2-360M", 360e6),
        ("Mixtral-8x7B-v0.1", 56e9),
        ("Qwen3-30B-A3B", 30e9),
        ("gpt2", None),
    ],
)
def test_a_parameter_count_in_the_name(name: str, count: float | None) -> None:
    assert memory.params_in_name(name) == count


@pytest.mark.parametrize("n_params", [0.36e9, 3e9, 9e9, 32e9, 70e9, 405e9])
def test_a_stand_in_shape_over_estimates_a_real_model_of_its_size(n_params: float) -> None:
    """At least the parameters, and per token at least the activations and KV cache of a real model of that size
    that is at least as wide as the known shape it scales (its width is kept, its layers added)."""
    dims = memory.shape_for_params(n_params)
    assert dims.params >= n_params
    known = [memory.shape_named(k) for k in memory.SHAPES if k != "tiny"]
    base = max((d for d in known if d.params <= n_params), key=lambda d: d.params, default=None)
    if base is not None:
        assert (dims.hidden_size, dims.intermediate_size, dims.kv_width) == (
            base.hidden_size,
            base.intermediate_size,
            base.kv_width,
        )
        # layers x width per parameter: narrower -> more activation per parameter than a wider real model
        assert dims.num_hidden_layers * dims.hidden_size / dims.params >= base.num_hidden_layers * base.hidden_size / (
            base.params * 1.01
        )


def test_resolution_order_config_json_then_model_shape_then_name(tmp_path) -> None:
    (tmp_path / "Qwen2.5-72B").mkdir()
    (tmp_path / "Qwen2.5-72B" / "config.json").write_text(json.dumps(memory.SHAPES["qwen2.5-1.5b"]))
    dims, source = memory.resolve_dims("/fsx/models/Qwen2.5-72B", readable=(str(tmp_path / "Qwen2.5-72B"),))
    assert dims.hidden_size == 1536 and source.endswith("config.json")
    dims, source = memory.resolve_dims("/fsx/models/Qwen2.5-72B", shape="qwen2.5-7b")
    assert dims.name == "qwen2.5-7b" and source == "model_shape qwen2.5-7b"
    dims, source = memory.resolve_dims("/fsx/models/Qwen2.5-72B")
    assert dims.params >= 72e9 and "over-estimate" in source


def test_serving_follows_sglangs_own_static_fraction() -> None:
    """SGLang 0.5.21 (arg_groups/memory_hook.py): at least 10 GiB reserved on GPUs over 60 GiB; on an A10G 512 MiB
    + 1.5 MiB x 4,096 chunked-prefill tokens + tp/8 GiB + 2 MiB x 48 graph batches."""
    assert memory.sglang_static_gib(80.0, 1) <= 70.0
    assert memory.sglang_static_gib(24.0, 1) == pytest.approx(24.0 - (512 + 1.5 * 4096 + 128 + 96) / 1024)
    small = memory.shape_named("qwen2.5-1.5b")
    assert memory.serve_check(small, 24.0, tp=1, context_length=4096)[0]
    fits, why = memory.serve_check(memory.shape_named("llama-3.1-8b"), 24.0, tp=1)
    assert not fits and "--context-length" in why


def test_generation_refuses_a_batch_that_does_not_fit_naming_one_that_does() -> None:
    fits, why = memory.generation_check(EIGHT_B, 24.0, batch=64, new_tokens=2048)
    smaller = int(re.search(r"batch_size: (\d+)", why).group(1))
    assert not fits and memory.generation_check(EIGHT_B, 24.0, batch=smaller, new_tokens=2048)[0]
