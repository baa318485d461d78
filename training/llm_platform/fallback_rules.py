"""What the development fall-back controller decides (docs/queueing.md "Fallback when unschedulable", case 2): pure
functions over Kueue Workload objects and their jobs, no I/O (:mod:`llm_platform.fallback_controller` does the API
calls). Standard library only: the app imports it too.

A development job admitted on reserved (HyperPod) quota whose pods never became ready moves to the tier's burst
flavors in three steps, each taken when Kueue has caught up with the one before (one controller run may take several):

1. ``deactivate``: the job is annotated with the flavor it leaves (:data:`ANNOTATION`) and its Workload set
   ``spec.active: false`` and marked (:data:`MARK`) in one patch (Kueue evicts it, suspends the job and releases the
   quota);
2. ``exclude``: once the job is suspended and the Workload holds no quota, every GPU pod template of the job gets the
   requirement that excludes reserved nodes in each of its required node-affinity terms; Kueue then updates the
   suspended job's Workload in place, keeping it inactive (kubernetes-sigs/kueue@v0.19.2
   pkg/controller/jobframework/reconciler.go ``ensureOneWorkload``: no matching Workload, job suspended, no quota
   reservation -> ``updateWorkloadToMatchJob``, which keeps ``spec.active``);
3. ``reactivate``: once the Workload's pod sets carry the requirement, ``spec.active: true`` and the mark removed, in
   one patch; Kueue skips the reserved flavor, whose ``nodeLabels`` the pods' required affinity now excludes
   (pkg/scheduler/flavorassigner ``flavorSelector``), and admits the job on the first burst flavor with room.

Steps 2 and 3 are taken only for a Workload carrying :data:`MARK`; a marked Workload someone else reactivated is
``unmark``-ed (the move is abandoned; it starts again if the job waits on reserved once more).

"Waiting" is Kueue's own measure for ``waitForPodsReady``: admitted (condition ``Admitted`` True), ``PodsReady`` not
True with reason ``WaitForStart`` (or no condition yet), time since ``Admitted`` turned True (v0.19.2
pkg/controller/core/workload_controller.go ``admittedNotReadyWorkload``). A job whose pods ran once and lost one
(``WaitForRecovery``) is left to ``recoveryTimeout``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

GPU_RESOURCE = "nvidia.com/gpu"
ANNOTATION = "llmft.io/fallback-from"
"""On a job the controller moved: the reserved flavor it left. Descriptive only: a team can write it on its own jobs,
so no decision reads it."""
MARK = "llmft.io/fallback-moving"
"""On a Workload the controller deactivated, until it reactivates it: the reserved flavor the job leaves. Set in the
same patch as ``spec.active: false`` and removed in the one that sets ``spec.active: true``. Teams cannot write it
(their Role reads Workloads only, k8s_charts/team_namespaces.py ``team_member_rules``), and Kueue keeps a Workload's
metadata when it updates its spec in place (v0.19.2 reconciler.go ``updateWorkloadToMatchJob``: ``wl.Spec =
newWl.Spec``), so it marks exactly the moves the controller started: a Workload deactivated by anyone else (Kueue's
requeue limit, an administrator) is never reactivated."""

JOB_KINDS = {"PyTorchJob": ("kubeflow.org", "v1", "pytorchjobs"), "RayJob": ("ray.io", "v1", "rayjobs")}
"""The GPU job kinds llmft renders, by kind: (API group, version, resource)."""


@dataclass(frozen=True)
class Flavor:
    name: str
    reserved: bool
    node_labels: dict[str, str]


@dataclass(frozen=True)
class Queue:
    """A development ClusterQueue: its name, the namespace it admits, the LocalQueue there that points to it and its
    GPU flavors in order."""

    cluster_queue: str
    namespace: str
    local_queue: str
    flavors: tuple[Flavor, ...]

    def holds(self, workload: dict[str, Any]) -> bool:
        """The Workload is queued in (``spec.queueName``) or admitted by this queue."""
        admission = workload.get("status", {}).get("admission") or {}
        return (
            workload.get("spec", {}).get("queueName") == self.local_queue
            or admission.get("clusterQueue") == self.cluster_queue
        )


@dataclass(frozen=True)
class Settings:
    after_seconds: int
    exclude: dict[str, Any]  # the NodeSelectorRequirement that excludes reserved nodes
    queues: tuple[Queue, ...]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        queues = tuple(
            Queue(q["clusterQueue"], q["namespace"], q["localQueue"], tuple(Flavor(**f) for f in q["flavors"]))
            for q in data["queues"]
        )
        return cls(int(data["afterSeconds"]), dict(data["exclude"]), queues)


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((c for c in obj.get("status", {}).get("conditions", []) if c.get("type") == kind), None)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def waiting_seconds(workload: dict[str, Any], now: datetime) -> float | None:
    """Seconds an admitted Workload has waited for its pods to start (Kueue's ``WaitForStart``), else None."""
    admitted, ready = _condition(workload, "Admitted"), _condition(workload, "PodsReady")
    if admitted is None or admitted.get("status") != "True":
        return None
    if ready is not None and (
        ready.get("status") == "True" or ready.get("reason") not in ("WaitForStart", "PodsReady")
    ):
        return None
    return (now - _time(admitted["lastTransitionTime"])).total_seconds()


def reserved_flavor(workload: dict[str, Any], queue: Queue) -> str | None:
    """The reserved flavor the Workload's admission assigns to the GPUs of one of its pod sets, if any."""
    admission = workload.get("status", {}).get("admission") or {}
    if admission.get("clusterQueue") != queue.cluster_queue:
        return None
    reserved = {f.name for f in queue.flavors if f.reserved}
    for assignment in admission.get("podSetAssignments", []):
        flavor = assignment.get("flavors", {}).get(GPU_RESOURCE)
        if flavor in reserved:
            return flavor
    return None


def owner(workload: dict[str, Any]) -> dict[str, Any] | None:
    """The Workload's controller ownerReference if it is a job kind the controller moves."""
    refs = workload.get("metadata", {}).get("ownerReferences", [])
    ref = next((r for r in refs if r.get("controller")), None)
    if ref is None or ref.get("kind") not in JOB_KINDS or ref["apiVersion"].split("/")[0] != JOB_KINDS[ref["kind"]][0]:
        return None
    return ref


def _gpus(pod_spec: dict[str, Any]) -> bool:
    return any(
        GPU_RESOURCE in c.get("resources", {}).get(k, {})
        for c in pod_spec.get("containers", [])
        for k in ("requests", "limits")
    )


def gpu_templates(job: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(JSON pointer, pod template) of every pod template of ``job`` that requests GPUs."""
    spec = job.get("spec", {})
    if job["kind"] == "PyTorchJob":
        found = [
            (f"/spec/pytorchReplicaSpecs/{k}/template", r["template"]) for k, r in spec["pytorchReplicaSpecs"].items()
        ]
    else:
        groups = spec.get("rayClusterSpec", {}).get("workerGroupSpecs", [])
        found = [(f"/spec/rayClusterSpec/workerGroupSpecs/{i}/template", g["template"]) for i, g in enumerate(groups)]
    return [(p, t) for p, t in found if _gpus(t.get("spec", {}))]


def excluded(pod_spec: dict[str, Any], exclude: dict[str, Any]) -> dict[str, Any] | None:
    """The pod spec's ``affinity`` with ``exclude`` in each required node-selector term (a term of its own would be
    ORed with the others, widening the placement), or None when every term already has it."""
    affinity = copy.deepcopy(pod_spec.get("affinity", {}))
    required = affinity.setdefault("nodeAffinity", {}).setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.setdefault("nodeSelectorTerms", [])
    if not terms:
        terms.append({"matchExpressions": []})
    missing = [t for t in terms if exclude not in t.get("matchExpressions", [])]
    for term in missing:
        term.setdefault("matchExpressions", []).append(dict(exclude))
    return affinity if missing else None


def _expression_holds(e: dict[str, Any], labels: dict[str, str]) -> bool:
    op, value = e["operator"], labels.get(e["key"])
    return {
        "In": lambda: value in e.get("values", []),
        "NotIn": lambda: value not in e.get("values", []),
        "Exists": lambda: value is not None,
        "DoesNotExist": lambda: value is None,
    }.get(op, lambda: False)()


def flavor_matches(pod_spec: dict[str, Any], flavor: Flavor) -> bool:
    """Kueue's rule: the pod's nodeSelector and required node affinity, restricted to the flavor's own label keys,
    match the flavor's ``nodeLabels`` (v0.19.2 pkg/scheduler/flavorassigner/flavorassigner.go ``flavorSelector``: a
    term left empty by the restriction matches any flavor; terms are ORed)."""
    labels = flavor.node_labels
    if any(k in labels and labels[k] != v for k, v in pod_spec.get("nodeSelector", {}).items()):
        return False
    required = (
        pod_spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    terms = [
        [e for e in t.get("matchExpressions", []) if e["key"] in labels]
        for t in (required or {}).get("nodeSelectorTerms", [])
    ]
    return not terms or any(not t for t in terms) or any(all(_expression_holds(e, labels) for e in t) for t in terms)


def burst_flavors(job: dict[str, Any], queue: Queue, exclude: dict[str, Any]) -> list[str]:
    """The queue's flavors every GPU pod template of ``job`` matches once reserved nodes are excluded."""
    specs = []
    for _, template in gpu_templates(job):
        spec = dict(template.get("spec", {}))
        spec["affinity"] = excluded(spec, exclude) or spec.get("affinity", {})
        specs.append(spec)
    return [f.name for f in queue.flavors if not f.reserved and specs and all(flavor_matches(s, f) for s in specs)]


