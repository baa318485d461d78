"""Two real processes (gloo on CPU): the other ranks leave only after rank 0's final work, also when it fails."""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # trains/serves the tiny model or starts processes (docs/testing.md "Tiers")

WORK_SECONDS = 1.5


def _rank(rank: int, world: int, store: str, out: str, fail: bool) -> None:
    import torch.distributed as dist
    from llm_platform.rank_zero import run_on_rank_zero

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    record: dict = {"rank": rank}

    def work() -> str:
        time.sleep(WORK_SECONDS)
        record["work_done"] = time.time()
        if fail:
            raise RuntimeError("merge failed")
        return "merged"

    try:
        record["result"] = run_on_rank_zero(work)
    except RuntimeError as err:
        record["error"] = f"{type(err).__name__}: {err}"
    record["left"] = time.time()
    Path(out, f"{rank}.json").write_text(json.dumps(record))
    dist.destroy_process_group()


def _run(tmp_path: Path, *, fail: bool, world: int = 2) -> dict[int, dict]:
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=_rank, args=(r, world, str(tmp_path / "store"), str(tmp_path), fail)) for r in range(world)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    alive = [p for p in procs if p.is_alive()]
    for p in alive:
        p.kill()
    assert not alive, "a rank hung"
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
    return {r: json.loads((tmp_path / f"{r}.json").read_text()) for r in range(world)}


def test_other_ranks_leave_after_rank_zero_finished(tmp_path: Path) -> None:
    out = _run(tmp_path, fail=False)
    assert out[0]["result"] == "merged" and out[1]["result"] is None
    assert "work_done" not in out[1]  # only rank 0 did the work
    assert out[1]["left"] >= out[0]["work_done"]


def test_a_failure_on_rank_zero_fails_every_rank(tmp_path: Path) -> None:
    """Otherwise ranks > 0 would complete, and the operator would mark the elastic job Succeeded."""
    out = _run(tmp_path, fail=True)
    assert out[0]["error"] == "RuntimeError: merge failed"
    assert out[1]["error"].startswith("RankZeroFailed: rank 0 failed")
    assert out[1]["left"] >= out[0]["work_done"]


def test_one_process_just_runs_the_work() -> None:
    from llm_platform.rank_zero import run_on_rank_zero

    assert run_on_rank_zero(lambda: 42) == 42


@pytest.fixture(autouse=True)
def _no_leftover_group():
    yield
    import torch.distributed as dist

    assert not dist.is_initialized()
