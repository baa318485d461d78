"""Padding-free packing: whole examples packed into rows of a token budget, no attention across examples.

Each micro-step gets ``rows`` rows of at most ``row_tokens`` tokens; every row holds whole tokenised examples
(``input_ids`` + ``labels``, the prompt already masked with -100) laid end to end. What keeps them apart:

* ``position_ids`` restart at 0 at every example. With no ``attention_mask`` in the batch, transformers (5.10.4,
  ``masking_utils._preprocess_mask_arguments`` -> ``find_packed_sequence_indices``) reads packed sequences from the
  position ids and ANDs a "same sequence" mask into the causal mask (``packed_sequence_mask_function``) for sdpa,
  eager and flex attention; flash-attention (``modeling_flash_attention_utils._is_packed_sequence``, batch of one row)
  turns the same position ids into ``cu_seqlens`` for the varlen kernel. Nothing attends across examples.
* The first label of every example is -100: the causal-LM loss shifts labels by one, so without it the last token of
  one example would be trained to predict the first token of the next.
* Rows of a micro-batch are right-padded to the longest row; the padding gets its own run of position ids (a
  pseudo-example that attends only to itself) and -100 labels, so it changes no real token's logits or the loss.

Rows are filled by best-fit decreasing over the whole dataset (deterministic: same data, same rows, so a resumed
run's sampler skips to the same data position); the Trainer's sampler then shuffles rows. Standard library only,
except the collator (torch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

IGNORE_INDEX = -100


@dataclass(frozen=True)
class PackStats:
    examples: int
    rows: int
    real_tokens: int
    row_tokens: int

    @property
    def padding_efficiency(self) -> float:
        """Real tokens / token slots of the rows (each row padded to ``row_tokens``): 1.0 means no padding."""
        return self.real_tokens / (self.rows * self.row_tokens) if self.rows else 1.0


def best_fit_decreasing(lengths: Sequence[int], capacity: int) -> list[list[int]]:
    """Bins of example indices whose lengths sum to at most ``capacity``: longest examples first, each into the bin
    it fills most tightly (the open bin with the least room that still holds it), else a new bin. Deterministic;
    O(n log n) with a sorted list of (room, bin)."""
    import bisect

    if capacity < 1:
        raise ValueError(f"row capacity {capacity} must be positive")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    bins: list[list[int]] = []
    rooms: list[tuple[int, int]] = []  # (room left, bin index), sorted
    for i in order:
        n = lengths[i]
        if n > capacity:
            raise ValueError(f"example {i} has {n} tokens, more than a row's {capacity}; truncate to max_seq_length")
        at = bisect.bisect_left(rooms, (n, -1))
        if at < len(rooms):
            room, b = rooms.pop(at)
        else:
            room, b = capacity, len(bins)
            bins.append([])
        bins[b].append(i)
        if room - n > 0:
            bisect.insort(rooms, (room - n, b))
    return bins


def pack(examples: Sequence[dict[str, list[int]]], row_tokens: int) -> list[dict[str, list[int]]]:
    """Rows of whole examples: ``input_ids``, ``labels`` (first label of each example -100) and ``position_ids``
    (restarting at 0 per example)."""
    rows = []
    for members in best_fit_decreasing([len(e["input_ids"]) for e in examples], row_tokens):
        ids: list[int] = []
        labels: list[int] = []
        positions: list[int] = []
        for i in sorted(members):  # dataset order inside a row (the row set is what the bin packing decides)
            e = examples[i]
            ids += e["input_ids"]
            labels += [IGNORE_INDEX] + list(e["labels"][1:])
            positions += list(range(len(e["input_ids"])))
        rows.append({"input_ids": ids, "labels": labels, "position_ids": positions})
    return rows


def stats(examples: Sequence[dict[str, list[int]]], rows: Sequence[dict[str, list[int]]], row_tokens: int) -> PackStats:
    return PackStats(
        examples=len(examples),
        rows=len(rows),
        real_tokens=sum(len(e["input_ids"]) for e in examples),
        row_tokens=row_tokens,
    )


def padded_batch_efficiency(lengths: Sequence[int], batch_size: int) -> float:
    """Real tokens / slots when examples go in dataset order, ``batch_size`` at a time, each batch padded to its
    longest: what the right-padding collator spends (the unpacked path)."""
    slots = sum(
        max(lengths[i : i + batch_size]) * len(lengths[i : i + batch_size]) for i in range(0, len(lengths), batch_size)
    )
    return sum(lengths) / slots if slots else 1.0


class PackedCollator:
    """Stacks packed rows, right-padding to the longest row of the micro-batch. No ``attention_mask`` (transformers
    would then ignore the position ids' packing); ``num_tokens``/``num_sequences`` (real tokens, examples) are taken
    off the batch by the trainer for the throughput meter before the model sees it. Rows carry only model inputs, so
    the Trainer's unused-column filter keeps them whole."""

    def __init__(self, pad_token_id: int) -> None:
        self.pad = pad_token_id

    def __call__(self, rows: list[dict[str, list[int]]]):
        import torch

        width = max(len(r["input_ids"]) for r in rows)
        ids = torch.full((len(rows), width), self.pad, dtype=torch.long)
        labels = torch.full((len(rows), width), IGNORE_INDEX, dtype=torch.long)
        positions = torch.zeros((len(rows), width), dtype=torch.long)
        real = sequences = 0
        for i, r in enumerate(rows):
            n = len(r["input_ids"])
            ids[i, :n] = torch.tensor(r["input_ids"])
            labels[i, :n] = torch.tensor(r["labels"])
            positions[i, :n] = torch.tensor(r["position_ids"])
            positions[i, n:] = torch.arange(width - n)  # padding: its own pseudo-example
            real += n
            sequences += sum(1 for p in r["position_ids"] if p == 0)
        return {
            "input_ids": ids,
            "labels": labels,
            "position_ids": positions,
            "num_tokens": torch.tensor(real),
            "num_sequences": torch.tensor(sequences),
        }
