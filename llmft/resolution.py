"""What a spec becomes before anything renders (:func:`llmft.build.resolve`), in a module of its own so that every
renderer (llmft/build.py, llmft/serve_build.py) reads it without importing another renderer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from k8s_charts.node_shapes import NodeKind
from k8s_charts.tiers import JobTier


@dataclass(frozen=True)
class Resolution:
    """Everything a spec becomes before anything renders, decided once (:func:`llmft.build.resolve`): the builders
    render it and never ask the tier, node-kind, queue or storage modules again."""

    tier: JobTier
    priority_class: str
    queue: str | None
    output: str
    step: dict[str, Any]
    image: str
    kinds: tuple[NodeKind, ...] = ()  # GPU jobs: the tier's kinds of the chosen instance type
    allowed: tuple[NodeKind, ...] = ()  # ... of which those that can hold the whole job
    instance_type: str | None = None
    gpus_per_node: int = 0
    ray_version: str | None = None
    tp: int = 0  # serve: GPUs of one engine (serve.tensor_parallel)
    grace_seconds: int = 120  # the pods' terminationGracePeriodSeconds (llmft.build.grace_for)
