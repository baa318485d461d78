"""Evaluators over rendered manifests: ValidatingAdmissionPolicies (their CEL run by cel-python, ``variables``
included), Kubernetes RBAC (Roles/ClusterRoles through their bindings) and ResourceQuotas/LimitRanges. Used by
tests/test_team_guardrails.py and the capacity rows of tests/test_isolation_matrix.py.

Semantics followed (kubernetes.io): a binding applies a policy to an object whose namespace its
``matchResources.namespaceSelector`` selects; ``matchConstraints.resourceRules`` decide which requests the policy
sees; a validation that is false refuses (with action Deny) and one whose evaluation fails refuses as well
(``failurePolicy: Fail``). RBAC is purely additive: a request is allowed iff some rule of a role bound to one of
the subjects covers (apiGroup, resource, verb) in the namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cel import program

GROUP_OF = {
    "Pod": "",
    "Service": "",
    "Secret": "",
    "ConfigMap": "",
    "ServiceAccount": "",
    "PyTorchJob": "kubeflow.org",
    "MPIJob": "kubeflow.org",
    "RayJob": "ray.io",
    "RayCluster": "ray.io",
    "Job": "batch",
    "CronJob": "batch",
    "Deployment": "apps",
    "StatefulSet": "apps",
    "DaemonSet": "apps",
    "ReplicaSet": "apps",
    "NetworkPolicy": "networking.k8s.io",
    "Role": "rbac.authorization.k8s.io",
    "RoleBinding": "rbac.authorization.k8s.io",
    "ResourceQuota": "",
    "LimitRange": "",
    "Ingress": "networking.k8s.io",
    "Namespace": "",
    "ScaledObject": "keda.sh",
    "ValidatingAdmissionPolicyBinding": "admissionregistration.k8s.io",
    "Workflow": "argoproj.io",
    "WorkflowTemplate": "argoproj.io",
    "Workload": "kueue.x-k8s.io",
}


def resource_of(kind: str) -> str:
    plural = kind.lower() + ("es" if kind.lower().endswith(("ss", "ch")) else "" if kind.endswith("y") else "s")
    return {
        "NetworkPolicy": "networkpolicies",
        "Ingress": "ingresses",
        "ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings",
    }.get(kind, plural)


# ---- ValidatingAdmissionPolicy ---------------------------------------------------------------------------------------


def _cel_true(value: Any) -> bool:
    import celpy

    return not isinstance(value, Exception) and isinstance(value, (bool, celpy.celtypes.BoolType)) and bool(value)


TEAM_USER = "alice@example.com"
"""Who makes a request unless a test says otherwise: a team member (the identity a team controls)."""


def request_of(
    operation: str = "CREATE",
    user: str = TEAM_USER,
    groups: tuple[str, ...] = (),
    *,
    namespace: str = "",
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``request`` variable of a ValidatingAdmissionPolicy (kubernetes.io: admission.k8s.io AdmissionRequest
    fields ``operation``, ``userInfo``, ``namespace`` and ``options``: the DeleteOptions of a DELETE)."""
    request = {"operation": operation, "userInfo": {"username": user, "groups": list(groups)}, "namespace": namespace}
    return request | ({"options": options} if options is not None else {})


def namespace_object(obj: dict[str, Any], labels: dict[str, str] | None) -> dict[str, Any]:
    """The ``namespaceObject`` variable: the Namespace of ``obj`` with ``labels`` (admissionregistration.k8s.io/v1
    Validation.expression)."""
    name = obj.get("metadata", {}).get("namespace", "")
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels or {})}}


def kueue_gated(pod: dict[str, Any]) -> dict[str, Any]:
    """``pod`` as Kueue's pod webhook leaves a pod of a queued Deployment before validating admission runs
    (kubernetes-sigs/kueue@v0.19.2 pkg/controller/jobs/deployment/deployment_webhook.go marks the template: the
    managed label and the suspending-parent annotation; pkg/controller/jobs/pod/pod_webhook.go ``Default`` adds the
    ``kueue.x-k8s.io/admission`` scheduling gate)."""
    import copy

    out = copy.deepcopy(pod)
    out["metadata"].setdefault("labels", {})["kueue.x-k8s.io/managed"] = "true"
    out["metadata"].setdefault("annotations", {})["kueue.x-k8s.io/pod-suspending-parent"] = "deployment"
    out["spec"].setdefault("schedulingGates", []).append({"name": "kueue.x-k8s.io/admission"})
    return out


