"""The isolation matrix: for every ordered pair of configured teams (A, B) and every channel, team A reaches team B's
resources if and only if A is B. Everything is read from the synthesized CloudFormation templates and the Kubernetes
manifests they apply, never from the code that wrote them, and the pairs come from the config: a new team adds rows.

Channels and what decides each cell (``access(A, B)``):

- ``fsx``: a path of A's (the PVs pre-bound to A's namespace, the FSx paths A's Studio users mount) reaches
  ``/teams/B`` AND the POSIX identity A's pods are admitted with (the namespace's ValidatingAdmissionPolicy) may
  enter B's tree (owner/group/mode the FSx directories Job gives it).
- ``s3-export``: the data repository association of B's tree exports to an S3 prefix A's principals can write.
- ``s3``: an Allow statement of A's principals (its Pod Identity role, its Studio users' roles) covers an object or
  a listing under B's prefix of the data bucket.
- ``ray-8265`` / ``ray-6379``: B's NetworkPolicies admit a pod of A to B's Ray head on the dashboard / GCS port, and
  A's NetworkPolicies let it out (NetworkPolicy semantics evaluated over the manifests).
- ``k8s-secrets``: A's Kubernetes identities (its Studio users' EKS access entries with their access policies and
  groups, its service account) may read Secrets or ConfigMaps in B's namespace through RoleBindings,
  ClusterRoleBindings or access-policy scopes.
- ``mlflow``: A's principals may read B's MLflow credentials secret (the identity B's runs and experiments belong to).
- ``pipeline-jobs``: A's pipeline ServiceAccount (``llmft-pipelines``, what A's Argo Workflows run as) may create a
  job kind or a ConfigMap in B's namespace through RoleBindings or ClusterRoleBindings (issue 33).
"""

from __future__ import annotations

import fnmatch
import ipaddress
import json
import re
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import pytest

from config.kubernetes import TIERS

from .conftest import ENVIRONMENTS, Synth, synthesize

CHANNELS = ("fsx", "s3-export", "s3", "ray-8265", "ray-6379", "k8s-secrets", "mlflow", "pipeline-jobs")
OBJECT_ACTIONS = {"s3:getobject", "s3:putobject", "s3:deleteobject", "s3:*", "s3:get*", "s3:put*", "*"}
LIST_ACTIONS = {"s3:listbucket", "s3:list*", "s3:*", "*"}
SECRET_ACTIONS = {"secretsmanager:getsecretvalue", "secretsmanager:*", "secretsmanager:get*", "*"}
# EKS access policies that include reading Secrets/ConfigMaps in their scope (EKS access policy permissions:
# https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html); AmazonEKSViewPolicy excludes
# Secrets but includes ConfigMaps.
SECRET_READING_ACCESS_POLICIES = {
    "AmazonEKSEditPolicy",
    "AmazonEKSAdminPolicy",
    "AmazonEKSClusterAdminPolicy",
    "AmazonEKSAdminViewPolicy",
    "AmazonEKSViewPolicy",
}
RAY_HEAD_LABELS = {"ray.io/node-type": "head", "ray.io/is-ray-node": "yes"}  # set by KubeRay on the head pod


# ---- rendering -------------------------------------------------------------------------------------------------------


