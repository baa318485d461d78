"""Helm chart versions of the cluster's add-ons, read from the upstream versions table (config/versions.py; the add-on
declarations, cdk_constructs/compute/addon.py ``AddOn``, take theirs from here). ``compute.charts``: per environment,
so an upgrade is tried in one environment first. The defaults are the versions the app is tested with; the CRDs the
charts are checked against (k8s_charts/crds, k8s_charts/imports) are those of the defaults, so after moving a default
run `make imports`."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from ._base import ConfigModel
from .versions import chart_version

KARPENTER_CHART_VERSION = chart_version("karpenter")
"""karpenter and karpenter-crd; matches the karpenter.sh/v1 and karpenter.k8s.aws/v1 CRDs in k8s_charts/crds."""
KUEUE_CHART_VERSION = chart_version("kueue")
KUBERAY_CHART_VERSION = chart_version("kuberay")
"""kuberay-operator; matches the ray.io/v1 CRDs in k8s_charts/crds (KubeRay tag v1.7.0)."""
SECRETS_STORE_CHART_VERSION = chart_version("secrets-store-provider-aws")
"""secrets-store-csi-driver-provider-aws (the AWS provider; its Chart.lock pins the driver chart 1.6.0)."""
KEDA_CHART_VERSION = chart_version("keda")
"""kedacore/charts ``keda`` 2.19.0 (tag v2.19.0, keda/Chart.yaml: ``appVersion: 2.19.0``): KEDA
:data:`k8s_charts.serving.KEDA_VERSION`, whose ScaledObject CRD llmft renders against (k8s_charts/crds). Not a
per-environment setting: the operator and the vendored CRD move together, through this default only
(tests/test_keda.py)."""

# Versions every environment installs (no ``compute.charts`` setting): changed here, for all environments at once.
ARGOCD_CHART_VERSION = chart_version("argo-cd")
"""argo-cd: argoproj/argo-helm tag argo-cd-10.1.1 (af0a9310bacbaa4636018dfe22c801a6d33a5c43): appVersion v3.4.4, the
version of the Application/AppProject CRDs in k8s_charts/crds (SOURCES.md)."""
ARGO_WORKFLOWS_CHART_VERSION = chart_version("argo-workflows")
"""argo-workflows: argoproj/argo-helm tag argo-workflows-1.0.18 (4f4cc4f9605668855e2303c9805f09ac4360f35e):
appVersion v4.0.6, the version of the Workflow/WorkflowTemplate CRDs in k8s_charts/crds (SOURCES.md)."""
NVIDIA_DEVICE_PLUGIN_CHART_VERSION = chart_version("nvidia-device-plugin")
"""nvidia-device-plugin (https://nvidia.github.io/k8s-device-plugin), HyperPod's NVIDIA GPU nodes."""
EFA_DEVICE_PLUGIN_CHART_VERSION = chart_version("efa-device-plugin")
"""aws-efa-k8s-device-plugin (https://aws.github.io/eks-charts), HyperPod's and Karpenter's EFA nodes."""

_CHART_VERSION = re.compile(r"v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?")


class ChartVersionsConfig(ConfigModel):
    """Helm chart versions of the add-ons the Compute stack installs (exact versions: Helm resolves ranges at
    deploy time, which would make two deploys of one commit differ)."""

    karpenter: str = Field(
        KARPENTER_CHART_VERSION,
        description="Karpenter (charts `karpenter` and `karpenter-crd`, oci://public.ecr.aws/karpenter).",
    )
    kueue: str = Field(KUEUE_CHART_VERSION, description="Kueue (oci://registry.k8s.io/kueue/charts/kueue).")
    kuberay: str = Field(KUBERAY_CHART_VERSION, description="KubeRay operator (ray-project/kuberay-helm).")
    secrets_store: str = Field(
        SECRETS_STORE_CHART_VERSION,
        description="AWS provider for the Secrets Store CSI driver, with the driver as its dependency.",
    )

    @field_validator("karpenter", "kueue", "kuberay", "secrets_store")
    @classmethod
    def _exact(cls, v: str, info) -> str:
        if not _CHART_VERSION.fullmatch(v):
            default = cls.model_fields[info.field_name].default
            raise ValueError(
                f"compute.charts.{info.field_name} {v!r} is not an exact chart version; write the "
                f"version as `helm search repo --versions` lists it, e.g. {default!r} (the default)"
            )
        return v

    @field_validator("kuberay")
    @classmethod
    def _kuberay_crds(cls, v: str) -> str:
        # Helm installs a chart's crds/ folder on install only and never upgrades it (Helm docs, "Custom Resource
        # Definitions": "There is no support at this time for upgrading or deleting CRDs using Helm"); the
        # kuberay-operator chart ships its CRDs there, so another chart version would run a new operator against
        # the old ray.io CRDs. The operator and its CRDs move together: only through the default.
        if v.removeprefix("v") != KUBERAY_CHART_VERSION:
            raise ValueError(
                f"compute.charts.kuberay {v!r} differs from {KUBERAY_CHART_VERSION!r}, the version of the ray.io CRDs "
                f"in k8s_charts/crds: Helm never upgrades a chart's CRDs, so the operator would run against old CRDs. "
                f"To upgrade KubeRay, vendor the new tag's CRDs (k8s_charts/crds/SOURCES.md), move "
                f"KUBERAY_CHART_VERSION in config/charts.py, run `make imports`, and apply the CRDs to running "
                f"clusters with `kubectl apply --server-side -f k8s_charts/crds/ray.io_*.yaml` before `make deploy`"
            )
        return v
