"""Production endpoints are the promotion identity's whole (issue 40; k8s_charts/team_guardrails.py): the workload
policy's production rules (pinned weights, allowlisted engine flags), ``llmft-team-production`` and
``llmft-team-production-targets`` (by name, through the binding's paramRef)."""

from __future__ import annotations

from llm_platform.engine_flags import admission_patterns

from k8s_charts import serving
from k8s_charts.guardrails.common import PLATFORM_CONTROLLERS, PRODUCTION_TARGET_POLICY, _cel_list, _label
from k8s_charts.queues import (
    QUEUE_NAME_LABEL,
    local_queue_name,
)

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
