"""A toy add-on with logic of its own, shaped like cert-manager (the issue's trial): a Pod Identity role for its
controller, its chart from the declaration, CRDs the platform would use, one pod on the system nodes. It is one
module and reads its version from the versions table (the test adds the row ``toy-cert-manager``, as a real add-on
adds its line to config/versions.py); importing it registers it. tests/test_addons_registry.py synthesizes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_iam as iam
from constructs import Construct

from cdk_constructs.compute.addon import (
    SYSTEM_NODES,
    AddOn,
    AddOnContext,
    AddOnSite,
    SystemPod,
    register,
    requests_of,
)
from config.versions import chart_version

NAMESPACE = "toy-cert-manager"
SERVICE_ACCOUNT = "toy-cert-manager"
REQUESTS = {"requests": {"cpu": "10m", "memory": "32Mi"}}


def helm_values(context: AddOnContext) -> dict[str, Any]:
    return {
        "crds": {"enabled": True},
        "nodeSelector": dict(context.node_selector),
        "resources": REQUESTS,
        "replicaCount": 1,
        "serviceAccount": {"name": SERVICE_ACCOUNT},
    }


class ToyCertManager(Construct):
    """The controller's Pod Identity role and association, then the release (attributes ``role``, ``release``)."""

    def __init__(self, scope: Construct, construct_id: str, *, site: AddOnSite, addon: AddOn) -> None:
        super().__init__(scope, construct_id)
        self.role = iam.Role(
            self, "ControllerRole", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com").with_session_tags()
        )
        self.pod_identity = eks_l1.CfnPodIdentityAssociation(
            self,
            "PodIdentity",
            cluster_name=site.cluster.cluster_name,
            namespace=NAMESPACE,
            service_account=SERVICE_ACCOUNT,
            role_arn=self.role.role_arn,
        )
        self.release = addon.helm_chart(
            self,
            "Release",
            cluster=site.cluster,
            context=site.context,
            after=[self.pod_identity, *site.installed.after(addon)],
        )


def install(site: AddOnSite, addon: AddOn) -> ToyCertManager:
    toy = ToyCertManager(site.scope, "ToyCertManager", site=site, addon=addon)
    site.installed.add(addon, [toy.release])
    return toy


def system_pods(values: Mapping[str, Any]) -> list[SystemPod]:
    return [SystemPod("toy-cert-manager", requests_of(values["resources"]), values["replicaCount"])]


TOY = register(
    AddOn(
        name="toy-cert-manager",
        chart="cert-manager",
        release="toy-cert-manager",
        namespace=NAMESPACE,
        repository="https://charts.jetstack.io",
        version=chart_version("toy-cert-manager"),
        values=helm_values,
        needs=(SYSTEM_NODES, "eks-pod-identity-agent"),
        provides_platform_crds=True,
        installer=install,
        system_pods=system_pods,
    )
)
