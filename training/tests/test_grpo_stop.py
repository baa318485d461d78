"""The GRPO Ray pods' preStop hook (issue 44, llm_platform.grpo_stop) against a temporary checkpoint folder, on an
injected clock: it returns when the run reports the save, and before its budget when no run can save."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from llm_platform import grpo_stop


class FakeClock:
    """Monotonic time that moves only when the hook sleeps; ``on_sleep(now)`` plays the run between two polls."""

    def __init__(self, on_sleep: Callable[[float], None] = lambda now: None) -> None:
        self.now = 0.0
        self.on_sleep = on_sleep
        self.sleeps = 0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.now += seconds
        self.sleeps += 1
        self.on_sleep(self.now)


def _beating(folder: Path) -> Callable[[float], None]:
    """A live run's heartbeat: the counter moves on every call."""
    beats = iter(range(1, 10**6))

    def beat(now: float) -> None:
        grpo_stop.write_atomic(folder / grpo_stop.ALIVE, str(next(beats)))

    return beat


def _wait(folder: Path, budget: float, clock: FakeClock) -> str:
    return grpo_stop.wait_for_save(folder, budget, clock=clock, sleep=clock.sleep)


def test_without_a_live_run_the_hook_returns_at_once_and_asks_nothing(tmp_path: Path) -> None:
    clock = FakeClock()
    assert _wait(tmp_path, 600, clock) == "no-run"
    assert clock.sleeps == 0 and not (tmp_path / grpo_stop.REQUEST).exists()


def test_the_hook_asks_for_a_save_and_returns_when_the_run_reports_it(tmp_path: Path) -> None:
    beat = _beating(tmp_path)
    beat(0)

    def run(now: float) -> None:
        beat(now)
        if clock.sleeps == 3:  # the step in progress ends and VeRL's save completes
            assert (tmp_path / grpo_stop.REQUEST).exists()
            grpo_stop.write_atomic(tmp_path / grpo_stop.SAVED, json.dumps({"step": 7}))

    clock = FakeClock(run)
    budget = 600
    assert _wait(tmp_path, budget, clock) == "saved"
    assert clock.now < budget and grpo_stop.saved_step(tmp_path) == 7


def test_an_answer_left_from_before_the_request_is_not_taken_for_this_save(tmp_path: Path) -> None:
    beat = _beating(tmp_path)
    beat(0)
    grpo_stop.write_atomic(tmp_path / grpo_stop.SAVED, json.dumps({"step": 3}))
    clock = FakeClock(beat)
    assert _wait(tmp_path, 30, clock) == "budget"


def test_a_run_that_never_saves_releases_the_hook_at_its_budget(tmp_path: Path) -> None:
    beat = _beating(tmp_path)
    beat(0)
    clock = FakeClock(beat)
    budget = 10 * grpo_stop.STALE_SECONDS
    assert _wait(tmp_path, budget, clock) == "budget"
    assert clock.now == budget


def test_a_run_whose_heartbeat_froze_releases_the_hook_before_its_budget(tmp_path: Path) -> None:
    grpo_stop.write_atomic(tmp_path / grpo_stop.ALIVE, "41")  # written by a run that is gone
    clock = FakeClock()
    budget = 10 * grpo_stop.STALE_SECONDS
    assert _wait(tmp_path, budget, clock) == "run-stopped"
    assert grpo_stop.STALE_SECONDS <= clock.now < budget


def test_a_run_that_ends_while_the_hook_waits_releases_it(tmp_path: Path) -> None:
    grpo_stop.write_atomic(tmp_path / grpo_stop.ALIVE, "1")

    def end(now: float) -> None:
        (tmp_path / grpo_stop.ALIVE).unlink(missing_ok=True)

    clock = FakeClock(end)
    assert _wait(tmp_path, 600, clock) == "run-ended"
    assert clock.sleeps == 1


def test_several_pods_share_one_request(tmp_path: Path) -> None:
    grpo_stop.write_atomic(tmp_path / grpo_stop.ALIVE, "1")
    grpo_stop.request_save(tmp_path)
    first = (tmp_path / grpo_stop.REQUEST).stat().st_mtime_ns
    grpo_stop.request_save(tmp_path)
    assert (tmp_path / grpo_stop.REQUEST).stat().st_mtime_ns == first
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([grpo_stop.ALIVE, grpo_stop.REQUEST])  # no leftovers


def test_the_hook_command_runs_this_module_with_its_budget() -> None:
    command = grpo_stop.hook_command("/fsx/teams/a/checkpoints/run", 240)
    assert command[:3] == ["python3", "-m", grpo_stop.MODULE]
    assert command[command.index("--budget-seconds") + 1] == "240"


@pytest.mark.parametrize("alive", [False, True])
def test_the_entry_point_always_exits_0(tmp_path: Path, alive: bool) -> None:
    """As the pod runs it: a process of its own (a frozen heartbeat and a zero budget end it at once)."""
    if alive:
        grpo_stop.write_atomic(tmp_path / grpo_stop.ALIVE, "1")
    argv = ["-m", grpo_stop.MODULE, "--checkpoint-dir", str(tmp_path), "--budget-seconds", "0"]
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{grpo_stop.LOG_PREFIX}: {'budget' if alive else 'no-run'}")
