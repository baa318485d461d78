"""Save on eviction and hang detection (llm_platform/preemption.py, issue 44): the watchdog on an injected stall (a
fake clock, then a real process that stops stepping), the grace period derived from the checkpoint's size, and the
SIGTERM flag agreed by every rank."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from llm_platform import preemption
from llm_platform.preemption import EXIT_HUNG, EXIT_PREEMPTED, Preemption, Watchdog, grace_seconds


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_exit_codes_are_the_retryable_signal_codes() -> None:
    assert EXIT_PREEMPTED == 143 and EXIT_HUNG == 142
    assert all(128 <= code <= 255 for code in (EXIT_PREEMPTED, EXIT_HUNG))  # training-operator ExitCode: retryable


def test_the_watchdog_fires_on_a_stall_of_k_times_the_median_step() -> None:
    clock = Clock()
    dog = Watchdog(factor=10, floor_seconds=5, warmup_steps=3, clock=clock)
    dog.last = clock.now
    for _ in range(6):  # steps of 2 s: median 2 s, limit max(5, 20) = 20 s
        clock.now += 2
        dog.stepped()
    assert dog.limit() == 20
    clock.now += 19
    assert dog.check() is None
    clock.now += 2
    found = dog.check()
    assert found and "no optimizer step for 21 s (limit 20 s: 10 x the median step, 2.0 s" in found


def test_before_warmup_only_the_floor_counts() -> None:
    clock = Clock()
    dog = Watchdog(factor=10, floor_seconds=60, warmup_steps=3, clock=clock)
    dog.last = 0.0
    clock.now = 59
    assert dog.check() is None
    clock.now = 61
    assert dog.check()


STALLING = textwrap.dedent(
    """
    import sys, time
    from llm_platform.preemption import Watchdog
    dog = Watchdog(factor=5, floor_seconds=1.0, warmup_steps=2, poll_seconds=0.05)
    dog.start()
    for _ in range(4):
        time.sleep(0.05)
        dog.stepped()
    def collective_that_never_returns():
        time.sleep(60)
    collective_that_never_returns()
    """
)


def test_a_stalled_process_prints_its_stacks_and_exits_retryably(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(preemption.__file__).parents[1]), "RANK": "3"}
    proc = subprocess.run(
        [sys.executable, "-c", STALLING], capture_output=True, text=True, timeout=50, env=env, check=False
    )
    assert proc.returncode == EXIT_HUNG, proc.stderr
    assert "llmp-preemption: rank 3: hang: no optimizer step for" in proc.stderr
    assert "collective_that_never_returns" in proc.stderr  # the stuck frame, from faulthandler
    assert f"exiting {EXIT_HUNG}" in proc.stderr


def test_sigterm_only_sets_the_flag() -> None:
    flag = Preemption().install()
    previous = signal.getsignal(signal.SIGTERM)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        assert flag.requested and flag.agreed()
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is flag._handle else previous)


@pytest.mark.parametrize(
    ("checkpoint_bytes", "expected"),
    [
        (50 * 10**6, 120),  # a LoRA adapter and its optimizer state: the platform's old 120 s is enough
        (16 * 8 * 10**9, int(2 * (16 * 8 * 10**9 / 125e6 + 30))),  # full fine-tune of 8B: weights + Adam, 16 B/param
    ],
)
def test_grace_period_from_the_checkpoint_size_and_the_write_rate(checkpoint_bytes: int, expected: int) -> None:
    assert grace_seconds(checkpoint_bytes) == expected
    assert grace_seconds(checkpoint_bytes, write_mb_s=1000) <= grace_seconds(checkpoint_bytes)
