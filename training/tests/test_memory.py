"""The SFT memory model: what it chooses for 8B LoRA on the platform's GPUs, what it refuses, and its calibration
against the H100 measurement of the old recipe."""

from __future__ import annotations

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


def test_calibration_against_the_h100_measurement() -> None:
    """The old recipe without FSDP/checkpointing, dropout 0, sdpa, no Liger
    (docs/benchmarks/h100-2026-11-26-harness-run3.json, NVML peak): batch 1 peaked at 41.8 GB (longest example 2,010
    tokens), batch 2 at 56.5 GB (at most 2 x 2,010 token slots). The model, plus the reserve it keeps for CUDA
    context and workspaces, lands within 12%."""
    s = memory.Setup(EIGHT_B, 80.0, liger=False)
    for tokens, measured_gb in ((2010, 41.8), (4020, 56.5)):
        total, _ = memory.estimate_gib(s, tokens, False)
        modelled_gb = (total + memory.RESERVE_GIB) * memory.GIB / 1e9
        assert modelled_gb == pytest.approx(measured_gb, rel=0.12), (tokens, modelled_gb)


def test_model_names_map_to_shapes_when_config_json_is_not_readable(tmp_path) -> None:
    assert memory.dims_of_model("/fsx/models/deepseek-r1-distill-llama-8b").name == "llama-3.1-8b"
    assert memory.dims_of_model("/fsx/models/DeepSeek-R1-Distill-Qwen-14B").name == "qwen2.5-14b"
    assert memory.dims_of_model("/fsx/models/something-else") is None
    (tmp_path / "config.json").write_text(
        '{"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, '
        '"num_attention_heads": 4, "vocab_size": 100}'
    )
    dims = memory.dims_of_model(str(tmp_path))
    assert (dims.hidden_size, dims.num_key_value_heads) == (64, 4)
