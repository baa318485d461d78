"""The guard rails' shared vocabulary (k8s_charts/team_guardrails.py composes the policies): the policies' names, the
identities of the platform's controllers, the limits, and the CEL fragments more than one policy uses."""

from __future__ import annotations

from llm_platform.preemption import MAX_GRACE_SECONDS

from config.kubernetes import TIER_PRIORITY_CLASSES
from k8s_charts import serving
from k8s_charts.queues import (
    LOCAL_QUEUE_NAMESPACE_LABEL_PREFIX,
    QUEUE_NAME_LABEL,
)
from k8s_charts.tiers import CPU_JOBS_ROLE, EFA_RESOURCE, GPU_RESOURCE, NODE_ROLE_LABEL, cpu_priority_class

POD_POLICY = "llmft-team-pods"


WORKLOAD_POLICY = "llmft-team-workloads"


SERVICE_POLICY = "llmft-team-services"


SECRET_POLICY = "llmft-team-secrets"


AUTOSCALING_POLICY = "llmft-team-autoscaling"


CLUSTER_NAME_LABEL = "platform/cluster-name"


REGION_LABEL = "platform/region"
"""Labels the platform puts on every team namespace (k8s_charts/team_namespaces.py, from PlatformValues): the EKS
cluster and the region whose metrics the namespace's ScaledObjects may read (issue 40: a trigger named any)."""


WORKFLOW_POLICY = "llmft-team-workflows"


DELETION_POLICY = "llmft-team-deletions"


FALLBACK_WORKLOAD_POLICY = "llmft-team-fallback-workloads"
"""What the development fall-back controller may change on a Workload (k8s_charts/guardrails/fallback.py)."""


PRODUCTION_POLICY = "llmft-team-production"


PRODUCTION_TARGET_POLICY = "llmft-team-production-targets"


MAX_JOB_PARALLELISM = 16
"""Most pods one batch Job of a team runs at once (llmft's CPU steps run one; the object quota caps the total)."""


WORKLOAD_PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
"""Kueue's WorkloadPriorityClass label on a job (Kueue docs, "Workload Priority Class")."""


MAX_SERVE_REPLICAS = 64
"""Most replicas of one serving Deployment (``spec.replicas``, its scale subresource, a ScaledObject's
``maxReplicaCount`` and paused replicas): llmft's own ceiling (llmft/spec.py ``serve.max_replicas`` le=64)."""


KUEUE_GATE = "kueue.x-k8s.io/admission"
"""Kueue's scheduling gate on the pods of its pod integration (kubernetes-sigs/kueue@v0.19.2
pkg/controller/jobs/pod/constants/constants.go ``SchedulingGateName``), added by its mutating pod webhook, which runs
before any ValidatingAdmissionPolicy (kubernetes.io "Admission Control": mutating, then validating admission)."""


KUEUE_MANAGED_LABEL = "kueue.x-k8s.io/managed"
"""Label Kueue's Deployment webhook puts on the pod template of a queued Deployment (v0.19.2 pkg/constants/constants.go
``ManagedByKueueLabelKey``, pkg/controller/jobs/deployment/deployment_webhook.go ``Default``)."""


KUEUE_CONTROLLER = "system:serviceaccount:kueue-system:kueue-controller-manager"
"""Kueue's controller (the chart's ``<kueue.fullname>-controller-manager`` ServiceAccount in ``kueue-system``,
cdk_constructs/compute/kueue.py): it alone lifts :data:`KUEUE_GATE`, when the pod's Workload is admitted."""


ACCELERATORS = (GPU_RESOURCE, EFA_RESOURCE)


KUEUE_POD_OWNERS = (("kubeflow.org/", "PyTorchJob"), ("kubeflow.org/", "MPIJob"), ("ray.io/", "RayCluster"))
"""(apiVersion prefix, kind) of the controllers whose pods may hold GPUs: the kinds Kueue admits as a gang."""


KUEUE_JOB_KINDS = ("PyTorchJob", "MPIJob", "RayJob", "RayCluster")


