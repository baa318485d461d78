"""Guard rails the platform owns in every team namespace: capacity goes through Kueue, nothing is exposed outside the
cluster network, Ray always authenticates, and a job's priority is the one its queue's tier allows.

Cluster-scoped ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1, GA since Kubernetes 1.30; CEL
fields ``matchConstraints``, ``variables``, ``validations``: kubernetes.io "Validating Admission Policy"), each with
a binding (action Deny) that selects the team namespaces by :data:`~k8s_charts.queues.MANAGED_NAMESPACE_LABEL`.
Nothing a team may touch (its Role has no namespace, policy or binding verbs) can lift them:

- :data:`POD_POLICY` ``llmft-team-pods``: a pod that requests GPUs (``nvidia.com/gpu``) or EFA interfaces
  (``vpc.amazonaws.com/efa``), in any container, must be controlled by a job kind Kueue admits as a gang: a
  PyTorchJob or MPIJob (kubeflow.org, the training and MPI operators set themselves as the pod's controller
  ownerReference) or a RayCluster (ray.io; a RayJob's pods belong to the RayCluster it creates, which Kueue admits
  with the RayJob) - or be a serving pod that Kueue queues one by one (llmft ``type: serve``; Kueue's ``deployment``
  and ``pod`` integrations, cdk_constructs/compute/kueue.py ``INTEGRATIONS``): controlled by a ReplicaSet, labelled
  ``kueue.x-k8s.io/queue-name`` with a LocalQueue of its own namespace, ``llmft.io/component: serve`` and
  ``kueue.x-k8s.io/managed: "true"``, and created with Kueue's scheduling gate ``kueue.x-k8s.io/admission`` (Kueue's
  mutating pod webhook adds it before any validating admission runs; a pod without it did not pass through Kueue),
  which only Kueue's controller may lift. A bare pod, a StatefulSet/DaemonSet pod, any other ReplicaSet pod or a
  batch Job pod with GPUs is refused whoever creates it. A pod *without* GPUs selects the CPU job pool
  (``nodeSelector llmft.io/node-role: cpu-jobs``, never the system nodes) and never preempts (effective
  ``preemptionPolicy: Never``, the CPU twin of its class, or priority 0): issue 40, a team's CPU pods evicted other
  teams' Ray heads and starved the platform's pods on the system nodes. ``supplementalGroupsPolicy`` is checked by
  the identity policy (k8s_charts/team_isolation.py).
- :data:`WORKLOAD_POLICY` ``llmft-team-workloads``: the job kinds (PyTorchJob, MPIJob, RayJob, RayCluster, batch
  Job, CronJob) and the workload controllers (Deployment, StatefulSet, DaemonSet, ReplicaSet): every Deployment is
  an llmft serving one (queue-name label naming a LocalQueue of the namespace on it and on its pod template,
  ``llmft.io/component: serve``, ``llmft.io/serve: <its name>``, at most :data:`MAX_SERVE_REPLICAS` replicas); no
  GPU/EFA in a pod template outside the Kueue-managed kinds, serving Deployments and the ReplicaSets the Deployment
  controller creates for them (early, readable refusal; the pod policy is what holds); every pod template of a
  queued job or serving Deployment names a PriorityClass its queue's tier allows (the LocalQueue is named after the
  tier, k8s_charts/queues.py; tier -> classes: config.kubernetes.TIER_PRIORITY_CLASSES) and no Kueue
  WorkloadPriorityClass label (``kueue.x-k8s.io/priority-class``, on the object or a pod template, would override
  the pods' priority in Kueue's queueing and preemption; the platform defines none); Ray clusters use token
  authentication (``authOptions.mode: token``, KubeRay v1.7.0 CRD), keep the head Service ``ClusterIP`` without
  external IPs, create no Ingress (``enableIngress``) and no NetworkPolicies of their own (``networkPolicy``, which
  KubeRay would create from the spec and which would add to the namespace's allow-list).
- :data:`AUTOSCALING_POLICY` ``llmft-team-autoscaling``: KEDA ScaledObjects scale only the serving Deployment of their
  own name, within :data:`MAX_SERVE_REPLICAS` (paused-replicas pin included), with ``aws-cloudwatch`` triggers read
  through KEDA's own identity, so only the endpoint's own demand metric in its own namespace
  (:data:`CLOUDWATCH_TRIGGER_KEYS`); the Deployments' ``scale`` subresource stays within the same cap.
- :data:`SERVICE_POLICY` ``llmft-team-services``: Services are ``ClusterIP`` (or headless) only: no
  ``LoadBalancer``, ``NodePort`` or ``ExternalName``, no ``externalIPs`` (CVE-2020-8554: EKS enables no
  DenyServiceExternalIPs admission plugin), owned (when a team creates them) by nothing but a Deployment. This binds
  KubeRay too, which creates the Ray head Service in the team namespace, so a RayCluster that slipped past the
  workload policy cannot expose its head either.

- :data:`PRODUCTION_POLICY` ``llmft-team-production``: a production endpoint is the platform's promotion identity's
  whole (issue 40): its Service and ScaledObject (labelled :data:`~k8s_charts.serving.TIER_LABEL` with a production
  tier, before or after the request) are created, changed and deleted only by :data:`~k8s_charts.serving.PROMOTER`
  and the platform's controllers (KEDA's operator for its finalizer, the namespace controller), and so is deleting a
  production Deployment (creating and changing one is the workload policy's production rule); the promoter never
  takes over a Service, ScaledObject or Deployment a team created under the endpoint's name.
- :data:`PRODUCTION_TARGET_POLICY` ``llmft-team-production-targets``: the same by name, whatever labels a team writes:
  its binding's ``paramRef`` selects every production-tier Deployment of the request's namespace (``paramKind``
  apps/v1 Deployment, :data:`PARAM_REFS`), and a ScaledObject, Service or ``deployments/scale`` of one of their names
  is written only by the promoter and the platform's autoscalers (KEDA's operator, the HPA controller).

NetworkPolicies need no policy: teams have no verb on them (k8s_charts/team_namespaces.py).

Every rule is a pure CEL expression over ``object``, ``oldObject``, ``request``, ``namespaceObject`` (and the
policy's ``variables``); tests evaluate them with cel-python against attack objects (tests/test_team_guardrails.py,
tests/test_redteam_classes.py, tests/test_isolation_matrix.py).
"""

