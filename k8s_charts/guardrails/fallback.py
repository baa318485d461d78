"""The workload policy's rule for the development fall-back controller (k8s_charts/fallback.py): its identity
(:data:`~k8s_charts.fallback.USER`) may change a team's PyTorchJob or RayJob only by the fall-back itself - the
annotation :data:`~llm_platform.fallback_rules.ANNOTATION` and the reserved nodes' exclusion
(:func:`~k8s_charts.fallback.exclusion`) added to the required node-affinity terms of its pod templates - and may
create, delete or change nothing else. A team member's requests are not touched by this rule.

:func:`workload_policy_spec` is the same for Kueue Workloads (security review L2: RBAC ``patch workloads`` alone would
let the identity change any Workload field in a team namespace): the identity may update a Workload only by changing
``spec.active`` and its mark :data:`~llm_platform.fallback_rules.MARK`; every other property of the Workload's ``spec``
(from the vendored v0.19.2 CRD's storage version, v1beta2), its labels, owners, finalizers and other annotations
equal the stored object's. The policy's ``matchConditions`` select this identity's requests only, so Kueue's own
Workload writes never meet it.

"Nothing else" is derived from the vendored CRDs (k8s_charts/crds, the versions the cluster runs): every property of
the job's ``spec`` along the path to the pod templates' ``affinity`` is compared with the stored object, so a field
the schema has is never left out (the API server prunes fields a structural schema lacks, so there are no others);
the affinity's other parts (preferred terms, pod (anti-)affinity) likewise.
"""

from __future__ import annotations

import functools
from typing import Any

from llm_platform.fallback_rules import ANNOTATION, MARK

from k8s_charts.fallback import USER, exclusion

JOB_PATHS = {
    "PyTorchJob": ("kubeflow.org_pytorchjobs.yaml", ("pytorchReplicaSpecs", "*", "template", "spec", "affinity")),
    "RayJob": ("ray.io_rayjobs.yaml", ("rayClusterSpec", "workerGroupSpecs", "[]", "template", "spec", "affinity")),
}
"""Kind -> (vendored CRD, path from ``spec`` to a pod template's affinity: ``*`` a map's values, ``[]`` a list's
items matched by ``groupName``, which KubeRay requires and keeps unique)."""

