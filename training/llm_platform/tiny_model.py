"""`python -m llm_platform.tiny_model --fsx DIR`: a tiny causal LM and sample sources for a smoke test, built here.

A word-level tokenizer trained on sample text and a 2-layer Llama with random weights (a few hundred kB), written
where the download step would put the base model of the example pipeline (``DIR/models/Qwen2.5-1.5B-Instruct``),
and small sources in the built-in datasets' columns (``DIR/raw/medical-o1.jsonl``, ``DIR/raw/gsm8k.jsonl``). Nothing
is downloaded. `llmft run --local` then runs the example specs on a laptop or a Studio CPU space (docs/jobs.md);
the training package's tests and tests/test_pipeline_e2e.py build their model the same way."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# A deliberately simple template (the shape of real ones: role markers, generation prompt, end-of-turn token).
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)
SPECIALS = ["<pad>", "<unk>", "<s>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>"]


def medical_rows(n: int) -> list[dict[str, str]]:
    """Rows with the columns of FreedomIntelligence/medical-o1-reasoning-SFT (Question, Complex_CoT, Response)."""
    organs = ["heart", "lung", "liver", "kidney"]
    signs = ["pain", "fever", "cough", "fatigue"]
    rows = []
    for i in range(n):
        organ, sign = organs[i % 4], signs[(i // 4) % 4]
        rows.append(
            {
                "Question": f"Case {i}: a patient has {sign} linked to the {organ}. What is the next step?",
                "Complex_CoT": f"The {sign} points to the {organ}. Imaging of the {organ} comes first.",
                "Response": f"Order imaging of the {organ}.",
            }
        )
    return rows


def gsm8k_rows() -> list[dict[str, str]]:
    """Rows with GSM8K's columns (question, answer ending in '#### <number>')."""
    return [
        {
            "question": f"Tom has {a} apples and buys {b} more. How many apples does he have?",
            "answer": f"Tom has {a} + {b} = <<{a}+{b}={a + b}>>{a + b} apples.\n#### {a + b:,}",
        }
        for a, b in [(3, 4), (10, 5), (1200, 34), (7, 8), (20, 22), (9, 9), (11, 2), (5, 6), (40, 2), (1, 1)]
    ]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def build_tokenizer(corpus: list[str], out_dir: Path):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tok.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=SPECIALS))
    from tokenizers import decoders

    tok.decoder = decoders.WordPiece(prefix="##")  # joins word-level tokens with spaces
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="<|end|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out_dir)
    return fast


def build_model(out_dir: Path, corpus: list[str], seed: int = 0) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(corpus, out_dir)
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,
    )
    LlamaForCausalLM(config).save_pretrained(out_dir, safe_serialization=True)
    return out_dir


def corpus_of(rows: list[dict[str, str]]) -> list[str]:
    """The text the tokenizer learns: the medical rows as the prepare step renders them."""
    from llm_platform import prepare_data

    return [
        prepare_data.R1_PROMPT.format(question=r["Question"])
        + " "
        + prepare_data.R1_RESPONSE.format(reasoning=r["Complex_CoT"], answer=r["Response"])
        for r in rows
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="llmp-tiny-model", description=__doc__.split("\n\n")[0])
    parser.add_argument("--fsx", required=True, help="the local directory standing for /fsx (llmft run --local --fsx)")
    parser.add_argument(
        "--model-name",
        default="Qwen2.5-1.5B-Instruct",
        help="directory name under models/ (default: the example pipeline's base model)",
    )
    parser.add_argument("--rows", type=int, default=24, help="medical sample rows (default 24)")
    args = parser.parse_args(argv)
    fsx = Path(args.fsx)
    rows = medical_rows(args.rows)
    model = build_model(fsx / "models" / args.model_name, corpus_of(rows))
    (fsx / "raw").mkdir(parents=True, exist_ok=True)
    write_jsonl(fsx / "raw" / "medical-o1.jsonl", rows)
    write_jsonl(fsx / "raw" / "gsm8k.jsonl", gsm8k_rows())
    print(
        f"tiny model: {model}\nsources:    {fsx / 'raw' / 'medical-o1.jsonl'} (format sft-r1), "
        f"{fsx / 'raw' / 'gsm8k.jsonl'} (format verl-gsm8k)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
