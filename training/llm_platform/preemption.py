"""Save on eviction and detect hangs (issue 44): what a training step does when its pod is told to go, and when it
stops making progress.

**Eviction.** Every path that takes a job's pods away sends SIGTERM first and waits the pod's
``terminationGracePeriodSeconds`` before SIGKILL: Kueue's preemption and eviction (the job is suspended, its pods
deleted), Karpenter's disruption (spot interruption, consolidation, drift, expiry: the node is drained through the
eviction API) and node repair (drain), the kubelet's own pod deletion. In the pod, PID 1 is ``torchrun``; its elastic
agent forwards SIGTERM to every worker and waits ``TORCH_ELASTIC_SHUTDOWN_TIMEOUT`` seconds (default 30) before it
kills them (torch 2.13 ``torch/distributed/launcher/api.py`` ``LaunchConfig.shutdown_timeout``, ``run.py``
``--shutdown-timeout``): the platform sets that timeout from the grace period (k8s_charts/pods.py).

On SIGTERM the step (:class:`Preemption`) finishes the optimizer step it is in (a half-applied update is never
saved), then every rank agrees (a max all-reduce of the flag, so no rank saves alone), the Trainer writes a complete
checkpoint (``trainer_state.json`` last: ``llm_platform.sft.last_checkpoint`` never resumes from an incomplete one)
and the process exits with :data:`EXIT_PREEMPTED`, 128 + SIGTERM, which the operator retries (a PyTorchJob's
``restartPolicy: OnFailure`` restarts on any non-zero exit; ``ExitCode`` treats 128-255 as retryable). The restarted
run resumes from that checkpoint: same data order, LR schedule, RNG state and MLflow run.

**Hangs.** :class:`Watchdog` watches the time between optimizer steps. No step for ``factor`` x the run's median
step time (and at least ``floor_seconds``) is a hang: a collective that never returns, a dead data loader. It prints
every thread's Python stack (``faulthandler``: the rank's own stacks, in its own log) and exits with
:data:`EXIT_HUNG` so the operator restarts the pod from the last checkpoint instead of holding the GPUs forever. Its
first line starts with :data:`HANG_MARKER`, which the per-team hang metric counts (docs/observability.md,
``TrainingHangs-<team>``).

Standard library only at import: ``llmft`` reads the constants without torch.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

EXIT_PREEMPTED = 128 + signal.SIGTERM  # 143: the shell's "terminated by SIGTERM", retryable
EXIT_HUNG = 128 + signal.SIGALRM  # 142: "a timer expired": no progress, retryable
LOG_PREFIX = "llmp-preemption"
HANG_MARKER = "llmp-hang"
"""The first word of the one line each hung rank prints (:func:`_exit_hung`): a CloudWatch Logs metric filter per team
namespace counts the lines that start with it (cdk_constructs/observability/training_hangs.py), so the hang metric
and alarm read this constant, never a copy."""


class Preemption:
    """The SIGTERM flag of one process. :meth:`install` replaces SIGTERM's handler (main thread only, as Python
    requires); the handler only records the signal, so a step in progress finishes."""

    def __init__(self) -> None:
        self.requested = False
        self.at: float | None = None
        self.saved_step: int | None = None

    def install(self) -> Preemption:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._handle)
        return self

    def _handle(self, signum: int, _frame: Any) -> None:
        if not self.requested:
            print(f"{LOG_PREFIX}: SIGTERM: finishing this optimizer step, then saving a checkpoint", file=sys.stderr)
        self.requested, self.at = True, time.monotonic()

    def agreed(self) -> bool:
        """Whether any rank was told to stop (every rank gets the same answer: a max all-reduce when distributed)."""
        flag = self.requested
        try:
            import torch
            import torch.distributed as dist
        except ImportError:
            return flag
        if not (dist.is_available() and dist.is_initialized()):
            return flag
        device = f"cuda:{torch.cuda.current_device()}" if dist.get_backend() == "nccl" else "cpu"
        value = torch.tensor([1 if flag else 0], device=device)
        dist.all_reduce(value, op=dist.ReduceOp.MAX)
        return bool(value.item())


def trainer_callback(preemption: Preemption, watchdog: Watchdog | None = None):
    """A transformers ``TrainerCallback``: after each optimizer step, a stop agreed by every rank makes the Trainer
    save a checkpoint and stop (``control.should_save`` / ``should_training_stop``); the watchdog sees the step."""
    from transformers import TrainerCallback

    class PreemptionCallback(TrainerCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            if watchdog is not None:
                watchdog.start()

        def on_step_end(self, args, state, control, **kwargs):
            if watchdog is not None:
                watchdog.stepped()
            if preemption.agreed():
                control.should_save = True
                control.should_training_stop = True
                preemption.requested = True
                preemption.saved_step = state.global_step
            return control

        def on_prediction_step(self, args, state, control, **kwargs):
            if watchdog is not None:
                watchdog.touch()  # an evaluation between optimizer steps is progress too

        def on_save(self, args, state, control, **kwargs):
            if watchdog is not None:
                watchdog.touch()

        def on_train_end(self, args, state, control, **kwargs):
            if watchdog is not None:
                watchdog.stop()

    return PreemptionCallback()


class Watchdog:
    """No optimizer step for ``factor`` x the median step time (at least ``floor_seconds``; before ``warmup_steps``
    steps the floor alone) ends the process after printing every thread's stack."""

    def __init__(
        self,
        *,
        factor: float = 10.0,
        floor_seconds: float = 900.0,
        warmup_steps: int = 3,
        poll_seconds: float = 5.0,
        on_hang: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.factor, self.floor, self.warmup, self.poll = factor, floor_seconds, warmup_steps, poll_seconds
        self.on_hang = on_hang or _exit_hung
        self.clock = clock
        self.durations: list[float] = []
        self.last: float | None = None
        self._touched = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def limit(self) -> float:
        """Seconds without a step that count as a hang now."""
        if len(self.durations) < self.warmup:
            return self.floor
        return max(self.floor, self.factor * statistics.median(self.durations))

    def stepped(self) -> None:
        now = self.clock()
        if self.last is not None and not self._touched:
            self.durations.append(now - self.last)
            del self.durations[:-1000]  # the recent thousand steps are the run's median
        self.last, self._touched = now, False

    def touch(self) -> None:
        """Progress that is no optimizer step (an evaluation batch, a save): restarts the wait, not the median."""
        self.last = self.clock()
        self._touched = True

    def check(self) -> str | None:
        """The hang's description when there is one now, else None."""
        if self.last is None:
            return None
        waited, limit = self.clock() - self.last, self.limit()
        if waited <= limit:
            return None
        median = f"{statistics.median(self.durations):.1f} s" if self.durations else "none yet"
        return (
            f"no optimizer step for {waited:.0f} s (limit {limit:.0f} s: {self.factor:g} x the median step, "
            f"{median}, at least {self.floor:.0f} s)"
        )

    def start(self) -> None:
        if self._thread is not None:
            return
        self.last = self.clock()
        self._thread = threading.Thread(target=self._run, name="llmp-watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.poll):
            found = self.check()
            if found:
                self.on_hang(found)
                return


def hang_line(message: str) -> str:
    """The line a hung rank prints first: :data:`HANG_MARKER` first (the metric filter matches its start), then the
    rank and what the watchdog found."""
    return f"{HANG_MARKER}: rank {os.environ.get('RANK', '0')}: {message}; every thread's stack follows"


def _exit_hung(message: str) -> None:
    print(hang_line(message), file=sys.stderr, flush=True)
    rank = os.environ.get("RANK", "0")
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    print(
        f"{LOG_PREFIX}: rank {rank}: exiting {EXIT_HUNG} so the operator restarts the pod from the last checkpoint",
        file=sys.stderr,
        flush=True,
    )
    os._exit(EXIT_HUNG)


# --- the grace period --------------------------------------------------------------------------------------------
# FSx for Lustre PERSISTENT_2 serves 125, 250, 500 or 1000 MB/s of throughput per TiB of storage (AWS FSx for Lustre
# User Guide, "Amazon FSx for Lustre performance": aggregate throughput = per-unit throughput x storage capacity).
# One writer does not get all of it; the platform plans a checkpoint at the per-TiB figure of its smallest tier, one
# TiB's worth, as the slowest write a job sees.
PLANNED_WRITE_MB_S = 125.0
SAVE_OVERHEAD_SECONDS = 30.0  # the step in progress, the ranks' agreement, the state files, the process exit
MIN_GRACE_SECONDS = 120
"""The platform's grace period before this change: no job gets less."""
MAX_GRACE_SECONDS = 1800
"""The cap on every training pod's grace period (SFT's and GRPO's alike): the longest its pods hold their GPUs after
they are told to go, i.e. the longest a preempting job waits for them (Kueue releases an evicted job's quota only once
its pods are gone: kubernetes-sigs/kueue pkg/controller/jobframework/reconciler.go, "handle eviction"). A job whose
save needs more gets the cap; an eviction then ends at the cap without a save and the run resumes from its last
periodic checkpoint. The team guard rails refuse any pod or pod template in a team namespace with a longer grace
period (k8s_charts/guardrails/common.py), so this is also the most a team's own job may ask for."""


def checkpoint_seconds(checkpoint_bytes: int, write_mb_s: float = PLANNED_WRITE_MB_S) -> float:
    """Seconds to write a checkpoint of ``checkpoint_bytes`` at ``write_mb_s``."""
    return checkpoint_bytes / (write_mb_s * 1e6)


def grace_seconds(checkpoint_bytes: int, write_mb_s: float = PLANNED_WRITE_MB_S) -> int:
    """The pod's ``terminationGracePeriodSeconds`` for a job whose checkpoint is ``checkpoint_bytes``: the write at
    the planned rate, plus the step in progress and the exit, doubled for a busy file system; never below
    :data:`MIN_GRACE_SECONDS`, never above :data:`MAX_GRACE_SECONDS`."""
    planned = int(2 * (checkpoint_seconds(checkpoint_bytes, write_mb_s) + SAVE_OVERHEAD_SECONDS))
    return min(MAX_GRACE_SECONDS, max(MIN_GRACE_SECONDS, planned))


# --- GRPO (VeRL): the rest of the step in progress, then VeRL's own save (llm_platform.grpo_stop) -----------------
GRPO_CHECKPOINT_BYTES_PER_PARAM = 12
"""VeRL's FSDP actor checkpoint per model parameter: the fp32 weights (the actor's ``fsdp_config.model_dtype: fp32``)
and AdamW's two fp32 moments (``checkpoint.save_contents: [model, optimizer, extra]``), verl 0.9.1
``trainer/config/_generated_ppo_trainer.yaml``; training/tests/test_grpo_save.py reads both from the composed
configuration of the shipped step."""
GRPO_FLOPS_PER_PARAM_TOKEN = 14
"""Model FLOPs per parameter per token of one GRPO step, counted as :mod:`llm_platform.mfu` counts: the rollout's
forward (2), the old policy's and the reference policy's log-probabilities (2 + 2) and the actor update (6) with the
forward that gradient checkpointing recomputes (2; ``GrpoParameters.overrides`` turns it on). Attention is left out:
GRPO's sequences (at most prompt + response tokens) are short beside the model's width."""
GRPO_PLANNED_MFU = 0.05
"""The share of the GPUs' dense BF16 peak a GRPO step is planned at. Not measured: docs/benchmarks/ holds SFT rows
only. A rollout decodes token by token, which is memory-bound and runs far below the SFT step's measured 0.357
(docs/training.md "Measured on an H100"), so the plan takes an eighth of the SFT design figure (0.40,
``memory.DESIGN_MFU``). Planning the step too long costs nothing when the run saves (the hooks return at once) and
little when it is gone (they return once its heartbeat freezes, ``grpo_stop.STALE_SECONDS``)."""
# GRPO's cap is the platform's (MAX_GRACE_SECONDS): a job whose step and save need more (a large model on slow GPUs)
# gets the cap; an eviction early in such a step then ends at the cap without a save and the run resumes from its last
# ``save_freq`` checkpoint, as it would without the hook.


def grpo_step_seconds(params: int, *, tokens_per_step: int, gpus: int, peak_flops_per_gpu: float) -> float:
    """Planned seconds of one GRPO step of a ``params``-parameter model over ``tokens_per_step`` tokens (prompts and
    responses of every rollout) on ``gpus`` GPUs of ``peak_flops_per_gpu``."""
    flops = GRPO_FLOPS_PER_PARAM_TOKEN * params * tokens_per_step
    return flops / (gpus * peak_flops_per_gpu * GRPO_PLANNED_MFU)


def grpo_grace_seconds(
    params: int, *, tokens_per_step: int, gpus: int, peak_flops_per_gpu: float, write_mb_s: float
) -> int:
    """A GRPO Ray pod's ``terminationGracePeriodSeconds``: the step in progress (planned whole: the request may come
    as it starts) plus VeRL's save of the actor at ``write_mb_s``, the save doubled with its overhead as
    :func:`grace_seconds` does; at least :data:`MIN_GRACE_SECONDS`, at most :data:`MAX_GRACE_SECONDS`."""
    step = grpo_step_seconds(params, tokens_per_step=tokens_per_step, gpus=gpus, peak_flops_per_gpu=peak_flops_per_gpu)
    save = checkpoint_seconds(GRPO_CHECKPOINT_BYTES_PER_PARAM * params, write_mb_s)
    return min(MAX_GRACE_SECONDS, max(MIN_GRACE_SECONDS, int(step + 2 * (save + SAVE_OVERHEAD_SECONDS))))
