"""Work done by global rank 0 alone at the end of a distributed run, with every other rank waiting for its outcome.

Why the others wait: the Kubeflow training operator marks an *elastic* PyTorchJob Succeeded as soon as any one
worker pod has completed (training-operator v1.7.0 / image v1-855e096, pkg/controller.v1/pytorch/
pytorchjob_controller.go: ``expected == 0 || (ElasticPolicy != nil && succeeded > 0)``). Kueue then finishes the
workload and hands its GPUs to the next job, and the job's ``cleanPodPolicy: Running`` deletes the pods still running
(pkg/controller.v1/common/job.go DeletePodsAndServices). If ranks > 0 exited while rank 0 still merged and registered
the model, rank 0 would be killed mid-write; if they exited successfully while rank 0 failed, the job would read
Succeeded. So every rank waits for rank 0's outcome and fails with it: the pods complete together, and only when the
last write worked.

The wait runs on a separate gloo group with its own long timeout: a merge of a large model can outlast the NCCL
group's default collective timeout (10 minutes), and a gloo collective needs no GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

T = TypeVar("T")

DEFAULT_TIMEOUT = timedelta(hours=4)


def shutdown_distributed() -> None:
    """Destroy every process group before the interpreter exits. A gloo group left alive is destroyed during the
    interpreter's own teardown, when its C++ worker threads may still be joinable: the process then dies with
    "terminate called without an active exception" (SIGABRT) after all its work succeeded, and torchrun reports the
    job failed. PyTorch's documentation asks for destroy_process_group() at the end of every distributed program."""
    try:
        import torch.distributed as dist
    except ImportError:
        return
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


class RankZeroFailed(RuntimeError):
    """Raised on ranks > 0 when rank 0's final work failed (rank 0 raises the original error)."""


def run_on_rank_zero(work: Callable[[], T], *, timeout: timedelta = DEFAULT_TIMEOUT) -> T | None:
    """Run ``work`` on global rank 0 and return its result there (None on the other ranks) once every rank has
    reached this point and rank 0 has finished. Without an initialised process group (one process), just runs it.

    If ``work`` raises on rank 0, every rank fails: rank 0 with that exception, the others with
    :class:`RankZeroFailed`.
    """
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return work()
    group = dist.new_group(backend="gloo", timeout=timeout)  # collective: every rank creates it, in this order
    outcome = torch.zeros(1, dtype=torch.int32)  # 0: rank 0 succeeded, 1: it failed
    result: T | None = None
    error: BaseException | None = None
    if dist.get_rank() == 0:
        try:
            result = work()
        except BaseException as exc:  # noqa: BLE001 - re-raised below, after the others have been told
            error = exc
            outcome[0] = 1
    dist.broadcast(outcome, src=0, group=group)  # the other ranks wait here for rank 0's outcome
    dist.destroy_process_group(group)  # its threads must not outlive the interpreter (see shutdown_distributed)
    if error is not None:
        raise error
    if outcome.item():
        raise RankZeroFailed("rank 0 failed its final step (merge / registration); its log has the error")
    return result
