"""The workload policy (``llmft-team-workloads``, k8s_charts/team_guardrails.py): serving Deployments, GPU templates,
priorities, ownerReferences, placement, batch Jobs, Ray clusters; and the deletion policy (``llmft-team-deletions``)."""

from __future__ import annotations

from config.kubernetes import TIER_PRIORITY_CLASSES
from k8s_charts import serving
from k8s_charts.guardrails.common import (
    CPU_POOL_MESSAGE,
    CPU_PRIORITY_CLASSES,
    GRACE_MESSAGE,
    KUEUE_JOB_KINDS,
    MAX_JOB_PARALLELISM,
    MAX_SERVE_REPLICAS,
    QUEUED_JOB_RULES,
    WORKLOAD_PRIORITY_LABEL,
    _accelerators,
    _cel_list,
    _controlled_by,
    _controllers,
    _cpu_placement,
    _cpu_pool,
    _grace_capped,
    _label,
    _serving,
)
from k8s_charts.guardrails.fallback import fallback_rules
from k8s_charts.guardrails.production import _production_rules
from k8s_charts.queues import (
    QUEUE_NAME_LABEL,
    local_queue_name,
)
from k8s_charts.tiers import EFA_RESOURCE, GPU_RESOURCE, cpu_priority_class

# Pod templates of every kind the workload policy matches, as one CEL list (variables.templates). Kinds whose
# fields do not exist on another kind are behind `object.kind ==` so the expression never reads them.
_TEMPLATES = " : ".join(
    [
        "object.kind == 'PyTorchJob' ? (has(object.spec.pytorchReplicaSpecs) ? "
        "object.spec.pytorchReplicaSpecs.map(k, object.spec.pytorchReplicaSpecs[k].template) : [])",
        "object.kind == 'MPIJob' ? (has(object.spec.mpiReplicaSpecs) ? "
        "object.spec.mpiReplicaSpecs.map(k, object.spec.mpiReplicaSpecs[k].template) : [])",
        "object.kind == 'RayJob' ? ((has(object.spec.rayClusterSpec) ? "
        "[object.spec.rayClusterSpec.headGroupSpec.template] + (has(object.spec.rayClusterSpec.workerGroupSpecs) ? "
        "object.spec.rayClusterSpec.workerGroupSpecs.map(w, w.template) : []) : []) + "
        "(has(object.spec.submitterPodTemplate) ? [object.spec.submitterPodTemplate] : []))",
        "object.kind == 'RayCluster' ? ([object.spec.headGroupSpec.template] + (has(object.spec.workerGroupSpecs) ? "
        "object.spec.workerGroupSpecs.map(w, w.template) : []))",
        "object.kind == 'CronJob' ? [object.spec.jobTemplate.spec.template]",
        "[object.spec.template]",  # batch Job, Deployment, StatefulSet, DaemonSet, ReplicaSet
    ]
)


# The Ray cluster spec of a RayJob or RayCluster (null for the other kinds, and for a RayJob that selects an
# existing cluster, which the queue policy and Kueue do not admit anyway).
_RAY_CLUSTER = (
    "object.kind == 'RayCluster' ? object.spec : "
    "object.kind == 'RayJob' && has(object.spec.rayClusterSpec) ? object.spec.rayClusterSpec : null"
)


_TEMPLATE_META = "object.spec.template.metadata"


# A serving Deployment as llmft renders it (llmft/serve_build.py): labels queue-name (a LocalQueue of this
# namespace), llmft.io/component: serve and llmft.io/serve: <its name> on the Deployment and the same three on its pod
# template, which is what Kueue's Deployment webhook copies to every pod (cdk_constructs/compute/kueue.py).
_SERVE_DEPLOYMENT = " && ".join(
    [
        "object.kind == 'Deployment'",
        _serving("object.metadata"),
        f"{_label('object.metadata', serving.SERVE_NAME_LABEL)} == object.metadata.name",
        f"has({_TEMPLATE_META})",
        _serving(_TEMPLATE_META),
        f"{_label(_TEMPLATE_META, QUEUE_NAME_LABEL)} == {_label('object.metadata', QUEUE_NAME_LABEL)}",
        f"{_label(_TEMPLATE_META, serving.SERVE_NAME_LABEL)} == object.metadata.name",
    ]
)


