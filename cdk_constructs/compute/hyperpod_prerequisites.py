"""Everything SageMaker HyperPod needs on the EKS cluster before `AWS::SageMaker::Cluster` is created."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, AddOnContext, AddOnSite, register
from config.charts import EFA_DEVICE_PLUGIN_CHART_VERSION, NVIDIA_DEVICE_PLUGIN_CHART_VERSION
from config.compute import hyperpod_instance_types, is_accelerated, is_nvidia_gpu
from config.regions import HEALTH_MONITORING_AGENT_ACCOUNTS

CHART_DIR = Path(__file__).resolve().parents[2] / "charts" / "hyperpod-prerequisites"


# The health-monitoring agent image lives in a HyperPod-owned ECR repository in each supported region. Tag as AWS's
# chart sets it: aws/sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart/charts/health-monitoring-agent/templates/
# _helpers.tpl (commit 011ca927123e02b35a399935bbb3ab1905fe33c7).
HEALTH_MONITORING_AGENT_TAG = "1.0.1892.0_1.0.424.0"
# The account table is config data (the config check refuses regions without an image): config/regions.py.

KARPENTER_GPU_LABEL = "karpenter.k8s.aws/instance-gpu-manufacturer"
"""Label Karpenter puts on every node it launches with NVIDIA GPUs (value ``nvidia``)."""
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def health_monitoring_agent_image(region: str) -> str:
    try:
        account = HEALTH_MONITORING_AGENT_ACCOUNTS[region]
    except KeyError:
        raise ValueError(
            f"the HyperPod health-monitoring agent has no image in region {region!r}; supported "
            f"regions: {', '.join(sorted(HEALTH_MONITORING_AGENT_ACCOUNTS))}"
        ) from None
    return f"{account}.dkr.ecr.{region}.amazonaws.com/hyperpod-health-monitoring-agent:{HEALTH_MONITORING_AGENT_TAG}"


def karpenter_ami_ships_nvidia_plugin(ami_alias: str) -> bool:
    """Whether Karpenter's GPU nodes run NVIDIA's device plugin from their AMI.

    Bottlerocket's NVIDIA variants start the NVIDIA Kubernetes device plugin themselves (Bottlerocket settings
    ``settings.kubelet-device-plugins.nvidia.*``; v1.63.0 "Add setting to enable/disable nvidia-device-plugin"); the
    EKS-optimized AL2023 NVIDIA AMI ships drivers and the container toolkit but no device plugin (EKS user guide,
    "Amazon EKS optimized accelerated Amazon Linux AMIs": install the NVIDIA device plugin).
    """
    family = ami_alias.split("@", 1)[0]
    if family == "bottlerocket":
        return True
    if family == "al2023":
        return False
    raise ValueError(f"unknown Karpenter AMI family {family!r} (from alias {ami_alias!r})")


def gpu_node_affinity(hyperpod_gpu_types: Sequence[str], *, karpenter_nodes: bool) -> dict[str, Any]:
    """Required node affinity matching HyperPod GPU nodes (by ml.* instance type) and, with ``karpenter_nodes``,
    Karpenter NVIDIA nodes too (the two ``nodeSelectorTerms`` are ORed, so one DaemonSet covers both kinds)."""
    terms = [{"matchExpressions": [{"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": list(hyperpod_gpu_types)}]}]
    if karpenter_nodes:
        terms.append({"matchExpressions": [{"key": KARPENTER_GPU_LABEL, "operator": "In", "values": ["nvidia"]}]})
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


TOLERATE_EVERYTHING = [{"operator": "Exists"}]
"""Device plugins must run on tainted GPU nodes (``dedicated=hyperpod``, ``nvidia.com/gpu``, ...)."""


def dependencies_values(
    *,
    region: str,
    nvidia_instance_types: Sequence[str],
    neuron_instance_types: Sequence[str],
    node_selector: Mapping[str, str],
) -> dict[str, Any]:
    """Values of our chart: the health-monitoring agent of ``region`` on the accelerated HyperPod types, the
    operators on ``node_selector``."""
    return {
        "healthMonitoringAgent": {
            "image": health_monitoring_agent_image(region),
            "nvidiaInstanceTypes": list(nvidia_instance_types),
            "neuronInstanceTypes": list(neuron_instance_types),  # empty: the chart renders no Neuron agent
        },
        "trainingOperator": {"nodeSelector": dict(node_selector)},
        "mpiOperator": {"nodeSelector": dict(node_selector)},
    }


def nvidia_plugin_values(*, nvidia_instance_types: Sequence[str], karpenter_ami_alias: str) -> dict[str, Any]:
    """NVIDIA's plugin on HyperPod's NVIDIA nodes and on Karpenter's when their AMI brings none."""
    affinity = gpu_node_affinity(
        nvidia_instance_types, karpenter_nodes=not karpenter_ami_ships_nvidia_plugin(karpenter_ami_alias)
    )
    return {"affinity": affinity, "tolerations": TOLERATE_EVERYTHING, "priorityClassName": "system-node-critical"}