from __future__ import annotations

import cdk8s
from constructs import Construct
from llm_platform.engine_flags import admission_patterns

from config.kubernetes import TIER_PRIORITY_CLASSES
from k8s_charts import serving
from k8s_charts.queues import (
    LOCAL_QUEUE_NAMESPACE_LABEL_PREFIX,
    MANAGED_NAMESPACE_LABEL,
    QUEUE_NAME_LABEL,
    local_queue_name,
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


# A serving pod as Kueue's webhooks leave it (cdk_constructs/compute/kueue.py INTEGRATIONS): created by the ReplicaSet
# of a Deployment, with the Deployment's queue-name label naming a LocalQueue of the namespace, llmft.io/component:
# serve, and Kueue's managed label. Its GPUs are queued only if it is also gated at creation (a pod rule below).
_SERVE_POD = (
    f"{_controlled_by('apps/v1', 'ReplicaSet')} && {_serving('object.metadata')} && "
    f"{_label('object.metadata', KUEUE_MANAGED_LABEL)} == 'true'"
)


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
    ]


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


_PRODUCTION_QUEUES = _cel_list(local_queue_name(t) for t in serving.PRODUCTION_TIERS)


def _production_of(obj: str) -> str:
    """CEL: Deployment ``obj`` (object or oldObject) or its pod template names a production tier's LocalQueue."""
    template = f"{obj}.spec.template.metadata"
    return (
        f"({_label(obj + '.metadata', QUEUE_NAME_LABEL)} in {_PRODUCTION_QUEUES} || (has({obj}.spec.template) && "
        f"has({template}) && {_label(template, QUEUE_NAME_LABEL)} in {_PRODUCTION_QUEUES}))"
    )


