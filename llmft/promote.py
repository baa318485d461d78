"""`llmft promote SPEC --image IMAGE`: the promotion Job of a production serve spec (docs/serving.md "The production
promotion path", step 4), for a platform admin to apply.

llmft resolves the spec's model version in MLflow (never a ``--registry`` snapshot: the version must have passed the
platform's evaluator and carry the weights digest, llmft/registry.py) and renders the endpoint (Deployment, Service,
ScaledObject) as ``llmft submit`` would. It prints two objects in the platform namespace
:data:`~k8s_charts.serving.PROMOTION_NAMESPACE`: a ConfigMap holding that endpoint and a batch Job that runs as
:data:`~k8s_charts.serving.PROMOTER_SERVICE_ACCOUNT` and applies it with ``kubectl apply``. What holds is not this
command: the team-namespace admission policy admits a production-tier Deployment only from the promoter's identity,
only behind the digest check and with allowlisted engine flags (k8s_charts/team_guardrails.py ``_production_rules``),
the promoter's Role reaches only serving objects (k8s_charts/promotion.py), and teams have no verb in the platform
namespace, so neither the ConfigMap nor the Job can be written by a team.
"""

from __future__ import annotations

from typing import Any

import yaml

from k8s_charts import serving

ENDPOINT_KEY = "endpoint.yaml"
MOUNT = "/promotion"
JOB_TTL_SECONDS = 7 * 24 * 3600
"""A finished promotion Job (and its log) stays a week for the audit trail, then Kubernetes deletes it."""
MAX_NAME = 63 - len("promote-")


def promotion_name(serve_name: str) -> str:
    """``promote-<serve name>``: one promotion per endpoint at a time (a second one is refused by the API server as
    AlreadyExists until the first is deleted or expires)."""
    if len(serve_name) > MAX_NAME:
        raise ValueError(
            f"name {serve_name!r}: a production endpoint's name has at most {MAX_NAME} characters so that its "
            f"promotion Job promote-<name> is a valid object name; shorten the spec's name"
        )
    return f"promote-{serve_name}"


def _labels(serve_name: str, namespace: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/part-of": "llm-platform",
        "app.kubernetes.io/component": "promotion",
        serving.SERVE_NAME_LABEL: serve_name,
        "platform/team-namespace": namespace,
    }


def _container(image: str) -> dict[str, Any]:
    """kubectl applies the endpoint with the pod's ServiceAccount token (in-cluster config)."""
    return {
        "name": "promote",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["kubectl", "apply", "--filename", f"{MOUNT}/{ENDPOINT_KEY}"],
        "env": [{"name": "HOME", "value": "/tmp"}],  # kubectl's discovery cache
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumeMounts": [
            {"name": "endpoint", "mountPath": MOUNT, "readOnly": True},
            {"name": "tmp", "mountPath": "/tmp"},
        ],
    }


def promotion_manifests(endpoint: list[dict[str, Any]], *, image: str) -> list[dict[str, Any]]:
    """ConfigMap (the rendered ``endpoint``) and Job (applies it as the promoter) in the platform namespace.
    ``endpoint``: llmft's manifests of a production serve spec, the Deployment first; ``image``: any image with
    ``kubectl`` (the platform builds none; pin it by digest)."""
    deployment = endpoint[0]
    if deployment["kind"] != "Deployment":
        raise ValueError(f"the endpoint's first object is a {deployment['kind']}, not its Deployment")
    serve_name, namespace = deployment["metadata"]["name"], deployment["metadata"]["namespace"]
    name = promotion_name(serve_name)
    ns = serving.PROMOTION_NAMESPACE
    labels = _labels(serve_name, namespace)
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "immutable": True,
        "data": {ENDPOINT_KEY: yaml.safe_dump_all(endpoint, sort_keys=False)},
    }
    pod = {
        "serviceAccountName": serving.PROMOTER_SERVICE_ACCOUNT,
        "restartPolicy": "Never",
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [_container(image)],
        "volumes": [
            {"name": "endpoint", "configMap": {"name": name}},
            {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
        ],
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {
            "backoffLimit": 0,  # a refused apply is an answer to read, not to retry
            "ttlSecondsAfterFinished": JOB_TTL_SECONDS,
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }
    return [config_map, job]
