"""Argo CD for `argocd` delivery mode: the managed EKS capability or the upstream Helm chart, plus the objects that
point it at the environment's Git path (k8s_charts/gitops.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cdk8s
from aws_cdk import ArnFormat, Stack
from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import PLATFORM_CRDS, SYSTEM_NODES, AddOn, AddOnSite, register
from config import EnvironmentConfig
from config.charts import ARGOCD_CHART_VERSION
from config.gitops import SECRET_ARN, ArgoCdRoleMappingConfig
from k8s_charts.gitops import (
    ARGOCD_NAMESPACE,
    CREDENTIALS_SERVICE_ACCOUNT,
    IN_CLUSTER,
    CapabilityAccessChart,
    GitOpsChart,
)
from k8s_charts.values import PlatformValues

ARGOCD_HELM_REPOSITORY = "https://argoproj.github.io/argo-helm"
CAPABILITY_PRINCIPAL = "capabilities.eks.amazonaws.com"
"""Service principal of EKS capability roles; it needs sts:AssumeRole and sts:TagSession (EKS User Guide "Create an
Argo CD capability using eksctl", step 1 trust policy)."""


HELM_RESOURCES: dict[str, dict[str, dict[str, str]]] = {
    # argo-cd 10.1.1 values.yaml: `<component>.resources: {}` for every component (no requests by default), so
    # the scheduler would pack them onto the small system nodes blind. Sized for one cluster, a few dozen
    # Applications (the controller and repo server do the work; memory limits = requests x2, no CPU limit).
    "controller": {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"memory": "1Gi"}},
    "repoServer": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}},
    "server": {"requests": {"cpu": "50m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
    "applicationSet": {"requests": {"cpu": "25m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
    "redis": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
    "redisSecretInit": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "64Mi"}},
}
"""Requests of every argo-cd chart component that runs (dex and notifications are off)."""


def helm_values(node_selector: Mapping[str, str]) -> dict:
    """argo-cd 10.1.1 values (charts/argo-cd/values.yaml at the tag): every component on the system nodes
    (``global.nodeSelector``, whose default is only ``kubernetes.io/os: linux``), CRDs installed and kept on
    uninstall (``crds.install``/``crds.keep``, the defaults, restated), no Dex (sign-in is the initial admin secret
    or kubectl; SSO is what the managed capability adds), no notifications controller."""
    return {
        "global": {"nodeSelector": {"kubernetes.io/os": "linux", **dict(node_selector)}},
        "crds": {"install": True, "keep": True},
        "dex": {"enabled": False},
        "notifications": {"enabled": False},
        **{component: {"resources": dict(resources)} for component, resources in HELM_RESOURCES.items()},
    }


def install(site: AddOnSite, addon: AddOn) -> ArgoCd:
    """:class:`ArgoCd` ``ArgoCd`` (``delivery.mode: argocd``): syncs the platform charts, rendered from their values
    (stage ``delivery``: after the platform charts), and the teams' jobs from Git."""
    if site.platform_values is None:
        raise ValueError("Argo CD renders the team projects from the platform values: install it in stage 'delivery'")
    argo_cd = ArgoCd(
        site.scope,
        "ArgoCd",
        cluster=site.cluster,
        config=site.config,
        values=site.platform_values,
        node_selector=site.node_selector,
        after=site.installed.after(addon),
    )
    site.installed.add(addon, [argo_cd.release or argo_cd.capability])
    return argo_cd


ARGO_CD = register(
    AddOn(
        name="argo-cd",
        chart="argo-cd",
        release="argocd",
        namespace=ARGOCD_NAMESPACE,
        repository=ARGOCD_HELM_REPOSITORY,
        version=ARGOCD_CHART_VERSION,
        values=lambda context: helm_values(context.node_selector),
        # the platform's Application syncs custom resources; the repository credentials are a SecretProviderClass
        needs=(SYSTEM_NODES, PLATFORM_CRDS),
        enabled=lambda config: config.delivery.mode == "argocd",
        stage="delivery",
        installer=install,
    )
)
"""Argo CD (``delivery.mode: argocd``): the chart with ``delivery.install: helm``; with ``capability`` the EKS
capability replaces the release, in the same place of the install order."""


class ArgoCd(Construct):
    """Argo CD in ``cluster`` and the GitOps objects of ``config`` (``delivery.mode: argocd``).

    ``delivery.install`` decides where Argo CD runs:

    - ``capability``: ``AWS::EKS::Capability`` type ``ARGOCD`` (attribute ``capability``) with its IAM role
      (``capability_role``), Identity Center instance and role mappings from config, namespace
      :data:`ARGOCD_NAMESPACE`, delete propagation ``RETAIN`` (the only value: Argo CD's objects stay when the
      capability goes). The Applications name the cluster by its ARN and the chart registers it.
    - ``helm``: chart ``argo-cd`` :data:`ARGOCD_CHART_VERSION` (attribute ``release``) on the system nodes.

    With ``delivery.credentials_secret`` a Pod Identity role (``credentials_role``) may read that secret only, for
    the credentials-sync pod's service account.

    Attributes: ``chart`` (k8s_charts.gitops.GitOpsChart), ``manifest`` (its KubernetesManifest),
    ``destination_server``.

    :param cluster: the EKS cluster. Required.
    :param config: the environment (``delivery``, teams). Required.
    :param values: the platform values (to render the team Roles the team projects derive from). Required.
    :param node_selector: nodeSelector of the Helm install and the sync pod (the system nodes). Default: any node.
    :param after: constructs Argo CD and its objects come after (system nodes, the CRD releases: the platform's
        Application syncs custom resources, the repository credentials are a SecretProviderClass). Default none.
    """

    addons = (ARGO_CD,)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.Cluster,
        config: EnvironmentConfig,
        values: PlatformValues,
        node_selector: Mapping[str, str] | None = None,
        after: Sequence[IDependable] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        d = config.delivery
        self.capability: eks_l1.CfnCapability | None = None
        self.capability_role: iam.Role | None = None
        self.release: eks.HelmChart | None = None
        self.credentials_role: iam.Role | None = None
        installed: list[IDependable] = []
        if d.install == "capability":
            self.capability = self._build_capability(cluster=cluster, config=config, after=after)
            installed.append(self.capability)
            self.destination_server = cluster.cluster_arn
        else:
            self.release = ARGO_CD.helm_chart(
                self, "Release", cluster=cluster, values=helm_values(node_selector or {}), after=after
            )
            installed.append(self.release)
            self.destination_server = IN_CLUSTER

        if d.credentials_secret is not None:
            self.credentials_role = self._build_credentials_access(cluster=cluster, config=config)
        self._add_manifests(
            cluster=cluster, config=config, values=values, node_selector=node_selector, installed=installed, after=after
        )

    def _build_capability(
        self, *, cluster: eks.Cluster, config: EnvironmentConfig, after: Sequence[IDependable]
    ) -> eks_l1.CfnCapability:
        """Create the EKS Argo CD capability and its role (signed in through Identity Center)."""
        d = config.delivery
        idc = d.identity_center
        assert idc is not None  # config refuses capability without identity_center
        self.capability_role = iam.Role(
            self,
            "CapabilityRole",
            assumed_by=iam.SessionTagsPrincipal(iam.ServicePrincipal(CAPABILITY_PRINCIPAL)),
            description=f"{config.resource_prefix}: EKS capability for Argo CD",
        )
        capability = eks_l1.CfnCapability(
            self,
            "Capability",
            capability_name=f"{config.resource_prefix}-argocd",
            cluster_name=cluster.cluster_name,
            type="ARGOCD",
            role_arn=self.capability_role.role_arn,
            delete_propagation_policy="RETAIN",
            configuration=eks_l1.CfnCapability.CapabilityConfigurationProperty(
                argo_cd=eks_l1.CfnCapability.ArgoCdProperty(
                    aws_idc=eks_l1.CfnCapability.AwsIdcProperty(
                        idc_instance_arn=idc.instance_arn, idc_region=idc.region or config.region
                    ),
                    namespace=ARGOCD_NAMESPACE,
                    # private endpoint when VPC endpoints are configured (EKS User Guide "Configure private
                    # endpoint access for Argo CD"); else public, signed in through Identity Center
                    network_access=eks_l1.CfnCapability.NetworkAccessProperty(vpce_ids=list(d.capability_vpc_endpoints))
                    if d.capability_vpc_endpoints
                    else None,
                    rbac_role_mappings=[_role_mapping(m) for m in idc.role_mappings],
                )
            ),
        )
        capability.node.add_dependency(*after)  # the cluster: by ClusterName's Ref
        return capability

    def _build_credentials_access(self, *, cluster: eks.Cluster, config: EnvironmentConfig) -> iam.Role:
        """Create the role that reads the GitOps repository credentials, bound to Argo CD's service account."""
        role = iam.Role(
            self,
            "CredentialsRole",
            assumed_by=iam.SessionTagsPrincipal(iam.ServicePrincipal("pods.eks.amazonaws.com")),
            description=f"{config.resource_prefix}: reads the GitOps repository credentials (namespace "
            f"{ARGOCD_NAMESPACE}, service account {CREDENTIALS_SERVICE_ACCOUNT})",
        )
        role.add_to_policy(
            iam.PolicyStatement(
                sid="ReadRepositoryCredentials",
                actions=["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"],
                resources=[secret_arn(config.delivery.credentials_secret, Stack.of(self))],
            )
        )
        eks_l1.CfnPodIdentityAssociation(
            self,
            "CredentialsPodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=ARGOCD_NAMESPACE,
            service_account=CREDENTIALS_SERVICE_ACCOUNT,
            role_arn=role.role_arn,
        )
        return role

    def _add_manifests(
        self,
        *,
        cluster: eks.Cluster,
        config: EnvironmentConfig,
        values: PlatformValues,
        node_selector: Mapping[str, str] | None,
        installed: list[IDependable],
        after: Sequence[IDependable],
    ) -> None:
        """Apply the capability's access chart (if any) and the GitOps chart once Argo CD is installed."""
        self.chart = GitOpsChart(
            cdk8s.App(),
            "gitops",
            config=config,
            values=values,
            destination_server=self.destination_server,
            register_cluster=config.delivery.install == "capability",
            node_selector=node_selector,
        )
        self.access_manifest: eks.KubernetesManifest | None = None
        if self.capability_role is not None:
            self.access_chart = CapabilityAccessChart(
                cdk8s.App(), "gitops-access", config=config, values=values, principal_arn=self.capability_role.role_arn
            )
            self.access_manifest = cluster.add_cdk8s_chart("GitOpsAccess", self.access_chart)
            self.access_manifest.node.add_dependency(*installed, *after)
            installed.append(self.access_manifest)
        self.manifest = cluster.add_cdk8s_chart("GitOps", self.chart)
        self.manifest.node.add_dependency(*installed, *after)


def _role_mapping(mapping: ArgoCdRoleMappingConfig) -> eks_l1.CfnCapability.ArgoCdRoleMappingProperty:
    """One Argo CD RBAC role mapped to Identity Center groups and users."""
    return eks_l1.CfnCapability.ArgoCdRoleMappingProperty(
        role=mapping.role,
        identities=[
            *(eks_l1.CfnCapability.SsoIdentityProperty(id=g, type="SSO_GROUP") for g in mapping.groups),
            *(eks_l1.CfnCapability.SsoIdentityProperty(id=u, type="SSO_USER") for u in mapping.users),
        ],
    )


def secret_arn(secret: str, stack: Stack) -> str:
    """The IAM resource of a Secrets Manager secret given by ARN or by name (a name matches the ARN with the random
    6-character suffix Secrets Manager appends: "Resource: Secrets Manager secret ARN" in its IAM guide)."""
    if SECRET_ARN.fullmatch(secret):
        return secret
    return stack.format_arn(
        service="secretsmanager",
        resource="secret",
        resource_name=f"{secret}-??????",
        arn_format=ArnFormat.COLON_RESOURCE_NAME,
    )