# A production-tier serving Deployment, before or after the request (an UPDATE that moves it out of production
# counts: it was production).
_PRODUCTION_DEPLOYMENT = (
    f"object.kind == 'Deployment' && ({_production_of('object')} || "
    f"(request.operation != 'CREATE' && {_production_of('oldObject')}))"
)
PROMOTERS = (serving.PROMOTER, *PLATFORM_CONTROLLERS)
"""Who may create or change a production-tier serving Deployment: the platform's promotion identity, and the
platform's controllers (the garbage collector's finalizer updates on delete; none of them is a team's)."""
KEDA_OPERATOR = "system:serviceaccount:keda:keda-operator"
"""KEDA's operator (cdk_constructs/compute/keda.py: namespace ``keda``, ServiceAccount ``keda-operator``): it adds and
removes its finalizer ``finalizer.keda.sh`` on every ScaledObject with an Update of the object (kedacore/keda@v2.19.0
controllers/keda/scaledobject_finalizer.go ``ensureFinalizer``, ``finalizeScaledObject``)."""
NAMESPACE_CONTROLLER = "system:serviceaccount:kube-system:namespace-controller"
"""kube-controller-manager's namespace controller (kubernetes.io "Service account permissions"): it deletes every
object of a namespace being deleted; refusing it would leave the namespace Terminating."""
PRODUCTION_WRITERS = (*PROMOTERS, KEDA_OPERATOR, NAMESPACE_CONTROLLER)
"""Who may create, change or delete a production endpoint's Service or ScaledObject, or delete its Deployment."""


def _engine_token() -> str:
    """CEL over ``a``: one token of a production engine's command line is the platform's or an allowed engine flag
    with a checked value (llm_platform/engine_flags.py, the same allowlist llmft applies)."""
    patterns = admission_patterns()
    fixed = ["python3", "-m", "sglang.launch_server", serving.DIGEST_CHECK_MODULE, "--", "--enable-metrics"]
    platform = "^--(model-path|verify|digest|tp-size|dp-size|host|port|served-model-name)=[^=]+$"
    return (
        f"(a in {_cel_list([*fixed, *patterns['exact']])} || a.matches('{platform}') || "
        f"a.matches('{patterns['int']}') || a.matches('{patterns['float']}') || a.matches('{patterns['name']}') || "
        f"{_cel_list(patterns['path_flags'])}.exists(f, a.startsWith(f + '=')))"
    )


def _engine_paths(command: str) -> str:
    """CEL: every path flag in ``command`` names a file inside the Deployment's served directory (its annotation
    :data:`~k8s_charts.serving.MODEL_DIR_ANNOTATION`), which is also the engine's ``--model-path``."""
    annotations = "object.metadata.annotations"
    key = serving.MODEL_DIR_ANNOTATION
    directory = f"{annotations}['{key}']"
    paths = _cel_list(admission_patterns()["path_flags"])
    return (
        f"has({annotations}) && '{key}' in {annotations} && ('--model-path=' + {directory}) in {command} && "
        f"('--verify=' + {directory}) in {command} && "
        f"{command}.all(a, {paths}.all(f, !a.startsWith(f + '=') || (a.startsWith(f + '=' + {directory} + '/') "
        f"&& !a.contains('/../') && !a.endsWith('/..') && !a.contains('/./'))))"
    )


_ADOPTION_MESSAGE = (
    "the promotion step does not take over an object a team created: delete the endpoint's development "
    "Deployment, Service and ScaledObject of this name (llmft cancel) and promote again"
)


