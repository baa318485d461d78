"""The capacity plane and the guard rails of team namespaces (issue 21), against the rendered manifests of `make synth`
(`python -m k8s_charts`): the team Role (RBAC), the admission policies' CEL evaluated with cel-python against attack
objects, and the quotas against the node model.

Every attack is something a member of a team could try; each must be refused by at least one object the team cannot
change, and the platform's own jobs (the builders' examples) must pass every policy.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest
import yaml

from config import load_config
from k8s_charts.guardrails.common import POD_POLICY, SERVICE_POLICY, WORKLOAD_POLICY
from k8s_charts.node_shapes import node_kinds
from k8s_charts.queues import QUEUE_NAME_LABEL
from k8s_charts.team_isolation import STRICT_GROUPS_POLICY
from k8s_charts.values import team_group

from .conftest import ENVIRONMENTS, manifests
from .guardrail_eval import (
    admission_refusals,
    limit_range_refusals,
    policy_refusals,
    quota_refusals,
    rbac_allows,
)

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

GPU = "nvidia.com/gpu"
EFA = "vpc.amazonaws.com/efa"


@functools.cache
def _parsed(env: str, name: str) -> tuple[dict[str, Any], ...]:
    """The documents of dist/<env>/<name>.yaml, parsed once per process (libyaml where PyYAML has it)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(d for d in yaml.load_all((manifests(env) / f"{name}.yaml").read_text(), Loader=loader) if d)


def docs(env: str, name: str) -> list[dict[str, Any]]:
    """A fresh copy of the documents (tests change what they get)."""
    return copy.deepcopy(list(_parsed(env, name)))


def team_manifests(env: str) -> list[dict[str, Any]]:
    return docs(env, "team-namespaces") + docs(env, "queueing")


def examples(env: str) -> list[dict[str, Any]]:
    return [
        d
        for n in ("example-sft", "example-eval", "example-grpo")
        for d in docs(env, n)
        if d["kind"] in ("PyTorchJob", "RayJob", "Job")
    ]


def ns_labels(env: str, namespace: str) -> dict[str, str]:
    (ns,) = [d for d in docs(env, "team-namespaces") if d["kind"] == "Namespace" and d["metadata"]["name"] == namespace]
    return {**ns["metadata"]["labels"], "kubernetes.io/metadata.name": namespace}


def policy(env: str, name: str) -> dict[str, Any]:
    (p,) = [
        d for d in team_manifests(env) if d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == name
    ]
    return p


def first(env: str, kind: str) -> dict[str, Any]:
    return copy.deepcopy(next(d for d in examples(env) if d["kind"] == kind))