def suspended(job: dict[str, Any]) -> bool:
    spec = job.get("spec", {})
    return bool(spec.get("runPolicy", {}).get("suspend") if job["kind"] == "PyTorchJob" else spec.get("suspend"))


def _holds_quota(workload: dict[str, Any]) -> bool:
    reserved = _condition(workload, "QuotaReserved")
    return bool(workload.get("status", {}).get("admission")) or (reserved or {}).get("status") == "True"


def _workload_excludes(workload: dict[str, Any], exclude: dict[str, Any]) -> bool:
    """Kueue has copied the exclusion into the Workload's GPU pod sets."""
    sets = [p["template"]["spec"] for p in workload.get("spec", {}).get("podSets", []) if _gpus(p["template"]["spec"])]
    return bool(sets) and all(excluded(s, exclude) is None for s in sets)


@dataclass(frozen=True)
class Decision:
    action: str  # "deactivate", "exclude", "reactivate", "unmark", "none"
    reason: str
    flavor: str | None = None  # the reserved flavor the job leaves (deactivate)


def marked(workload: dict[str, Any]) -> bool:
    """The controller deactivated the Workload and has not reactivated it yet (:data:`MARK`)."""
    return MARK in (workload.get("metadata", {}).get("annotations") or {})


def decide(workload: dict[str, Any], job: dict[str, Any], queue: Queue, settings: Settings, now: datetime) -> Decision:
    """The next step for one Workload of a development queue and its job (module docstring)."""
    active = workload.get("spec", {}).get("active", True)
    pending = [p for p, t in gpu_templates(job) if excluded(t.get("spec", {}), settings.exclude) is not None]
    flavor, waited = reserved_flavor(workload, queue), waiting_seconds(workload, now)
    if active and flavor and waited is not None and waited > settings.after_seconds and pending:
        burst = burst_flavors(job, queue, settings.exclude)
        if not burst:
            return Decision(
                "none",
                f"waited {waited:.0f}s on {flavor}, but no burst flavor of {queue.cluster_queue} matches its GPU "
                "pods (pinned to a card the tier's burst pools lack): left alone",
            )
        return Decision("deactivate", f"waited {waited:.0f}s on {flavor} for its pods; burst flavors {burst}", flavor)
    if not marked(workload):  # not a move of the controller's: whoever deactivated it decides (never reactivated)
        return Decision("none", "not moving" if active else "deactivated, not by the fall-back: left as it is")
    if active:
        return Decision("unmark", "reactivated by someone else during the move: move abandoned")
    if pending and suspended(job) and not _holds_quota(workload):
        return Decision("exclude", "deactivated and suspended: excluding reserved nodes from its GPU pods")
    if not pending and _workload_excludes(workload, settings.exclude):
        return Decision("reactivate", "the Workload's pod sets exclude reserved nodes: reactivating")
    return Decision("none", "waiting for Kueue")
