"""The KubeRay operator (RayCluster, RayJob, RayService controllers) from its Helm repository."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, AddOnSite, SystemPod, register, requests_of
from config.charts import KUBERAY_CHART_VERSION
from k8s_charts.guardrails.common import KUBERAY_NAMESPACE, KUBERAY_SERVICE_ACCOUNT
from k8s_charts.priority_classes import CONTROLLER_PRIORITY_CLASS

KUBERAY_REPOSITORY = "https://ray-project.github.io/kuberay-helm/"
KUBERAY_VERSION = KUBERAY_CHART_VERSION
"""Default chart version (config/charts.py; per environment: ``compute.charts.kuberay``)."""
CHART_REPLICAS = 1
"""ray-project/kuberay v1.7.0 helm-chart/kuberay-operator/values.yaml:15, ``replicas: 1`` (we do not set it)."""


def helm_values(node_selector: Mapping[str, str]) -> dict:
    """Chart values: the operator on ``node_selector``, with requests, the controller priority and a named
    service account."""
    return {
        "nodeSelector": dict(node_selector),
        "resources": {"requests": {"cpu": "100m", "memory": "512Mi"}, "limits": {"memory": "512Mi"}},
        # chart values `priorityClassName` and `serviceAccount.name` (ray-project/kuberay
        # helm-chart/kuberay-operator/values.yaml): the identity the team guard rails trust
        # (k8s_charts/guardrails/common.py KUBERAY_OPERATOR) and a priority no team pod can preempt
        "priorityClassName": CONTROLLER_PRIORITY_CLASS,
        "serviceAccount": {"create": True, "name": KUBERAY_SERVICE_ACCOUNT},
    }


def install(site: AddOnSite, addon: AddOn) -> KubeRayOperator:
    """:class:`KubeRayOperator` ``KubeRay`` on the system nodes."""
    kuberay = KubeRayOperator(
        site.scope,
        "KubeRay",
        cluster=site.cluster,
        node_selector=site.node_selector,
        after=site.installed.after(addon),
        version=addon.version_in(site.config),
    )
    site.installed.add(addon, [kuberay.release])
    return kuberay


def system_pods(values: Mapping[str, Any]) -> list[SystemPod]:
    """The operator (:func:`helm_values` sets its requests; the replicas are the chart's, :data:`CHART_REPLICAS`)."""
    return [SystemPod("kuberay-operator", requests_of(values["resources"]), values.get("replicas", CHART_REPLICAS))]


KUBERAY = register(
    AddOn(
        name="kuberay",
        chart="kuberay-operator",
        release="kuberay-operator",
        namespace=KUBERAY_NAMESPACE,
        repository=KUBERAY_REPOSITORY,
        version=KUBERAY_CHART_VERSION,
        version_setting="kuberay",
        values=lambda context: helm_values(context.node_selector),
        needs=(SYSTEM_NODES,),
        provides_platform_crds=True,
        installer=install,
        system_pods=system_pods,
    )
)
"""The KubeRay operator with its ray.io CRDs (RayJob, RayCluster)."""


class KubeRayOperator(Construct):
    """Installs :data:`KUBERAY` (chart ``kuberay-operator`` ``version``, with its CRDs) into ``namespace``.

    Attribute ``release`` is the Helm release; cdk8s charts with RayJob/RayCluster objects must depend on it.

    :param cluster: the EKS cluster.
    :param namespace: default ``kuberay``.
    :param node_selector: nodeSelector of the operator pod. Default: any node.
    :param after: constructs to install after (system node group).
    :param version: chart version. Default :data:`KUBERAY_VERSION`.
    """

    addons = (KUBERAY,)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        namespace: str = KUBERAY_NAMESPACE,
        node_selector: Mapping[str, str] | None = None,
        after: Sequence[IDependable] = (),
        version: str = KUBERAY_VERSION,
    ) -> None:
        super().__init__(scope, construct_id)
        self.namespace = namespace
        addon = KUBERAY if namespace == KUBERAY.namespace else replace(KUBERAY, namespace=namespace)
        self.release = addon.helm_chart(
            self, "Release", cluster=cluster, version=version, values=helm_values(node_selector or {}), after=after
        )
