"""Compute layer (<Env>-Compute): EKS, HyperPod and what runs in the cluster (Karpenter, KubeRay, Kueue, Secrets Store
CSI, KEDA, the HyperPod prerequisites, the FSx volume and directories, the platform charts, Argo CD).

Each add-on module here registers its :class:`~cdk_constructs.compute.addon.AddOn` records when imported;
:func:`~cdk_constructs.compute.addon.registered` imports every module of this package and returns them (the compute
stack installs exactly those)."""

from __future__ import annotations

from cdk_constructs.compute.addon import AddOn, AddOnContext, AddOnSite, install_order, register, registered
from cdk_constructs.compute.argo_cd import ArgoCd
from cdk_constructs.compute.eks_cluster import PlatformEksCluster
from cdk_constructs.compute.fsx_directories import FsxDirectories
from cdk_constructs.compute.fsx_static_volume import FsxStaticVolume
from cdk_constructs.compute.hyperpod_cluster import HyperPodCluster, InstanceGroup
from cdk_constructs.compute.hyperpod_log_group import HyperPodLogGroup
from cdk_constructs.compute.hyperpod_prerequisites import HyperPodPrerequisites
from cdk_constructs.compute.karpenter import Karpenter
from cdk_constructs.compute.keda import Keda
from cdk_constructs.compute.kuberay_operator import KubeRayOperator
from cdk_constructs.compute.kueue import Kueue
from cdk_constructs.compute.platform_charts import PlatformCharts
from cdk_constructs.compute.secrets_store_csi_driver import SecretsStoreCsiDriver

__all__ = [
    "AddOn",
    "AddOnContext",
    "AddOnSite",
    "ArgoCd",
    "FsxDirectories",
    "FsxStaticVolume",
    "HyperPodCluster",
    "HyperPodLogGroup",
    "HyperPodPrerequisites",
    "InstanceGroup",
    "Karpenter",
    "Keda",
    "KubeRayOperator",
    "Kueue",
    "PlatformCharts",
    "PlatformEksCluster",
    "SecretsStoreCsiDriver",
    "install_order",
    "register",
    "registered",
]