def render(value: Any) -> str:
    """A CloudFormation value as text: joins concatenated, other intrinsics as compact JSON (stable, comparable)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and list(value) == ["Fn::Join"]:
        sep, parts = value["Fn::Join"]
        return sep.join(render(p) for p in parts)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def kube_manifests(template: dict[str, Any]) -> list[dict[str, Any]]:
    """Every Kubernetes object a template applies (custom resource manifests; deploy-time values as TOKEN)."""

    def text(value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, dict) and list(value) == ["Fn::Join"]:
            return "".join(text(p) for p in value["Fn::Join"][1])
        return "TOKEN"

    docs = []
    for r in template["Resources"].values():
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource":
            docs += json.loads(text(r["Properties"]["Manifest"]))
    return docs


# ---- principals ------------------------------------------------------------------------------------------------------


@dataclass
class Team:
    name: str
    prefix: str
    uid: int
    gid: int
    roles: dict[str, str] = field(default_factory=dict)  # role logical ID -> stack
    k8s_subjects: set[tuple[str, str]] = field(default_factory=set)  # (kind, name) incl. ServiceAccount ns/name
    access_scopes: list[tuple[str, tuple[str, ...], str]] = field(default_factory=list)  # (type, namespaces, policy)
    fsx_paths: set[str] = field(default_factory=set)  # file-system paths mounted for the team


def statements(synth: Synth, stack: str, role_id: str) -> list[dict[str, Any]]:
    """Allow statements of a role: inline policies and every AWS::IAM::Policy attached to it in its stack."""
    resources = synth.templates[stack]["Resources"]
    out = []
    for p in resources[role_id]["Properties"].get("Policies", []):
        out += p["PolicyDocument"]["Statement"]
    for r in resources.values():
        if r["Type"] == "AWS::IAM::Policy" and {"Ref": role_id} in r["Properties"].get("Roles", []):
            out += r["Properties"]["PolicyDocument"]["Statement"]
    assert not resources[role_id]["Properties"].get("ManagedPolicyArns"), (
        f"{role_id} has managed policies the matrix cannot read"
    )
    return [s for s in out if s["Effect"] == "Allow"]


def teams_of(synth: Synth) -> dict[str, Team]:
    cfg = synth.config
    teams = {t.name: Team(t.name, t.data_prefix, t.posix_uid, t.posix_gid) for t in cfg.kubernetes.teams}
    compute = synth.templates["compute"]["Resources"]
    for r in compute.values():
        if r["Type"] == "AWS::EKS::PodIdentityAssociation":
            ns = r["Properties"]["Namespace"]
            if ns in teams:
                teams[ns].roles[r["Properties"]["RoleArn"]["Fn::GetAtt"][0]] = "compute"
                teams[ns].k8s_subjects.add(("ServiceAccount", f"{ns}/{r['Properties']['ServiceAccount']}"))
    studio = synth.templates.get("studio", {"Resources": {}})["Resources"]
    entries = {
        render(r["Properties"]["PrincipalArn"]): r for r in studio.values() if r["Type"] == "AWS::EKS::AccessEntry"
    }
    for r in studio.values():
        if r["Type"] != "AWS::SageMaker::UserProfile":
            continue
        team = next(t["Value"] for t in r["Properties"]["Tags"] if t["Key"] == "platform/team")
        role_id = r["Properties"]["UserSettings"]["ExecutionRole"]["Fn::GetAtt"][0]
        teams[team].roles[role_id] = "studio"
        for fs in r["Properties"]["UserSettings"].get("CustomFileSystemConfigs", []):
            teams[team].fsx_paths.add(fs["FSxLustreFileSystemConfig"]["FileSystemPath"])
        entry = entries[render({"Fn::GetAtt": [role_id, "Arn"]})]
        for group in entry["Properties"].get("KubernetesGroups", []):
            teams[team].k8s_subjects.add(("Group", group))
        for assoc in entry["Properties"].get("AccessPolicies", []):
            scope = assoc["AccessScope"]
            teams[team].access_scopes.append(
                (scope["Type"], tuple(scope.get("Namespaces", ())), render(assoc["PolicyArn"]).rsplit("/", 1)[-1])
            )
    return teams


# ---- channels --------------------------------------------------------------------------------------------------------


def _pv_paths(manifests: list[dict[str, Any]]) -> dict[str, set[str]]:
    """namespace -> file-system paths of the PVs pre-bound to it (the mount name's suffix after the first '/')."""
    out: dict[str, set[str]] = {}
    for d in manifests:
        if d["kind"] == "PersistentVolume" and d["spec"].get("csi", {}).get("driver") == "fsx.csi.aws.com":
            name = d["spec"]["csi"]["volumeAttributes"]["mountname"]
            path = "/" + name.split("/", 1)[1] if "/" in name else "/"
            out.setdefault(d["spec"]["claimRef"]["namespace"], set()).add(path)
    return out


def _admitted_identity(manifests: list[dict[str, Any]], namespace: str) -> tuple[int, int] | None:
    """(uid, gid) the namespace's ValidatingAdmissionPolicies admit pods with, read from the CEL rules."""
    bindings = [
        d
        for d in manifests
        if d["kind"] == "ValidatingAdmissionPolicyBinding"
        and d["spec"]["matchResources"]["namespaceSelector"]["matchLabels"].get("kubernetes.io/metadata.name")
        == namespace
        and d["spec"]["validationActions"] == ["Deny"]
    ]
    uid = gid = None
    for b in bindings:
        policy = next(
            d
            for d in manifests
            if d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == b["spec"]["policyName"]
        )
        for v in policy["spec"]["validations"]:
            if m := re.search(r"object\.spec\.securityContext\.runAsUser == (\d+)$", v["expression"]):
                uid = int(m.group(1))
            if m := re.search(r"object\.spec\.securityContext\.runAsGroup == (\d+)$", v["expression"]):
                gid = int(m.group(1))
    return (uid, gid) if uid is not None and gid is not None else None


def _tree_owner(manifests: list[dict[str, Any]], path: str) -> tuple[int, int, int]:
    """(uid, gid, mode) the FSx directories Job gives ``path``."""
    job = next(d for d in manifests if d["kind"] == "Job" and "fsx" in json.dumps(d["spec"]["template"]["spec"]))
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    assert "ROOT=/fsx" in script
    m = re.search(rf"^reconcile {re.escape(path)} (\d+) (\d+) (\d+) ", script, re.M)
    assert m, f"the directories Job does not create {path}"
    return int(m.group(1)), int(m.group(2)), int(m.group(3), 8)


def posix_can_enter(uid: int, gid: int, owner: tuple[int, int, int]) -> bool:
    o_uid, o_gid, mode = owner
    bits = (mode >> 6) & 7 if uid == o_uid else (mode >> 3) & 7 if gid == o_gid else mode & 7
    return bits & 0o5 == 0o5  # read + search


def fsx_access(synth: Synth, teams: dict[str, Team], a: str, b: str) -> tuple[bool, str]:
    manifests = kube_manifests(synth.templates["compute"])
    paths = _pv_paths(manifests).get(a, set()) | teams[a].fsx_paths
    target = f"/teams/{b}"
    reaching = sorted(p for p in paths if target == p or target.startswith(p.rstrip("/") + "/"))
    identity = _admitted_identity(manifests, a)
    assert identity == (teams[a].uid, teams[a].gid), f"namespace {a} admits pods as {identity}"
    owner = _tree_owner(manifests, target)
    allowed = posix_can_enter(*identity, owner)
    evidence = (
        f"paths of {a}: {sorted(paths)}; reach {target}: {reaching or 'none'}; pods admitted as "
        f"{identity[0]}:{identity[1]}; {target} is {owner[0]}:{owner[1]} {oct(owner[2])} -> "
        f"{'enter' if allowed else 'EACCES'}"
    )
    return bool(reaching) and allowed, evidence


def _data_key(resource: str) -> str | None:
    """The key pattern of an object ARN of the data bucket (``<bucket arn>/<key pattern>``), '*' for a bare '*'."""
    if resource == "*":
        return "*"
    if "DataBucket" in resource and "/" in resource.split("DataBucket", 1)[1]:
        return resource.split("DataBucket", 1)[1].split("/", 1)[1]
    return None


def s3_access(synth: Synth, teams: dict[str, Team], a: str, b: str) -> tuple[bool, str]:
    probe = f"{teams[b].prefix}probe"
    hits = []
    for role_id, stack in teams[a].roles.items():
        for s in statements(synth, stack, role_id):
            actions = {x.lower() for x in as_list(s["Action"])}
            for resource in map(render, as_list(s["Resource"])):
                key = _data_key(resource)
                if actions & OBJECT_ACTIONS and key is not None and fnmatch.fnmatchcase(probe, key):
                    hits.append(f"{role_id}:{s.get('Sid')} {key}")
                if actions & LIST_ACTIONS and ("DataBucket" in resource or resource == "*") and key in (None, "*"):
                    prefixes = s.get("Condition", {}).get("StringLike", {}).get("s3:prefix")
                    if prefixes is None or any(fnmatch.fnmatchcase(probe, p) for p in as_list(prefixes)):
                        hits.append(f"{role_id}:{s.get('Sid')} list {prefixes}")
    return bool(
        hits
    ), f"{len(teams[a].roles)} principals of {a}; statements covering s3://data/{probe}: {hits or 'none'}"


def s3_export_access(synth: Synth, teams: dict[str, Team], a: str, b: str) -> tuple[bool, str]:
    """B's tree exports only to B's prefix; A reaches that export iff A can write under it (the s3 channel)."""
    dras = [
        r["Properties"]
        for r in synth.templates["storage"]["Resources"].values()
        if r["Type"] == "AWS::FSx::DataRepositoryAssociation"
    ]
    exporting = [
        render(d["DataRepositoryPath"]).split("/", 3)[-1] for d in dras if d["FileSystemPath"] == f"/teams/{b}"
    ]
    assert exporting == [teams[b].prefix], f"/teams/{b} exports to {exporting}"
    assert not [
        d["FileSystemPath"]
        for d in dras
        if f"/teams/{b}".startswith(d["FileSystemPath"].rstrip("/") + "/") or d["FileSystemPath"] == "/"
    ], "a parent of the team tree is linked"
    allowed, evidence = s3_access(synth, teams, a, b)
    return allowed, f"/teams/{b} -> s3 prefix {exporting[0]} only; {evidence}"


# -- NetworkPolicy evaluation (https://kubernetes.io/docs/concepts/services-networking/network-policies/) --------------


def _selects(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    if selector is None:
        return True
    for k, v in selector.get("matchLabels", {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions", []):
        present, value = e["key"] in labels, labels.get(e["key"])
        op = e["operator"]
        if (
            (op == "In" and value not in e["values"])
            or (op == "NotIn" and value in e["values"])
            or (op == "Exists" and not present)
            or (op == "DoesNotExist" and present)
        ):
            return False
    return True


@dataclass(frozen=True)
class Pod:
    namespace: str
    labels: tuple[tuple[str, str], ...]
    ip: str

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)


def _peer_matches(peer: dict[str, Any], policy_ns: str, other: Pod, ns_labels: dict[str, dict[str, str]]) -> bool:
    if "ipBlock" in peer:
        ip = ipaddress.ip_address(other.ip)
        block = peer["ipBlock"]
        return ip in ipaddress.ip_network(block["cidr"]) and not any(
            ip in ipaddress.ip_network(e) for e in block.get("except", [])
        )
    if "namespaceSelector" in peer:
        if not _selects(peer["namespaceSelector"], ns_labels.get(other.namespace, {})):
            return False
    elif other.namespace != policy_ns:
        return False
    return _selects(peer.get("podSelector"), other.label_map)


def _port_matches(ports: list[dict[str, Any]] | None, port: int) -> bool:
    return not ports or any(p.get("protocol", "TCP") == "TCP" and p.get("port") in (None, port) for p in ports)


def allowed(
    policies: list[dict[str, Any]],
    direction: str,
    pod: Pod,
    other: Pod,
    port: int,
    ns_labels: dict[str, dict[str, str]],
) -> bool:
    """Whether ``pod``'s namespace policies allow traffic to/from ``other`` on ``port`` in ``direction``."""
    kind, key, peers = ("Ingress", "ingress", "from") if direction == "ingress" else ("Egress", "egress", "to")
    selecting = [
        p
        for p in policies
        if p["metadata"]["namespace"] == pod.namespace
        and kind in p["spec"].get("policyTypes", ["Ingress"])
        and _selects(p["spec"]["podSelector"], pod.label_map)
    ]
    if not selecting:
        return True
    return any(
        _port_matches(rule.get("ports"), port)
        and (not rule.get(peers) or any(_peer_matches(peer, pod.namespace, other, ns_labels) for peer in rule[peers]))
        for p in selecting
        for rule in p["spec"].get(key, [])
    )


def network_access(synth: Synth, teams: dict[str, Team], a: str, b: str, port: int) -> tuple[bool, str]:
    manifests = kube_manifests(synth.templates["compute"])
    policies = [d for d in manifests if d["kind"] == "NetworkPolicy"]
    ns_labels = {
        d["metadata"]["name"]: {**d["metadata"].get("labels", {}), "kubernetes.io/metadata.name": d["metadata"]["name"]}
        for d in manifests
        if d["kind"] == "Namespace"
    }
    # pod IPs come from the VPC (VPC CNI); any address of the HyperPod subnet's CIDR stands for both pods
    subnet = ipaddress.ip_network(synth.config.network.hyperpod.secondary_cidr)
    source = Pod(a, (("app.kubernetes.io/part-of", "llm-platform"),), str(subnet[10]))
    head = Pod(b, tuple(RAY_HEAD_LABELS.items()), str(subnet[20]))
    out_ok = allowed(policies, "egress", source, head, port, ns_labels)
    in_ok = allowed(policies, "ingress", head, source, port, ns_labels)
    n_in = sum(1 for p in policies if p["metadata"]["namespace"] == b)
    return out_ok and in_ok, (
        f"egress from {a}: {'allowed' if out_ok else 'denied'}; ingress to {b}'s Ray head :{port} "
        f"({n_in} policies): {'allowed' if in_ok else 'denied'}"
    )


def k8s_secrets_access(synth: Synth, teams: dict[str, Team], a: str, b: str) -> tuple[bool, str]:
    manifests = kube_manifests(synth.templates["compute"])
    subjects = teams[a].k8s_subjects
    hits = []
    for scope_type, namespaces, policy in teams[a].access_scopes:
        if policy in SECRET_READING_ACCESS_POLICIES and (scope_type == "cluster" or b in namespaces):
            hits.append(f"access policy {policy} ({scope_type} {list(namespaces)})")
    from .guardrail_eval import rbac_allows  # the one RBAC evaluator the capacity rows use too

    for verb in ("get", "list", "watch"):
        for resource in ("secrets", "configmaps"):
            hits += [h for h in rbac_allows(manifests, subjects, verb, "", resource, b) if h not in hits]
    return bool(hits), f"identities of {a}: {sorted(n for _, n in subjects)}; grants in {b}: {hits or 'none'}"


def mlflow_access(synth: Synth, teams: dict[str, Team], a: str, b: str) -> tuple[bool, str]:
    """A reaches B's experiments iff A's principals can read the credentials B's jobs log with: the secret whose
    ARN B's namespace hands its pods (``mlflow`` ConfigMap / ``mlflow-credentials`` Secret source)."""
    secrets_of_b = _mlflow_secrets(synth, b)
    hits = []
    for role_id, stack in teams[a].roles.items():
        for s in statements(synth, stack, role_id):
            if {x.lower() for x in as_list(s["Action"])} & SECRET_ACTIONS:
                for resource in map(render, as_list(s["Resource"])):
                    if resource == "*" or any(
                        resource == sb or fnmatch.fnmatchcase(sb, resource) for sb in secrets_of_b
                    ):
                        hits.append(f"{role_id}:{s.get('Sid')}")
    return bool(
        hits
    ), f"credentials of {b}: {len(secrets_of_b)} secret(s); readable by {a}'s principals: {hits or 'none'}"


def _mlflow_secrets(synth: Synth, team: str) -> list[str]:
    """The Secrets Manager secrets team's pods are given for MLflow, as rendered references."""
    resources = synth.templates["compute"]["Resources"]
    out = []
    for r in resources.values():
        if r["Type"] == "AWS::EKS::PodIdentityAssociation" and r["Properties"]["Namespace"] == team:
            role_id = r["Properties"]["RoleArn"]["Fn::GetAtt"][0]
            for s in statements(synth, "compute", role_id):
                if {x.lower() for x in as_list(s["Action"])} & SECRET_ACTIONS:
                    out += [render(x) for x in as_list(s["Resource"])]
    return out


def pipeline_access(synth: Synth, teams: dict[str, Team], a: str, b: str) -> tuple[bool, str]:
    from k8s_charts.team_namespaces import PIPELINE_JOB_RESOURCES, PIPELINE_SERVICE_ACCOUNT

    from .guardrail_eval import rbac_allows

    manifests = kube_manifests(synth.templates["compute"])
    subject = {("ServiceAccount", f"{a}/{PIPELINE_SERVICE_ACCOUNT}")}
    kinds = [(g, r) for g, rs in PIPELINE_JOB_RESOURCES.items() for r in rs] + [("", "configmaps")]
    hits = [h for g, r in kinds for h in rbac_allows(manifests, subject, "create", g, r, b)]
    return bool(hits), f"{a}'s {PIPELINE_SERVICE_ACCOUNT} creates in {b}: {sorted(set(hits)) or 'nothing'}"


CHANNEL_CHECKS = {
    "fsx": fsx_access,
    "s3-export": s3_export_access,
    "s3": s3_access,
    "ray-8265": lambda s, t, a, b: network_access(s, t, a, b, 8265),
    "ray-6379": lambda s, t, a, b: network_access(s, t, a, b, 6379),
    "k8s-secrets": k8s_secrets_access,
    "mlflow": mlflow_access,
    "pipeline-jobs": pipeline_access,
}


def matrix(synth: Synth) -> list[tuple[str, str, str, bool, str]]:
    """(A, B, channel, A can reach B, evidence) for every ordered pair of configured teams and every channel."""
    teams = teams_of(synth)
    names = [t.name for t in synth.config.kubernetes.teams]
    return [(a, b, ch, *CHANNEL_CHECKS[ch](synth, teams, a, b)) for a, b in product(names, names) for ch in CHANNELS]


def _cells(env: str) -> list[tuple[str, str, str]]:
    from config import load_config

    names = [t.name for t in load_config(env).kubernetes.teams]
    return [(a, b, ch) for a, b in product(names, names) for ch in CHANNELS]


_MATRICES: dict[str, dict[tuple[str, str, str], tuple[bool, str]]] = {}


def _matrix(synth: Synth) -> dict[tuple[str, str, str], tuple[bool, str]]:
    env = synth.config.name
    if env not in _MATRICES:
        _MATRICES[env] = {(a, b, ch): (ok, ev) for a, b, ch, ok, ev in matrix(synth)}
    return _MATRICES[env]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_matrix_covers_every_pair_and_channel(env: str) -> None:
    synth: Synth = synthesize(env)
    teams = synth.config.kubernetes.teams
    assert len(_matrix(synth)) == len(teams) ** 2 * len(CHANNELS) >= 4 * len(CHANNELS)


MEMBER_CHANNELS = ("k8s-secrets",)
"""Channels only a team's members (its Studio users' EKS access entries) reach in their own team."""


def studio_members(synth: Synth, team: str) -> list[str]:
    """The Studio user profiles of ``team`` (config studio.user_profiles; none when Studio is not deployed)."""
    studio = synth.config.studio
    return [p.name for p in studio.user_profiles if p.team == team] if studio.enabled else []


def _params() -> list[Any]:
    return [pytest.param(e, a, b, ch, id=f"{e}:{a}->{b}:{ch}") for e in ENVIRONMENTS for a, b, ch in _cells(e)]


@pytest.mark.parametrize(("env", "a", "b", "channel"), _params())
def test_isolation(env: str, a: str, b: str, channel: str) -> None:
    synth: Synth = synthesize(env)
    reach, evidence = _matrix(synth)[(a, b, channel)]
    if a == b and channel in MEMBER_CHANNELS and not studio_members(synth, a):
        # a team without Studio users has no member grants; its jobs' ServiceAccount reads no Secrets either
        assert not reach, f"{a} has no Studio users, yet reaches its own {channel}: {evidence}"
    elif a == b:
        assert reach, f"{a} cannot reach its own {channel}: {evidence}"
    else:
        assert not reach, f"{a} reaches {b} through {channel}: {evidence}"


# ---- capacity and guard-rail rows (issue 21) -------------------------------------------------------------------------
# Per team: what a member of the team may try with the permissions the platform grants (its access entries' groups
# and access policies, read from the studio template) against the objects the compute stack applies (RBAC, the
# admission policies' CEL run with cel-python, the ResourceQuota and LimitRange). A row holds when every layer it
# names refuses; `refused_by` in the evidence lists every layer that refuses.

GPU, EFA = "nvidia.com/gpu", "vpc.amazonaws.com/efa"


def _gpu_spec(team: Team, gpus: int = 8, priority: str = "critical") -> dict[str, Any]:
    return {
        "priorityClassName": priority,
        "tolerations": [{"operator": "Exists"}],
        "securityContext": {"runAsUser": team.uid, "runAsGroup": team.gid, "runAsNonRoot": True},
        "containers": [
            {
                "name": "c",
                "image": "i",
                "resources": {"limits": {GPU: str(gpus), EFA: "32", "cpu": "8", "memory": "64Gi"}},
            }
        ],
    }


def _owned(kind: str, api_version: str, spec: dict[str, Any], ns: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": ns,
            "ownerReferences": [{"apiVersion": api_version, "kind": kind, "name": "o", "uid": "u", "controller": True}],
        },
        "spec": spec,
    }


def _pytorchjob(ns: str, queue: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "j", "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": queue}},
        "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": spec}}}},
    }


