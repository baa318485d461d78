"""The SFT step's rows as the Trainer sees them (:mod:`llm_platform.sft`): JSONL rows read, tokenised with the
prompt masked out of the loss, and right-padded batches (the padded path; packing is :mod:`llm_platform.packing`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

IGNORE_INDEX = -100
"""The label the loss ignores (transformers' and torch's cross-entropy default): prompt and padding tokens."""


def read_jsonl(path: str | Path, name: str = "train") -> list[dict[str, Any]]:
    p = Path(path)
    if p.is_dir():
        p = p / f"{name}.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def tokenize(rows: list[dict[str, Any]], tokenizer, max_len: int) -> list[dict[str, list[int]]]:
    """input_ids of the whole conversation, labels with the prompt masked; truncated to ``max_len``."""
    out = []
    for row in rows:
        text = row["text"]
        if tokenizer.eos_token and not text.endswith(tokenizer.eos_token):
            text += tokenizer.eos_token
        ids = tokenizer(text, add_special_tokens=False)["input_ids"][:max_len]
        n_prompt = len(tokenizer(row["prompt"], add_special_tokens=False)["input_ids"])
        labels = [IGNORE_INDEX] * min(n_prompt, len(ids)) + ids[n_prompt:]
        if any(label != IGNORE_INDEX for label in labels):
            out.append({"input_ids": ids, "labels": labels})
    return out


class Collator:
    """Right-pads a batch; padding is masked out of attention and loss."""

    def __init__(self, pad_token_id: int) -> None:
        self.pad = pad_token_id

    def __call__(self, features: list[dict[str, list[int]]]):
        import torch

        width = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), width), self.pad, dtype=torch.long)
        labels = torch.full((len(features), width), IGNORE_INDEX, dtype=torch.long)
        mask = torch.zeros((len(features), width), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = torch.tensor(f["input_ids"])
            labels[i, :n] = torch.tensor(f["labels"])
            mask[i, :n] = 1
        return {"input_ids": ids, "labels": labels, "attention_mask": mask}