OWNED_KINDS = KUEUE_JOB_KINDS + ("Job", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")
"""Every kind the workload policy matches. Kueue treats an object whose *controller* ownerReference names a kind it
manages (Deployment and Pod included, now that serving is integrated) as part of that job and never queues it (v0.19.2
pkg/controller/jobframework/integrationmanager.go ``IsOwnerManagedByKueueForObject``: ``metav1.GetControllerOf(obj)`` of
a managed kind); ownerReferences are a plain metadata field anyone who may create the object may write, so only the
platform's controllers may set them."""


KUBERAY_NAMESPACE = "kuberay"


KUBERAY_SERVICE_ACCOUNT = "kuberay-operator"


KUBERAY_OPERATOR = f"system:serviceaccount:{KUBERAY_NAMESPACE}:{KUBERAY_SERVICE_ACCOUNT}"
"""The KubeRay operator (cdk_constructs/compute/kuberay_operator.py: namespace ``kuberay``, the chart's
``serviceAccount.name: kuberay-operator``, ray-project/kuberay helm-chart/kuberay-operator/values.yaml). It creates
the RayCluster of a RayJob, controlled by the RayJob, and scales it."""


PLATFORM_CONTROLLERS = (
    KUBERAY_OPERATOR,
    "system:serviceaccount:kubeflow:training-operator",  # charts/hyperpod-prerequisites training-operator.yaml
    "system:serviceaccount:mpi-operator:mpi-operator",  # charts/hyperpod-prerequisites mpi-operator.yaml
    # Kueue chart charts/kueue/templates/rbac/service_account.yaml: `<kueue.fullname>-controller-manager`, and the
    # fullname of release `kueue` of chart `kueue` is `kueue` (cdk_constructs/compute/kueue.py KUEUE_RELEASE)
    KUEUE_CONTROLLER,
    # kube-controller-manager's controllers (kubernetes.io "Service account permissions": with
    # --use-service-account-credentials each controller runs as kube-system:<name>): the garbage collector removes
    # ownerReferences when an owner is deleted with propagation Orphan; the Job, CronJob, Deployment and ReplicaSet
    # controllers own what they create.
    "system:serviceaccount:kube-system:generic-garbage-collector",
    "system:serviceaccount:kube-system:job-controller",
    "system:serviceaccount:kube-system:cronjob-controller",
    "system:serviceaccount:kube-system:deployment-controller",
    "system:serviceaccount:kube-system:replicaset-controller",
)
"""Users whose requests may write ownerReferences on job kinds in team namespaces (nobody a team controls: the
team Role has no ServiceAccount, token or pod-create verbs, k8s_charts/team_namespaces.py)."""


ALLOWED_CPU_TOLERATIONS = (
    ("llmft.io/cpu-jobs", "NoSchedule"),
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
)
"""(key, effect) a pod without GPUs may tolerate: the CPU job pool's taint (k8s_charts/tiers.py CPU_JOBS_TAINT) and
the two NoExecute tolerations the DefaultTolerationSeconds admission plugin adds to every pod before validation
(kubernetes.io "Taints and Tolerations", taint based evictions). Not the GPU taint (``nvidia.com/gpu``), not
HyperPod's ``dedicated=hyperpod``, not an empty key with ``Exists`` (tolerates everything): a CPU pod never lands
on (or makes Karpenter launch) a GPU node, where its priority could preempt GPU work."""


CPU_PRIORITY_CLASSES = tuple(cpu_priority_class(c) for classes in TIER_PRIORITY_CLASSES.values() for c in classes)
"""The non-preempting CPU twins of the tier classes (k8s_charts/priority_classes.py): what a CPU pod template names."""


def _cel_list(values) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


def _accelerators(spec: str) -> str:
    """CEL: some container, init container or ephemeral container of pod spec ``spec`` requests or limits a GPU or
    an EFA interface."""
    resources = _cel_list(ACCELERATORS)

    def uses(field: str) -> str:
        return (
            f"(has({spec}.{field}) && {spec}.{field}.exists(c, has(c.resources) && ("
            f"(has(c.resources.requests) && c.resources.requests.exists(r, r in {resources})) || "
            f"(has(c.resources.limits) && c.resources.limits.exists(r, r in {resources})))))"
        )

    return "(" + " || ".join(uses(f) for f in ("containers", "initContainers")) + ")"


def _cpu_placement(spec: str) -> str:
    """CEL: pod spec ``spec`` requests accelerators, or tolerates only :data:`ALLOWED_CPU_TOLERATIONS`."""
    allowed = " || ".join(
        f"(has(t.key) && t.key == '{k}' && has(t.effect) && t.effect == '{e}')" for k, e in ALLOWED_CPU_TOLERATIONS
    )
    return f"({_accelerators(spec)} || !has({spec}.tolerations) || {spec}.tolerations.all(t, {allowed}))"


def _cpu_pool(spec: str) -> str:
    """CEL: pod spec ``spec`` requests accelerators, or selects the CPU pool's nodes (``nodeSelector``
    ``llmft.io/node-role: cpu-jobs``; a nodeSelector must match as well as any affinity, so no system node, labelled
    ``system``, can take the pod)."""
    selector = f"{spec}.nodeSelector"
    return (
        f"({_accelerators(spec)} || (has({selector}) && '{NODE_ROLE_LABEL}' in {selector} && "
        f"{selector}['{NODE_ROLE_LABEL}'] == '{CPU_JOBS_ROLE}'))"
    )


CPU_POOL_MESSAGE = (
    f"runs on the CPU job pool only: set nodeSelector {NODE_ROLE_LABEL}: {CPU_JOBS_ROLE} (the job builders, llmft and "
    f"the Argo Workflows defaults do); the system nodes are the platform's"
)


def _grace_capped(spec: str) -> str:
    """CEL: pod spec ``spec`` leaves ``terminationGracePeriodSeconds`` unset (the API's default, 30 s) or at most
    :data:`~llm_platform.preemption.MAX_GRACE_SECONDS`, the longest grace llmft renders (its SFT and GRPO sizing stop
    there), and so does every liveness and startup probe of its containers and init containers (the kubelet kills a
    container whose probe fails with the probe's own grace: kubernetes/kubernetes pkg/kubelet/kuberuntime
    ``setTerminationGracePeriod``). The preStop hook needs no rule of its own: the grace period's countdown begins
    before the hook runs and the container ends within it whatever the hook does (kubernetes.io API reference,
    ``Lifecycle.preStop``; "Pod termination": a hook still running when it ends gets one 2 s extension), so the cap
    bounds a ``sleep 999999`` hook too. A delete's ``gracePeriodSeconds`` is the deleter's (Kueue's operators,
    Karpenter), never the team's."""

    def capped(field: str) -> str:
        return f"(!has({field}) || {field} <= {MAX_GRACE_SECONDS})"

    probes = " && ".join(
        f"(!has(c.{p}) || {capped(f'c.{p}.terminationGracePeriodSeconds')})" for p in ("livenessProbe", "startupProbe")
    )
    containers = " && ".join(
        f"(!has({spec}.{f}) || {spec}.{f}.all(c, {probes}))" for f in ("containers", "initContainers")
    )
    return f"({capped(f'{spec}.terminationGracePeriodSeconds')} && {containers})"


GRACE_MESSAGE = (
    f"spec.terminationGracePeriodSeconds (and a liveness or startup probe's) is at most {MAX_GRACE_SECONDS} in team "
    f"namespaces (or unset: 30): after Kueue preempts a job or Karpenter drains its node, its pods keep their GPUs "
    f"for the grace period, preStop hook included, and the job that preempted it waits that long; "
    f"{MAX_GRACE_SECONDS} s is the longest llmft gives a checkpoint save (llm_platform.preemption.MAX_GRACE_SECONDS)"
)


def _controllers() -> str:
    return f"request.userInfo.username in {_cel_list(PLATFORM_CONTROLLERS)}"


def _label(meta: str, key: str) -> str:
    """CEL: the value of label ``key`` of metadata ``meta``, '' when it is absent."""
    return f"(has({meta}.labels) && '{key}' in {meta}.labels ? {meta}.labels['{key}'] : '')"


def _own_queue(queue: str) -> str:
    """CEL: the string ``queue`` names a LocalQueue of the request's namespace: the namespace carries
    ``platform/local-queue-<queue>: "true"`` (k8s_charts/queues.py, set from the team's ``allowed_tiers``; teams
    cannot label namespaces). ``namespaceObject`` is the namespace of the object (admissionregistration.k8s.io/v1
    ``Validation.expression``: "The namespace object that the incoming object belongs to")."""
    key = f"'{LOCAL_QUEUE_NAMESPACE_LABEL_PREFIX}' + {queue}"
    return (
        f"({queue} != '' && has(namespaceObject.metadata.labels) && ({key}) in namespaceObject.metadata.labels "
        f"&& namespaceObject.metadata.labels[{key}] == 'true')"
    )


def _serving(meta: str) -> str:
    """CEL: metadata ``meta`` names a LocalQueue of the namespace and is labelled ``llmft.io/component: serve``."""
    return (
        f"({_own_queue(_label(meta, QUEUE_NAME_LABEL))} && "
        f"{_label(meta, serving.COMPONENT_LABEL)} == '{serving.SERVE_COMPONENT}')"
    )


def _controlled_by(api_version: str, kind: str) -> str:
    """CEL: the object's controller ownerReference is a ``kind`` of exactly ``api_version``."""
    return (
        "(has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, has(o.controller) && "
        f"o.controller == true && o.apiVersion == '{api_version}' && o.kind == '{kind}'))"
    )


def _gated(pod: str) -> str:
    """CEL: pod ``pod`` holds Kueue's scheduling gate (:data:`KUEUE_GATE`)."""
    return f"(has({pod}.spec.schedulingGates) && {pod}.spec.schedulingGates.exists(g, g.name == '{KUEUE_GATE}'))"


QUEUED_JOB_RULES = (
    {
        "apiGroups": ["kubeflow.org"],
        "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["pytorchjobs"],
    },
    {
        "apiGroups": ["kubeflow.org"],
        "apiVersions": ["v2beta1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["mpijobs"],
    },
    {
        "apiGroups": ["ray.io"],
        "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["rayjobs", "rayclusters"],
    },
)
"""The ``resourceRules`` of the job kinds Kueue queues (:data:`KUEUE_JOB_KINDS`), created or changed: what the workload
policy and the queue-name policy (k8s_charts/queueing.py) both match."""
