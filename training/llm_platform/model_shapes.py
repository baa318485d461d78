"""The published ``config.json`` values of the model shapes the platform knows by name (the benchmark builds them,
the memory model plans them, the step contract checks settings against them), and the names that point at them.
Standard library only: llmft reads them without torch, and both llm_platform.memory and llm_platform.steps import
this module (neither imports the other for it)."""

from __future__ import annotations

from typing import Any

# Published config.json values of the shapes the bench builds and the planner recognises by name.
SHAPES: dict[str, dict[str, Any]] = {
    # meta-llama/Llama-3.1-8B (= deepseek-ai/DeepSeek-R1-Distill-Llama-8B) config.json
    "llama-3.1-8b": dict(
        model_type="llama",
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        vocab_size=128256,
        rope_theta=500000.0,
        max_position_embeddings=131072,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        rope_scaling={
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    ),
    # Qwen/Qwen2.5-7B(-Instruct) config.json
    "qwen2.5-7b": dict(
        model_type="qwen2",
        hidden_size=3584,
        intermediate_size=18944,
        num_hidden_layers=28,
        num_attention_heads=28,
        num_key_value_heads=4,
        vocab_size=152064,
        rope_theta=1000000.0,
        max_position_embeddings=32768,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
    ),
    # Qwen/Qwen2.5-14B(-Instruct) (= deepseek-ai/DeepSeek-R1-Distill-Qwen-14B) config.json
    "qwen2.5-14b": dict(
        model_type="qwen2",
        hidden_size=5120,
        intermediate_size=13824,
        num_hidden_layers=48,
        num_attention_heads=40,
        num_key_value_heads=8,
        vocab_size=152064,
        rope_theta=1000000.0,
        max_position_embeddings=131072,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
    ),
    # Qwen/Qwen2.5-1.5B-Instruct config.json (the example pipeline's model)
    "qwen2.5-1.5b": dict(
        model_type="qwen2",
        hidden_size=1536,
        intermediate_size=8960,
        num_hidden_layers=28,
        num_attention_heads=12,
        num_key_value_heads=2,
        vocab_size=151936,
        rope_theta=1000000.0,
        max_position_embeddings=32768,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
    ),
    # for CPU runs of the benchmark and tests
    "tiny": dict(
        model_type="llama",
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=2048,
        max_position_embeddings=4096,
        rope_theta=10000.0,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
    ),
}
# Model directory / hub names -> shape (lower case, matched as a substring of the model path's last part)
SHAPE_ALIASES = (
    ("distill-llama-8b", "llama-3.1-8b"),
    ("llama-3.1-8b", "llama-3.1-8b"),
    ("llama-3-8b", "llama-3.1-8b"),
    ("distill-qwen-14b", "qwen2.5-14b"),
    ("qwen2.5-14b", "qwen2.5-14b"),
    ("qwen2.5-7b", "qwen2.5-7b"),
    ("distill-qwen-7b", "qwen2.5-7b"),
    ("qwen2.5-1.5b", "qwen2.5-1.5b"),
)
