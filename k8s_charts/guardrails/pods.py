"""The pod policy (``llmft-team-pods``, k8s_charts/team_guardrails.py): GPU/EFA pods only through Kueue's gangs or as
queued serving pods behind Kueue's gate; CPU pods on the CPU job pool, never preempting."""

from __future__ import annotations

from k8s_charts import serving
from k8s_charts.guardrails.common import (
    CPU_POOL_MESSAGE,
    CPU_PRIORITY_CLASSES,
    GRACE_MESSAGE,
    KUEUE_CONTROLLER,
    KUEUE_GATE,
    KUEUE_MANAGED_LABEL,
    KUEUE_POD_OWNERS,
    _accelerators,
    _controlled_by,
    _cpu_placement,
    _cpu_pool,
    _gated,
    _grace_capped,
    _label,
    _serving,
)
from k8s_charts.queues import (
    QUEUE_NAME_LABEL,
)
from k8s_charts.tiers import EFA_RESOURCE, GPU_RESOURCE

# A serving pod as Kueue's webhooks leave it (cdk_constructs/compute/kueue.py INTEGRATIONS): created by the ReplicaSet
# of a Deployment, with the Deployment's queue-name label naming a LocalQueue of the namespace, llmft.io/component:
# serve, and Kueue's managed label. Its GPUs are queued only if it is also gated at creation (a pod rule below).
_SERVE_POD = (
    f"{_controlled_by('apps/v1', 'ReplicaSet')} && {_serving('object.metadata')} && "
    f"{_label('object.metadata', KUEUE_MANAGED_LABEL)} == 'true'"
)


# stops: a pod that keeps its GPUs (or its CPU node) for days after Kueue preempts its job or Karpenter drains its node
# (issue 44): a grace period of days plus `preStop: sleep 999999`. Every pod, GPU or CPU, whoever creates it.
_GRACE_RULE = {"expression": _grace_capped("object.spec"), "message": f"a pod in a team namespace: {GRACE_MESSAGE}"}


def _pod_rules() -> list[dict[str, str]]:
    owners = " || ".join(
        f"(o.apiVersion.startsWith('{prefix}') && o.kind == '{kind}')" for prefix, kind in KUEUE_POD_OWNERS
    )
    kueue_owned = (
        "has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, "
        f"has(o.controller) && o.controller == true && ({owners}))"
    )
    kinds = ", ".join(k for _, k in KUEUE_POD_OWNERS)
    return [
        # stops: a job pod (batch Job, PyTorchJob, RayCluster, Workflow step) labelled llmft.io/serve: <an endpoint>,
        # which that endpoint's Service (selector llmft.io/serve) would send callers to: a production endpoint's
        # traffic answered by the team's own process. Pods with the label come only from a serving Deployment's
        # ReplicaSet (the Deployment controller's; its template's label is the Deployment's own name, a rule below)
        {
            "expression": f"{_label('object.metadata', serving.SERVE_NAME_LABEL)} == '' || "
            f"{_controlled_by('apps/v1', 'ReplicaSet')}",
            "message": f"the label {serving.SERVE_NAME_LABEL} is a serving Deployment's (its Service sends the "
            f"endpoint's requests to every pod carrying it): remove it from job pod templates",
        },
        {
            # stops: GPUs outside Kueue (bare pods, StatefulSet/DaemonSet/Job pods, a ReplicaSet pod that is not a
            # serving pod of a LocalQueue of this namespace, a serving pod whose queue label was removed on UPDATE)
            "expression": f"!{_accelerators('object.spec')} || ({kueue_owned}) || variables.serve",
            "message": f"pods in team namespaces get GPUs and EFA only through Kueue: submit a PyTorchJob, MPIJob or "
            f"RayJob with the label {QUEUE_NAME_LABEL} (llmft does), or a serve job; a pod that requests "
            f"{GPU_RESOURCE} or {EFA_RESOURCE} must be controlled by a {kinds}, or be a serving pod: controlled "
            f"by a ReplicaSet and labelled {QUEUE_NAME_LABEL} (a LocalQueue of this namespace), "
            f'{serving.COMPONENT_LABEL}: {serving.SERVE_COMPONENT} and {KUEUE_MANAGED_LABEL}: "true"',
        },
        {
            # stops: a serving pod that skipped Kueue's pod webhook (Kueue down with failurePolicy Ignore, a webhook
            # namespaceSelector that missed): without the gate it would be scheduled at once, unqueued
            "expression": f"request.operation != 'CREATE' || !variables.serve || {_gated('object')}",
            "message": f"a serving pod is created with Kueue's scheduling gate {KUEUE_GATE} (Kueue's pod webhook adds "
            f"it and lifts it when the pod is admitted); this one has none: is Kueue running?",
        },
        {
            # stops: anyone but Kueue lifting Kueue's gate (the pod would run before its quota is admitted)
            "expression": f"oldObject == null || !{_gated('oldObject')} || {_gated('object')} || "
            f"request.userInfo.username == '{KUEUE_CONTROLLER}'",
            "message": f"only Kueue removes the scheduling gate {KUEUE_GATE}, when it admits the pod",
        },
        {
            "expression": "request.operation != 'CREATE' || !has(object.spec.nodeName) || object.spec.nodeName == ''",
            "message": "pods in team namespaces are placed by the scheduler: spec.nodeName is not allowed (it skips "
            "taints, quotas of the node and Kueue's placement)",
        },
        {
            "expression": _cpu_placement("object.spec"),
            "message": "a pod without GPUs may tolerate only the CPU job pool's taint (llmft.io/cpu-jobs): it may not "
            "run on GPU or HyperPod nodes, or make Karpenter launch them",
        },
        {
            # stops: a team's CPU pod (a batch Job needs no queue) at its highest class, or `critical`, preempting
            # other teams' Ray heads and submitters, CPU steps, or the platform's pods on the system nodes. The
            # Priority admission plugin (a mutating plugin, before validation) resolves priorityClassName into
            # spec.priority and spec.preemptionPolicy (kubernetes.io "Pod Priority and Preemption": a pod's
            # preemptionPolicy comes from its class; setting another one is refused), so this reads the effective
            # policy, whatever the class is called.
            "expression": f"{_accelerators('object.spec')} || !has(object.spec.priority) || "
            "object.spec.priority <= 0 || (has(object.spec.preemptionPolicy) && "
            "object.spec.preemptionPolicy == 'Never')",
            "message": f"a pod without GPUs in a team namespace never preempts: name the CPU twin of its tier's "
            f"PriorityClass (one of {', '.join(CPU_PRIORITY_CLASSES)}: the same priority, preemptionPolicy Never); "
            f"the job builders and llmft do",
        },
        {
            # stops: team CPU pods (and Argo workflow pods) on the system nodes, starving the platform's pods there
            "expression": _cpu_pool("object.spec"),
            "message": f"a pod without GPUs in a team namespace {CPU_POOL_MESSAGE}",
        },
        _GRACE_RULE,
    ]