def _production_rules() -> list[dict[str, str]]:
    """Production serving is a privileged path (issue 40): only the promotion identity creates or changes it, and
    its engine runs the pinned weights with allowed flags only."""
    engine = (
        "variables.templates.all(t, has(t.spec) && (!has(t.spec.initContainers) || size(t.spec.initContainers) == 0) "
        "&& t.spec.containers.all(c, (!has(c.args) || size(c.args) == 0) && has(c.command) && "
        f"c.command.all(a, {_engine_token()}) && c.command.exists(a, a.startsWith('--digest=sha256:')) && "
        f"{_engine_paths('c.command')}))"
    )
    return [
        # stops: a team member (kubectl, or a commit to its GitOps folder applied by Argo CD) creating or editing a
        # production endpoint that names any directory of its FSx tree
        {
            "expression": f"!variables.production || request.userInfo.username in {_cel_list(PROMOTERS)}",
            "message": f"production serving endpoints are created and changed only by the platform's promotion step "
            f"({serving.PROMOTER}), after the platform's evaluator passed the model version and pinned its weights "
            f"(docs/serving.md 'The production promotion path'); serve it in development to try it, or ask the "
            f"platform to promote it",
        },
        # stops: a team planting a development Deployment of the endpoint's name (with its own env, volumes or
        # sidecars) that the promoter's `kubectl apply` would merge into, keeping what the team wrote
        {
            "expression": f"request.userInfo.username != '{serving.PROMOTER}' || request.operation != 'UPDATE' || "
            f"{_production_of('oldObject')}",
            "message": _ADOPTION_MESSAGE,
        },
        # stops: other weights, remote code, dummy weights, adapters or prefixed platform flags in a production engine
        {
            "expression": f"!variables.production || object.kind != 'Deployment' || {engine}",
            "message": "a production engine runs behind the weights digest check (--digest=sha256:...) with only the "
            "platform's flags and allowed engine flags, each value joined to its flag (--flag=value), paths inside "
            f"the served directory ({serving.MODEL_DIR_ANNOTATION}), no args and no init containers",
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
    ]


CLOUDWATCH_TRIGGER_KEYS = (
    "namespace",
    "metricName",
    "dimensionName",
    "dimensionValue",
    "targetMetricValue",
    "activationTargetMetricValue",
    "minMetricValue",
    "ignoreNullValues",
    "metricCollectionTime",
    "metricStat",
    "metricUnit",
    "metricStatPeriod",
    "metricEndTimeOffset",
    "awsRegion",
    "identityOwner",
)
"""Trigger metadata a team's ``aws-cloudwatch`` trigger may set (kedacore/keda@v2.19.0
pkg/scalers/aws_cloudwatch_scaler.go ``awsCloudwatchMetadata``). Left out on purpose: ``expression`` (a CloudWatch
Metrics Insights query over any metric of the account), ``awsAccountId`` (another account's metrics through
cross-account observability), ``awsEndpoint`` (KEDA's signed requests sent elsewhere) and the static-credential keys
(``awsAccessKeyID``, ``awsAccessKeyIDFromEnv``, ``awsSecretAccessKeyFromEnv``, pkg/scalers/aws/aws_common.go)."""
_SO = "object.spec"
_TARGET = f"{_SO}.scaleTargetRef"
_PAUSED = f"object.metadata.annotations['{serving.KEDA_PAUSED_REPLICAS}']"


def _scaled_object_rules() -> list[dict[str, str]]:
    """Rules for KEDA ScaledObjects (keda.sh/v1alpha1, kedacore/keda@v2.19.0 apis/keda/v1alpha1/scaledobject_types.go).
    KEDA reads the triggers with its own IAM role (``identityOwner: operator``, pkg/scalers/aws/aws_common.go
    ``GetAwsAuthorization``), so what a trigger may query is decided here, not by the team's role."""
    so = "object.kind != 'ScaledObject' || "
    dims = ";".join(serving.METRIC_DIMENSIONS)
    ns_labels = "namespaceObject.metadata.labels"
    own = f"{ns_labels}['{CLUSTER_NAME_LABEL}'] + ';' + namespaceObject.metadata.name + ';' + object.metadata.name"
    here = f"has({ns_labels}) && '{CLUSTER_NAME_LABEL}' in {ns_labels} && '{REGION_LABEL}' in {ns_labels}"
    return [
        # stops: scaling anything but the serve Deployment of the same name (a StatefulSet, a job with a /scale
        # subresource, another endpoint)
        {
            "expression": so + f"({_TARGET}.name == object.metadata.name && "
            f"(!has({_TARGET}.kind) || {_TARGET}.kind == 'Deployment') && "
            f"(!has({_TARGET}.apiVersion) || {_TARGET}.apiVersion == 'apps/v1') && "
            f"{_label('object.metadata', serving.COMPONENT_LABEL)} == '{serving.SERVE_COMPONENT}' && "
            f"{_label('object.metadata', serving.SERVE_NAME_LABEL)} == object.metadata.name)",
            "message": f"a ScaledObject in a team namespace scales the serving Deployment of its own name "
            f"(scaleTargetRef apps/v1 Deployment <name>) and is labelled {serving.COMPONENT_LABEL}: "
            f"{serving.SERVE_COMPONENT}, {serving.SERVE_NAME_LABEL}: <name>; `llmft submit` renders it so",
        },
        # stops: KEDA's default of 100 replicas, a fallback or a pin above the cap
        {
            "expression": so + f"(has({_SO}.maxReplicaCount) && {_SO}.maxReplicaCount <= {MAX_SERVE_REPLICAS} && "
            f"(!has({_SO}.minReplicaCount) || {_SO}.minReplicaCount <= {_SO}.maxReplicaCount) && "
            f"(!has({_SO}.fallback) || {_SO}.fallback.replicas <= {_SO}.maxReplicaCount) && "
            f"(!has(object.metadata.annotations) || "
            f"!('{serving.KEDA_PAUSED_REPLICAS}' in object.metadata.annotations) || "
            f"({_PAUSED}.matches('^[0-9]{{1,3}}$') && int({_PAUSED}) <= {_SO}.maxReplicaCount)))",
            "message": f"a ScaledObject sets maxReplicaCount (at most {MAX_SERVE_REPLICAS}); minReplicaCount, "
            f"fallback.replicas and the {serving.KEDA_PAUSED_REPLICAS} annotation stay at or below it",
        },
        # stops: other scalers and TriggerAuthentications (a ClusterTriggerAuthentication is the platform's)
        {
            "expression": so + f"{_SO}.triggers.all(t, t.type == 'aws-cloudwatch' && !has(t.authenticationRef) && "
            f"has(t.metadata) && t.metadata.all(k, k in {_cel_list(CLOUDWATCH_TRIGGER_KEYS)}) && "
            f"'identityOwner' in t.metadata && t.metadata['identityOwner'] == 'operator')",
            "message": f"ScaledObject triggers in team namespaces are aws-cloudwatch triggers with identityOwner: "
            f"operator, no authenticationRef, and only the metadata keys {', '.join(CLOUDWATCH_TRIGGER_KEYS)}",
        },
        # stops: reading another namespace's (another team's) metrics with KEDA's role
        {
            "expression": so + f"{_SO}.triggers.all(t, 'namespace' in t.metadata && "
            f"t.metadata['namespace'] == '{serving.METRICS_NAMESPACE}' && 'metricName' in t.metadata && "
            f"t.metadata['metricName'] in {_cel_list(serving.DEMAND_METRICS)} && "
            f"'dimensionName' in t.metadata && t.metadata['dimensionName'] == '{dims}' && "
            f"'dimensionValue' in t.metadata && {here} && t.metadata['dimensionValue'] == {own} && "
            f"'awsRegion' in t.metadata && t.metadata['awsRegion'] == {ns_labels}['{REGION_LABEL}'])",
            "message": f"a ScaledObject reads only its own endpoint's demand in this cluster and region: namespace "
            f"{serving.METRICS_NAMESPACE}, metricName one of {', '.join(serving.DEMAND_METRICS)}, dimensionName "
            f"{dims}, dimensionValue <this cluster>;<this namespace>;<the ScaledObject's name>, awsRegion <this "
            f"region> (the namespace's labels {CLUSTER_NAME_LABEL} and {REGION_LABEL})",
        },
        # stops: an ownerReference Kueue or the garbage collector would follow somewhere else
        {
            "expression": so + "(!has(object.metadata.ownerReferences) || object.metadata.ownerReferences.all(o, "
            f"o.apiVersion == 'apps/v1' && o.kind == 'Deployment' && o.name == {_TARGET}.name))",
            "message": "a ScaledObject may be owned only by the Deployment it scales",
        },
    ]


def _scale_rules() -> list[dict[str, str]]:
    """The scale subresource of Deployments (autoscaling/v1 Scale; what `kubectl scale`, KEDA and the HPA write)."""
    return [
        {
            # stops: `kubectl scale --replicas=1000` past the ScaledObject's cap
            "expression": f"object.kind != 'Scale' || !has(object.spec.replicas) || "
            f"object.spec.replicas <= {MAX_SERVE_REPLICAS}",
            "message": f"a serving Deployment runs at most {MAX_SERVE_REPLICAS} replicas",
        }
    ]


def _secret_rules() -> list[dict[str, str]]:
    return [
        {
            "expression": "!has(object.type) || object.type != 'kubernetes.io/service-account-token'",
            "message": "Secrets of type kubernetes.io/service-account-token are not allowed in team namespaces: the "
            "control plane fills them with a token that never expires and outlives team membership",
        }
    ]


def _service_rules() -> list[dict[str, str]]:
    return [
        {
            "expression": "!has(object.spec.type) || object.spec.type == 'ClusterIP'",
            "message": "Services in team namespaces are ClusterIP only (no LoadBalancer, NodePort or ExternalName)",
        },
        {
            "expression": "!has(object.spec.externalIPs) || size(object.spec.externalIPs) == 0",
            "message": "Services in team namespaces may not set externalIPs (CVE-2020-8554: traffic interception)",
        },
        # stops: a team Service claiming to belong to a job or any object but a serving Deployment
        {
            "expression": f"!has(object.metadata.ownerReferences) || {_controllers()} || "
            "object.metadata.ownerReferences.all(o, o.apiVersion == 'apps/v1' && o.kind == 'Deployment')",
            "message": "a team's Service may be owned only by a Deployment (llmft's serve endpoints); other "
            "ownerReferences are set by the platform's controllers",
        },
    ]


# Every synchronization block of a Workflow or WorkflowTemplate (Argo Workflows v4.0.6 CRD, vendored in
# k8s_charts/crds: spec.synchronization, spec.templateDefaults.synchronization, spec.templates[].synchronization;
# tests/test_redteam_production.py walks the CRD for every `synchronization` property so a new one is not missed).
_LOCKS = (
    "(has(object.spec.synchronization) ? [object.spec.synchronization] : []) + "
    "(has(object.spec.templateDefaults) && has(object.spec.templateDefaults.synchronization) ? "
    "[object.spec.templateDefaults.synchronization] : []) + "
    "(has(object.spec.templates) ? object.spec.templates.filter(t, has(t.synchronization)).map(t, t.synchronization) "
    ": [])"
)


def _own_namespace(lock: str) -> str:
    return f"(!has({lock}.namespace) || {lock}.namespace == '' || {lock}.namespace == request.namespace)"


def _workflow_rules() -> list[dict[str, str]]:
    """A team's Workflows lock only within their namespace and create no PVCs through the controller."""
    return [
        # stops: holding or exhausting another namespace's mutex or semaphore ConfigMap (Argo v4.0.6 Mutex and
        # SemaphoreRef `namespace`: "default: [namespace of workflow]")
        {
            "expression": "variables.locks.all(s, (!has(s.mutexes) || s.mutexes.all(m, "
            f"{_own_namespace('m')})) && (!has(s.semaphores) || s.semaphores.all(m, {_own_namespace('m')})))",
            "message": "a Workflow's mutexes and semaphores are its own namespace's: remove synchronization "
            "namespace (or set it to this namespace)",
        },
        # stops: PVCs the Workflow controller would create for the team, which the team Role may not create itself
        {
            "expression": "!has(object.spec.volumeClaimTemplates) || size(object.spec.volumeClaimTemplates) == 0",
            "message": "spec.volumeClaimTemplates is not allowed in team namespaces: the Workflow controller would "
            "create PersistentVolumeClaims the team may not create; steps use the team's FSx tree",
        },
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


def _present(obj: str) -> str:
    """CEL: ``obj`` (``object`` or ``oldObject``) exists in this request: ``object`` is null on DELETE, ``oldObject`` on
    CREATE (admissionregistration.k8s.io/v1 ``Validation.expression``). Said by the operation rather than a
    comparison with null, which some CEL evaluators refuse for maps."""
    return "request.operation != 'DELETE'" if obj == "object" else "request.operation != 'CREATE'"


def _labelled_production(obj: str) -> str:
    """CEL: ``obj`` (object or oldObject) exists and is labelled with a production tier (Service, ScaledObject)."""
    return f"({_present(obj)} && {_label(obj + '.metadata', serving.TIER_LABEL)} in {_PRODUCTION_TIER_NAMES})"


_PRODUCTION_TIER_NAMES = _cel_list(serving.PRODUCTION_TIERS)
# A production endpoint's object before or after the request: a Deployment by its queue (what Kueue reads), a Service
# or ScaledObject by its tier label (llmft renders it; only the promoter may write it, the rule below).
_PRODUCTION_OBJECT = (
    "(request.operation == 'DELETE' ? oldObject : object).kind == 'Deployment' ? "
    f"(({_present('object')} && {_production_of('object')}) || "
    f"({_present('oldObject')} && {_production_of('oldObject')})) : "
    f"({_labelled_production('object')} || {_labelled_production('oldObject')})"
)


HPA_CONTROLLER = "system:serviceaccount:kube-system:horizontal-pod-autoscaler"
"""kube-controller-manager's HPA controller (kubernetes.io "Service account permissions"): it writes the scale of the
Deployment a ScaledObject's HPA (KEDA's ``keda-hpa-<name>``) targets."""
TARGET_WRITERS = (*PRODUCTION_WRITERS, HPA_CONTROLLER)
"""Who may write a ScaledObject, Service or scale of a production Deployment's name (KEDA's operator scales to and from
zero itself, kedacore/keda@v2.19.0 pkg/scaling/executor/scale_scaledobjects.go)."""


def _production_target_rules() -> list[dict[str, str]]:
    """Evaluated once per production Deployment of the request's namespace (``params``, the binding's paramRef):
    nothing a team writes may carry a production Deployment's name among the objects that act on it by name."""
    subject = "(request.operation == 'DELETE' ? oldObject : object)"
    return [
        # stops: a ScaledObject (KEDA scales the Deployment of its name), Service (callers address the name) or
        # `kubectl scale` of a production endpoint by a team, whatever labels the team's object carries: what a
        # label rule cannot see when the promoter's own ScaledObject is missing (a failed apply, an endpoint promoted
        # before the tier label existed)
        {
            "expression": f"params.metadata.name != {subject}.metadata.name || "
            f"request.userInfo.username in {_cel_list(TARGET_WRITERS)}",
            "message": "this name is a production endpoint's (a production-tier Deployment of this namespace): its "
            f"ScaledObject, Service and scale are written only by the platform's promotion step ({serving.PROMOTER}) "
            "and the platform's autoscalers; ask the platform to change it",
        },
    ]


PARAM_REFS: dict[str, dict] = {
    PRODUCTION_TARGET_POLICY: {
        # every production-tier Deployment of the request's namespace (namespace unset: the object's own,
        # kubernetes.io ParamRef v1; none found: nothing to check)
        "selector": {
            "matchExpressions": [
                {
                    "key": QUEUE_NAME_LABEL,
                    "operator": "In",
                    "values": [local_queue_name(t) for t in serving.PRODUCTION_TIERS],
                }
            ]
        },
        "parameterNotFoundAction": "Allow",
    }
}
"""The bindings' ``paramRef`` of the policies with a ``paramKind``."""


def _production_endpoint_rules() -> list[dict[str, str]]:
    """A production endpoint's Service and ScaledObject are the promoter's as its Deployment is, and so is deleting
    any of them (issue 40)."""
    return [
        # stops: a team member (kubectl or its GitOps folder) raising or zeroing a production endpoint's replicas
        # or triggers (ScaledObject), pointing its Service at its own pods, labelling its own objects production,
        # or deleting any of them (a deleted production Deployment would let the team create a development one of
        # the same name, which the production Service and ScaledObject would then serve and scale)
        {
            "expression": f"!variables.production || request.userInfo.username in {_cel_list(PRODUCTION_WRITERS)}",
            "message": f"a production endpoint's Deployment, Service and ScaledObject are created, changed and "
            f"deleted only by the platform's promotion step ({serving.PROMOTER}; docs/serving.md 'The production "
            f"promotion path'): ask the platform to change or retire it",
        },
        # stops: the promoter's apply merging into a Service or ScaledObject a team created beforehand
        {
            "expression": f"request.userInfo.username != '{serving.PROMOTER}' || request.operation != 'UPDATE' || "
            f"{_labelled_production('oldObject')}",
            "message": _ADOPTION_MESSAGE,
        },
    ]


_WORKLOAD_RULES = [
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

POLICIES: dict[str, dict] = {
    POD_POLICY: {
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["pods"]}
            ]
        },
        "variables": [{"name": "serve", "expression": _SERVE_POD}],
        "validations": _pod_rules(),
    },
    WORKLOAD_POLICY: {
        "matchConstraints": {"resourceRules": _WORKLOAD_RULES},
        "variables": [
            {"name": "templates", "expression": _TEMPLATES},
            {"name": "ray", "expression": _RAY_CLUSTER},
            {"name": "serve", "expression": _SERVE_DEPLOYMENT},
            {"name": "serve_replicas", "expression": _SERVE_REPLICA_SET},
            {"name": "production", "expression": _PRODUCTION_DEPLOYMENT},
        ],
        "validations": _workload_rules(),
    },
    SECRET_POLICY: {
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["secrets"]}
            ]
        },
        "validations": _secret_rules(),
    },
    AUTOSCALING_POLICY: {
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["keda.sh"],
                    "apiVersions": ["v1alpha1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["scaledobjects"],
                },
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["UPDATE"],
                    "resources": ["deployments/scale"],
                },
            ]
        },
        "validations": _scaled_object_rules() + _scale_rules(),
    },
    WORKFLOW_POLICY: {
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["argoproj.io"],
                    "apiVersions": ["v1alpha1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["workflows", "workflowtemplates"],
                }
            ]
        },
        "variables": [{"name": "locks", "expression": _LOCKS}],
        "validations": _workflow_rules(),
    },
    DELETION_POLICY: {
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["DELETE"], "resources": ["deployments"]}
            ]
        },
        "validations": _deletion_rules(),
    },
    PRODUCTION_POLICY: {
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["keda.sh"],
                    "apiVersions": ["v1alpha1"],
                    "operations": ["CREATE", "UPDATE", "DELETE"],
                    "resources": ["scaledobjects"],
                },
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE", "DELETE"],
                    "resources": ["services"],
                },
                {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["DELETE"], "resources": ["deployments"]},
            ]
        },
        "variables": [{"name": "production", "expression": _PRODUCTION_OBJECT}],
        "validations": _production_endpoint_rules(),
    },
    PRODUCTION_TARGET_POLICY: {
        "paramKind": {"apiVersion": "apps/v1", "kind": "Deployment"},
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["keda.sh"],
                    "apiVersions": ["v1alpha1"],
                    "operations": ["CREATE", "UPDATE", "DELETE"],
                    "resources": ["scaledobjects"],
                },
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE", "DELETE"],
                    "resources": ["services"],
                },
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["UPDATE"],
                    "resources": ["deployments/scale"],
                },
            ]
        },
        "validations": _production_target_rules(),
    },
    SERVICE_POLICY: {
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["services"],
                }
            ]
        },
        "validations": _service_rules(),
    },
}


