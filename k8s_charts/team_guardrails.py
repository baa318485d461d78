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

- :data:`FALLBACK_WORKLOAD_POLICY` ``llmft-team-fallback-workloads``: the development fall-back controller's identity
  (k8s_charts/fallback.py ``USER``, selected by ``matchConditions``: no one else's request is evaluated) may only
  update a Workload, and only its ``spec.active`` and its mark annotation (k8s_charts/guardrails/fallback.py
  ``workload_policy_spec``). Teams have no write verb on Workloads (k8s_charts/team_namespaces.py).

NetworkPolicies need no policy: teams have no verb on them (k8s_charts/team_namespaces.py).

Every rule is a pure CEL expression over ``object``, ``oldObject``, ``request``, ``namespaceObject`` (and the
policy's ``variables``); tests evaluate them with cel-python against attack objects (tests/test_team_guardrails.py,
tests/test_redteam_classes.py, tests/test_isolation_matrix.py).
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from k8s_charts.guardrails.autoscaling import _scale_rules, _scaled_object_rules
from k8s_charts.guardrails.common import (
    AUTOSCALING_POLICY,
    DELETION_POLICY,
    FALLBACK_WORKLOAD_POLICY,
    POD_POLICY,
    PRODUCTION_POLICY,
    PRODUCTION_TARGET_POLICY,
    SECRET_POLICY,
    SERVICE_POLICY,
    WORKFLOW_POLICY,
    WORKLOAD_POLICY,
)
from k8s_charts.guardrails.fallback import workload_policy_spec
from k8s_charts.guardrails.pods import _SERVE_POD, _pod_rules
from k8s_charts.guardrails.production import (
    _PRODUCTION_DEPLOYMENT,
    _PRODUCTION_OBJECT,
    PARAM_REFS,
    _production_endpoint_rules,
    _production_target_rules,
)
from k8s_charts.guardrails.services import _secret_rules, _service_rules
from k8s_charts.guardrails.workflows import _LOCKS, _workflow_rules
from k8s_charts.guardrails.workloads import (
    _RAY_CLUSTER,
    _SERVE_DEPLOYMENT,
    _SERVE_REPLICA_SET,
    _TEMPLATES,
    _WORKLOAD_RULES,
    _deletion_rules,
    _workload_rules,
)
from k8s_charts.queues import (
    MANAGED_NAMESPACE_LABEL,
)


def _endpoint_object_rules() -> list[dict]:
    """The ``resourceRules`` of an endpoint's ScaledObject and Service, written (created, changed, deleted): what both
    production policies match, by label and by name."""
    return [
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
                *_endpoint_object_rules(),
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
                *_endpoint_object_rules(),
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
    FALLBACK_WORKLOAD_POLICY: workload_policy_spec(),
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