def efa_plugin_values(*, nvidia_instance_types: Sequence[str], neuron_instance_types: Sequence[str]) -> dict[str, Any]:
    """The chart ORs one nodeSelectorTerm per key, each with the same value list: instance type in the ml.* list
    (HyperPod) OR Karpenter's GPU manufacturer label equal to `nvidia`."""
    return {
        "supportedInstanceLabels": {
            "keys": [INSTANCE_TYPE_LABEL, KARPENTER_GPU_LABEL],
            "values": [*nvidia_instance_types, *neuron_instance_types, "nvidia"],
        },
        "tolerations": TOLERATE_EVERYTHING,
    }


def _nvidia_types() -> list[str]:
    return [t for t in hyperpod_instance_types() if is_nvidia_gpu(t)]


def _neuron_types() -> list[str]:
    return [t for t in hyperpod_instance_types() if is_accelerated(t) and not is_nvidia_gpu(t)]


def _dependencies(context: AddOnContext) -> dict[str, Any]:
    return dependencies_values(
        region=context.config.region,
        nvidia_instance_types=_nvidia_types(),
        neuron_instance_types=_neuron_types(),
        node_selector=context.node_selector,
    )


def install(site: AddOnSite, _addon: AddOn) -> HyperPodPrerequisites:
    """The three declarations at once, as construct ``HyperPodPrerequisites`` (stage ``hyperpod``: the HyperPod
    cluster waits for them), for the environment's HyperPod instance types and Karpenter AMI."""
    prerequisites = HyperPodPrerequisites(
        site.scope,
        "HyperPodPrerequisites",
        cluster=site.cluster,
        region=site.config.region,
        nvidia_instance_types=_nvidia_types(),
        neuron_instance_types=_neuron_types(),
        karpenter_ami_alias=site.config.kubernetes.karpenter.ami_alias,
        system_node_selector=site.node_selector,
        after=site.installed.after_all(HyperPodPrerequisites.addons),
    )
    for addon, release in zip(HyperPodPrerequisites.addons, prerequisites.releases, strict=True):
        site.installed.add(addon, [release])
    return prerequisites


HYPERPOD_DEPENDENCIES = register(
    AddOn(
        name="hyperpod-prerequisites",
        chart="charts/hyperpod-prerequisites",
        release="hyperpod-prerequisites",
        namespace="kube-system",
        values=_dependencies,
        needs=(SYSTEM_NODES,),
        provides_platform_crds=True,
        stage="hyperpod",
        installer=install,
    )
)
"""Our chart (an S3 asset of :data:`CHART_DIR`): health-monitoring agent, HyperPod RBAC, the Kubeflow training
operator (PyTorchJob CRD) and the MPI operator (MPIJob CRD)."""
NVIDIA_DEVICE_PLUGIN = register(
    AddOn(
        name="nvidia-device-plugin",
        chart="nvidia-device-plugin",
        release="nvidia-device-plugin",
        namespace="kube-system",
        repository="https://nvidia.github.io/k8s-device-plugin",
        version=NVIDIA_DEVICE_PLUGIN_CHART_VERSION,
        values=lambda context: nvidia_plugin_values(
            nvidia_instance_types=_nvidia_types(), karpenter_ami_alias=context.config.kubernetes.karpenter.ami_alias
        ),
        needs=(SYSTEM_NODES,),
        wait=None,
        stage="hyperpod",
        installer=install,
    )
)
EFA_DEVICE_PLUGIN = register(
    AddOn(
        name="efa-device-plugin",
        chart="aws-efa-k8s-device-plugin",
        release="aws-efa-k8s-device-plugin",
        namespace="kube-system",
        repository="https://aws.github.io/eks-charts",
        version=EFA_DEVICE_PLUGIN_CHART_VERSION,
        values=lambda _context: efa_plugin_values(
            nvidia_instance_types=_nvidia_types(), neuron_instance_types=_neuron_types()
        ),
        needs=(SYSTEM_NODES,),
        wait=None,
        stage="hyperpod",
        installer=install,
    )
)


