"""The SFT step's checkpoints and merged model on FSx (:mod:`llm_platform.sft`): the newest complete checkpoint to
resume from, whether a resumed run is already finished, how many checkpoints it will write, and the merge of the
final adapter into the base model, left alone when the merged directory already holds it."""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

TRAINER_STATE = "trainer_state.json"
DEFAULT_SAVE_TOTAL_LIMIT = 2
"""Checkpoints a run keeps when its file sets no ``save_total_limit``: the newest and the one before it (a resume
falls back to it when the newest is incomplete, last_checkpoint)."""


def last_checkpoint(output_dir: str | Path) -> str | None:
    """The newest *complete* ``checkpoint-N`` in ``output_dir``, or None.

    transformers' ``get_last_checkpoint`` returns the highest N whatever it holds; a node lost during a save leaves
    a partial directory, and resuming from it fails on every restart until the job's retries run out. The Trainer
    (transformers 5.x ``Trainer._save_checkpoint``) writes the model, then optimizer, scheduler and RNG state, and
    ``trainer_state.json`` last; a checkpoint whose state file is missing, unreadable or for another step is
    skipped for the one before it."""
    root = Path(output_dir)
    if not root.is_dir():
        return None
    found = []
    for path in root.iterdir():
        match = re.fullmatch(r"checkpoint-(\d+)", path.name)
        if match and path.is_dir():
            found.append((int(match.group(1)), path))
    for step, path in sorted(found, reverse=True):
        try:
            state = json.loads((path / TRAINER_STATE).read_text())
        except (OSError, ValueError):
            print(f"llmp-sft: skipping incomplete checkpoint {path} (no readable {TRAINER_STATE})", file=sys.stderr)
            continue
        if state.get("global_step") == step:
            return str(path)
        print(
            f"llmp-sft: skipping checkpoint {path}: its {TRAINER_STATE} is for step {state.get('global_step')}",
            file=sys.stderr,
        )
    return None


MERGE_MARKER = ".llmft-merge.json"
"""Written into the merged model's directory after its last file: the base model and the sha256 of the adapter it
was merged from. A directory whose marker matches is left alone (a restart never rewrites a model being served)."""
ADAPTER_MARKER = ".llmft-adapter.json"
"""Written into ``<output_dir>/adapter`` after the final adapter: the step it was saved at."""


def merge_source(script: Any, adapter_dir: Path) -> dict[str, str]:
    import hashlib

    digest = hashlib.sha256()
    with (adapter_dir / "adapter_model.safetensors").open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return {"model_id": str(script.model_id), "adapter_sha256": digest.hexdigest()}


def merged_matches(merged_dir: Path, source: dict[str, str]) -> bool:
    try:
        return json.loads((merged_dir / MERGE_MARKER).read_text()) == source
    except (OSError, ValueError):
        return False


def merge(script: Any, adapter_dir: Path, merged_dir: Path, bf16: bool) -> Path:
    """Load the base model unquantised, apply the adapter, merge it into the weights and save -- unless
    ``merged_dir`` already holds this merge (:data:`MERGE_MARKER`). The marker goes first and comes back last: a
    merge cut short is done again."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = merge_source(script, adapter_dir)
    if merged_matches(merged_dir, source):
        print(f"llmp-sft: {merged_dir} already holds this merge ({MERGE_MARKER}); left as it is", file=sys.stderr)
        return merged_dir
    (merged_dir / MERGE_MARKER).unlink(missing_ok=True)
    base = AutoModelForCausalLM.from_pretrained(script.model_id, dtype=torch.bfloat16 if bf16 else torch.float32)
    merged = PeftModel.from_pretrained(base, str(adapter_dir)).merge_and_unload()
    merged.save_pretrained(str(merged_dir), safe_serialization=True)
    AutoTokenizer.from_pretrained(str(adapter_dir)).save_pretrained(str(merged_dir))
    (merged_dir / MERGE_MARKER).write_text(json.dumps(source))
    return merged_dir


def checkpoint_state(checkpoint: str | Path) -> dict[str, Any]:
    return json.loads((Path(checkpoint) / TRAINER_STATE).read_text())


def finished_at(checkpoint: str | None, args) -> int | None:
    """The step of ``checkpoint`` when it is at or past the run's last step (``max_steps``, or the step count the
    Trainer planned for ``num_train_epochs``, kept in its state), else None: resuming there trains nothing more."""
    if not checkpoint:
        return None
    state = checkpoint_state(checkpoint)
    end = args.max_steps if args.max_steps and args.max_steps > 0 else int(state.get("max_steps") or 0)
    step = int(state.get("global_step") or 0)
    return step if end and step >= end else None


def planned_saves(args, trainer) -> int | None:
    """How many checkpoints the run writes in all (``save_strategy: steps`` with a known step count), else None."""
    steps = args.max_steps if args.max_steps and args.max_steps > 0 else None
    if steps is None:
        with contextlib.suppress(Exception):  # the dataloader's length x epochs, as the Trainer plans it
            steps = math.ceil(
                len(trainer.get_train_dataloader()) / max(1, args.gradient_accumulation_steps) * args.num_train_epochs
            )
    strategy = str(getattr(args.save_strategy, "value", args.save_strategy))
    if not steps or strategy != "steps" or not args.save_steps:
        return None
    every = args.save_steps if args.save_steps >= 1 else max(1, math.ceil(steps * args.save_steps))
    return max(1, math.ceil(steps / every))
