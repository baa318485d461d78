"""MFU against hand calculations."""

from __future__ import annotations

import pytest
from llm_platform import mfu


def test_mfu_formula_by_hand() -> None:
    # 8 GPUs at 3,000 tokens/s each on a dense 6.7e9-parameter model (6N FLOPs per token, attention ignored):
    # 6 * 6.7e9 * 24,000 / (8 * 312e12) = 9.648e14 / 2.496e15 = 0.386538...
    assert mfu.mfu(
        flops_per_token=6 * 6.7e9, tokens_per_second=24_000, n_gpus=8, peak_flops_per_gpu=312e12
    ) == pytest.approx(0.38653846, rel=1e-7)


def test_training_flops_per_token_by_hand() -> None:
    shape = mfu.ModelShape(trainable_matmul_params=1_000, frozen_matmul_params=10_000, n_layers=2, d_model=32)
    # 6 x 1,000 (trained) + 4 x 10,000 (frozen: no weight gradient) + 12 x 2 x 32 x 100 (attention) = 122,800
    assert shape.training_flops_per_token(100) == 6_000 + 40_000 + 76_800


def test_model_shape_counts_every_matmul_of_a_lora_llama() -> None:
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM

    vocab = 100
    model = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=vocab,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
        )
    )
    dense = mfu.model_shape(model)
    # per layer: q 32x32 + k 32x16 + v 32x16 + o 32x32 + gate/up/down 3 x 32x64 = 9,216; 2 layers + LM head 32x100
    assert (dense.trainable_matmul_params, dense.frozen_matmul_params) == (2 * 9_216 + 32 * vocab, 0)
    assert (dense.n_layers, dense.d_model) == (2, 32)
    lora = mfu.model_shape(get_peft_model(model, LoraConfig(r=8, target_modules="all-linear")))
    # LoRA A (r x in) + B (out x r): q 512, k 384, v 384, o 512, gate 768, up 768, down 768 = 4,096 per layer
    assert lora.trainable_matmul_params == 2 * 4_096
    assert lora.frozen_matmul_params == 2 * 9_216 + 32 * vocab


@pytest.mark.parametrize(
    "name,tflops",
    [
        ("NVIDIA H100 80GB HBM3", 989.0),
        ("NVIDIA H200", 989.0),
        ("NVIDIA A100-SXM4-80GB", 312.0),
        ("NVIDIA A100-SXM4-40GB", 312.0),
        ("NVIDIA L40S", 362.05),
        ("NVIDIA L4", 121.0),
        ("NVIDIA B200", 2250.0),
        ("NVIDIA A10G", 70.0),
        ("NVIDIA H100 PCIe", 756.0),
        ("NVIDIA H100 NVL", 835.0),
    ],
)
def test_peak_table(name: str, tflops: float) -> None:
    assert mfu.peak_flops(name) == tflops * 1e12


def test_unknown_gpu_has_no_peak() -> None:
    assert mfu.peak_flops("Tesla T4") is None
    with pytest.raises(ValueError):
        mfu.mfu(flops_per_token=1, tokens_per_second=1, n_gpus=0, peak_flops_per_gpu=1)


def test_every_table_entry_cites_a_source() -> None:
    for fragment, tflops, source in mfu.PEAK_BF16_TFLOPS:
        assert tflops > 0 and "https://" in source, fragment