class HyperPodPrerequisites(Construct):
    """Installs, from pinned sources, what HyperPod requires on the cluster:

    - ``dependencies``: :data:`HYPERPOD_DEPENDENCIES`, our chart ``charts/hyperpod-prerequisites`` (S3 asset): the
      health-monitoring agent (namespace ``aws-hyperpod``), the deep-health-check, job-auto-restart and
      hyperpod-patching RBAC, the Kubeflow training operator v1.7.0 (PyTorchJob CRD) and the MPI operator v0.8.2 (MPIJob
      CRD). These are published only inside a git repository, so the chart is ours (see its README);
    - ``nvidia_device_plugin``: :data:`NVIDIA_DEVICE_PLUGIN`, NVIDIA's chart from its Helm repository;
    - ``efa_device_plugin``: :data:`EFA_DEVICE_PLUGIN`, the EFA device plugin chart from the EKS charts repository.

    The EFA plugin is scheduled on HyperPod ml.* GPU nodes and on Karpenter's NVIDIA nodes; the NVIDIA plugin on
    HyperPod's, and on Karpenter's only when their AMI does not bring its own
    (:func:`karpenter_ami_ships_nvidia_plugin`): every GPU node runs exactly one NVIDIA device plugin. Both tolerate any
    taint. Make the HyperPod cluster depend on ``self`` (see :attr:`releases`).

    :param cluster: the EKS cluster.
    :param region: the cluster's region (selects the health-monitoring agent image).
    :param nvidia_instance_types: HyperPod ml.* NVIDIA GPU instance types (node affinity).
    :param neuron_instance_types: HyperPod ml.trn*/ml.inf* instance types. Default: none.
    :param karpenter_ami_alias: AMI alias of Karpenter's GPU nodes (``bottlerocket@...`` or ``al2023@...``).
        Default ``bottlerocket@latest``.
    :param system_node_selector: nodeSelector of the operators. Default: any node.
    :param after: constructs to install after (e.g. the system node group and the CNI add-on).
    """

    addons = (HYPERPOD_DEPENDENCIES, NVIDIA_DEVICE_PLUGIN, EFA_DEVICE_PLUGIN)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        region: str,
        nvidia_instance_types: Sequence[str],
        neuron_instance_types: Sequence[str] = (),
        karpenter_ami_alias: str = "bottlerocket@latest",
        system_node_selector: Mapping[str, str] | None = None,
        after: Sequence[IDependable] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        node_selector = dict(system_node_selector or {})
        self.chart_asset = s3_assets.Asset(self, "ChartAsset", path=str(CHART_DIR))
        self.dependencies = HYPERPOD_DEPENDENCIES.helm_chart(
            self,
            "Dependencies",
            cluster=cluster,
            chart_asset=self.chart_asset,
            values=dependencies_values(
                region=region,
                nvidia_instance_types=nvidia_instance_types,
                neuron_instance_types=neuron_instance_types,
                node_selector=node_selector,
            ),
        )
        self.nvidia_device_plugin = NVIDIA_DEVICE_PLUGIN.helm_chart(
            self,
            "NvidiaDevicePlugin",
            cluster=cluster,
            values=nvidia_plugin_values(
                nvidia_instance_types=nvidia_instance_types, karpenter_ami_alias=karpenter_ami_alias
            ),
        )
        self.efa_device_plugin = EFA_DEVICE_PLUGIN.helm_chart(
            self,
            "EfaDevicePlugin",
            cluster=cluster,
            values=efa_plugin_values(
                nvidia_instance_types=nvidia_instance_types, neuron_instance_types=neuron_instance_types
            ),
        )
        for release in self.releases:
            release.node.add_dependency(*after)

    @property
    def releases(self) -> list[eks.HelmChart]:
        return [self.dependencies, self.nvidia_device_plugin, self.efa_device_plugin]
