"""The workflow policy (``llmft-team-workflows``, k8s_charts/team_guardrails.py): Argo Workflows' locks stay in the
namespace."""

from __future__ import annotations

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
