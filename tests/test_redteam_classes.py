"""The classes a second red team got through (issue 30), each as rows derived from the upstream rule it abuses, run
against the rendered manifests of every environment (`python -m k8s_charts`) with admission semantics: operation,
the requesting user (``request.userInfo``), ``oldObject`` on UPDATE (tests/guardrail_eval.py).

1. Kueue bypass through ownership: Kueue does not queue an object whose *controller* ownerReference names a kind it
   manages (v0.19.2 jobframework ``IsOwnerManagedByKueueForObject``); teams may write ownerReferences.
2. Priority from ``spec.runPolicy.schedulingPolicy.priorityClass``: Kueue takes a Kubeflow job's and an MPIJob's
   workload priority from it first (v0.19.2 kubeflowjob_controller.go ``PriorityClass``).
3. CPU pods anywhere: tolerations and ``nodeName`` of pods without GPUs; the platform's controllers' priority.
4. Object counts: a ResourceQuota over every kind the team Role may create; batch Job parallelism.
5. Non-expiring ServiceAccount tokens: Secrets of type ``kubernetes.io/service-account-token``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from config import load_config
from k8s_charts.priority_classes import CONTROLLER_PRIORITY_CLASS
from config.kubernetes import TIER_PRIORITY_CLASSES
from k8s_charts.queues import QUEUE_NAME_LABEL, local_queue_name
from k8s_charts.team_guardrails import (
    ALLOWED_CPU_TOLERATIONS,
    KUBERAY_OPERATOR,
    MAX_JOB_PARALLELISM,
    PLATFORM_CONTROLLERS,
    SECRET_POLICY,
)
from k8s_charts.team_namespaces import OBJECT_QUOTA
from k8s_charts.tiers import CPU_JOBS_TAINT

from .conftest import ENVIRONMENTS
from .guardrail_eval import GROUP_OF, admission_refusals, rbac_allows, resource_of
from .test_team_guardrails import examples, first, ns_labels, team_manifests

SYSTEM_CLUSTER_CRITICAL = 2_000_000_000
"""Value of the built-in PriorityClass system-cluster-critical (kubernetes.io "Pod Priority and Preemption")."""


def kueue_owner_kinds() -> list[tuple[str, str]]:
    """(apiVersion, kind) of every job kind Kueue manages here: an owner Kueue would treat as the parent job."""
    from cdk_constructs.compute.kueue import INTEGRATIONS

    versions = {"kubeflow.org/pytorchjob": ("kubeflow.org/v1", "PyTorchJob"),
                "kubeflow.org/mpijob": ("kubeflow.org/v2beta1", "MPIJob"),
                "ray.io/rayjob": ("ray.io/v1", "RayJob"), "ray.io/raycluster": ("ray.io/v1", "RayCluster"),
                "deployment": ("apps/v1", "Deployment"), "pod": ("v1", "Pod")}
    return [versions[i] for i in INTEGRATIONS]


def team_jobs(env: str) -> list[dict[str, Any]]:
    """One object of every job kind a team creates (the builders' examples), plus an MPIJob and a bare RayCluster
    built from them."""
    jobs = [copy.deepcopy(j) for j in examples(env)]
    pytorch = first(env, "PyTorchJob")
    mpi = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": copy.deepcopy(pytorch["metadata"]),
           "spec": {"runPolicy": {}, "mpiReplicaSpecs": {
               "Worker": copy.deepcopy(pytorch["spec"]["pytorchReplicaSpecs"]["Worker"])}}}
    ray = first(env, "RayJob")
    cluster = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": copy.deepcopy(ray["metadata"]),
               "spec": copy.deepcopy(ray["spec"]["rayClusterSpec"])}
    return jobs + [mpi, cluster]


def refusals(env: str, obj: dict[str, Any], **kw) -> list[str]:
    ns = obj["metadata"]["namespace"]
    return [r.message for r in admission_refusals(team_manifests(env), obj, ns_labels(env, ns), **kw)]


def owned_by(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"]["ownerReferences"] = [{"apiVersion": api_version, "kind": kind, "name": "tiny-admitted",
                                          "uid": "0000", "controller": True, "blockOwnerDeletion": True}]
    return out


# ---- 1. ownership ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_platform_jobs_pass_before_the_forgeries(env: str) -> None:
    for job in team_jobs(env):
        assert refusals(env, job) == [], job["kind"]


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_a_team_cannot_forge_ownership_of_any_job_kind(env: str, operation: str) -> None:
    """Every job kind a team writes, "owned" by every kind Kueue manages, is refused on create and on update; the
    same object from the platform's controllers passes the ownership rule."""
    for job in team_jobs(env):
        for api_version, kind in kueue_owner_kinds():
            forged = owned_by(job, api_version, kind)
            old = job if operation == "UPDATE" else None
            found = refusals(env, forged, operation=operation, old=old)
            assert any("ownerReferences" in m for m in found), (job["kind"], kind, operation)
            by_controller = refusals(env, forged, operation=operation, old=old, user=KUBERAY_OPERATOR)
            assert not any("ownerReferences" in m or "belongs to another job" in m for m in by_controller)
    # a controller ownerReference without `controller: true` (not what Kueue reads) is refused too: no exceptions
    loose = owned_by(first(env, "RayJob"), "ray.io/v1", "RayJob")
    del loose["metadata"]["ownerReferences"][0]["controller"]
    assert any("ownerReferences" in m for m in refusals(env, loose))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_queue_name_exemption_is_the_kuberay_operators_only(env: str) -> None:
    """A RayCluster controlled by a RayJob and without a queue name: exempt from the queue policy only when the
    KubeRay operator creates it (what KubeRay does for an admitted RayJob), refused for a team member."""
    ray = first(env, "RayJob")
    cluster = {"apiVersion": "ray.io/v1", "kind": "RayCluster",
               "metadata": {"name": "rc", "namespace": ray["metadata"]["namespace"]},
               "spec": copy.deepcopy(ray["spec"]["rayClusterSpec"])}
    forged = owned_by(cluster, "ray.io/v1", "RayJob")
    team = refusals(env, forged)
    assert any(QUEUE_NAME_LABEL in m for m in team) and any("ownerReferences" in m for m in team)
    assert refusals(env, forged, user=KUBERAY_OPERATOR) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_rayjobs_cluster_cannot_be_scaled_by_the_team(env: str) -> None:
    """Patching the replicas of the RayCluster an admitted RayJob created (UPDATE, ownerReferences kept or
    dropped) is refused; KubeRay's own updates pass."""
    ray = first(env, "RayJob")
    stored = owned_by({"apiVersion": "ray.io/v1", "kind": "RayCluster",
                       "metadata": {"name": "rc", "namespace": ray["metadata"]["namespace"]},
                       "spec": copy.deepcopy(ray["spec"]["rayClusterSpec"])}, "ray.io/v1", "RayJob")
    scaled = copy.deepcopy(stored)
    for group in scaled["spec"].get("workerGroupSpecs", []):
        group["replicas"] = group["maxReplicas"] = 64
    dropped = copy.deepcopy(scaled)
    del dropped["metadata"]["ownerReferences"]
    for new in (scaled, dropped):
        assert any("belongs to another job" in m for m in refusals(env, new, operation="UPDATE", old=stored))
    assert refusals(env, scaled, operation="UPDATE", old=stored, user=KUBERAY_OPERATOR) == []


def test_trusted_controllers_are_the_platforms_own() -> None:
    """The identities the rules trust are the service accounts the platform installs its controllers with."""
    from cdk_constructs.compute.hyperpod_prerequisites import CHART_DIR
    from cdk_constructs.compute.kueue import KUEUE_NAMESPACE
    from cdk_constructs.compute.kuberay_operator import KubeRayOperator

    assert KUBERAY_OPERATOR in PLATFORM_CONTROLLERS
    assert f"system:serviceaccount:{KUEUE_NAMESPACE}:kueue-controller-manager" in PLATFORM_CONTROLLERS
    import inspect
    assert inspect.signature(KubeRayOperator.__init__).parameters["namespace"].default == KUBERAY_OPERATOR.split(":")[2]
    for template, sa in (("training-operator.yaml", "kubeflow:training-operator"),
                         ("mpi-operator.yaml", "mpi-operator:mpi-operator")):
        text = (CHART_DIR / "templates" / template).read_text()
        ns, name = sa.split(":")
        assert f"serviceAccountName: {name}" in text and f"namespace: {ns}" in text
        assert f"system:serviceaccount:{sa}" in PLATFORM_CONTROLLERS
    # no team identity is trusted: team groups and team service accounts are not in the list
    for env in ENVIRONMENTS:
        for team in load_config(env).kubernetes.teams:
            assert not any(f":{team.namespace}:" in user for user in PLATFORM_CONTROLLERS)


# ---- 2. priority from runPolicy ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_run_policy_priority_class_is_bound_to_the_tier(env: str) -> None:
    config = load_config(env)
    classes = {c.name for c in config.kubernetes.priority_classes} | {"system-cluster-critical",
                                                                       "system-node-critical"}
    by_queue = {local_queue_name(t): set(c) for t, c in TIER_PRIORITY_CLASSES.items()}
    for job in (j for j in team_jobs(env) if j["kind"] in ("PyTorchJob", "MPIJob")):
        allowed = by_queue[job["metadata"]["labels"][QUEUE_NAME_LABEL]]
        for name in sorted(classes):
            forged = copy.deepcopy(job)
            forged["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = {"priorityClass": name}
            found = [m for m in refusals(env, forged) if "runPolicy" in m]
            assert bool(found) == (name not in allowed), (job["kind"], allowed, name)


# ---- 3. CPU pods -------------------------------------------------------------------------------------------------------

def cpu_template(env: str) -> dict[str, Any]:
    """A CPU pod template of the platform's own (the RayJob submitter or head: CPU job pool toleration)."""
    ray = first(env, "RayJob")
    return copy.deepcopy(ray["spec"]["rayClusterSpec"]["headGroupSpec"]["template"])


BAD_TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
    {"key": "dedicated", "operator": "Equal", "value": "hyperpod", "effect": "NoSchedule"},
    {"operator": "Exists"},                                       # tolerates every taint
    {"key": "llmft.io/cpu-jobs", "operator": "Exists"},           # every effect, NoExecute included
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"},
]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_cpu_pods_stay_off_gpu_nodes(env: str) -> None:
    ns = first(env, "RayJob")["metadata"]["namespace"]
    base = cpu_template(env)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ns}, "spec": base["spec"]}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": ns},
           "spec": {"template": copy.deepcopy(base)}}
    assert refusals(env, pod) == [] and refusals(env, job) == []
    # what the DefaultTolerationSeconds admission plugin adds before validation stays allowed
    defaults = [{"key": k, "operator": "Exists", "effect": e, "tolerationSeconds": 300}
                for k, e in ALLOWED_CPU_TOLERATIONS if e == "NoExecute"]
    key, value, effect = CPU_JOBS_TAINT
    ok = [{"key": key, "operator": "Equal", "value": value, "effect": effect}] + defaults
    for obj, spec in ((pod, pod["spec"]), (job, job["spec"]["template"]["spec"])):
        spec["tolerations"] = ok
        assert refusals(env, obj) == [], obj["kind"]
        for bad in BAD_TOLERATIONS:
            spec["tolerations"] = ok + [bad]
            assert any("CPU job pool" in m for m in refusals(env, obj)), (obj["kind"], bad)
        spec["tolerations"] = ok
        spec["nodeName"] = "ip-10-1-2-3.ec2.internal"
        assert any("nodeName" in m for m in refusals(env, obj)), obj["kind"]
        del spec["nodeName"]
    # a scheduled pod (nodeName set by the binding) can still be updated by controllers
    pod["spec"]["nodeName"] = "ip-10-1-2-3.ec2.internal"
    assert refusals(env, pod, operation="UPDATE", old=pod, user="system:serviceaccount:kube-system:job-controller") == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_gpu_job_templates_cannot_pin_nodes_either(env: str) -> None:
    job = first(env, "PyTorchJob")
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["nodeName"] = "ip-10-1-2-3.ec2.internal"
    assert any("nodeName" in m for m in refusals(env, job))