# The ReplicaSet the Deployment controller creates for it: controlled by a Deployment (ownerReferences are written by
# the platform's controllers only, a rule below) with a serving pod template.
_SERVE_REPLICA_SET = (
    f"object.kind == 'ReplicaSet' && {_controlled_by('apps/v1', 'Deployment')} && "
    f"has({_TEMPLATE_META}) && {_serving(_TEMPLATE_META)}"
)


def _serve_rules() -> list[dict[str, str]]:
    """Rules of the workload policy for serving Deployments (``variables.serve``)."""
    queues = ", ".join(local_queue_name(t) for t in TIER_PRIORITY_CLASSES)
    return [
        # stops: a job's pod template labelled llmft.io/serve (early and readable; the pod policy is what holds)
        {
            "expression": f"object.kind in ['Deployment', 'ReplicaSet'] || variables.templates.all(t, "
            f"!has(t.metadata) || !has(t.metadata.labels) || !('{serving.SERVE_NAME_LABEL}' in t.metadata.labels))",
            "message": f"the label {serving.SERVE_NAME_LABEL} is a serving Deployment's (its Service sends the "
            f"endpoint's requests to every pod carrying it): remove it from job pod templates",
        },
        # stops: any other Deployment (a CPU service, a GPU Deployment without a queue, with another team's tier
        # queue, or whose pods would not carry the queue label Kueue gates them by)
        {
            "expression": "object.kind != 'Deployment' || variables.serve",
            "message": f"Deployments in team namespaces are llmft serve endpoints: label the Deployment and its pod "
            f"template {QUEUE_NAME_LABEL} (the same LocalQueue of this namespace, one of {queues} that the "
            f"team's tiers allow), {serving.COMPONENT_LABEL}: {serving.SERVE_COMPONENT} and "
            f"{serving.SERVE_NAME_LABEL}: <the Deployment's name>; `llmft submit` of a serve spec does",
        },
        # stops: a Deployment that floods the queue with gated pods (each one holds pod and GPU quota while it waits)
        {
            "expression": f"object.kind != 'Deployment' || !has(object.spec.replicas) || "
            f"object.spec.replicas <= {MAX_SERVE_REPLICAS}",
            "message": f"a serving Deployment runs at most {MAX_SERVE_REPLICAS} replicas",
        },
        # stops: a WorkloadPriorityClass set on a pod template (Kueue reads it from the pods of a Deployment)
        {
            "expression": f"variables.templates.all(t, !has(t.metadata) || !has(t.metadata.labels) || "
            f"!('{WORKLOAD_PRIORITY_LABEL}' in t.metadata.labels))",
            "message": f"the label {WORKLOAD_PRIORITY_LABEL} is not allowed on pod templates in team namespaces: a "
            f"job's priority is its tier's PriorityClass",
        },
    ]


def _gpu_rules() -> list[dict[str, str]]:
    """Only queued jobs and llmft serving Deployments may request GPUs or EFA."""
    kueue_kind = f"object.kind in {_cel_list(KUEUE_JOB_KINDS)}"
    return [
        # stops: GPUs in a StatefulSet, DaemonSet, team ReplicaSet, batch Job or CronJob, or a non-serving Deployment
        {
            "expression": f"{kueue_kind} || variables.serve || variables.serve_replicas || "
            f"!variables.templates.exists(t, has(t.spec) && {_accelerators('t.spec')})",
            "message": f"only PyTorchJobs, MPIJobs, RayJobs, RayClusters and llmft serving Deployments (queued by "
            f"Kueue) may request {GPU_RESOURCE} or {EFA_RESOURCE} in team namespaces; batch Jobs, CronJobs and the "
            f"other workload controllers run on CPU",
        },
    ]


