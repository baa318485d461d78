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


def mask(value: Any) -> Any:
    """Replace asset hashes (content-addressed, change with any code edit) by a placeholder."""
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, str):
        return _HASH.sub("<asset-hash>", value)
    return value


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


STACKS = [(env, name) for env in ENVIRONMENTS for name in synthesize(env).stacks]


@pytest.mark.parametrize(("env", "stack"), STACKS, ids=[f"{e}-{s}" for e, s in STACKS])
def test_stack_snapshot(env: str, stack: str, snapshot_json) -> None:
    assert mask(synthesize(env).templates[stack]) == snapshot_json