def test_platform_controllers_outrank_every_team_priority() -> None:
    """Kueue, KubeRay and the training and MPI operators run at system-cluster-critical, above every PriorityClass
    any environment defines, so no team pod can preempt them; teams cannot use that class (their quota admits pods
    only of their tiers' classes)."""
    from cdk_constructs.compute.hyperpod_prerequisites import CHART_DIR

    from .conftest import synthesize
    from .test_compute import helm_releases

    assert CONTROLLER_PRIORITY_CLASS == "system-cluster-critical"
    for env in ENVIRONMENTS:
        config = load_config(env)
        assert max(c.value for c in config.kubernetes.priority_classes) < SYSTEM_CLUSTER_CRITICAL
        for team in config.kubernetes.teams:
            assert CONTROLLER_PRIORITY_CLASS not in team.allowed_priority_classes
    releases = {name: r["Values"] for name, r in helm_releases(synthesize("dev")).items()}
    assert releases["kueue"]["controllerManager"]["manager"]["priorityClassName"] == CONTROLLER_PRIORITY_CLASS
    assert releases["kuberay-operator"]["priorityClassName"] == CONTROLLER_PRIORITY_CLASS
    for template in ("training-operator.yaml", "mpi-operator.yaml"):
        assert f"priorityClassName: {CONTROLLER_PRIORITY_CLASS}" in (CHART_DIR / "templates" / template).read_text()


