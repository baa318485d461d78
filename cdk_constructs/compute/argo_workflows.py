"""Argo Workflows (``pipelines.enabled``): the controller that runs `llmft pipeline` Workflows in team namespaces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, AddOnSite, SystemPod, register, requests_of
from config.charts import ARGO_WORKFLOWS_CHART_VERSION
from k8s_charts.tiers import CPU_JOBS_TAINT, cpu_job_node_selector

ARGO_HELM_REPOSITORY = "https://argoproj.github.io/argo-helm"
ARGO_WORKFLOWS_NAMESPACE = "argo"
RELEASE = "argo-workflows"
METRICS_SERVICE = f"{RELEASE}-workflow-controller"
"""The controller's Service, created only with ``controller.metricsConfig.enabled`` (argo-helm tag
argo-workflows-1.0.18, charts/argo-workflows/templates/controller/workflow-controller-service.yaml l.1): named
``argo-workflows.controller.fullname`` = fullname ``-`` ``controller.name`` (_helpers.tpl l.13-15; fullname is the
release name when it contains the chart name, l.28-39; ``controller.name: workflow-controller``)."""
METRICS_PORT_NAME = "metrics"
METRICS_SERVICE_PORT = 8080
"""values.yaml l.194-198 (tag argo-workflows-1.0.18): ``servicePortName: metrics``, ``servicePort: 8080`` -> container
port ``metricsConfig.port`` 9090, path ``/metrics``."""
RESOURCES = {
    "controller": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "512Mi"}},
    "server": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
}
"""argo-workflows 1.0.18 values.yaml: `controller.resources: {}`, `server.resources: {}` (no requests by default)."""
CHART_REPLICAS = 1
"""argo-workflows 1.0.18 values.yaml l.400 ``controller.replicas: 1`` and l.642 ``server.replicas: 1`` (copy in
tests/upstream/argo-workflows-1.0.18); we set neither."""


def workflow_pod_placement() -> dict:
    """``nodeSelector`` and ``tolerations`` of every Workflow pod: the team CPU pods' (k8s_charts/tiers.py)."""
    key, value, effect = CPU_JOBS_TAINT
    return {
        "nodeSelector": cpu_job_node_selector(),
        "tolerations": [{"key": key, "operator": "Equal", "value": value, "effect": effect}],
    }


def helm_values(node_selector: Mapping[str, str]) -> dict:
    """argo-workflows 1.0.18 values (charts/argo-workflows/values.yaml at the tag):

    - ``crds.full: false``: the chart installs its minimal CRDs as templates (upgraded with the release); the full
      mode runs a pre-install Job that downloads the CRDs from GitHub (``crds.upgradeJob.crdBaseURL``), which the
      cluster has no reason to reach. The full schemas are vendored in k8s_charts/crds for offline validation.
    - controller and server on the system nodes (``nodeSelector``), with requests;
    - server: ``serviceType: ClusterIP`` (no load balancer; `kubectl -n argo port-forward svc/argo-workflows-server
      2746`) and ``authModes: [client]``: every UI/API call carries the caller's own Kubernetes token and is
      authorized by the cluster's RBAC (Argo Workflows docs/argo-server-auth-mode.md), so a team sees and submits
      only in its namespace;
    - ``controller.metricsConfig``: ``enabled`` (chart default false, values.yaml l.178-180) gives the controller its
      Prometheus endpoint and the Service :data:`METRICS_SERVICE` (port :data:`METRICS_PORT_NAME`), scraped by the
      CloudWatch agent (cdk_constructs/observability/container_insights.py ``argo_workflows_scrape_job``); ``secure:
      false`` written out: the controller serves plain HTTP only when the configmap says so (Argo Workflows v4.0.6
      docs/metrics.md: ``secure`` defaults to true from 3.6), the chart writes the value into the configmap
      (templates/controller/workflow-controller-config-map.yaml l.121-130);
    - ``controller.workflowDefaults`` (values.yaml l.268; merged under every Workflow's own spec, which wins: Argo
      Workflows docs/default-workflow-specs.md) ``nodeSelector`` and ``tolerations``: the CPU job pool, which the
      controller gives every pod of a Workflow (v4.0.6 workflow/controller/workflowpod.go
      ``addSchedulingConstraints``: the template's, else the Workflow's), so the executor pods of `llmft pipeline`
      steps run where the team pod policy admits pods without GPUs (k8s_charts/team_guardrails.py) and never on the
      system nodes;
    - ``workflow.serviceAccount.create/rbac.create: false``: Workflows run as the team ServiceAccount the platform
      creates in each team namespace (k8s_charts/team_namespaces.py ``llmft-pipelines``), not a chart-wide one.
    """
    selector = {"kubernetes.io/os": "linux", **dict(node_selector)}
    return {
        "crds": {"install": True, "keep": True, "full": False},
        "workflow": {"serviceAccount": {"create": False}, "rbac": {"create": False}},
        "controller": {
            "nodeSelector": selector,
            "workflowDefaults": {"spec": workflow_pod_placement()},
            "resources": RESOURCES["controller"],
            "metricsConfig": {
                "enabled": True,
                "secure": False,
                "servicePortName": METRICS_PORT_NAME,
                "servicePort": METRICS_SERVICE_PORT,
            },
        },
        "server": {
            "enabled": True,
            "nodeSelector": selector,
            "resources": RESOURCES["server"],
            "serviceType": "ClusterIP",
            "authModes": ["client"],
        },
    }