class TeamGuardrails(Construct):
    """The policies of the module docstring with their bindings (one set for all team namespaces).
    Attributes: ``policies`` and ``bindings`` (name -> ``cdk8s.ApiObject``)."""

    def __init__(self, scope: Construct, construct_id: str, *, labels: dict[str, str]) -> None:
        super().__init__(scope, construct_id)
        self.policies: dict[str, cdk8s.ApiObject] = {}
        self.bindings: dict[str, cdk8s.ApiObject] = {}
        for name, spec in POLICIES.items():
            policy = cdk8s.ApiObject(
                self,
                f"{name}-policy",
                api_version="admissionregistration.k8s.io/v1",
                kind="ValidatingAdmissionPolicy",
                metadata=cdk8s.ApiObjectMetadata(name=name, labels=labels),
            )
            policy.add_json_patch(cdk8s.JsonPatch.add("/spec", {"failurePolicy": "Fail", **spec}))
            binding = cdk8s.ApiObject(
                self,
                f"{name}-binding",
                api_version="admissionregistration.k8s.io/v1",
                kind="ValidatingAdmissionPolicyBinding",
                metadata=cdk8s.ApiObjectMetadata(name=name, labels=labels),
            )
            binding.add_json_patch(
                cdk8s.JsonPatch.add(
                    "/spec",
                    {
                        "policyName": name,
                        "validationActions": ["Deny"],
                        "matchResources": {"namespaceSelector": {"matchLabels": {MANAGED_NAMESPACE_LABEL: "true"}}},
                        **({"paramRef": PARAM_REFS[name]} if name in PARAM_REFS else {}),
                    },
                )
            )
            binding.add_dependency(policy)
            self.policies[name], self.bindings[name] = policy, binding
