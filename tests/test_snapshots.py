"""One syrupy snapshot per stack and environment, with volatile values masked.

Update after a reviewed change: ``.venv/bin/python -m pytest tests/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from .conftest import ENVIRONMENTS, synthesize

_HASH = re.compile(r"[0-9a-f]{64}")
_LCC_DIGEST = re.compile(r"^(llmft-[a-z0-9-]+-(?:jl|ce)-)[0-9a-f]{8}$")


def mask(value: Any) -> Any:
    """Replace asset hashes (content-addressed, change with any code edit) by a placeholder."""
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, str):
        # Studio lifecycle configuration names end in a digest of their content, which holds the llmft asset's
        # hash (content-addressed too), so they change with the same code edits.
        return _LCC_DIGEST.sub(r"\1<digest>", _HASH.sub("<asset-hash>", value))
    return value


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_stack_snapshots(env: str, snapshot_json) -> None:
    """One snapshot per stack (named `<env>-<stack>`). Parametrized by environment only, so that collecting the
    tests synthesizes nothing."""
    synth = synthesize(env)
    for stack in synth.stacks:
        assert mask(synth.templates[stack]) == snapshot_json(name=f"{env}-{stack}"), f"{env}-{stack} changed"