def _priority_rules() -> list[dict[str, str]]:
    """Every queued job's pods and scheduling policy use a PriorityClass of its queue's tier."""
    # a tier's classes and their CPU twins (the same values: Kueue queues the job at the tier's priority either way)
    tiers = (
        "{"
        + ", ".join(
            f"'{local_queue_name(t)}': {_cel_list([*c, *map(cpu_priority_class, c)])}"
            for t, c in TIER_PRIORITY_CLASSES.items()
        )
        + "}"
    )
    queue = f"object.metadata.labels['{QUEUE_NAME_LABEL}']"
    queued = f"has(object.metadata.labels) && '{QUEUE_NAME_LABEL}' in object.metadata.labels"
    kueue_kind = f"object.kind in {_cel_list(KUEUE_JOB_KINDS)}"
    allowed = ", ".join(f"{local_queue_name(t)}: {'/'.join(c)}" for t, c in TIER_PRIORITY_CLASSES.items())
    return [
        {
            "expression": f"!({kueue_kind} || variables.serve) || !({queued}) || ({queue} in {tiers} && "
            f"variables.templates.all(t, has(t.spec) && has(t.spec.priorityClassName) && t.spec.priorityClassName in "
            f"{tiers}[{queue}]))",
            "message": f"every pod template of a job must set priorityClassName to a class of its queue's tier "
            f"({allowed}); the job builders and llmft do",
        },
        {
            "expression": f"!(object.kind in ['PyTorchJob', 'MPIJob']) || !has(object.spec.runPolicy) || "
            f"!has(object.spec.runPolicy.schedulingPolicy) || "
            f"!has(object.spec.runPolicy.schedulingPolicy.priorityClass) || "
            f"object.spec.runPolicy.schedulingPolicy.priorityClass == '' || ({queued} && {queue} in {tiers} "
            f"&& object.spec.runPolicy.schedulingPolicy.priorityClass in {tiers}[{queue}])",
            "message": f"spec.runPolicy.schedulingPolicy.priorityClass is the priority Kueue queues a PyTorchJob or "
            f"MPIJob at (it wins over the pod templates): it must be a class of the queue's tier ({allowed}) or unset",
        },
    ]


def _owner_rules() -> list[dict[str, str]]:
    """Only the platform's controllers set or change objects with ownerReferences."""
    return [
        {
            "expression": f"!has(object.metadata.ownerReferences) || size(object.metadata.ownerReferences) == 0 || "
            f"{_controllers()}",
            "message": "ownerReferences on jobs and workload controllers in team namespaces are set by the platform's "
            "controllers only (Kueue does not queue an object owned by a job it manages): remove "
            "metadata.ownerReferences",
        },
        {
            "expression": f"oldObject == null || !has(oldObject.metadata.ownerReferences) || "
            f"size(oldObject.metadata.ownerReferences) == 0 || {_controllers()}",
            "message": "this object belongs to another job (its ownerReferences, e.g. the RayCluster of a RayJob): "
            "only its controller changes it; change the owning job instead",
        },
    ]