def _ray(ns: str, queue: str, team: Team, **head: Any) -> dict[str, Any]:
    spec = _gpu_spec(team, 0, "medium")
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "r", "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": queue}},
        "spec": {"headGroupSpec": {"template": {"spec": spec}, **head}},
    }


def _serve_labels(queue: str) -> dict[str, str]:
    return {"kueue.x-k8s.io/queue-name": queue, "llmft.io/component": "serve", "llmft.io/serve": "d"}


def _serve_deployment(ns: str, queue: str, team: Team) -> dict[str, Any]:
    """A Deployment of llmft's serving shape (llmft/serve_build.py) naming LocalQueue ``queue``."""
    template = {"metadata": {"labels": _serve_labels(queue)}, "spec": _gpu_spec(team, 1, "low")}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": ns, "labels": _serve_labels(queue)},
        "spec": {"selector": {"matchLabels": {"llmft.io/serve": "d"}}, "template": template},
    }


def _serve_pod(ns: str, queue: str, team: Team, *, gated: bool) -> dict[str, Any]:
    """A pod of that Deployment's ReplicaSet as Kueue's webhooks leave it (gated unless ``gated`` is False)."""
    pod = _owned("ReplicaSet", "apps/v1", _gpu_spec(team, 1, "low"), ns)
    pod["metadata"]["labels"] = {**_serve_labels(queue), "kueue.x-k8s.io/managed": "true"}
    if gated:
        pod["spec"] = {**pod["spec"], "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]}
    return pod


def _scaled_object(ns: str, metrics_namespace: str) -> dict[str, Any]:
    """A ScaledObject of Deployment ``d`` whose CloudWatch trigger reads ``metrics_namespace``'s demand metric."""
    trigger = {
        "type": "aws-cloudwatch",
        "metadata": {
            "namespace": "ContainerInsights/Prometheus",
            "metricName": "sglang:num_queue_reqs",
            "dimensionName": "ClusterName;Namespace;serve",
            "dimensionValue": f"c;{metrics_namespace};d",
            "targetMetricValue": "8",
            "minMetricValue": "0",
            "awsRegion": "us-east-1",
            "identityOwner": "operator",
        },
    }
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "d", "namespace": ns, "labels": {"llmft.io/component": "serve", "llmft.io/serve": "d"}},
        "spec": {"scaleTargetRef": {"name": "d"}, "maxReplicaCount": 2, "triggers": [trigger]},
    }


