"""`llmft promote SPEC --image IMAGE`: the promotion Job of a production serve spec (docs/serving.md "The production
promotion path", step 4), for a platform admin to apply.

llmft resolves the spec's model version in MLflow (never a ``--registry`` snapshot: the version must have passed the
platform's evaluator and carry the weights digest, llmft/registry.py) and renders the endpoint (Deployment, Service,
ScaledObject) as ``llmft submit`` would. It prints two objects in the platform namespace
:data:`~k8s_charts.serving.PROMOTION_NAMESPACE`: a ConfigMap holding that endpoint and a batch Job that runs as
:data:`~k8s_charts.serving.PROMOTER_SERVICE_ACCOUNT`. The Job first checks, in the cluster and as the platform, that
the Deployment serves what the evaluator passed (an init container running ``llm_platform.promotion_check`` in the
Deployment's own serving image, with the MLflow evaluator's credentials of the platform namespace), and only then
applies the endpoint with ``kubectl apply``; a refusal fails the Job (no retries). What holds is not this command:
the team-namespace admission policy admits a production-tier Deployment only from the promoter's identity,
only behind the digest check and with allowlisted engine flags (k8s_charts/guardrails/production.py),
the promoter's Role reaches only serving objects (k8s_charts/promotion.py), and teams have no verb in the platform
namespace, so neither the ConfigMap nor the Job can be written by a team.
"""

from __future__ import annotations

from typing import Any

import yaml

from k8s_charts import serving
from k8s_charts.pods import (
    MLFLOW_CREDENTIALS_MOUNT_PATH,
    MLFLOW_CREDENTIALS_VOLUME,
    SECRETS_STORE_CSI_DRIVER,
    restricted_container_security_json,
)
from k8s_charts.tiers import CPU_JOBS_TAINT, cpu_job_node_selector
from k8s_charts.values import MLFLOW_CONFIG_MAP, MLFLOW_CREDENTIALS_SECRET, MLFLOW_SECRET_PROVIDER_CLASS

ENDPOINT_KEY = "endpoint.yaml"
MOUNT = "/promotion"
JOB_TTL_SECONDS = 7 * 24 * 3600
"""A finished promotion Job (and its log) stays a week for the audit trail, then Kubernetes deletes it."""
MAX_NAME = 63 - len("promote-")
RETIRED_KINDS = ("scaledobjects.keda.sh", "services", "deployments.apps")
"""What retiring an endpoint deletes, in this order, one container each (init containers run one after the other, each
to completion, before the next starts: kubernetes.io "Init Containers"): the autoscaler first, so it cannot scale the
Deployment back while it goes, then the Service, then the Deployment."""
CHECK_MODULE = "llm_platform.promotion_check"
"""The check the Job runs before it applies (training/llm_platform/promotion_check.py)."""
IMAGE_USER = 1000
"""The platform images' user (images/*/Dockerfile ``USER 1000:1000``)."""


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


_MOUNTS = [{"name": "endpoint", "mountPath": MOUNT, "readOnly": True}, {"name": "tmp", "mountPath": "/tmp"}]


def _container(image: str) -> dict[str, Any]:
    """kubectl applies the endpoint with the pod's ServiceAccount token (in-cluster config)."""
    return {
        "name": "promote",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["kubectl", "apply", "--filename", f"{MOUNT}/{ENDPOINT_KEY}"],
        "env": [{"name": "HOME", "value": "/tmp"}],  # kubectl's discovery cache
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
        "securityContext": restricted_container_security_json(65532),
        "volumeMounts": list(_MOUNTS),
    }


