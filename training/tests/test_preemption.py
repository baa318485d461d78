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
from llm_platform.preemption import (
    EXIT_HUNG,
    EXIT_PREEMPTED,
    MAX_GRACE_SECONDS,
    Preemption,
    Watchdog,
    grace_seconds,
)


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
    assert f"\n{preemption.HANG_MARKER}: rank 3: no optimizer step for" in f"\n{proc.stderr}"  # a line of its own
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
        (16 * 10**9, int(2 * (16 * 10**9 / 125e6 + 30))),  # full fine-tune of 1B: weights + Adam, 16 B/param
        # full fine-tune of 8B: its save outlasts the cap, which a preempting job waits at most
        (16 * 8 * 10**9, min(MAX_GRACE_SECONDS, int(2 * (16 * 8 * 10**9 / 125e6 + 30)))),
    ],
)
def test_grace_period_from_the_checkpoint_size_and_the_write_rate(checkpoint_bytes: int, expected: int) -> None:
    assert grace_seconds(checkpoint_bytes) == expected
    assert grace_seconds(checkpoint_bytes, write_mb_s=1000) <= grace_seconds(checkpoint_bytes)


# ---- a preempted run resumes exactly: two gloo ranks under torchrun, SIGTERM as Kubernetes sends it ---------------
def _sft_file(root: Path, out: Path) -> Path:
    import yaml
    from test_sft import sft_config

    config = sft_config(
        root,
        output_dir=str(out),
        merge_weights=False,
        registered_model_name=None,
        mlflow_tracking=False,
        max_steps=8,
        save_steps=8,
        max_seq_length=256,  # the tiny model's positions (the step's own check refuses more)
        max_tokens_per_step=512,
        per_device_train_batch_size=3,
        gradient_checkpointing=False,
    )
    config.pop("merged_output_dir", None)
    path = root / f"{out.name}.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in config.items() if v is not None}))
    return path


def _torchrun(step_file: Path, *, terminate_after_logs: int | None = None) -> tuple[int, str]:
    """Run the SFT step on two CPU ranks (gloo); with ``terminate_after_logs``, SIGTERM torchrun (PID 1 of the pod)
    once that many loss lines were printed, as the kubelet does when a pod is preempted."""
    import threading

    env = {
        **os.environ,
        "PYTHONPATH": str(Path(preemption.__file__).parents[1]),
        "TORCH_ELASTIC_SHUTDOWN_TIMEOUT": "120",  # what k8s_charts sets from the grace period
        "OMP_NUM_THREADS": "1",
        "PYTHONUNBUFFERED": "1",  # every log line as it is printed: SIGTERM lands mid-run however loaded the machine
    }
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    cmd += ["-m", "llm_platform.sft", "--config", str(step_file)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    timer = threading.Timer(600, proc.kill)  # bounded: a hung run fails the test instead of the suite
    timer.start()
    lines, sent = [], False
    try:
        for line in proc.stdout:
            lines.append(line)
            losses = sum("'loss'" in x for x in lines)
            if terminate_after_logs is not None and not sent and losses >= 2 * terminate_after_logs:
                proc.send_signal(signal.SIGTERM)  # two ranks print their logs: 2 lines a step at most
                sent = True
        return proc.wait(), "".join(lines)
    finally:
        timer.cancel()


def _final(out: Path) -> tuple[list[float], dict]:
    import json

    from safetensors.torch import load_file

    state = json.loads((out / "checkpoint-8" / "trainer_state.json").read_text())
    losses = {e["step"]: e["loss"] for e in state["log_history"] if "loss" in e}
    return [losses[s] for s in sorted(losses)], load_file(str(out / "checkpoint-8" / "adapter_model.safetensors"))


@pytest.mark.e2e
def test_a_run_preempted_by_sigterm_resumes_to_the_same_weights_and_losses(workspace: Path) -> None:
    import torch

    root = workspace  # the tiny model and its prepared data (conftest.py, shared with test_sft)
    whole, interrupted = root / "checkpoints/whole", root / "checkpoints/preempted"
    code, log = _torchrun(_sft_file(root, whole))
    assert code == 0, log[-3000:]
    code, log = _torchrun(_sft_file(root, interrupted), terminate_after_logs=2)
    assert code != 0, log[-3000:]
    assert f"exiting {EXIT_PREEMPTED} so the job resumes from it" in log, log[-3000:]
    saved = sorted(p.name for p in interrupted.glob("checkpoint-*"))
    assert len(saved) == 1 and saved != ["checkpoint-8"], saved  # saved at the step in progress, not the end
    code, log = _torchrun(_sft_file(root, interrupted))  # the restarted pod: the same step file
    assert code == 0, log[-3000:]
    losses_whole, weights_whole = _final(whole)
    losses_resumed, weights_resumed = _final(interrupted)
    assert len(losses_resumed) == 8
    assert losses_resumed == pytest.approx(losses_whole, rel=1e-4)
    for name, tensor in weights_whole.items():
        torch.testing.assert_close(weights_resumed[name], tensor, rtol=1e-4, atol=1e-6)
