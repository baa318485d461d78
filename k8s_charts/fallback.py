"""The development fall-back controller (issue 44 item 6, case 2; docs/queueing.md "Fallback when unschedulable"): a
CronJob in the platform namespace that moves a development job admitted on reserved (HyperPod) quota whose pods did
not start within ``compute.kueue.development_fallback_after`` to the tier's burst flavors. Kueue v0.19.2 has no
mechanism for it (the design note in docs/queueing.md); the controller's code is
training/llm_platform/fallback_controller.py (decisions: fallback_rules.py), run from the ``sft`` image, which the
platform builds and pins by content hash and whose CPU steps already run on the CPU job pool.

Objects: ServiceAccount :data:`SERVICE_ACCOUNT` and ConfigMap (the controller's settings, derived from the config:
the development queues, their flavors and the reserved nodes' exclusion) in the platform namespace
(:data:`~k8s_charts.serving.PROMOTION_NAMESPACE`); in every team namespace with a development tier a Role
(:func:`fallback_rules`) bound to it; the CronJob. Teams have no verb in the platform namespace, so they can neither
run as it nor change its settings; the team guard rails admit this identity's change of a team job only if it is
exactly the fall-back, and of a Workload only if it changes ``spec.active`` and the controller's mark
(k8s_charts/guardrails/fallback.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from config import EnvironmentConfig
from config.kueue import duration_seconds
from config.queueing import NODE_TYPE_BY_KIND, tier_capacities
from k8s_charts import serving
from k8s_charts.pods import restricted_container_security_json
from k8s_charts.queues import cluster_queue_name, environment_capacities, flavor_node_labels, local_queue_name
from k8s_charts.tiers import CPU_JOBS_TAINT, NODE_TYPE_LABEL, cpu_job_node_selector

TIER = "development"
SERVICE_ACCOUNT = "llmft-fallback"
USER = f"system:serviceaccount:{serving.PROMOTION_NAMESPACE}:{SERVICE_ACCOUNT}"
"""The controller's identity in admission requests (kubernetes.io "Service account tokens": the username)."""
IMAGE = "sft"
SETTINGS_KEY = "settings.json"
SETTINGS_DIR = "/etc/llmft-fallback"
SCHEDULE = "* * * * *"
RUN_DEADLINE_SECONDS = 55
"""A run ends before the next minute's (``concurrencyPolicy: Forbid`` skips a run while one is still going)."""
MODULE = "llm_platform.fallback_controller"
CHECKOV_SKIPS = {
    "checkov.io/skip1": "CKV_K8S_43=The platform ECR repository has immutable tags: a tag names exactly one digest",
    "checkov.io/skip2": "CKV_K8S_15=Tags are immutable, so IfNotPresent never runs a stale image and spares "
    "re-pulling the multi-GB image every minute",
    "checkov.io/skip3": "CKV_K8S_38=The controller's job is API calls with this ServiceAccount's token (its Roles: "
    "list/patch Workloads, get/patch PyTorchJobs and RayJobs in team namespaces)",
    "checkov.io/skip4": "CKV_K8S_40=The platform images run as USER 1000:1000 (images/*/Dockerfile), the user the "
    "training package's files belong to",
}
"""Why checkov's checks that do not apply are skipped, beside the CronJob (tests/test_checkov.py)."""
IMAGE_USER = 1000
"""The platform images' user (images/*/Dockerfile ``USER 1000:1000``)."""


def exclusion() -> dict[str, Any]:
    """The required node-selector requirement that keeps a pod off every reserved (HyperPod) node: Kueue then never
    assigns a reserved flavor to it (their ``nodeLabels`` carry this ``node-type``)."""
    return {"key": NODE_TYPE_LABEL, "operator": "NotIn", "values": [NODE_TYPE_BY_KIND["reserved"]]}


def fallback_settings(config: EnvironmentConfig) -> dict[str, Any] | None:
    """The controller's settings (llm_platform.fallback_rules ``Settings.from_json``), or None when the controller is
    off (``compute.kueue.development_fallback_after: null``) or no team has a development queue with both reserved
    and burst flavors (nothing to fall back from or to)."""
    if config.compute.kueue.development_fallback_after is None:
        return None
    order = tier_capacities(TIER, environment_capacities(config))
    if not {c.kind for c in order} - {"reserved"} or "reserved" not in {c.kind for c in order}:
        return None
    flavors = [{"name": c.name, "reserved": c.kind == "reserved", "node_labels": flavor_node_labels(c)} for c in order]
    queues = [
        {
            "clusterQueue": cluster_queue_name(t.name, TIER),
            "namespace": t.namespace,
            "localQueue": local_queue_name(TIER),
            "flavors": flavors,
        }
        for t in config.kubernetes.teams
        if TIER in t.allowed_tiers
    ]
    if not queues:
        return None
    after = duration_seconds(config.compute.kueue.development_fallback_after)
    return {"afterSeconds": after, "exclude": exclusion(), "queues": queues}