def _check_container(image: str) -> dict[str, Any]:
    """The platform's own check before anything is applied (llm_platform.promotion_check): MLflow, asked with the
    evaluator's user (the platform namespace's ConfigMap ``mlflow`` and the Secret ``mlflow-credentials`` the CSI
    driver syncs from the evaluator's secret with the promoter's Pod Identity, k8s_charts/promotion.py), says the
    Deployment's version passed the gate with its digest and directory. ``image``: the Deployment's serving image
    (it has the training package and the MLflow client)."""
    return {
        "name": "check",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["python3", "-m", CHECK_MODULE, "--endpoint", f"{MOUNT}/{ENDPOINT_KEY}"],
        "env": [{"name": "HOME", "value": "/tmp"}, {"name": "MLFLOW_DISABLE_TELEMETRY", "value": "true"}],
        "envFrom": [
            {"configMapRef": {"name": MLFLOW_CONFIG_MAP}},
            {"secretRef": {"name": MLFLOW_CREDENTIALS_SECRET}},
        ],
        "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
        "securityContext": restricted_container_security_json(IMAGE_USER),
        "volumeMounts": [
            *_MOUNTS,
            {"name": MLFLOW_CREDENTIALS_VOLUME, "mountPath": MLFLOW_CREDENTIALS_MOUNT_PATH, "readOnly": True},
        ],
    }


def _serving_image(deployment: dict[str, Any]) -> str:
    images = {c["image"] for c in deployment["spec"]["template"]["spec"]["containers"]}
    if len(images) != 1:
        raise ValueError(f"the endpoint's Deployment runs {len(images)} images; llmft renders one engine image")
    return images.pop()


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
        **_promoter_pod(),
        "initContainers": [_check_container(_serving_image(deployment))],
        "containers": [_container(image)],
        "volumes": [
            {"name": "endpoint", "configMap": {"name": name}},
            {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
            {
                "name": MLFLOW_CREDENTIALS_VOLUME,
                "csi": {
                    "driver": SECRETS_STORE_CSI_DRIVER,
                    "readOnly": True,
                    "volumeAttributes": {"secretProviderClass": MLFLOW_SECRET_PROVIDER_CLASS},
                },
            },
        ],
    }
    return [config_map, _job(name, labels, pod)]


def _promoter_pod() -> dict[str, Any]:
    """What every Job of the promoter runs with: its ServiceAccount, Pod Security ``restricted``, and the CPU job pool
    (the serving image is large: pulled there, never on the system nodes)."""
    key, value, effect = CPU_JOBS_TAINT
    return {
        "serviceAccountName": serving.PROMOTER_SERVICE_ACCOUNT,
        "restartPolicy": "Never",
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "nodeSelector": cpu_job_node_selector(),
        "tolerations": [{"key": key, "operator": "Equal", "value": value, "effect": effect}],
    }


def _job(name: str, labels: dict[str, str], pod: dict[str, Any]) -> dict[str, Any]:
    """A Job of the promoter in the platform namespace: no retries (a refusal is an answer to read), kept a week."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": serving.PROMOTION_NAMESPACE, "labels": labels},
        "spec": {
            "backoffLimit": 0,
            "ttlSecondsAfterFinished": JOB_TTL_SECONDS,
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }


def retirement_manifests(serve_name: str, namespace: str, *, image: str) -> list[dict[str, Any]]:
    """The Job that retires a production endpoint: as the promoter (the only identity besides the platform's
    controllers that the admission rules let delete a production Deployment, Service or ScaledObject,
    k8s_charts/guardrails/production.py), it deletes the three objects of ``serve_name`` in ``namespace`` by name
    (:data:`RETIRED_KINDS`). ``image``: any image with ``kubectl``."""
    name = promotion_name(serve_name).replace("promote-", "retire-", 1)
    labels = _labels(serve_name, namespace)
    deletes = [
        {
            **_container(image),
            "name": f"delete-{kind.split('.')[0]}",
            "command": ["kubectl", "delete", "--namespace", namespace, "--ignore-not-found", "--wait=true"]
            + [f"{kind}/{serve_name}"],
            "volumeMounts": [_MOUNTS[1]],
        }
        for kind in RETIRED_KINDS
    ]
    pod = {
        **_promoter_pod(),
        "initContainers": deletes[:-1],
        "containers": deletes[-1:],
        "volumes": [{"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}],
    }
    return [_job(name, labels, pod)]