# CEL reserved words Kubernetes escapes in field names (kubernetes.io "CEL in Kubernetes", escaping); none may be
# compared by plain selection, so the generator refuses them rather than write a rule that cannot compile
_RESERVED = {"namespace", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let"}
_RESERVED |= {"loop", "package", "return", "var", "void", "while", "true", "false", "null"}


@functools.lru_cache(maxsize=None)
def _spec_schema(crd_file: str) -> dict[str, Any]:
    import yaml

    from k8s_charts.validation import CRD_DIR

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    crd = yaml.load((CRD_DIR / crd_file).read_text(), Loader=loader)
    (version,) = [v for v in crd["spec"]["versions"] if v.get("storage")]
    return version["schema"]["openAPIV3Schema"]["properties"]["spec"]


def _same(n: str, o: str, prop: str) -> str:
    if prop in _RESERVED:
        raise ValueError(f"{prop!r} is a CEL reserved word: escape it before comparing")
    return f"(has({n}.{prop}) ? (has({o}.{prop}) && {n}.{prop} == {o}.{prop}) : !has({o}.{prop}))"


def _excl(e: str) -> str:
    """CEL: the NodeSelectorRequirement ``e`` is the exclusion."""
    x = exclusion()
    values = ", ".join(f"'{v}'" for v in x["values"])
    return (
        f"({e}.key == '{x['key']}' && {e}.operator == '{x['operator']}' && has({e}.values) && {e}.values == [{values}])"
    )


def _expressions(t: str) -> str:
    """CEL: term ``t``'s matchExpressions without the exclusion."""
    return f"(has({t}.matchExpressions) ? {t}.matchExpressions.filter(e, !{_excl('e')}) : [])"


def _fields(t: str) -> str:
    return f"(has({t}.matchFields) ? {t}.matchFields : [])"


REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def _terms(node_affinity: str, present: str) -> str:
    """CEL: the required nodeSelectorTerms of ``node_affinity`` ([] when ``present`` is false or they are unset)."""
    required = f"{node_affinity}.{REQUIRED}"
    return f"({present} && has({required}) && has({required}.nodeSelectorTerms) ? {required}.nodeSelectorTerms : [])"


def _gains_exclusion(new: str, old: str) -> str:
    """CEL: term list ``new`` is ``old`` with the exclusion in every term, or holds one term of only the exclusion
    where ``old`` is empty (a pod without required node affinity)."""
    every = f"{new}.all(t, has(t.matchExpressions) && t.matchExpressions.exists(e, {_excl('e')}))"
    same = (
        f"size({new}) == size({old}) && {new}.map(t, {_expressions('t')}) == {old}.map(t, {_expressions('t')}) && "
        f"{new}.map(t, {_fields('t')}) == {old}.map(t, {_fields('t')})"
    )
    first = f"{new}[0]"
    alone = f"size({old}) == 0 && size({new}) == 1 && size({_expressions(first)}) == 0 && size({_fields(first)}) == 0"
    return f"(size({new}) > 0 && {every} && (({same}) || ({alone})))"


def _affinity(n: str, o: str, schema: dict[str, Any]) -> str:
    """CEL: pod spec ``n``'s affinity is ``o``'s, or ``o``'s with the exclusion added to its required node affinity
    (everything else of the affinity as it was)."""
    an, ao = f"{n}.affinity", f"{o}.affinity"
    nn, no = f"{an}.nodeAffinity", f"{ao}.nodeAffinity"
    old_a, old_na = f"has({ao})", f"has({ao}) && has({no})"
    parts = [f"has({an})", f"has({nn})"]
    parts += [
        f"({old_a} ? {_same(an, ao, p)} : !has({an}.{p}))" for p in sorted(schema["properties"]) if p != "nodeAffinity"
    ]
    node = schema["properties"]["nodeAffinity"]["properties"]
    parts += [f"({old_na} ? {_same(nn, no, p)} : !has({nn}.{p}))" for p in sorted(node) if p != REQUIRED]
    parts.append(_gains_exclusion(_terms(nn, "true"), _terms(no, old_na)))
    return f"({_same(n, o, 'affinity')} || ({' && '.join(parts)}))"


def _same_except(n: str, o: str, schema: dict[str, Any], path: tuple[str, ...]) -> str:
    """CEL: ``n`` equals ``o`` in every property of ``schema`` except along ``path`` (whose last step is the pod
    spec's ``affinity``, which may gain the exclusion)."""
    head, rest = path[0], path[1:]
    parts = [_same(n, o, p) for p in sorted(schema["properties"]) if p != head]
    if not rest:
        return "(" + " && ".join([*parts, _affinity(n, o, schema["properties"][head])]) + ")"
    parts.append(f"(has({n}.{head}) == has({o}.{head}))")
    parts.append(f"(!has({n}.{head}) || {_within(f'{n}.{head}', f'{o}.{head}', schema['properties'][head], rest)})")
    return "(" + " && ".join(parts) + ")"


def _within(n: str, o: str, schema: dict[str, Any], path: tuple[str, ...]) -> str:
    """:func:`_same_except` for a map (``*``: the same keys, each value compared) or a keyed list (``[]``)."""
    if path[0] == "*":
        inner = _same_except(f"{n}[k]", f"{o}[k]", schema["additionalProperties"], path[1:])
        return f"(size({n}) == size({o}) && {n}.all(k, k in {o} && {inner}))"
    if path[0] == "[]":
        inner = _same_except("x", "y", schema["items"], path[1:])
        return f"(size({n}) == size({o}) && {n}.all(x, {o}.exists(y, y.groupName == x.groupName && {inner})))"
    return _same_except(n, o, schema, path)


def _metadata_same(annotation: str = ANNOTATION, *, removable: bool = False) -> str:
    """CEL: labels, ownerReferences and finalizers unchanged; annotations unchanged but for ``annotation``, which may be
    added or changed (and removed if ``removable``)."""
    n, o = "object.metadata", "oldObject.metadata"
    parts = [_same(n, o, p) for p in ("labels", "ownerReferences", "finalizers")]
    new, old = (f"(has({m}.annotations) ? {m}.annotations : {{}})" for m in (n, o))
    parts.append(f"{new}.all(k, k == '{annotation}' || (k in {old} && {old}[k] == {new}[k]))")
    kept = f"k in {new} && (k == '{annotation}' || {old}[k] == {new}[k])"
    if removable:
        kept = f"k == '{annotation}' || ({kept})"
    parts.append(f"{old}.all(k, {kept})")
    return "(" + " && ".join(parts) + ")"


@functools.lru_cache(maxsize=None)
def fallback_rules() -> list[dict[str, str]]:
    """The workload policy's rules for requests of :data:`~k8s_charts.fallback.USER`."""
    kinds = ", ".join(f"'{k}'" for k in JOB_PATHS)
    spec = " : ".join(
        f"object.kind == '{kind}' ? {_same_except('object.spec', 'oldObject.spec', _spec_schema(crd), path)}"
        for kind, (crd, path) in JOB_PATHS.items()
    )
    moved = f"request.operation == 'UPDATE' && object.kind in [{kinds}] && {_metadata_same()} && ({spec} : false)"
    x = exclusion()
    return [
        {
            "expression": f"request.userInfo.username != '{USER}' || ({moved})",
            "message": f"the development fall-back controller may only move a PyTorchJob or RayJob off reserved "
            f"capacity: the annotation {ANNOTATION} and the requirement {x['key']} {x['operator']} {x['values']} in "
            f"its pod templates' required node affinity, nothing else",
        }
    ]


WORKLOAD_CRD = "kueue.x-k8s.io_workloads.yaml"
WORKLOAD_VERSION = "v1beta2"
"""The Workload version the rule reads (the vendored CRD's storage version; a request made in another served version
is converted to it before the policy runs, ``matchPolicy: Equivalent``)."""


def workload_rules() -> list[dict[str, str]]:
    """The validation of :func:`workload_policy_spec`: an UPDATE changing only ``spec.active`` and :data:`MARK`."""
    schema = _spec_schema(WORKLOAD_CRD)
    same = " && ".join(_same("object.spec", "oldObject.spec", p) for p in sorted(schema["properties"]) if p != "active")
    expression = f"request.operation == 'UPDATE' && {_metadata_same(MARK, removable=True)} && {same}"
    return [
        {
            "expression": expression,
            "message": f"the development fall-back controller may change a Workload only by spec.active and its "
            f"annotation {MARK}, nothing else",
        }
    ]


def workload_policy_spec() -> dict[str, Any]:
    """The ValidatingAdmissionPolicy spec (less ``failurePolicy``) of the controller's Workload writes: every write
    (create, update, delete) of a Workload by :data:`~k8s_charts.fallback.USER`, and no one else's."""
    rule = {
        "apiGroups": ["kueue.x-k8s.io"],
        "apiVersions": [WORKLOAD_VERSION],
        "operations": ["CREATE", "UPDATE", "DELETE"],
        "resources": ["workloads"],
    }
    return {
        "matchConstraints": {"resourceRules": [rule], "matchPolicy": "Equivalent"},
        "matchConditions": [{"name": "fallback-controller", "expression": f"request.userInfo.username == '{USER}'"}],
        "validations": workload_rules(),
    }