def fallback_rules() -> list[k8s.PolicyRule]:
    """Exactly what the controller calls in a team namespace (llm_platform/fallback_controller.py): list and patch
    Workloads, get and patch the job kinds llmft renders with GPUs."""
    rule = k8s.PolicyRule
    return [
        rule(api_groups=["kueue.x-k8s.io"], resources=["workloads"], verbs=["list", "patch"]),
        rule(api_groups=["kubeflow.org"], resources=["pytorchjobs"], verbs=["get", "patch"]),
        rule(api_groups=["ray.io"], resources=["rayjobs"], verbs=["get", "patch"]),
    ]


def cron_job_spec(image: str, config_map: str) -> dict[str, Any]:
    """The CronJob's spec: every minute, never two at once, one try per run, on the CPU job pool."""
    key, value, effect = CPU_JOBS_TAINT
    container = {
        "name": "controller",
        "image": image,
        "command": ["python", "-m", MODULE, "--config", f"{SETTINGS_DIR}/{SETTINGS_KEY}"],
        "resources": {"requests": {"cpu": "50m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
        "securityContext": restricted_container_security_json(IMAGE_USER),
        "volumeMounts": [
            {"name": "settings", "mountPath": SETTINGS_DIR, "readOnly": True},
            {"name": "tmp", "mountPath": "/tmp"},
        ],
    }
    pod = {
        "serviceAccountName": SERVICE_ACCOUNT,
        "restartPolicy": "Never",
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "nodeSelector": cpu_job_node_selector(),
        "tolerations": [{"key": key, "operator": "Equal", "value": value, "effect": effect}],
        "containers": [container],
        "volumes": [
            {"name": "settings", "configMap": {"name": config_map}},
            {"name": "tmp", "emptyDir": {"sizeLimit": "16Mi"}},
        ],
    }
    return {
        "schedule": SCHEDULE,
        "concurrencyPolicy": "Forbid",
        "startingDeadlineSeconds": RUN_DEADLINE_SECONDS,
        "successfulJobsHistoryLimit": 1,
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {
            "spec": {
                "backoffLimit": 0,
                "activeDeadlineSeconds": RUN_DEADLINE_SECONDS,
                "ttlSecondsAfterFinished": 3600,
                "template": {"metadata": {"labels": {"app.kubernetes.io/name": SERVICE_ACCOUNT}}, "spec": pod},
            }
        },
    }


class DevelopmentFallback(Construct):
    """ServiceAccount, settings ConfigMap and CronJob of the controller in the platform namespace, and its Role and
    RoleBinding in each namespace of ``settings["queues"]``.

    :param settings: :func:`fallback_settings`. Required.
    :param image: the URI of the platform image :data:`IMAGE`. Required.
    :param labels: labels of every object. Required.
    :param after: objects everything here is applied after (the platform namespace, the team namespaces). Default: none.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: dict[str, Any],
        image: str,
        labels: dict[str, str],
        after: Sequence[Construct] = (),
    ):
        super().__init__(scope, construct_id)
        ns = serving.PROMOTION_NAMESPACE
        meta = k8s.ObjectMeta(name=SERVICE_ACCOUNT, namespace=ns, labels=labels)
        self.service_account = k8s.KubeServiceAccount(self, "ServiceAccount", metadata=meta)
        self.config_map = k8s.KubeConfigMap(
            self, "Settings", metadata=meta, data={SETTINGS_KEY: json.dumps(settings, indent=1, sort_keys=True)}
        )
        # a plain ApiObject: KubeCronJob's typed serialisation dropped the container's resources set by a JSON patch
        self.cron_job = cdk8s.ApiObject(
            self,
            "CronJob",
            api_version="batch/v1",
            kind="CronJob",
            metadata=cdk8s.ApiObjectMetadata(
                name=SERVICE_ACCOUNT, namespace=ns, labels=labels, annotations=CHECKOV_SKIPS
            ),
        )
        self.cron_job.add_json_patch(cdk8s.JsonPatch.add("/spec", cron_job_spec(image, SERVICE_ACCOUNT)))
        subject = k8s.Subject(kind="ServiceAccount", name=SERVICE_ACCOUNT, namespace=ns)
        self.roles: dict[str, k8s.KubeRole] = {}
        self.bindings: dict[str, k8s.KubeRoleBinding] = {}
        for queue in settings["queues"]:
            team_ns = queue["namespace"]
            team_meta = k8s.ObjectMeta(name=SERVICE_ACCOUNT, namespace=team_ns, labels=labels)
            self.roles[team_ns] = k8s.KubeRole(self, f"Role-{team_ns}", metadata=team_meta, rules=fallback_rules())
            self.bindings[team_ns] = k8s.KubeRoleBinding(
                self,
                f"Binding-{team_ns}",
                metadata=team_meta,
                role_ref=k8s.RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name=SERVICE_ACCOUNT),
                subjects=[subject],
            )
        for obj in (
            self.service_account,
            self.config_map,
            self.cron_job,
            *self.roles.values(),
            *self.bindings.values(),
        ):
            for dependency in after:
                obj.add_dependency(dependency)