def _service(ns: str, **spec: Any) -> dict[str, Any]:
    """A Service in the team's namespace with the given extra spec."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s", "namespace": ns},
        "spec": {"ports": [{"port": 8265}], **spec},
    }


def _deployment(kind: str, ns: str, team: Team) -> dict[str, Any]:
    """An apps/v1 workload of the given kind whose pods ask for GPUs."""
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "d", "namespace": ns},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"spec": _gpu_spec(team)}},
    }


def _workload_attacks(team: Team, *, low: str, foreign: str) -> dict[str, dict[str, Any]]:
    """Attacks that run GPU pods outside the admitted workload shapes."""
    ns = team.name
    return {
        "gpu-bare-pod": {
            "request": ("create", "", "pods"),
            "objects": [
                (
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": {"name": "p", "namespace": ns},
                        "spec": _gpu_spec(team),
                    },
                    ("rbac", "llmft-team-pods"),
                )
            ],
        },
        # teams create Deployments (llmft serve jobs, issue 34): the guard rails admit only the serving shape
        "gpu-deployment": {
            "request": None,
            "objects": [
                (_deployment("Deployment", ns, team), ("llmft-team-workloads",)),
                (_owned("ReplicaSet", "apps/v1", _gpu_spec(team), ns), ("llmft-team-pods",)),
            ],
        },
        "gpu-deployment-foreign-queue": {
            "request": None,
            "objects": [
                (_serve_deployment(ns, foreign, team), ("llmft-team-workloads",)),
                (_serve_pod(ns, foreign, team, gated=True), ("llmft-team-pods",)),
            ],
        },
        "serve-pod-ungated": {
            "request": None,
            "objects": [(_serve_pod(ns, low, team, gated=False), ("llmft-team-pods",))],
        },
        "scaledobject-foreign-metrics": {
            "request": None,
            "objects": [(_scaled_object(ns, "other-team"), ("llmft-team-autoscaling",))],
        },
        "networkpolicy-create": {"request": ("create", "networking.k8s.io", "networkpolicies"), "objects": []},
        "gpu-daemonset": {
            "request": ("create", "apps", "daemonsets"),
            "objects": [
                (_deployment("DaemonSet", ns, team), ("rbac", "llmft-team-workloads")),
                (_owned("DaemonSet", "apps/v1", _gpu_spec(team), ns), ("llmft-team-pods",)),
            ],
        },
        "gpu-batch-job": {
            "request": None,
            "objects": [
                (
                    {
                        "apiVersion": "batch/v1",
                        "kind": "Job",
                        "metadata": {"name": "j", "namespace": ns},
                        "spec": {"template": {"spec": _gpu_spec(team)}},
                    },
                    ("llmft-team-workloads",),
                ),
                (_owned("Job", "batch/v1", _gpu_spec(team), ns), ("llmft-team-pods",)),
            ],
        },
    }


def _quota_attacks(team: Team, quota_gpus: int) -> dict[str, dict[str, Any]]:
    """Attacks that ask for more GPUs, CPU or memory than the team's quota."""
    ns = team.name
    return {
        "gpu-above-quota": {
            "request": None,
            "objects": [(_owned("PyTorchJob", "kubeflow.org/v1", _gpu_spec(team, quota_gpus + 1), ns), ("quota",))],
        },
        "cpu-memory-above-quota": {
            "request": None,
            "objects": [
                (
                    _owned(
                        "PyTorchJob",
                        "kubeflow.org/v1",
                        {
                            **_gpu_spec(team, 0),
                            "containers": [
                                {"name": "c", "image": "i", "resources": {"limits": {"cpu": "4000", "memory": "64Ti"}}}
                            ],
                        },
                        ns,
                    ),
                    ("quota", "limitrange"),
                )
            ],
        },
    }


