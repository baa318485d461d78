"""Save on request inside a GRPO run (issue 44): the run's half of :mod:`llm_platform.grpo_stop`.

VeRL 0.9.1's v1 trainer builds ``trainer.checkpoint_callback_class`` with the live trainer configuration when it is
constructed (``PPOTrainer.__init__``: ``build_checkpoint_callback(config)``, the object ``fit`` reads) and calls its
``on_save`` after every save, once ``latest_checkpointed_iteration.txt`` is written (``_save_checkpoint``); all of
this happens in the ``TaskRunnerV1`` actor, the single controller that drives every rank. ``GrpoParameters.overrides``
names :class:`SaveOnEviction` there. It

* clears a request or answer left by a previous attempt of the job, before the first step (a resumed run is never
  forced to save by an old request),
* runs a daemon thread that rewrites :data:`~llm_platform.grpo_stop.ALIVE` and, when a pod's ``preStop`` hook writes
  :data:`~llm_platform.grpo_stop.REQUEST`, sets ``trainer.save_freq`` to 1 on the live configuration: ``fit``
  evaluates ``save_freq > 0 and (is_last_step or global_steps % save_freq == 0)`` from that configuration after every
  step (``training/tests/test_grpo_save.py`` reads the pinned source), so the step in progress ends with VeRL's own
  save: the optimizer step is finished, never cut, and every rank saves its shard because the one controller decides,
* on the next ``on_save`` writes :data:`~llm_platform.grpo_stop.SAVED` naming the step, removes the request and puts
  ``save_freq`` back; after the last step it stops the heartbeat and removes ``ALIVE`` (nothing left to save).

It never stops the run: the pods' SIGTERM does, right after the hooks return. A run that ended by itself would let
``llmp-grpo`` merge and register a half-trained model and KubeRay mark the RayJob Complete; on Kueue's eviction the
RayJob is suspended instead (KubeRay deletes the cluster and resets the job to New), and re-admission starts a new
cluster that resumes from the save (``trainer.resume_mode=auto``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from verl.trainer.ppo.checkpoint_callback import CheckpointCallback

from llm_platform import grpo_stop

LOG_PREFIX = "llmp-grpo-save"


class SaveRequests:
    """The protocol's run side on a checkpoint ``folder`` and the live VeRL ``config`` (no thread: :meth:`poll` is
    one heartbeat and one look for a request; :class:`SaveOnEviction` calls it on a timer)."""

    def __init__(self, folder: Path, config: Any, *, log: Callable[[str], None] = print) -> None:
        self.folder = folder
        self.config = config
        self.log = log
        self.beats = 0
        self.pending_freq: int | None = None  # save_freq before a request lowered it; None: no request pending
        self.finished = False
        self.lock = threading.Lock()
        folder.mkdir(parents=True, exist_ok=True)  # VeRL creates it at its first save; the heartbeat needs it now
        for name in (grpo_stop.REQUEST, grpo_stop.SAVED):  # a previous attempt's: never force this run to save
            (folder / name).unlink(missing_ok=True)

    def poll(self) -> None:
        """Beat, and turn a new request into a save at the end of the current step."""
        with self.lock:
            if self.finished:
                return
            self.beats += 1
            grpo_stop.write_atomic(self.folder / grpo_stop.ALIVE, str(self.beats))
            if self.pending_freq is None and (self.folder / grpo_stop.REQUEST).exists():
                self.pending_freq = int(self.config.trainer.save_freq)
                self.config.trainer.save_freq = 1  # fit's modulo condition is true at the end of this step
                self.log(f"{LOG_PREFIX}: save requested (the pod is being stopped): saving at the end of this step")

    def saved(self, step: int, *, last: bool) -> None:
        """VeRL finished the save of ``step`` (its marker is written); ``last``: the run's final step."""
        with self.lock:
            if self.pending_freq is not None:
                self.config.trainer.save_freq = self.pending_freq
                self.pending_freq = None
                grpo_stop.write_atomic(self.folder / grpo_stop.SAVED, json.dumps({"step": step}))
                (self.folder / grpo_stop.REQUEST).unlink(missing_ok=True)
                self.log(f"{LOG_PREFIX}: step {step} saved on request")
            if last:
                self.finished = True
                (self.folder / grpo_stop.ALIVE).unlink(missing_ok=True)


class SaveOnEviction(CheckpointCallback):
    """VeRL's checkpoint callback (``trainer.checkpoint_callback_class``) that saves when a Ray pod is stopped."""

    def __init__(self, config: Any = None) -> None:
        super().__init__(config=config)
        self.requests = SaveRequests(Path(str(config.trainer.default_local_dir)), config)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="llmp-save-on-eviction", daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while not self.stopped.is_set():
            try:
                self.requests.poll()
            except OSError as error:  # FSx unreachable for a moment: the next beat tries again
                print(f"{LOG_PREFIX}: {error}", flush=True)
            self.stopped.wait(grpo_stop.HEARTBEAT_SECONDS)

    def on_save(self, trainer: Any, global_step: int, checkpoint_dir: str, async_save: bool = False, **kwargs) -> None:
        if async_save:  # VeRL wrote no marker: this is not a complete checkpoint yet (the platform never sets it)
            return
        last = global_step >= int(getattr(trainer, "total_training_steps", global_step + 1))
        self.requests.saved(global_step, last=last)
        if last:
            self.stopped.set()
