"""Guard rails the platform owns in every team namespace: capacity goes through Kueue, nothing is exposed outside the
cluster network, Ray always authenticates, and a job's priority is the one its queue's tier allows.

Three cluster-scoped ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1, GA since Kubernetes 1.30; CEL
fields ``matchConstraints``, ``variables``, ``validations``: kubernetes.io "Validating Admission Policy"), each with
a binding (action Deny) that selects the team namespaces by :data:`~k8s_charts.queues.MANAGED_NAMESPACE_LABEL`.
Nothing a team may touch (its Role has no namespace, policy or binding verbs) can lift them:

- :data:`POD_POLICY` ``llmft-team-pods``: a pod that requests GPUs (``nvidia.com/gpu``) or EFA interfaces
  (``vpc.amazonaws.com/efa``), in any container, must be controlled by a job kind Kueue admits as a gang: a
  PyTorchJob or MPIJob (kubeflow.org, the training and MPI operators set themselves as the pod's controller
  ownerReference) or a RayCluster (ray.io; a RayJob's pods belong to the RayCluster it creates, which Kueue admits
  with the RayJob). Kueue's integrations are exactly these kinds (cdk_constructs/compute/kueue.py ``INTEGRATIONS``), so a bare
  pod, a Deployment/StatefulSet/DaemonSet/ReplicaSet pod or a batch Job pod with GPUs is refused whoever creates it.
  ``supplementalGroupsPolicy`` is checked by the identity policy (k8s_charts/team_isolation.py).
- :data:`WORKLOAD_POLICY` ``llmft-team-workloads``: the job kinds (PyTorchJob, MPIJob, RayJob, RayCluster, batch
  Job, CronJob) and the workload controllers (Deployment, StatefulSet, DaemonSet, ReplicaSet): no GPU/EFA in a pod
  template outside the Kueue-managed kinds (early, readable refusal; the pod policy is what holds); every pod
  template of a queued job names a PriorityClass its queue's tier allows (the LocalQueue is named after the tier,
  k8s_charts/queues.py; tier -> classes: config.kubernetes.TIER_PRIORITY_CLASSES) and no Kueue
  WorkloadPriorityClass label (``kueue.x-k8s.io/priority-class`` would override the pods' priority in Kueue's
  queueing and preemption; the platform defines none); Ray clusters use token authentication
  (``authOptions.mode: token``, KubeRay v1.7.0 CRD), keep the head Service ``ClusterIP`` without external IPs,
  create no Ingress (``enableIngress``) and no NetworkPolicies of their own (``networkPolicy``, which KubeRay would
  create from the spec and which would add to the namespace's allow-list).
- :data:`SERVICE_POLICY` ``llmft-team-services``: Services are ``ClusterIP`` (or headless) only: no
  ``LoadBalancer``, ``NodePort`` or ``ExternalName``, no ``externalIPs`` (CVE-2020-8554: EKS enables no
  DenyServiceExternalIPs admission plugin). This binds KubeRay too, which creates the Ray head Service in the team
  namespace, so a RayCluster that slipped past the workload policy cannot expose its head either.

Every rule is a pure CEL expression over ``object`` (and the policy's ``variables``); tests evaluate them with
cel-python against attack objects (tests/test_team_guardrails.py, tests/test_isolation_matrix.py).
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from config.kubernetes import TIER_PRIORITY_CLASSES
from k8s_charts.queues import MANAGED_NAMESPACE_LABEL, QUEUE_NAME_LABEL, local_queue_name
from k8s_charts.tiers import EFA_RESOURCE, GPU_RESOURCE

POD_POLICY = "llmft-team-pods"
WORKLOAD_POLICY = "llmft-team-workloads"
SERVICE_POLICY = "llmft-team-services"
SECRET_POLICY = "llmft-team-secrets"
MAX_JOB_PARALLELISM = 16
"""Most pods one batch Job of a team runs at once (llmft's CPU steps run one; the object quota caps the total)."""
WORKLOAD_PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
"""Kueue's WorkloadPriorityClass label on a job (Kueue docs, "Workload Priority Class")."""

ACCELERATORS = (GPU_RESOURCE, EFA_RESOURCE)
KUEUE_POD_OWNERS = (("kubeflow.org/", "PyTorchJob"), ("kubeflow.org/", "MPIJob"), ("ray.io/", "RayCluster"))
"""(apiVersion prefix, kind) of the controllers whose pods may hold GPUs: the kinds Kueue admits as a gang."""
KUEUE_JOB_KINDS = ("PyTorchJob", "MPIJob", "RayJob", "RayCluster")
OWNED_KINDS = KUEUE_JOB_KINDS + ("Job", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")
"""Every kind the workload policy matches. Kueue treats an object whose *controller* ownerReference names a kind it
manages as part of that job and never queues it (v0.19.2 pkg/controller/jobframework/integrationmanager.go
``IsOwnerManagedByKueueForObject``: ``metav1.GetControllerOf(obj)`` of a managed kind); ownerReferences are a plain
metadata field anyone who may create the object may write, so only the platform's controllers may set them."""

KUBERAY_NAMESPACE = "kuberay"
KUBERAY_SERVICE_ACCOUNT = "kuberay-operator"
KUBERAY_OPERATOR = f"system:serviceaccount:{KUBERAY_NAMESPACE}:{KUBERAY_SERVICE_ACCOUNT}"
"""The KubeRay operator (cdk_constructs/compute/kuberay_operator.py: namespace ``kuberay``, the chart's
``serviceAccount.name: kuberay-operator``, ray-project/kuberay helm-chart/kuberay-operator/values.yaml). It creates
the RayCluster of a RayJob, controlled by the RayJob, and scales it."""
PLATFORM_CONTROLLERS = (
    KUBERAY_OPERATOR,
    "system:serviceaccount:kubeflow:training-operator",    # charts/hyperpod-prerequisites training-operator.yaml
    "system:serviceaccount:mpi-operator:mpi-operator",      # charts/hyperpod-prerequisites mpi-operator.yaml
    # Kueue chart charts/kueue/templates/rbac/service_account.yaml: `<kueue.fullname>-controller-manager`, and the
    # fullname of release `kueue` of chart `kueue` is `kueue` (cdk_constructs/compute/kueue.py KUEUE_RELEASE)
    "system:serviceaccount:kueue-system:kueue-controller-manager",
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
ALLOWED_CPU_TOLERATIONS = (("llmft.io/cpu-jobs", "NoSchedule"), ("node.kubernetes.io/not-ready", "NoExecute"),
                           ("node.kubernetes.io/unreachable", "NoExecute"))
"""(key, effect) a pod without GPUs may tolerate: the CPU job pool's taint (k8s_charts/tiers.py CPU_JOBS_TAINT) and
the two NoExecute tolerations the DefaultTolerationSeconds admission plugin adds to every pod before validation
(kubernetes.io "Taints and Tolerations", taint based evictions). Not the GPU taint (``nvidia.com/gpu``), not
HyperPod's ``dedicated=hyperpod``, not an empty key with ``Exists`` (tolerates everything): a CPU pod never lands
on (or makes Karpenter launch) a GPU node, where its priority could preempt GPU work."""


def _cel_list(values) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


def _accelerators(spec: str) -> str:
    """CEL: some container, init container or ephemeral container of pod spec ``spec`` requests or limits a GPU or
    an EFA interface."""
    resources = _cel_list(ACCELERATORS)

    def uses(field: str) -> str:
        return (f"(has({spec}.{field}) && {spec}.{field}.exists(c, has(c.resources) && ("
                f"(has(c.resources.requests) && c.resources.requests.exists(r, r in {resources})) || "
                f"(has(c.resources.limits) && c.resources.limits.exists(r, r in {resources})))))")

    return "(" + " || ".join(uses(f) for f in ("containers", "initContainers")) + ")"


def _cpu_placement(spec: str) -> str:
    """CEL: pod spec ``spec`` requests accelerators, or tolerates only :data:`ALLOWED_CPU_TOLERATIONS`."""
    allowed = " || ".join(f"(has(t.key) && t.key == '{k}' && has(t.effect) && t.effect == '{e}')"
                          for k, e in ALLOWED_CPU_TOLERATIONS)
    return (f"({_accelerators(spec)} || !has({spec}.tolerations) || {spec}.tolerations.all(t, {allowed}))")


def _controllers() -> str:
    return f"request.userInfo.username in {_cel_list(PLATFORM_CONTROLLERS)}"


def _pod_rules() -> list[dict[str, str]]:
    owners = " || ".join(f"(o.apiVersion.startsWith('{prefix}') && o.kind == '{kind}')"
                         for prefix, kind in KUEUE_POD_OWNERS)
    kueue_owned = ("has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, "
                   f"has(o.controller) && o.controller == true && ({owners}))")
    kinds = ", ".join(k for _, k in KUEUE_POD_OWNERS)
    return [{
        "expression": f"!{_accelerators('object.spec')} || ({kueue_owned})",
        "message": f"pods in team namespaces get GPUs and EFA only through Kueue: submit a PyTorchJob, MPIJob or "
                   f"RayJob with the label {QUEUE_NAME_LABEL} (llmft does); a pod that requests {GPU_RESOURCE} or "
                   f"{EFA_RESOURCE} must be controlled by a {kinds}",
    }, {
        "expression": "request.operation != 'CREATE' || !has(object.spec.nodeName) || object.spec.nodeName == ''",
        "message": "pods in team namespaces are placed by the scheduler: spec.nodeName is not allowed (it skips taints, "
                   "quotas of the node and Kueue's placement)",
    }, {
        "expression": _cpu_placement("object.spec"),
        "message": "a pod without GPUs may tolerate only the CPU job pool's taint (llmft.io/cpu-jobs): it may not run "
                   "on GPU or HyperPod nodes, or make Karpenter launch them",
    }]


# Pod templates of every kind the workload policy matches, as one CEL list (variables.templates). Kinds whose
# fields do not exist on another kind are behind `object.kind ==` so the expression never reads them.
_TEMPLATES = " : ".join([
    "object.kind == 'PyTorchJob' ? (has(object.spec.pytorchReplicaSpecs) ? "
    "object.spec.pytorchReplicaSpecs.map(k, object.spec.pytorchReplicaSpecs[k].template) : [])",
    "object.kind == 'MPIJob' ? (has(object.spec.mpiReplicaSpecs) ? "
    "object.spec.mpiReplicaSpecs.map(k, object.spec.mpiReplicaSpecs[k].template) : [])",
    "object.kind == 'RayJob' ? ((has(object.spec.rayClusterSpec) ? [object.spec.rayClusterSpec.headGroupSpec.template] "
    "+ (has(object.spec.rayClusterSpec.workerGroupSpecs) ? "
    "object.spec.rayClusterSpec.workerGroupSpecs.map(w, w.template) : []) : []) + "
    "(has(object.spec.submitterPodTemplate) ? [object.spec.submitterPodTemplate] : []))",
    "object.kind == 'RayCluster' ? ([object.spec.headGroupSpec.template] + (has(object.spec.workerGroupSpecs) ? "
    "object.spec.workerGroupSpecs.map(w, w.template) : []))",
    "object.kind == 'CronJob' ? [object.spec.jobTemplate.spec.template]",
    "[object.spec.template]",   # batch Job, Deployment, StatefulSet, DaemonSet, ReplicaSet
])
# The Ray cluster spec of a RayJob or RayCluster (null for the other kinds, and for a RayJob that selects an
# existing cluster, which the queue policy and Kueue do not admit anyway).
_RAY_CLUSTER = ("object.kind == 'RayCluster' ? object.spec : "
                "object.kind == 'RayJob' && has(object.spec.rayClusterSpec) ? object.spec.rayClusterSpec : null")


def _workload_rules() -> list[dict[str, str]]:
    tiers = "{" + ", ".join(f"'{local_queue_name(t)}': {_cel_list(c)}" for t, c in TIER_PRIORITY_CLASSES.items()) + "}"
    queue = f"object.metadata.labels['{QUEUE_NAME_LABEL}']"
    queued = f"has(object.metadata.labels) && '{QUEUE_NAME_LABEL}' in object.metadata.labels"
    kueue_kind = f"object.kind in {_cel_list(KUEUE_JOB_KINDS)}"
    ray = "variables.ray"
    head = f"{ray}.headGroupSpec"
    allowed = ", ".join(f"{local_queue_name(t)}: {'/'.join(c)}" for t, c in TIER_PRIORITY_CLASSES.items())
    return [
        {"expression": f"{kueue_kind} || !variables.templates.exists(t, has(t.spec) && {_accelerators('t.spec')})",
         "message": f"only PyTorchJobs, MPIJobs, RayJobs and RayClusters (queued by Kueue) may request "
                    f"{GPU_RESOURCE} or {EFA_RESOURCE} in team namespaces; batch Jobs, CronJobs and workload "
                    f"controllers run on CPU"},
        {"expression": f"!({kueue_kind}) || !({queued}) || ({queue} in {tiers} && variables.templates.all(t, "
                       f"has(t.spec) && has(t.spec.priorityClassName) && t.spec.priorityClassName in "
                       f"{tiers}[{queue}]))",
         "message": f"every pod template of a job must set priorityClassName to a class of its queue's tier "
                    f"({allowed}); the job builders and llmft do"},
        {"expression": f"!(object.kind in ['PyTorchJob', 'MPIJob']) || !has(object.spec.runPolicy) || "
                       f"!has(object.spec.runPolicy.schedulingPolicy) || "
                       f"!has(object.spec.runPolicy.schedulingPolicy.priorityClass) || "
                       f"object.spec.runPolicy.schedulingPolicy.priorityClass == '' || ({queued} && {queue} in {tiers} "
                       f"&& object.spec.runPolicy.schedulingPolicy.priorityClass in {tiers}[{queue}])",
         "message": f"spec.runPolicy.schedulingPolicy.priorityClass is the priority Kueue queues a PyTorchJob or MPIJob "
                    f"at (it wins over the pod templates): it must be a class of the queue's tier ({allowed}) or unset"},
        {"expression": f"!has(object.metadata.ownerReferences) || size(object.metadata.ownerReferences) == 0 || "
                       f"{_controllers()}",
         "message": "ownerReferences on jobs and workload controllers in team namespaces are set by the platform's "
                    "controllers only (Kueue does not queue an object owned by a job it manages): remove "
                    "metadata.ownerReferences"},
        {"expression": f"oldObject == null || !has(oldObject.metadata.ownerReferences) || "
                       f"size(oldObject.metadata.ownerReferences) == 0 || {_controllers()}",
         "message": "this object belongs to another job (its ownerReferences, e.g. the RayCluster of a RayJob): only "
                    "its controller changes it; change the owning job instead"},
        {"expression": "variables.templates.all(t, !has(t.spec) || !has(t.spec.nodeName) || t.spec.nodeName == '')",
         "message": "pod templates in team namespaces may not set spec.nodeName: the scheduler and Kueue place pods"},
        {"expression": "variables.templates.all(t, !has(t.spec) || " + _cpu_placement("t.spec") + ")",
         "message": "a pod template without GPUs may tolerate only the CPU job pool's taint (llmft.io/cpu-jobs): CPU "
                    "pods may not run on GPU or HyperPod nodes, or make Karpenter launch them"},
        {"expression": "object.kind != 'MPIJob' || ((!has(object.spec.runLauncherAsWorker) || "
                       "!object.spec.runLauncherAsWorker) && (!has(object.spec.mpiReplicaSpecs) || "
                       "!('Launcher' in object.spec.mpiReplicaSpecs) || "
                       "!has(object.spec.mpiReplicaSpecs.Launcher.template.spec) || "
                       f"!{_accelerators('object.spec.mpiReplicaSpecs.Launcher.template.spec')}))",
         "message": f"an MPIJob's launcher runs on CPU in team namespaces: MPI Operator v0.8 creates the launcher as a "
                    f"batch Job, and pods of batch Jobs may not request {GPU_RESOURCE} or {EFA_RESOURCE}, so a launcher "
                    f"with GPUs would never start; give GPUs to the Worker replicas only and leave "
                    f"runLauncherAsWorker false"},
        {"expression": f"object.kind != 'Job' || !has(object.spec.parallelism) || "
                       f"object.spec.parallelism <= {MAX_JOB_PARALLELISM}",
         "message": f"batch Jobs in team namespaces run at most {MAX_JOB_PARALLELISM} pods at once (spec.parallelism)"},
        {"expression": f"!has(object.metadata.labels) || !('{WORKLOAD_PRIORITY_LABEL}' in object.metadata.labels)",
         "message": f"the label {WORKLOAD_PRIORITY_LABEL} is not allowed in team namespaces: a job's priority is its "
                    f"tier's PriorityClass"},
        {"expression": f"{ray} == null || (has({ray}.authOptions) && has({ray}.authOptions.mode) && "
                       f"{ray}.authOptions.mode == 'token')",
         "message": "Ray clusters in team namespaces must use token authentication (authOptions.mode: token); the "
                    "RayJob builders and llmft set it"},
        {"expression": f"{ray} == null || ((!has({head}.serviceType) || {head}.serviceType == 'ClusterIP') && "
                       f"(!has({head}.headService) || !has({head}.headService.spec) || "
                       f"((!has({head}.headService.spec.type) || {head}.headService.spec.type == 'ClusterIP') && "
                       f"(!has({head}.headService.spec.externalIPs) || "
                       f"size({head}.headService.spec.externalIPs) == 0))))",
         "message": "the Ray head Service must stay ClusterIP without externalIPs (reach the dashboard with "
                    "`kubectl port-forward` or llmft)"},
        {"expression": f"{ray} == null || ((!has({head}.enableIngress) || {head}.enableIngress == false) && "
                       f"!has({ray}.networkPolicy))",
         "message": "Ray clusters in team namespaces may not create an Ingress (enableIngress) or NetworkPolicies "
                    "(networkPolicy): the namespace's NetworkPolicies are the platform's"},
    ]


def _secret_rules() -> list[dict[str, str]]:
    return [{
        "expression": "!has(object.type) || object.type != 'kubernetes.io/service-account-token'",
        "message": "Secrets of type kubernetes.io/service-account-token are not allowed in team namespaces: the "
                   "control plane fills them with a token that never expires and outlives team membership",
    }]


def _service_rules() -> list[dict[str, str]]:
    return [
        {"expression": "!has(object.spec.type) || object.spec.type == 'ClusterIP'",
         "message": "Services in team namespaces are ClusterIP only (no LoadBalancer, NodePort or ExternalName)"},
        {"expression": "!has(object.spec.externalIPs) || size(object.spec.externalIPs) == 0",
         "message": "Services in team namespaces may not set externalIPs (CVE-2020-8554: traffic interception)"},
    ]


_WORKLOAD_RULES = [
    {"apiGroups": ["kubeflow.org"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
     "resources": ["pytorchjobs"]},
    {"apiGroups": ["kubeflow.org"], "apiVersions": ["v2beta1"], "operations": ["CREATE", "UPDATE"],
     "resources": ["mpijobs"]},
    {"apiGroups": ["ray.io"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
     "resources": ["rayjobs", "rayclusters"]},
    {"apiGroups": ["batch"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
     "resources": ["jobs", "cronjobs"]},
    {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
     "resources": ["deployments", "statefulsets", "daemonsets", "replicasets"]},
]

POLICIES: dict[str, dict] = {
    POD_POLICY: {
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                "operations": ["CREATE", "UPDATE"], "resources": ["pods"]}]},
        "validations": _pod_rules(),
    },
    WORKLOAD_POLICY: {
        "matchConstraints": {"resourceRules": _WORKLOAD_RULES},
        "variables": [{"name": "templates", "expression": _TEMPLATES},
                      {"name": "ray", "expression": _RAY_CLUSTER}],
        "validations": _workload_rules(),
    },
    SECRET_POLICY: {
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                "operations": ["CREATE", "UPDATE"], "resources": ["secrets"]}]},
        "validations": _secret_rules(),
    },
    SERVICE_POLICY: {
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                "operations": ["CREATE", "UPDATE"], "resources": ["services"]}]},
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
            policy = cdk8s.ApiObject(self, f"{name}-policy", api_version="admissionregistration.k8s.io/v1",
                                     kind="ValidatingAdmissionPolicy",
                                     metadata=cdk8s.ApiObjectMetadata(name=name, labels=labels))
            policy.add_json_patch(cdk8s.JsonPatch.add("/spec", {"failurePolicy": "Fail", **spec}))
            binding = cdk8s.ApiObject(self, f"{name}-binding", api_version="admissionregistration.k8s.io/v1",
                                      kind="ValidatingAdmissionPolicyBinding",
                                      metadata=cdk8s.ApiObjectMetadata(name=name, labels=labels))
            binding.add_json_patch(cdk8s.JsonPatch.add("/spec", {
                "policyName": name, "validationActions": ["Deny"],
                "matchResources": {"namespaceSelector": {"matchLabels": {MANAGED_NAMESPACE_LABEL: "true"}}},
            }))
            binding.add_dependency(policy)
            self.policies[name], self.bindings[name] = policy, binding