def _priority_attacks(team: Team, low: str) -> dict[str, dict[str, Any]]:
    """Attacks that claim a priority above the team's tier."""
    ns = team.name
    return {
        "priority-above-tier": {
            "request": None,
            "objects": [(_pytorchjob(ns, low, _gpu_spec(team, 8, "critical")), ("llmft-team-workloads",))],
        },
        "workload-priority-class": {
            "request": None,
            "objects": [
                (
                    {
                        **_pytorchjob(ns, low, _gpu_spec(team, 8, "low")),
                        "metadata": {
                            "name": "j",
                            "namespace": ns,
                            "labels": {"kueue.x-k8s.io/queue-name": low, "kueue.x-k8s.io/priority-class": "vip"},
                        },
                    },
                    ("llmft-team-workloads",),
                )
            ],
        },
    }


def _service_attacks(ns: str) -> dict[str, dict[str, Any]]:
    """Attacks that expose a Service outside the cluster."""
    return {
        "service-externalips": {
            "request": None,
            "objects": [(_service(ns, externalIPs=["10.0.0.10"]), ("rbac", "llmft-team-services"))],
        },
        "service-loadbalancer": {
            "request": None,
            "objects": [(_service(ns, type="LoadBalancer"), ("rbac", "llmft-team-services"))],
        },
        "service-nodeport": {
            "request": None,
            "objects": [(_service(ns, type="NodePort"), ("rbac", "llmft-team-services"))],
        },
        "service-externalname": {
            "request": None,
            "objects": [
                (_service(ns, type="ExternalName", externalName="mlflow.internal"), ("rbac", "llmft-team-services"))
            ],
        },
    }