def _placement_rules() -> list[dict[str, str]]:
    """Pod templates leave placement to the scheduler and keep CPU pods off GPU nodes."""
    return [
        {
            "expression": "variables.templates.all(t, !has(t.spec) || !has(t.spec.nodeName) || t.spec.nodeName == '')",
            "message": "pod templates in team namespaces may not set spec.nodeName: the scheduler and Kueue place pods",
        },
        {
            "expression": "variables.templates.all(t, !has(t.spec) || " + _cpu_placement("t.spec") + ")",
            "message": "a pod template without GPUs may tolerate only the CPU job pool's taint (llmft.io/cpu-jobs): "
            "CPU pods may not run on GPU or HyperPod nodes, or make Karpenter launch them",
        },
        # stops: a CPU pod template at a preempting class (early and readable; the pod policy is what holds)
        {
            "expression": "variables.templates.all(t, !has(t.spec) || "
            f"{_accelerators('t.spec')} || !has(t.spec.priorityClassName) || "
            f"t.spec.priorityClassName in {_cel_list(CPU_PRIORITY_CLASSES)})",
            "message": f"a pod template without GPUs names the non-preempting CPU twin of its tier's PriorityClass "
            f"(one of {', '.join(CPU_PRIORITY_CLASSES)}): CPU pods never preempt other teams' pods",
        },
        {
            "expression": "variables.templates.all(t, !has(t.spec) || " + _cpu_pool("t.spec") + ")",
            "message": f"a pod template without GPUs {CPU_POOL_MESSAGE}",
        },
        # stops: a job whose pods hold their GPUs long after preemption (early and readable; the pod policy is what
        # holds, for the pods of every kind)
        {
            "expression": "variables.templates.all(t, !has(t.spec) || " + _grace_capped("t.spec") + ")",
            "message": f"every pod template: {GRACE_MESSAGE}",
        },
    ]


def _batch_rules() -> list[dict[str, str]]:
    """MPIJob launchers run on CPU and batch Jobs stay within their parallelism."""
    return [
        {
            "expression": "object.kind != 'MPIJob' || ((!has(object.spec.runLauncherAsWorker) || "
            "!object.spec.runLauncherAsWorker) && (!has(object.spec.mpiReplicaSpecs) || "
            "!('Launcher' in object.spec.mpiReplicaSpecs) || "
            "!has(object.spec.mpiReplicaSpecs.Launcher.template.spec) || "
            f"!{_accelerators('object.spec.mpiReplicaSpecs.Launcher.template.spec')}))",
            "message": f"an MPIJob's launcher runs on CPU in team namespaces: MPI Operator v0.8 creates the launcher "
            f"as a batch Job, and pods of batch Jobs may not request {GPU_RESOURCE} or {EFA_RESOURCE}, so a launcher "
            f"with GPUs would never start; give GPUs to the Worker replicas only and leave runLauncherAsWorker false",
        },
        # stops: the training operator's HPA raising a PyTorchJob's workers after Kueue admitted fewer (kubeflow.org
        # v1 PyTorchJob, training-operator v1.7.0 CRD k8s_charts/crds/kubeflow.org_pytorchjobs.yaml,
        # elasticPolicy.metrics: "If not set, the HPA will not be created")
        {
            "expression": "object.kind != 'PyTorchJob' || !has(object.spec.elasticPolicy) || "
            "!has(object.spec.elasticPolicy.metrics) || size(object.spec.elasticPolicy.metrics) == 0",
            "message": "spec.elasticPolicy.metrics is not allowed in team namespaces: the training operator would "
            "create a HorizontalPodAutoscaler that adds workers Kueue never admitted (a job's size is what Kueue "
            "admits)",
        },
        {
            "expression": f"object.kind != 'Job' || !has(object.spec.parallelism) || "
            f"object.spec.parallelism <= {MAX_JOB_PARALLELISM}",
            "message": f"batch Jobs in team namespaces run at most {MAX_JOB_PARALLELISM} pods at once "
            f"(spec.parallelism)",
        },
    ]


def _priority_label_rules() -> list[dict[str, str]]:
    """A job's priority is its tier's PriorityClass, never Kueue's workload priority label."""
    return [
        {
            "expression": f"!has(object.metadata.labels) || !('{WORKLOAD_PRIORITY_LABEL}' in object.metadata.labels)",
            "message": f"the label {WORKLOAD_PRIORITY_LABEL} is not allowed in team namespaces: a job's priority is "
            f"its tier's PriorityClass",
        },
    ]


