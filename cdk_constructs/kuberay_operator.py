"""The KubeRay operator (RayCluster, RayJob, RayService controllers) from its Helm repository."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Duration, aws_eks_v2 as eks
from constructs import Construct, IDependable

KUBERAY_REPOSITORY = "https://ray-project.github.io/kuberay-helm/"
KUBERAY_VERSION = "1.7.0"
"""Matches the ray.io/v1 CRDs in shared/crds (KubeRay tag v1.7.0)."""


class KubeRayOperator(Construct):
    """Installs chart ``kuberay-operator`` :data:`KUBERAY_VERSION` (with its CRDs) into ``namespace``.

    Attribute ``release`` is the Helm release; cdk8s charts with RayJob/RayCluster objects must depend on it.

    :param cluster: the EKS cluster.
    :param namespace: default ``kuberay``.
    :param node_selector: nodeSelector of the operator pod. Default: any node.
    :param after: constructs to install after (system node group).
    """

    def __init__(self, scope: Construct, construct_id: str, *, cluster: eks.ICluster, namespace: str = "kuberay",
                 node_selector: Mapping[str, str] | None = None, after: Sequence[IDependable] = ()) -> None:
        super().__init__(scope, construct_id)
        self.namespace = namespace
        self.release = eks.HelmChart(
            self, "Release", cluster=cluster, repository=KUBERAY_REPOSITORY, chart="kuberay-operator",
            version=KUBERAY_VERSION, release="kuberay-operator", namespace=namespace, create_namespace=True,
            wait=True, timeout=Duration.minutes(10),
            values={
                "nodeSelector": dict(node_selector or {}),
                "resources": {"requests": {"cpu": "100m", "memory": "512Mi"}, "limits": {"memory": "512Mi"}},
            },
        )
        self.release.node.add_dependency(*after)