def _ray_attacks(team: Team, low: str) -> dict[str, dict[str, Any]]:
    """Attacks through a RayCluster: no token auth, or an exposed head."""
    ns = team.name
    return {
        "raycluster-without-token-auth": {
            "request": None,
            "objects": [(_ray(ns, low, team), ("llmft-team-workloads",))],
        },
        "ray-head-externalips": {
            "request": None,
            "objects": [
                (
                    {
                        **_ray(ns, low, team, headService={"spec": {"externalIPs": ["10.0.0.10"]}}),
                        "spec": {
                            **_ray(ns, low, team, headService={"spec": {"externalIPs": ["10.0.0.10"]}})["spec"],
                            "authOptions": {"mode": "token"},
                        },
                    },
                    ("llmft-team-workloads",),
                ),
                (_service(ns, externalIPs=["10.0.0.10"]), ("llmft-team-services",)),
            ],
        },  # the Service KubeRay would create
    }


def _api_attacks() -> dict[str, dict[str, Any]]:
    """Attacks that are only API requests RBAC must refuse."""
    return {
        "networkpolicy-delete": {"request": ("delete", "networking.k8s.io", "networkpolicies"), "objects": []},
        "networkpolicy-edit": {"request": ("patch", "networking.k8s.io", "networkpolicies"), "objects": []},
        "rbac-escalation": {"request": ("create", "rbac.authorization.k8s.io", "rolebindings"), "objects": []},
        "serviceaccount-token": {"request": ("create", "", "serviceaccounts/token"), "objects": []},
        "quota-delete": {"request": ("delete", "", "resourcequotas"), "objects": []},
    }


