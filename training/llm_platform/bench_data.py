"""The benchmark's synthetic inputs (:mod:`llm_platform.bench`): rows in prepare-data's ``sft-r1`` layout whose
lengths follow the medical-o1 measurement, a word-level tokenizer (one word = one token) and a random-initialised
model of a named shape (:data:`llm_platform.memory.SHAPES`: the published config.json values; nothing is
downloaded)."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

from llm_platform.memory import SHAPES

# FreedomIntelligence/medical-o1-reasoning-SFT (en) rows through the R1 template, measured in Llama-3.1 tokens on the
# H100 run of 2026-11-26 (112 rows): mean 973, median 893, max 2010. A log-normal with that median and mean
# (sigma^2 = 2 ln(mean/median)), clipped to [MIN_TOKENS, MAX_TOKENS]; the prompt is about a fifth of a row.
MEDIAN_TOKENS, MEAN_TOKENS, MAX_TOKENS, MIN_TOKENS = 893, 973, 2010, 160
PROMPT_FRACTION = 0.2
MEDICAL_TRAIN_ROWS = 17_734  # medical-o1 "en" has 19,704 rows; prepare-data keeps 90% for training
WORDS = 30_000


def medical_lengths(n: int, seed: int = 0) -> list[int]:
    """``n`` row lengths (tokens) distributed like the medical-o1 measurement."""
    rng = random.Random(seed)
    sigma = math.sqrt(2 * math.log(MEAN_TOKENS / MEDIAN_TOKENS))
    return [min(MAX_TOKENS, max(MIN_TOKENS, int(rng.lognormvariate(math.log(MEDIAN_TOKENS), sigma)))) for _ in range(n)]


def synthetic_rows(n: int, seed: int = 0, words: int = WORDS) -> list[dict[str, Any]]:
    """Rows in prepare-data's ``sft-r1`` layout (``text`` = prompt + answer, ``prompt``) of :func:`medical_lengths`
    tokens (one word per token; the tokenizer adds the end-of-sequence token)."""
    rng = random.Random(seed + 1)
    rows = []
    for length in medical_lengths(n, seed):
        text = [f"w{rng.randrange(words)}" for _ in range(length - 1)]
        cut = max(1, int(length * PROMPT_FRACTION))
        prompt = " ".join(text[:cut])
        rows.append({"prompt": prompt, "text": prompt + " " + " ".join(text[cut:]), "reference": ""})
    return rows


def words_for(shape: str) -> int:
    return min(WORDS, int(SHAPES[shape]["vocab_size"]) - 4)


def build_tokenizer(out_dir: Path, words: int = WORDS):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "<s>", "</s>"]
    vocab = {t: i for i, t in enumerate(specials)}
    vocab.update({f"w{i}": len(specials) + i for i in range(words)})
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="</s>"
    )
    fast.save_pretrained(out_dir)
    return fast


def build_model(shape: str, out_dir: Path, *, device: str, seed: int = 0, tokenizer_dir: str | None = None) -> Path:
    """A random-initialised model of ``shape`` saved (bf16 on a GPU, fp32 on CPU) with a tokenizer: the word-level
    one of the synthetic rows, or the real one in ``tokenizer_dir`` (for real prepared rows: their true lengths)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    out_dir.mkdir(parents=True, exist_ok=True)
    if tokenizer_dir:
        real = AutoTokenizer.from_pretrained(tokenizer_dir)
        if len(real) > int(SHAPES[shape]["vocab_size"]):
            raise ValueError(f"{tokenizer_dir}: {len(real)} tokens, more than shape {shape}'s vocabulary")
        real.save_pretrained(out_dir)
    else:
        build_tokenizer(out_dir, words_for(shape))
    values = dict(SHAPES[shape])
    model_type = values.pop("model_type")
    config = AutoConfig.for_model(model_type, **values, pad_token_id=0, bos_token_id=2, eos_token_id=3)
    torch.manual_seed(seed)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    model.save_pretrained(out_dir, safe_serialization=True)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()
    return out_dir