# ---- 4. object counts --------------------------------------------------------------------------------------------------

def _quota_key(group: str, resource: str) -> set[str]:
    """The keys an object count quota accepts for (group, resource) (kubernetes.io "Resource Quotas")."""
    core = {"pods", "configmaps", "secrets", "services", "persistentvolumeclaims", "replicationcontrollers",
            "resourcequotas"}
    if not group:
        return {f"count/{resource}"} | ({resource} if resource in core else set())
    return {f"count/{resource}.{group}"}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_kind_a_team_creates_is_counted(env: str) -> None:
    manifests = team_manifests(env)
    for team in load_config(env).kubernetes.teams:
        (quota,) = [d for d in manifests if d["kind"] == "ResourceQuota" and d["metadata"]["name"] == "objects"
                    and d["metadata"]["namespace"] == team.namespace]
        hard = quota["spec"]["hard"]
        assert {k: int(v) for k, v in hard.items()} == OBJECT_QUOTA
        subjects = {("Group", g) for g in _team_groups(manifests, team.namespace)}
        for kind, group in GROUP_OF.items():
            resource = resource_of(kind)
            if rbac_allows(manifests, subjects, "create", group, resource, team.namespace):
                assert _quota_key(group, resource) & set(hard), (team.name, kind)
        assert "pods" in hard  # pods are created by the team's jobs' controllers