def policy_refusals(
    policy: dict[str, Any],
    obj: dict[str, Any],
    *,
    old: dict[str, Any] | None = None,
    request: dict[str, Any] | None = None,
    namespace_labels: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
) -> list[str]:
    """Messages of the validations of ``policy`` that refuse ``obj`` (false or failing to evaluate); [] when it
    admits it, including when a matchCondition exempts it. ``old``: ``oldObject`` (an UPDATE; null on CREATE);
    ``request``: :func:`request_of` (default: a team member's CREATE, UPDATE when ``old`` is given);
    ``namespace_labels``: the labels of ``namespaceObject``; ``params``: the ``params`` variable."""
    import celpy

    request = request or request_of("UPDATE" if old is not None else "CREATE")
    activation: dict[str, Any] = {
        "object": celpy.json_to_cel(obj),
        "oldObject": celpy.json_to_cel(old),
        "request": celpy.json_to_cel(request),
        "namespaceObject": celpy.json_to_cel(namespace_object(obj or old, namespace_labels)),
    }
    if params is not None:  # one param object of the binding's paramRef (kubernetes.io: the policy runs per param)
        activation["params"] = celpy.json_to_cel(params)
    for condition in policy["spec"].get("matchConditions", []):
        result = program(condition["expression"]).evaluate(activation)
        if not isinstance(result, Exception) and not _cel_true(result):
            return []
    variables: dict[Any, Any] = {}
    for var in policy["spec"].get("variables", []):
        activation["variables"] = celpy.celtypes.MapType(variables)
        try:
            variables[celpy.celtypes.StringType(var["name"])] = program(var["expression"]).evaluate(activation)
        except Exception as exc:  # noqa: BLE001 - an evaluation error is a refusal under failurePolicy Fail
            variables[celpy.celtypes.StringType(var["name"])] = exc
    activation["variables"] = celpy.celtypes.MapType(variables)
    out = []
    for v in policy["spec"]["validations"]:
        try:
            ok = _cel_true(program(v["expression"]).evaluate(activation))
        except Exception:  # noqa: BLE001
            ok = False
        if not ok:
            out.append(v["message"])
    return out


def _rule_matches(rule: dict[str, Any], group: str, resource: str, operation: str) -> bool:
    return (
        (group in rule["apiGroups"] or "*" in rule["apiGroups"])
        and (resource in rule["resources"] or "*" in rule["resources"])
        and (operation in rule["operations"] or "*" in rule["operations"])
    )


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items()) and not selector.get(
        "matchExpressions"
    )


