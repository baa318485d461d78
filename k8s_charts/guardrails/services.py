"""The Service and Secret policies (``llmft-team-services``, ``llmft-team-secrets``, k8s_charts/team_guardrails.py):
ClusterIP only, no external IPs, owned by nothing but a Deployment; the Secret rules."""

from __future__ import annotations

from k8s_charts.guardrails.common import _controllers


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