def _attacks(team: Team, tiers: tuple[str, ...], quota_gpus: int) -> dict[str, dict[str, Any]]:
    """name -> {request: (verb, group, resource), objects: [(object, layers that must refuse it)]}"""
    low = tiers[-1]
    foreign = next((t for t in TIERS if t not in tiers), "another-teams-queue")  # a LocalQueue it does not have
    return {
        **_workload_attacks(team, low=low, foreign=foreign),
        **_quota_attacks(team, quota_gpus),
        **_priority_attacks(team, low),
        **_service_attacks(team.name),
        **_ray_attacks(team, low),
        **_api_attacks(),
    }


CAPACITY_ROWS = (
    "gpu-bare-pod",
    "gpu-deployment",
    "gpu-deployment-foreign-queue",
    "serve-pod-ungated",
    "scaledobject-foreign-metrics",
    "networkpolicy-create",
    "gpu-daemonset",
    "gpu-batch-job",
    "gpu-above-quota",
    "cpu-memory-above-quota",
    "priority-above-tier",
    "workload-priority-class",
    "service-externalips",
    "service-loadbalancer",
    "service-nodeport",
    "service-externalname",
    "raycluster-without-token-auth",
    "ray-head-externalips",
    "networkpolicy-delete",
    "networkpolicy-edit",
    "rbac-escalation",
    "serviceaccount-token",
    "quota-delete",
)