def _ray_rules() -> list[dict[str, str]]:
    """Ray clusters use token auth, keep the head ClusterIP and create no Ingress or NetworkPolicy."""
    ray = "variables.ray"
    head = f"{ray}.headGroupSpec"
    return [
        {
            "expression": f"{ray} == null || (has({ray}.authOptions) && has({ray}.authOptions.mode) && "
            f"{ray}.authOptions.mode == 'token')",
            "message": "Ray clusters in team namespaces must use token authentication (authOptions.mode: token); the "
            "RayJob builders and llmft set it",
        },
        {
            "expression": f"{ray} == null || ((!has({head}.serviceType) || {head}.serviceType == 'ClusterIP') && "
            f"(!has({head}.headService) || !has({head}.headService.spec) || "
            f"((!has({head}.headService.spec.type) || {head}.headService.spec.type == 'ClusterIP') && "
            f"(!has({head}.headService.spec.externalIPs) || "
            f"size({head}.headService.spec.externalIPs) == 0))))",
            "message": "the Ray head Service must stay ClusterIP without externalIPs (reach the dashboard with "
            "`kubectl port-forward` or llmft)",
        },
        {
            "expression": f"{ray} == null || ((!has({head}.enableIngress) || {head}.enableIngress == false) && "
            f"!has({ray}.networkPolicy))",
            "message": "Ray clusters in team namespaces may not create an Ingress (enableIngress) or NetworkPolicies "
            "(networkPolicy): the namespace's NetworkPolicies are the platform's",
        },
    ]


def _workload_rules() -> list[dict[str, str]]:
    """The CEL rules on jobs and workload controllers in team namespaces, in the policy's order."""
    return [
        *_gpu_rules(),
        *_serve_rules(),
        *_production_rules(),
        *_priority_rules(),
        *_owner_rules(),
        *_placement_rules(),
        *_batch_rules(),
        *_priority_label_rules(),
        *_ray_rules(),
        *fallback_rules(),
    ]


def _deletion_rules() -> list[dict[str, str]]:
    """A serving Deployment goes with its pods."""
    component = _label("oldObject.metadata", serving.COMPONENT_LABEL)
    return [
        # stops: `kubectl delete --cascade=orphan` of a serving Deployment, which leaves its ReplicaSet and GPU pods
        # behind, ownerless, where the team has no verb to remove them (DeleteOptions propagationPolicy Orphan, or
        # the deprecated orphanDependents). `request.options` is the request's DeleteOptions on DELETE (checked at
        # source, kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/cel: compile.go
        # ``BuildRequestType`` declares ``options`` as an optional dyn field of the request; ``CreateAdmissionRequest``
        # sets it to ``RawExtension{Object: attr.GetOperationOptions()}``, which the evaluation converts to
        # unstructured JSON: metav1.DeleteOptions' ``propagationPolicy`` and ``orphanDependents``, absent when unset;
        # kubernetes.io "Validating Admission Policy": request is the AdmissionRequest, whose ``options`` is the
        # operation's options, DeleteOptions for DELETE). A DeleteCollection runs admission per object with the
        # same options (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go ``DeleteCollection``).
        {
            "expression": f"oldObject == null || {component} != '{serving.SERVE_COMPONENT}' || "
            "!has(request.options) || ((!has(request.options.propagationPolicy) || "
            "request.options.propagationPolicy != 'Orphan') && (!has(request.options.orphanDependents) || "
            "request.options.orphanDependents != true))",
            "message": "a serving Deployment is deleted with its pods: leave out --cascade=orphan "
            "(propagationPolicy Orphan); llmft cancel does",
        },
    ]


_WORKLOAD_RULES = [
    *(dict(rule) for rule in QUEUED_JOB_RULES),
    {
        "apiGroups": ["batch"],
        "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["jobs", "cronjobs"],
    },
    {
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["deployments", "statefulsets", "daemonsets", "replicasets"],
    },
]