def gpu_template(env: str) -> dict[str, Any]:
    """The worker pod template of the builders' SFT PyTorchJob (GPUs, EFA, the team identity)."""
    job = first(env, "PyTorchJob")
    return copy.deepcopy(job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"])


def pod_of(template: dict[str, Any], namespace: str, owner: dict[str, Any] | None = None) -> dict[str, Any]:
    meta = {"name": "p", "namespace": namespace, **copy.deepcopy(template.get("metadata", {}))}
    if owner:
        meta["ownerReferences"] = [
            {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": "o", "uid": "u", "controller": True}
        ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": copy.deepcopy(template["spec"])}


def workload(kind: str, api_version: str, template: dict[str, Any], namespace: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"selector": {"matchLabels": {"a": "b"}}, "template": template}
    if kind == "CronJob":
        spec = {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": template}}}
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "w", "namespace": namespace}, "spec": spec}


# ---- the platform's own jobs pass ------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_builder_jobs_and_their_pods_pass_every_guard_rail(env: str) -> None:
    m = team_manifests(env)
    for job in examples(env):
        ns = job["metadata"]["namespace"]
        assert admission_refusals(m, job, ns_labels(env, ns)) == [], job["metadata"]["name"]
        owner = {"PyTorchJob": job, "RayJob": {"apiVersion": "ray.io/v1", "kind": "RayCluster"}, "Job": job}[
            job["kind"]
        ]
        templates = (
            list(job["spec"].get("pytorchReplicaSpecs", {}).values())
            if job["kind"] == "PyTorchJob"
            else [job["spec"]["rayClusterSpec"]["headGroupSpec"], *job["spec"]["rayClusterSpec"]["workerGroupSpecs"]]
            if job["kind"] == "RayJob"
            else [job["spec"]]
        )
        for t in templates:
            pod = pod_of(t["template"], ns, owner)
            assert admission_refusals(m, pod, ns_labels(env, ns)) == [], (job["metadata"]["name"], pod["spec"])
            assert quota_refusals(m, ns, pod["spec"]) == []
            assert limit_range_refusals(m, ns, pod["spec"]) == []


# ---- attacks: GPUs outside Kueue -------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_gpu_pods_only_through_kueue_managed_jobs(env: str) -> None:
    m, pods = team_manifests(env), policy(env, POD_POLICY)
    ns = first(env, "PyTorchJob")["metadata"]["namespace"]
    template = gpu_template(env)
    template["spec"]["priorityClassName"] = "critical"
    template["spec"]["tolerations"] = [{"operator": "Exists"}]
    bare = pod_of(template, ns)
    (message,) = policy_refusals(pods, bare)
    assert "only through Kueue" in message and QUEUE_NAME_LABEL in message
    for owner in (
        {"apiVersion": "apps/v1", "kind": "ReplicaSet"},
        {"apiVersion": "apps/v1", "kind": "DaemonSet"},
        {"apiVersion": "apps/v1", "kind": "StatefulSet"},
        {"apiVersion": "batch/v1", "kind": "Job"},
        {"apiVersion": "v1", "kind": "ReplicationController"},
        # a look-alike kind in another API group does not count
        {"apiVersion": "evil.example.com/v1", "kind": "PyTorchJob"},
    ):
        assert policy_refusals(pods, pod_of(template, ns, owner)), owner
    # an ownerReference that is not the controller does not count either
    not_controller = pod_of(template, ns, {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"})
    not_controller["metadata"]["ownerReferences"][0]["controller"] = False
    assert policy_refusals(pods, not_controller)
    # EFA alone, in limits only, or in an init container is an accelerator as well
    efa_only = pod_of(template, ns)
    efa_only["spec"]["containers"][0]["resources"] = {"limits": {EFA: "1"}}
    assert policy_refusals(pods, efa_only)
    init = pod_of(
        {
            "spec": {
                "containers": [{"name": "c", "image": "i"}],
                "initContainers": [{"name": "i", "image": "i", "resources": {"limits": {GPU: "1"}}}],
            }
        },
        ns,
    )
    assert policy_refusals(pods, init)
    for owner in (
        {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"},
        {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob"},
        {"apiVersion": "ray.io/v1", "kind": "RayCluster"},
    ):
        assert policy_refusals(pods, pod_of(template, ns, owner)) == [], owner
    # a CPU pod needs no owner (Ray submitters, batch Jobs of llmft's CPU steps); it runs on the CPU job pool (issue
    # 40: never on the system nodes, tests/test_redteam_system_nodes.py)
    from k8s_charts.tiers import cpu_job_node_selector

    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}
    cpu = pod_of({"spec": {"containers": [container], "nodeSelector": cpu_job_node_selector()}}, ns)
    assert policy_refusals(pods, cpu) == []
    # the binding selects every team namespace and refuses (Deny)
    assert {r.by for r in admission_refusals(m, bare, ns_labels(env, ns))} >= {
        f"ValidatingAdmissionPolicy {POD_POLICY}"
    }


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize(
    ("kind", "api_version"),
    [
        ("Deployment", "apps/v1"),
        ("DaemonSet", "apps/v1"),
        ("StatefulSet", "apps/v1"),
        ("ReplicaSet", "apps/v1"),
        ("Job", "batch/v1"),
        ("CronJob", "batch/v1"),
    ],
)
def test_workload_controllers_with_gpus_are_refused(env: str, kind: str, api_version: str) -> None:
    """GPUs in a StatefulSet, DaemonSet, ReplicaSet, batch Job or CronJob, or in a Deployment that is not an llmft
    serving one (here: no queue label), are refused; every Deployment in a team namespace is a serving one, so a CPU
    Deployment is refused too (tests/test_redteam_classes.py has the serving attacks)."""
    ns = first(env, "PyTorchJob")["metadata"]["namespace"]
    labels = ns_labels(env, ns)
    obj = workload(kind, api_version, gpu_template(env), ns)
    messages = policy_refusals(policy(env, WORKLOAD_POLICY), obj, namespace_labels=labels)
    assert [m for m in messages if "the other workload controllers run on CPU" in m], messages
    from k8s_charts.tiers import cpu_job_node_selector

    cpu_spec = {"containers": [{"name": "c", "image": "i"}], "nodeSelector": cpu_job_node_selector()}
    cpu = workload(kind, api_version, {"spec": cpu_spec}, ns)
    refusals = policy_refusals(policy(env, WORKLOAD_POLICY), cpu, namespace_labels=labels)
    if kind == "Deployment":
        assert len(refusals) == 1 and refusals[0].startswith("Deployments in team namespaces are llmft serve endpoints")
    else:
        assert refusals == []


# ---- attacks: priority, WorkloadPriorityClass, Ray -------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_priority_class_is_bound_to_the_queue_tier(env: str) -> None:
    workloads = policy(env, WORKLOAD_POLICY)
    job = first(env, "PyTorchJob")
    tier = job["metadata"]["labels"][QUEUE_NAME_LABEL]
    from config.kubernetes import TIER_PRIORITY_CLASSES

    for tier_name, classes in TIER_PRIORITY_CLASSES.items():
        for cls in {c for cs in TIER_PRIORITY_CLASSES.values() for c in cs} - set(classes):
            bumped = copy.deepcopy(job)
            bumped["metadata"]["labels"][QUEUE_NAME_LABEL] = tier_name
            for r in bumped["spec"]["pytorchReplicaSpecs"].values():
                r["template"]["spec"]["priorityClassName"] = cls
            (message,) = policy_refusals(workloads, bumped)
            assert "priorityClassName to a class of its queue's tier" in message, (tier_name, cls)
    missing = copy.deepcopy(job)
    for r in missing["spec"]["pytorchReplicaSpecs"].values():
        r["template"]["spec"].pop("priorityClassName")
    assert policy_refusals(workloads, missing)
    unknown_queue = copy.deepcopy(job)
    unknown_queue["metadata"]["labels"][QUEUE_NAME_LABEL] = "vip"
    assert policy_refusals(workloads, unknown_queue)
    wpc = copy.deepcopy(job)
    wpc["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "urgent"
    (message,) = policy_refusals(workloads, wpc)
    assert "kueue.x-k8s.io/priority-class" in message
    assert tier  # the builders' job names its tier's queue


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_ray_clusters_authenticate_and_expose_nothing(env: str) -> None:
    workloads = policy(env, WORKLOAD_POLICY)
    rayjob = first(env, "RayJob")
    assert rayjob["spec"]["rayClusterSpec"]["authOptions"]["mode"] == "token"
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {
            "name": "rc",
            "namespace": rayjob["metadata"]["namespace"],
            "labels": {QUEUE_NAME_LABEL: rayjob["metadata"]["labels"][QUEUE_NAME_LABEL]},
        },
        "spec": copy.deepcopy(rayjob["spec"]["rayClusterSpec"]),
    }
    assert policy_refusals(workloads, cluster) == []
    attacks = {
        "no token auth": lambda s: s.pop("authOptions"),
        "auth disabled": lambda s: s.update(authOptions={"mode": "disabled"}),
        "head LoadBalancer": lambda s: s["headGroupSpec"].update(serviceType="LoadBalancer"),
        "head NodePort": lambda s: s["headGroupSpec"].update(serviceType="NodePort"),
        "head externalIPs": lambda s: s["headGroupSpec"].update(headService={"spec": {"externalIPs": ["10.0.0.5"]}}),
        "head service type": lambda s: s["headGroupSpec"].update(headService={"spec": {"type": "LoadBalancer"}}),
        "ingress": lambda s: s["headGroupSpec"].update(enableIngress=True),
        "own network policy": lambda s: s.update(
            networkPolicy={"head": {"egressRules": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}]}}
        ),
    }
    for name, attack in attacks.items():
        for obj, spec_of in ((cluster, lambda o: o["spec"]), (rayjob, lambda o: o["spec"]["rayClusterSpec"])):
            bad = copy.deepcopy(obj)
            attack(spec_of(bad))
            assert policy_refusals(workloads, bad), (name, obj["kind"])


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize(
    "spec",
    [
        {"type": "LoadBalancer"},
        {"type": "NodePort"},
        {"type": "ExternalName", "externalName": "mlflow.example.com"},
        {"externalIPs": ["10.0.0.5"]},
        {"type": "ClusterIP", "externalIPs": ["1.2.3.4"]},
    ],
)
def test_services_are_cluster_ip_without_external_ips(env: str, spec: dict[str, Any]) -> None:
    services = policy(env, SERVICE_POLICY)
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}], **spec}}
    assert policy_refusals(services, svc)
    ok = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"ports": [{"port": 80}], "clusterIP": "None"},
    }
    assert policy_refusals(services, ok) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_supplemental_groups_merge_is_flagged(env: str) -> None:
    strict = policy(env, STRICT_GROUPS_POLICY)
    ns = first(env, "PyTorchJob")["metadata"]["namespace"]
    pod = pod_of(gpu_template(env), ns, {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"})
    pod["spec"]["securityContext"]["supplementalGroupsPolicy"] = "Merge"
    assert policy_refusals(strict, pod)
    pod["spec"]["securityContext"].pop("supplementalGroupsPolicy")  # the default is Merge
    assert policy_refusals(strict, pod)
    pod["spec"]["securityContext"]["supplementalGroupsPolicy"] = "Strict"
    assert policy_refusals(strict, pod) == []


# ---- RBAC: the team role ---------------------------------------------------------------------------------------------

ALLOWED = [
    ("create", "kubeflow.org", "pytorchjobs"),
    ("delete", "kubeflow.org", "pytorchjobs"),
    ("create", "kubeflow.org", "mpijobs"),
    ("create", "ray.io", "rayjobs"),
    ("delete", "ray.io", "rayjobs"),
    ("create", "ray.io", "rayclusters"),
    ("create", "batch", "jobs"),
    ("create", "", "configmaps"),
    ("delete", "", "configmaps"),
    ("create", "", "secrets"),
    ("get", "", "pods"),
    ("list", "", "pods"),
    ("get", "", "pods/log"),
    ("list", "", "events"),
    ("create", "", "pods/exec"),
    ("get", "", "resourcequotas"),
    ("list", "kueue.x-k8s.io", "workloads"),
    # serving (issue 34): llmft submit, llmft port-forward (wake = scale + pin, then forward)
    ("create", "apps", "deployments"),
    ("delete", "apps", "deployments"),
    ("patch", "apps", "deployments/scale"),
    ("create", "", "services"),
    ("delete", "", "services"),
    ("create", "keda.sh", "scaledobjects"),
    ("patch", "keda.sh", "scaledobjects"),
    ("create", "", "pods/portforward"),
]
REFUSED = [
    ("create", "", "pods"),
    ("delete", "", "pods"),
    ("patch", "", "pods"),
    ("update", "", "pods"),
    ("patch", "apps", "deployments"),
    ("update", "apps", "deployments"),
    ("update", "apps", "deployments/scale"),
    ("create", "apps", "daemonsets"),
    ("create", "apps", "statefulsets"),
    ("create", "apps", "replicasets"),
    ("patch", "apps", "replicasets"),
    ("patch", "apps", "replicasets/scale"),
    ("create", "batch", "cronjobs"),
    ("patch", "", "services"),
    ("update", "", "services"),
    ("create", "keda.sh", "triggerauthentications"),
    ("create", "keda.sh", "clustertriggerauthentications"),
    ("create", "keda.sh", "scaledjobs"),
    ("create", "autoscaling", "horizontalpodautoscalers"),
    ("delete", "networking.k8s.io", "networkpolicies"),
    ("patch", "networking.k8s.io", "networkpolicies"),
    ("create", "networking.k8s.io", "networkpolicies"),
    ("create", "networking.k8s.io", "ingresses"),
    ("create", "", "serviceaccounts"),
    ("impersonate", "", "serviceaccounts"),
    ("create", "", "serviceaccounts/token"),
    ("create", "rbac.authorization.k8s.io", "roles"),
    ("create", "rbac.authorization.k8s.io", "rolebindings"),
    ("bind", "rbac.authorization.k8s.io", "roles"),
    ("escalate", "rbac.authorization.k8s.io", "roles"),
    ("delete", "", "resourcequotas"),
    ("patch", "", "limitranges"),
    ("patch", "", "namespaces"),
    ("create", "", "persistentvolumeclaims"),
    ("create", "kueue.x-k8s.io", "localqueues"),
    ("create", "kueue.x-k8s.io", "workloads"),
    ("patch", "kueue.x-k8s.io", "workloads"),
    ("update", "kubeflow.org", "pytorchjobs/status"),
    ("create", "", "pods/attach"),
    ("create", "", "pods/ephemeralcontainers"),
    ("delete", "admissionregistration.k8s.io", "validatingadmissionpolicybindings"),
]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_team_role_is_exactly_what_a_team_needs(env: str) -> None:
    m = team_manifests(env)
    for team in load_config(env).kubernetes.teams:
        me = {("Group", team_group(team.name))}
        for verb, group, resource in ALLOWED:
            assert rbac_allows(m, me, verb, group, resource, team.namespace), (team.name, verb, group, resource)
        for verb, group, resource in REFUSED:
            assert not rbac_allows(m, me, verb, group, resource, team.namespace), (team.name, verb, group, resource)
        for other in load_config(env).kubernetes.teams:
            if other.name != team.name:
                for verb, group, resource in ALLOWED:
                    assert not rbac_allows(m, me, verb, group, resource, other.namespace), (team.name, other.name)
        roles = [
            d for d in m if d["kind"] in ("Role", "ClusterRole") and d["metadata"].get("namespace") == team.namespace
        ]
        assert not [
            r for r in roles for rule in r["rules"] if "*" in rule["verbs"] + rule["resources"] + rule["apiGroups"]
        ]
    assert not [d for d in m if d["kind"] in ("ClusterRole", "ClusterRoleBinding")]


# ---- quotas ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_quotas_are_within_the_cluster_and_kueues_cap(env: str) -> None:
    """GPU quota = the team's Kueue cap (Cohort resource platform/team-gpus) <= the GPUs of the flavors its tiers
    reach; CPU/memory quotas <= the allocatable of every node its pods can land on; LimitRange maxima = one node."""
    from k8s_charts.node_shapes import parse_quantity
    from k8s_charts.queues import TEAM_GPUS
    from k8s_charts.team_namespaces import team_capacity

    config = load_config(env)
    kinds = node_kinds(config)
    m = team_manifests(env)
    for team in config.kubernetes.teams:
        (quota,) = [
            d
            for d in m
            if d["kind"] == "ResourceQuota"
            and d["metadata"]["namespace"] == team.namespace
            and "requests.cpu" in d["spec"]["hard"]
        ]
        hard = quota["spec"]["hard"]
        (cohort,) = [d for d in m if d["kind"] == "Cohort" and d["metadata"]["name"] == team.name]
        cap = next(
            r["nominalQuota"]
            for g in cohort["spec"]["resourceGroups"]
            for f in g["flavors"]
            for r in f["resources"]
            if r["name"] == TEAM_GPUS
        )
        assert int(hard[f"requests.{GPU}"]) == int(cap) == team.gpu_quota
        # GPUs of a flavor = its nominal quota summed over every Cohort (the root holds what no team's share does)
        gpus_of: dict[str, int] = {}
        for d in (d for d in m if d["kind"] == "Cohort"):
            for g in d["spec"]["resourceGroups"]:
                for f in g["flavors"]:
                    for r in f["resources"]:
                        if r["name"] == GPU:
                            gpus_of[f["name"]] = gpus_of.get(f["name"], 0) + int(r["nominalQuota"])
        team_flavors = {
            f["name"]
            for d in m
            if d["kind"] == "ClusterQueue" and d["metadata"]["labels"].get("platform/team") == team.name
            for g in d["spec"]["resourceGroups"]
            if g["coveredResources"] == [GPU]
            for f in g["flavors"]
        }
        reachable_gpus = sum(gpus_of[f] for f in team_flavors)
        assert team.gpu_quota <= reachable_gpus
        landing = [
            k
            for k in kinds
            if (k.spec.is_gpu and set(k.tiers) & set(team.allowed_tiers)) or k.source == "karpenter-cpu"
        ]
        most_cpu = sum(
            max(k.allocatable.cpu_m * k.max_nodes for k in landing if k.name.rsplit("/", 1)[0] == p or k.name == p)
            for p in {k.name.rsplit("/", 1)[0] if k.source != "hyperpod" else k.name for k in landing}
        )
        assert 0 < parse_quantity(hard["requests.cpu"], cpu=True) <= most_cpu
        assert parse_quantity(hard["requests.memory"], cpu=False) > 0
        assert team_capacity(team, kinds).quota.memory_mib <= team_capacity(team, kinds).reachable.memory_mib
        (lr,) = [d for d in m if d["kind"] == "LimitRange" and d["metadata"]["namespace"] == team.namespace]
        (item,) = lr["spec"]["limits"]
        biggest = max(k.allocatable.cpu_m for k in kinds)
        assert parse_quantity(item["max"]["cpu"], cpu=True) <= biggest
        # one pod asking for more than a node, or a namespace asking for more than its quota, is refused
        huge = {
            "containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "1000", "memory": "100Ti"}}}]
        }
        assert limit_range_refusals(m, team.namespace, huge) and quota_refusals(m, team.namespace, huge)
        greedy = {"containers": [{"name": "c", "image": "i", "resources": {"limits": {GPU: str(team.gpu_quota + 1)}}}]}
        assert quota_refusals(m, team.namespace, greedy)


def test_gpu_quota_above_the_cluster_is_refused() -> None:
    from .conftest import config_fails, raw_config

    teams = raw_config("prod")["kubernetes"]["teams"]
    teams[0] = {**teams[0], "gpu_quota": 64}
    config_fails(
        {"kubernetes": {"teams": teams}},
        r"kubernetes\.teams\[ml-research\]\.gpu_quota 64 is more than the 48 GPUs",
        r"gpu-workers: 16, h100-on-demand: 16, a100-spot: 16",
        r"Lower gpu_quota to at most 48",
        env="prod",
    )


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_llmft_example_passes_the_guard_rails(env: str) -> None:
    """What teams actually submit (`llmft submit` of every examples/jobs spec): the manifests pass every policy
    bound to the team namespace, and each pod they lead to passes the pod policy with its controller as owner."""
    from pathlib import Path

    from k8s_charts.values import PlatformValues
    from llmft.preflight import preflight
    from llmft.spec import load_spec

    config = load_config(env)
    values = PlatformValues.placeholders(config)
    m = team_manifests(env)
    owners = {
        "PyTorchJob": {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"},
        "RayJob": {"apiVersion": "ray.io/v1", "kind": "RayCluster"},
        "Job": {"apiVersion": "batch/v1", "kind": "Job"},
    }
    examples_dir = Path(__file__).resolve().parents[1] / "examples" / "jobs"
    for path in sorted(examples_dir.glob("*.yaml")):
        if load_spec(path).type == "serve":  # tests/test_serve.py (a Deployment, admitted by the serving guard rails)
            continue
        result = preflight(load_spec(path), config=config, values=values, image="r/sft:1", context_namespace=None)
        assert result.ok, result.report()
        plan = result.plan
        labels = ns_labels(env, plan.team.namespace)
        for doc in plan.manifests:
            assert admission_refusals(m, doc, labels) == [], (path.name, doc["kind"])
        job = plan.manifests[-1]
        for where, pod_spec in plan.pod_specs():
            pod = pod_of({"spec": pod_spec}, plan.team.namespace, owners[job["kind"]])
            assert admission_refusals(m, pod, labels) == [], (path.name, where)
            assert quota_refusals(m, plan.team.namespace, pod_spec) == [], (path.name, where)
            assert limit_range_refusals(m, plan.team.namespace, pod_spec) == [], (path.name, where)
