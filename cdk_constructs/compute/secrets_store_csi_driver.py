"""Secrets Store CSI driver with the AWS provider (ASCP): Secrets Manager secrets synced into Kubernetes Secrets."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, AddOnSite, register
from config.charts import SECRETS_STORE_CHART_VERSION
from config.versions import chart_version

ASCP_REPOSITORY = "https://aws.github.io/secrets-store-csi-driver-provider-aws"
ASCP_CHART = "secrets-store-csi-driver-provider-aws"
ASCP_VERSION = SECRETS_STORE_CHART_VERSION
"""Default (config/charts.py; per environment: ``compute.charts.secrets_store``): the
aws/secrets-store-csi-driver-provider-aws chart 3.1.1 (provider image 3.1.1); its Chart.lock pins the
kubernetes-sigs `secrets-store-csi-driver` chart 1.6.0 as a dependency, whose SecretProviderClass CRD is the one in
k8s_charts/crds (see SOURCES.md there)."""
DRIVER_CHART_VERSION = chart_version("secrets-store-csi-driver")
ROTATION_POLL_INTERVAL = "3600s"
"""How often the driver re-reads mounted secrets and refreshes synced Secrets (the provider's README recommends one
hour: every poll is a GetSecretValue per pod)."""


def helm_values() -> dict:
    """Chart values: the bundled driver with Secret syncing on (off by default in the driver chart) and rotation,
    the Pod Identity token audience the provider needs, and the provider on every node (tolerating GPU taints)."""
    return {
        "tolerations": [{"operator": "Exists"}],  # provider DaemonSet: HyperPod and GPU nodes are tainted
        "secrets-store-csi-driver": {
            "install": True,
            "syncSecret": {"enabled": True},
            "enableSecretRotation": True,
            "rotationPollInterval": ROTATION_POLL_INTERVAL,
            # The chart's own defaults, restated: a `values` list replaces, never merges, so keep both audiences.
            "tokenRequests": [{"audience": "sts.amazonaws.com"}, {"audience": "pods.eks.amazonaws.com"}],
        },
    }


def install(site: AddOnSite, addon: AddOn) -> SecretsStoreCsiDriver:
    """:class:`SecretsStoreCsiDriver` ``SecretsStore``: team namespaces sync their MLflow user into a Kubernetes
    Secret through it."""
    driver = SecretsStoreCsiDriver(
        site.scope,
        "SecretsStore",
        cluster=site.cluster,
        after=site.installed.after(addon),
        version=addon.version_in(site.config),
    )
    site.installed.add(addon, [driver.release])
    return driver


SECRETS_STORE = register(
    AddOn(
        name="secrets-store",
        chart=ASCP_CHART,
        release="secrets-store-csi-driver-provider-aws",
        namespace="kube-system",
        repository=ASCP_REPOSITORY,
        version=SECRETS_STORE_CHART_VERSION,
        version_setting="secrets_store",
        values=lambda _context: helm_values(),
        needs=(SYSTEM_NODES, "eks-pod-identity-agent"),
        provides_platform_crds=True,
        installer=install,
    )
)
"""The AWS provider with the Secrets Store CSI driver and its SecretProviderClass CRD (the provider authenticates
with EKS Pod Identity, hence the agent)."""


class SecretsStoreCsiDriver(Construct):
    """Installs :data:`SECRETS_STORE`, chart :data:`ASCP_CHART` ``version`` (default :data:`ASCP_VERSION`; the AWS
    provider, with the Secrets Store CSI driver and its CRDs as a dependency) into ``kube-system``.

    Why Helm and not the EKS add-on ``aws-secrets-store-csi-driver-provider``: the add-on accepts
    ``secrets-store-csi-driver.syncSecret.enabled`` but does not pass it to the bundled driver, so no Secret is ever
    synced (aws/secrets-store-csi-driver-provider-aws issue #597, open). Syncing is what turns the team's Secrets
    Manager secret into environment variables without code.

    Attribute ``release``: charts with SecretProviderClass objects must depend on it.

    :param cluster: the EKS cluster. Required.
    :param after: constructs to install after (system node group, Pod Identity agent). Default none.
    :param version: chart version. Default :data:`ASCP_VERSION`.
    """

    addons = (SECRETS_STORE,)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        after: Sequence[IDependable] = (),
        version: str = ASCP_VERSION,
    ) -> None:
        super().__init__(scope, construct_id)
        self.release = SECRETS_STORE.helm_chart(
            self, "Release", cluster=cluster, version=version, values=helm_values(), after=after
        )