def label_selector_matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A LabelSelector (matchLabels and matchExpressions In/NotIn/Exists/DoesNotExist) against ``labels``."""
    ops = {
        "In": lambda k, vs: k in labels and labels[k] in vs,
        "NotIn": lambda k, vs: k not in labels or labels[k] not in vs,
        "Exists": lambda k, vs: k in labels,
        "DoesNotExist": lambda k, vs: k not in labels,
    }
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items()) and all(
        ops[e["operator"]](e["key"], e.get("values", [])) for e in selector.get("matchExpressions", [])
    )


def binding_params(
    policy: dict[str, Any], binding: dict[str, Any], namespace: str, cluster: list[dict[str, Any]]
) -> list[dict[str, Any]] | None:
    """The param objects a binding's ``paramRef`` selects among ``cluster`` (the objects that exist), the request's
    namespace when the paramRef names none (kubernetes.io ParamRef v1); None for a policy without ``paramKind``."""
    kind = policy["spec"].get("paramKind")
    if not kind:
        return None
    ref = binding["spec"]["paramRef"]
    return [
        o
        for o in cluster
        if o["kind"] == kind["kind"]
        and o.get("apiVersion") == kind["apiVersion"]
        and o["metadata"].get("namespace") == ref.get("namespace", namespace)
        and ("name" not in ref or o["metadata"]["name"] == ref["name"])
        and ("selector" not in ref or label_selector_matches(ref["selector"], o["metadata"].get("labels", {})))
    ]


@dataclass
class Refusal:
    by: str  # e.g. "ValidatingAdmissionPolicy llmft-team-pods", "RBAC", "ResourceQuota compute"
    message: str


def admission_refusals(
    manifests: list[dict[str, Any]],
    obj: dict[str, Any],
    namespace_labels: dict[str, str],
    *,
    operation: str = "CREATE",
    actions: tuple[str, ...] = ("Deny",),
    old: dict[str, Any] | None = None,
    user: str = TEAM_USER,
    options: dict[str, Any] | None = None,
    cluster: list[dict[str, Any]] | None = None,
) -> list[Refusal]:
    """Refusals of every ValidatingAdmissionPolicy bound (with one of ``actions``) to a namespace labelled
    ``namespace_labels`` for ``obj`` (``operation`` by ``user``; ``old`` the stored object of an UPDATE or DELETE,
    where ``obj`` is None; ``options`` the DeleteOptions of a DELETE; ``cluster`` the objects that exist, where a
    binding's paramRef finds its params)."""
    subject = obj if obj is not None else old
    namespace = subject.get("metadata", {}).get("namespace", "")
    request = request_of(operation, user, namespace=namespace, options=options)
    policies = {d["metadata"]["name"]: d for d in manifests if d["kind"] == "ValidatingAdmissionPolicy"}
    group = GROUP_OF[subject["kind"]]
    out = []
    for b in (d for d in manifests if d["kind"] == "ValidatingAdmissionPolicyBinding"):
        spec = b["spec"]
        if not set(spec["validationActions"]) & set(actions):
            continue
        if not _selects(spec.get("matchResources", {}).get("namespaceSelector", {}), namespace_labels):
            continue
        policy = policies[spec["policyName"]]
        if not any(
            _rule_matches(r, group, resource_of(subject["kind"]), operation)
            for r in policy["spec"]["matchConstraints"]["resourceRules"]
        ):
            continue
        params = binding_params(policy, b, namespace, cluster or [])
        if params == [] and spec["paramRef"]["parameterNotFoundAction"] == "Deny":
            out.append(Refusal(f"ValidatingAdmissionPolicy {policy['metadata']['name']}", "no params found"))
        out += [
            Refusal(f"ValidatingAdmissionPolicy {policy['metadata']['name']}", m)
            for param in (params if params is not None else [None])
            for m in policy_refusals(
                policy, obj, old=old, request=request, namespace_labels=namespace_labels, params=param
            )
        ]
    return out


# ---- RBAC ------------------------------------------------------------------------------------------------------------


def rbac_allows(
    manifests: list[dict[str, Any]],
    subjects: set[tuple[str, str]],
    verb: str,
    group: str,
    resource: str,
    namespace: str,
) -> list[str]:
    """The bindings (``<kind> <ns>/<name> -> <role>``) through which one of ``subjects`` (``(kind, name)``; service
    accounts as ``ns/name``) may ``verb`` ``resource`` of ``group`` in ``namespace``; [] if none."""
    roles = {
        (d["metadata"].get("namespace"), d["kind"], d["metadata"]["name"]): d
        for d in manifests
        if d["kind"] in ("Role", "ClusterRole")
    }
    hits = []
    for binding in (d for d in manifests if d["kind"] in ("RoleBinding", "ClusterRoleBinding")):
        ns = binding["metadata"].get("namespace")
        if binding["kind"] == "RoleBinding" and ns != namespace:
            continue
        bound = {
            (s["kind"], s["name"] if s["kind"] != "ServiceAccount" else f"{s.get('namespace', ns)}/{s['name']}")
            for s in binding.get("subjects", [])
        }
        if not bound & subjects:
            continue
        ref = binding["roleRef"]
        role = roles.get((ns if ref["kind"] == "Role" else None, ref["kind"], ref["name"]))
        rules = role["rules"] if role else [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]  # unknown: worst
        for rule in rules:
            if (
                (group in rule.get("apiGroups", []) or "*" in rule.get("apiGroups", []))
                and (resource in rule.get("resources", []) or "*" in rule.get("resources", []))
                and (verb in rule.get("verbs", []) or "*" in rule.get("verbs", []))
            ):
                hits.append(f"{binding['kind']} {ns}/{binding['metadata']['name']} -> {ref['name']}")
    return hits


# ---- ResourceQuota / LimitRange --------------------------------------------------------------------------------------


def quantity(value: Any, *, cpu: bool) -> float:
    """A Kubernetes quantity in cores (cpu) or bytes / count."""
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    text = str(value)
    for unit in sorted(units, key=len, reverse=True):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * units[unit]
    del cpu
    return float(text)


def pod_requests(pod_spec: dict[str, Any]) -> dict[str, float]:
    """Summed container requests (requests default to limits, as the API server does)."""
    out: dict[str, float] = {}
    for c in pod_spec.get("containers", []):
        res = c.get("resources", {})
        for name, value in {**res.get("limits", {}), **res.get("requests", {})}.items():
            out[name] = out.get(name, 0.0) + quantity(value, cpu=name == "cpu")
    return out


def quota_refusals(manifests: list[dict[str, Any]], namespace: str, pod_spec: dict[str, Any]) -> list[Refusal]:
    """Refusals of the namespace's ResourceQuotas (``requests.<resource>`` hard limits, used = 0) for one pod."""
    requests = pod_requests(pod_spec)
    out = []
    for q in (d for d in manifests if d["kind"] == "ResourceQuota" and d["metadata"].get("namespace") == namespace):
        for key, hard in q["spec"].get("hard", {}).items():
            if key.startswith("requests."):
                name = key.removeprefix("requests.")
                if requests.get(name, 0.0) > quantity(hard, cpu=name == "cpu"):
                    out.append(
                        Refusal(f"ResourceQuota {q['metadata']['name']}", f"{name} {requests[name]:g} > hard {hard}")
                    )
    return out


def limit_range_refusals(manifests: list[dict[str, Any]], namespace: str, pod_spec: dict[str, Any]) -> list[Refusal]:
    out = []
    for lr in (d for d in manifests if d["kind"] == "LimitRange" and d["metadata"].get("namespace") == namespace):
        for item in lr["spec"]["limits"]:
            if item.get("type") != "Container":
                continue
            for c in pod_spec.get("containers", []):
                limits = {**item.get("default", {}), **c.get("resources", {}).get("limits", {})}
                for name, most in item.get("max", {}).items():
                    if name in limits and quantity(limits[name], cpu=name == "cpu") > quantity(most, cpu=name == "cpu"):
                        out.append(
                            Refusal(
                                f"LimitRange {lr['metadata']['name']}",
                                f"container {c['name']} {name} limit {limits[name]} > max {most}",
                            )
                        )
    return out