def capacity_row(synth: Synth, team_name: str, attack: str) -> tuple[bool, str]:
    """(every named layer refuses, evidence)."""
    from .guardrail_eval import admission_refusals, limit_range_refusals, quota_refusals, rbac_allows

    manifests = kube_manifests(synth.templates["compute"])
    teams = teams_of(synth)
    team = teams[team_name]
    cfg = next(t for t in synth.config.kubernetes.teams if t.name == team_name)
    (ns_doc,) = [d for d in manifests if d["kind"] == "Namespace" and d["metadata"]["name"] == team_name]
    labels = {**ns_doc["metadata"].get("labels", {}), "kubernetes.io/metadata.name": team_name}
    row = _attacks(team, cfg.allowed_tiers, cfg.gpu_quota)[attack]
    evidence, holds = [], True
    if row["request"]:
        verb, group, resource = row["request"]
        grants = rbac_allows(manifests, team.k8s_subjects, verb, group, resource, team_name)
        grants += [f"access policy {p}" for _, ns, p in team.access_scopes if not ns or team_name in ns]
        evidence.append(
            f"RBAC {verb} {group or 'core'}/{resource}: {'allowed by ' + str(grants) if grants else 'refused'}"
        )
        holds &= not grants
    for obj, layers in row["objects"]:
        refusals = admission_refusals(manifests, obj, labels)
        spec = obj["spec"] if obj["kind"] == "Pod" else None
        if spec is not None:
            refusals += quota_refusals(manifests, team_name, spec) + limit_range_refusals(manifests, team_name, spec)
        by = sorted({r.by for r in refusals})
        evidence.append(f"{obj['kind']}: refused by {by or 'nothing'}")
        for layer in layers:
            if layer == "rbac":
                continue
            name = {"quota": "ResourceQuota", "limitrange": "LimitRange"}.get(
                layer, f"ValidatingAdmissionPolicy {layer}"
            )
            holds &= any(b.startswith(name) for b in by)
    return holds, "; ".join(evidence)


def _capacity_params() -> list[Any]:
    from config import load_config

    return [
        pytest.param(e, t.name, a, id=f"{e}:{t.name}:{a}")
        for e in ENVIRONMENTS
        for t in load_config(e).kubernetes.teams
        for a in CAPACITY_ROWS
    ]


@pytest.mark.parametrize(("env", "team", "attack"), _capacity_params())
def test_capacity_and_guard_rails(env: str, team: str, attack: str) -> None:
    synth: Synth = synthesize(env)
    holds, evidence = capacity_row(synth, team, attack)
    assert holds, f"{team} gets through {attack}: {evidence}"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_supplemental_groups_merge_is_flagged_not_yet_refused(env: str) -> None:
    """`supplementalGroupsPolicy: Merge` (or unset) is warned about and audited in every team namespace; Deny waits for
    proof that every node's runtime supports Strict (k8s_charts/team_isolation.py, tools/probe_isolation.sh)."""
    from .guardrail_eval import admission_refusals

    synth: Synth = synthesize(env)
    manifests = kube_manifests(synth.templates["compute"])
    for team in teams_of(synth).values():
        pod = _owned(
            "PyTorchJob",
            "kubeflow.org/v1",
            {
                **_gpu_spec(team),
                "securityContext": {"runAsUser": team.uid, "runAsGroup": team.gid, "supplementalGroupsPolicy": "Merge"},
            },
            team.name,
        )
        labels = {"platform/kueue-managed": "true", "kubernetes.io/metadata.name": team.name}
        flagged = admission_refusals(manifests, pod, labels, actions=("Warn",))
        assert [r.by for r in flagged] == ["ValidatingAdmissionPolicy llmft-team-supplemental-groups"]
        assert not [r for r in admission_refusals(manifests, pod, labels) if "supplemental" in r.by]


def print_matrix(synth: Synth) -> str:
    """The matrix as text (for the closing note of a change: `python -m pytest ... -k print` shows it)."""
    lines = [
        f"{a} -> {b} {ch}: {'REACHES' if ok else 'refused'} ({ev})" for (a, b, ch), (ok, ev) in _matrix(synth).items()
    ]
    for t in synth.config.kubernetes.teams:
        for attack in CAPACITY_ROWS:
            ok, ev = capacity_row(synth, t.name, attack)
            lines.append(f"{t.name} {attack}: {'refused' if ok else 'GETS THROUGH'} ({ev})")
    return "\n".join(lines)