def _team_groups(manifests: list[dict[str, Any]], namespace: str) -> set[str]:
    return {s["name"] for d in manifests if d["kind"] == "RoleBinding" and d["metadata"].get("namespace") == namespace
            for s in d.get("subjects", []) if s["kind"] == "Group"}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_batch_job_parallelism_is_capped(env: str) -> None:
    ns = first(env, "RayJob")["metadata"]["namespace"]
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": ns},
           "spec": {"template": cpu_template(env)}}
    for parallelism, refused in ((1, False), (MAX_JOB_PARALLELISM, False), (MAX_JOB_PARALLELISM + 1, True),
                                 (100_000, True)):
        job["spec"]["parallelism"] = parallelism
        assert any("parallelism" in m for m in refusals(env, job)) == refused, parallelism
    assert MAX_JOB_PARALLELISM <= OBJECT_QUOTA["pods"]


# ---- 5. ServiceAccount tokens ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_no_long_lived_service_account_tokens(env: str) -> None:
    ns = first(env, "RayJob")["metadata"]["namespace"]
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {
        "name": "forever", "namespace": ns, "annotations": {"kubernetes.io/service-account.name": "training"}},
        "type": "kubernetes.io/service-account-token"}
    for operation in ("CREATE", "UPDATE"):
        assert any("service-account-token" in m for m in refusals(env, secret, operation=operation,
                                                                     old=secret if operation == "UPDATE" else None))
    for kind in ("Opaque", None):
        plain = copy.deepcopy(secret)
        plain["type"] = kind
        if kind is None:
            del plain["type"]
        assert refusals(env, plain) == []
    assert any(d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == SECRET_POLICY
               for d in team_manifests(env))


# ---- MPIJob launchers ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_an_mpijob_launcher_with_gpus_is_refused_at_create(env: str) -> None:
    """MPI Operator v0.8 runs the launcher as a batch Job, whose GPU pods the pod policy refuses: such an MPIJob
    would be requeued forever, so the workload policy refuses it up front; a CPU launcher passes."""
    (mpi,) = [j for j in team_jobs(env) if j["kind"] == "MPIJob"]
    worker = mpi["spec"]["mpiReplicaSpecs"]["Worker"]["template"]
    cpu = copy.deepcopy(cpu_template(env))
    mpi["spec"]["mpiReplicaSpecs"]["Launcher"] = {"replicas": 1, "template": cpu}
    assert not any("launcher" in m for m in refusals(env, mpi))
    gpu = copy.deepcopy(mpi)
    gpu["spec"]["mpiReplicaSpecs"]["Launcher"]["template"] = copy.deepcopy(worker)
    assert any("launcher" in m for m in refusals(env, gpu))
    as_worker = copy.deepcopy(mpi)
    as_worker["spec"]["runLauncherAsWorker"] = True
    assert any("launcher" in m for m in refusals(env, as_worker))