def install(site: AddOnSite, addon: AddOn) -> ArgoWorkflows:
    """:class:`ArgoWorkflows` ``ArgoWorkflows`` (``pipelines.enabled``): runs `llmft pipeline` Workflows in the team
    namespaces."""
    workflows = ArgoWorkflows(
        site.scope,
        "ArgoWorkflows",
        cluster=site.cluster,
        node_selector=site.node_selector,
        after=site.installed.after(addon),
    )
    site.installed.add(addon, [workflows.release])
    return workflows


def system_pods(values: Mapping[str, Any]) -> list[SystemPod]:
    """The controller and the server (:func:`helm_values` sets their requests and nodeSelector)."""
    return [
        SystemPod(f"argo-workflows-{c}", requests_of(values[c]["resources"]), values[c].get("replicas", CHART_REPLICAS))
        for c in ("controller", "server")
    ]


ARGO_WORKFLOWS = register(
    AddOn(
        name="argo-workflows",
        chart="argo-workflows",
        release=RELEASE,
        namespace=ARGO_WORKFLOWS_NAMESPACE,
        repository=ARGO_HELM_REPOSITORY,
        version=ARGO_WORKFLOWS_CHART_VERSION,
        values=lambda context: helm_values(context.node_selector),
        needs=(SYSTEM_NODES,),
        enabled=lambda config: config.pipelines.enabled,
        stage="delivery",
        installer=install,
        system_pods=system_pods,
    )
)
"""The Argo Workflows controller and server (``pipelines.enabled``)."""


class ArgoWorkflows(Construct):
    """Installs :data:`ARGO_WORKFLOWS`: chart ``argo-workflows`` :data:`~config.charts.ARGO_WORKFLOWS_CHART_VERSION` in
    namespace :data:`ARGO_WORKFLOWS_NAMESPACE` (attribute ``release``).

    :param cluster: the EKS cluster. Required.
    :param node_selector: the system nodes. Default: any node.
    :param after: what comes first (system nodes). Default none.
    """

    addons = (ARGO_WORKFLOWS,)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        node_selector: Mapping[str, str] | None = None,
        after: Sequence[IDependable] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        self.values = helm_values(node_selector or {})
        self.release = ARGO_WORKFLOWS.helm_chart(self, "Release", cluster=cluster, values=self.values, after=after)
