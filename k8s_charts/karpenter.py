"""Karpenter capacity (cluster-scoped): one EC2NodeClass and one NodePool per configured GPU pool, and one of each for
the platform's CPU job pods."""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from constructs import Construct

from config.kubernetes import CpuNodePoolConfig, GpuNodePoolConfig, KarpenterNodeConfig
from k8s_charts.imports.ec2nodeclass.aws.k8s import karpenter as ec2nc
from k8s_charts.imports.nodepool.sh import karpenter as kp
from k8s_charts.queues import CAPACITY_LABEL
from k8s_charts.tiers import (
    CPU_JOBS_ROLE,
    CPU_JOBS_TAINT,
    EKS_ON_DEMAND,
    GPU_RESOURCE,
    GPU_TYPE_LABEL,
    NODE_ROLE_LABEL,
    NODE_TYPE_LABEL,
    ZONE_LABEL,
)
from k8s_charts.values import PlatformValues

DISCOVERY_TAG = "karpenter.sh/discovery"
# Karpenter never disrupts more than this share of a pool's nodes at once (drift/empty/expiry).
DISRUPTION_BUDGET = "10%"


def _ebs(
    size_gib: int, kms_key_arn: str, throughput: int | None = None
) -> ec2nc.Ec2NodeClassSpecBlockDeviceMappingsEbs:
    return ec2nc.Ec2NodeClassSpecBlockDeviceMappingsEbs(
        volume_size=f"{size_gib}Gi",
        volume_type=ec2nc.Ec2NodeClassSpecBlockDeviceMappingsEbsVolumeType.GP3,
        encrypted=True,
        kms_key_id=kms_key_arn,
        delete_on_termination=True,
        throughput=throughput,
    )


def block_devices(
    node: KarpenterNodeConfig, kms_key_arn: str, *, data_volume_gib: int | None = None
) -> list[ec2nc.Ec2NodeClassSpecBlockDeviceMappings]:
    """OS and data volumes, both encrypted with the platform key. Bottlerocket keeps the OS on /dev/xvda and
    containers, logs and kubelet on /dev/xvdb; AL2023 keeps everything on /dev/xvda (sized as the data volume).
    ``data_volume_gib``: override of ``node.data_volume_gib`` (the CPU pool's smaller nodes)."""
    data = _ebs(data_volume_gib or node.data_volume_gib, kms_key_arn, node.data_volume_throughput_mibps)
    if node.ami_alias.startswith("bottlerocket@"):
        return [
            ec2nc.Ec2NodeClassSpecBlockDeviceMappings(
                device_name="/dev/xvda", ebs=_ebs(node.root_volume_gib, kms_key_arn)
            ),
            ec2nc.Ec2NodeClassSpecBlockDeviceMappings(device_name="/dev/xvdb", ebs=data, root_volume=True),
        ]
    return [ec2nc.Ec2NodeClassSpecBlockDeviceMappings(device_name="/dev/xvda", ebs=data, root_volume=True)]


def efa_interfaces(network_cards: int) -> list[ec2nc.Ec2NodeClassSpecNetworkInterfaces]:
    """The EC2 recommendation for EFA instances with several network cards: an ENA primary interface on card 0,
    then one EFA-only interface on card 0 (device 1) and on every other card (device 0)."""
    t = ec2nc.Ec2NodeClassSpecNetworkInterfacesInterfaceType
    nics = [
        ec2nc.Ec2NodeClassSpecNetworkInterfaces(network_card_index=0, device_index=0, interface_type=t.INTERFACE),
        ec2nc.Ec2NodeClassSpecNetworkInterfaces(network_card_index=0, device_index=1, interface_type=t.EFA_HYPHEN_ONLY),
    ]
    nics += [
        ec2nc.Ec2NodeClassSpecNetworkInterfaces(
            network_card_index=card, device_index=0, interface_type=t.EFA_HYPHEN_ONLY
        )
        for card in range(1, network_cards)
    ]
    return nics


def node_class(
    scope: Construct,
    name: str,
    *,
    node: KarpenterNodeConfig,
    values: PlatformValues,
    tags: dict[str, str],
    data_volume_gib: int | None = None,
    instance_store_policy: ec2nc.Ec2NodeClassSpecInstanceStorePolicy | None = None,
    network_interfaces: list[ec2nc.Ec2NodeClassSpecNetworkInterfaces] | None = None,
) -> ec2nc.Ec2NodeClass:
    """An EC2NodeClass ``name``: the AMI alias of ``node`` (Karpenter resolves the variant per instance type: NVIDIA
    on GPU types, standard on CPU types), the subnets and security group tagged `karpenter.sh/discovery:
    <cluster>`, the Karpenter node role, IMDSv2 only with hop limit 1, KMS-encrypted volumes."""
    discovery = {DISCOVERY_TAG: values.cluster_name}
    return ec2nc.Ec2NodeClass(
        scope,
        f"{name}-class",
        metadata=cdk8s.ApiObjectMetadata(name=name),
        spec=ec2nc.Ec2NodeClassSpec(
            role=values.node_role_name,
            ami_selector_terms=[ec2nc.Ec2NodeClassSpecAmiSelectorTerms(alias=node.ami_alias)],
            subnet_selector_terms=[ec2nc.Ec2NodeClassSpecSubnetSelectorTerms(tags=discovery)],
            security_group_selector_terms=[ec2nc.Ec2NodeClassSpecSecurityGroupSelectorTerms(tags=discovery)],
            metadata_options=ec2nc.Ec2NodeClassSpecMetadataOptions(
                http_endpoint=ec2nc.Ec2NodeClassSpecMetadataOptionsHttpEndpoint.ENABLED,
                http_protocol_i_pv6=ec2nc.Ec2NodeClassSpecMetadataOptionsHttpProtocolIPv6.DISABLED,
                http_tokens=ec2nc.Ec2NodeClassSpecMetadataOptionsHttpTokens.REQUIRED,
                http_put_response_hop_limit=1,
            ),
            block_device_mappings=block_devices(node, values.kms_key_arn, data_volume_gib=data_volume_gib),
            instance_store_policy=instance_store_policy,
            network_interfaces=network_interfaces,
            tags=tags,
        ),
    )


class GpuCapacityChart(cdk8s.Chart):
    """GPU node pools for Karpenter.

    Every node: EKS-optimized accelerated AMI (by alias), the platform's private subnets and node security group
    (found by the `karpenter.sh/discovery: <cluster>` tag), IMDSv2 only with hop limit 1 (pods cannot reach the
    node role), KMS-encrypted volumes, instance store as RAID0 for ephemeral storage where the type has one,
    labels `node-type`, `gpu-type` and `platform/capacity: <pool>` (Kueue's flavor selector), taint
    `nvidia.com/gpu=true:NoSchedule`. Disruption never evicts a running training job: only empty nodes are
    consolidated (`WhenEmpty` after `consolidate_after`), and job pods carry
    `karpenter.sh/do-not-disrupt`, so drift waits for them; only expiry (`expire_after`, then at most
    `termination_grace_period`) is forceful. EFA pools are pinned to the HyperPod AZ.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        pools: Sequence[GpuNodePoolConfig],
        node: KarpenterNodeConfig,
        values: PlatformValues,
    ) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        self.node_classes: dict[str, ec2nc.Ec2NodeClass] = {}
        self.node_pools: dict[str, kp.NodePool] = {}
        for pool in pools:
            self.node_classes[pool.name] = self._node_class(pool, node, values)
            self.node_pools[pool.name] = self._node_pool(pool, values)

    def _node_class(
        self, pool: GpuNodePoolConfig, node: KarpenterNodeConfig, values: PlatformValues
    ) -> ec2nc.Ec2NodeClass:
        return node_class(
            self,
            pool.name,
            node=node,
            values=values,
            instance_store_policy=(ec2nc.Ec2NodeClassSpecInstanceStorePolicy.RAID0 if pool.instance_store else None),
            network_interfaces=efa_interfaces(pool.efa_network_cards) if pool.efa else None,
            tags={"karpenter-node-pool": pool.name, "gpu-type": pool.gpu_type},
        )

    def _node_pool(self, pool: GpuNodePoolConfig, values: PlatformValues) -> kp.NodePool:
        op = kp.NodePoolSpecTemplateSpecRequirementsOperator
        requirements = [
            kp.NodePoolSpecTemplateSpecRequirements(
                key="node.kubernetes.io/instance-type", operator=op.IN, values=list(pool.instance_types)
            ),
            kp.NodePoolSpecTemplateSpecRequirements(
                key="karpenter.sh/capacity-type", operator=op.IN, values=[pool.capacity_type]
            ),
            kp.NodePoolSpecTemplateSpecRequirements(key="kubernetes.io/os", operator=op.IN, values=["linux"]),
        ]
        if pool.efa:
            requirements.append(
                kp.NodePoolSpecTemplateSpecRequirements(
                    key=ZONE_LABEL, operator=op.IN, values=[values.hyperpod_availability_zone]
                )
            )
        labels = {NODE_TYPE_LABEL: pool.node_type, GPU_TYPE_LABEL: pool.gpu_type, CAPACITY_LABEL: pool.name}
        assert pool.node_type == EKS_ON_DEMAND or pool.capacity_type == "spot"
        return kp.NodePool(
            self,
            f"{pool.name}-pool",
            metadata=cdk8s.ApiObjectMetadata(name=pool.name),
            spec=kp.NodePoolSpec(
                weight=pool.weight,
                limits={GPU_RESOURCE: kp.NodePoolSpecLimits.from_number(pool.gpu_limit)},
                disruption=kp.NodePoolSpecDisruption(
                    consolidation_policy=kp.NodePoolSpecDisruptionConsolidationPolicy.WHEN_EMPTY,
                    consolidate_after=pool.consolidate_after,
                    budgets=[kp.NodePoolSpecDisruptionBudgets(nodes=DISRUPTION_BUDGET)],
                ),
                template=kp.NodePoolSpecTemplate(
                    metadata=kp.NodePoolSpecTemplateMetadata(labels=labels),
                    spec=kp.NodePoolSpecTemplateSpec(
                        node_class_ref=kp.NodePoolSpecTemplateSpecNodeClassRef(
                            group="karpenter.k8s.aws", kind="EC2NodeClass", name=pool.name
                        ),
                        requirements=requirements,
                        taints=[
                            kp.NodePoolSpecTemplateSpecTaints(
                                key=GPU_RESOURCE,
                                value="true",
                                effect=kp.NodePoolSpecTemplateSpecTaintsEffect.NO_SCHEDULE,
                            )
                        ],
                        expire_after=pool.expire_after,
                        termination_grace_period=pool.termination_grace_period,
                    ),
                ),
            ),
        )


class CpuCapacityChart(cdk8s.Chart):
    """The Karpenter pool of the platform's CPU job pods (Ray heads and submitters, llmft CPU steps).

    Those pods are small, tolerate only this pool's taint (`llmft.io/cpu-jobs=true:NoSchedule`) and select this
    pool's label (`llmft.io/node-role: cpu-jobs`, k8s_charts/tiers.py ``cpu_job_node_selector``; the team pod policy
    requires it of every pod without GPUs), so they run only on nodes launched here, never on the system nodes, and
    nothing else ever triggers it. Nodes: on-demand, the configured general-purpose types, in the HyperPod AZ (where FSx
    and the EFA GPU nodes are: the head's GCS traffic and FSx I/O stay in the AZ), the same AMI alias as the GPU
    nodes (Karpenter resolves Bottlerocket's and AL2023's standard variant for types without GPUs), the same subnets,
    security group, node role, IMDS and volume encryption, a smaller data volume. A vCPU limit caps spend. Consolidation
    `WhenEmptyOrUnderutilized`: idle nodes go after `consolidate_after` (no idle cost); a node with a running job pod
    is never consolidated (`karpenter.sh/do-not-disrupt` on every job pod), only expiry is forceful.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        pool: CpuNodePoolConfig,
        node: KarpenterNodeConfig,
        values: PlatformValues,
    ) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        self.node_class = node_class(
            self,
            pool.name,
            node=node,
            values=values,
            data_volume_gib=pool.data_volume_gib,
            tags={"karpenter-node-pool": pool.name},
        )
        op = kp.NodePoolSpecTemplateSpecRequirementsOperator
        key, value, effect = CPU_JOBS_TAINT
        assert effect == "NoSchedule"
        self.node_pool = kp.NodePool(
            self,
            f"{pool.name}-pool",
            metadata=cdk8s.ApiObjectMetadata(name=pool.name),
            spec=kp.NodePoolSpec(
                limits={"cpu": kp.NodePoolSpecLimits.from_number(pool.cpu_limit)},
                disruption=kp.NodePoolSpecDisruption(
                    consolidation_policy=kp.NodePoolSpecDisruptionConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED,
                    consolidate_after=pool.consolidate_after,
                    budgets=[kp.NodePoolSpecDisruptionBudgets(nodes=DISRUPTION_BUDGET)],
                ),
                template=kp.NodePoolSpecTemplate(
                    metadata=kp.NodePoolSpecTemplateMetadata(labels={NODE_ROLE_LABEL: CPU_JOBS_ROLE}),
                    spec=kp.NodePoolSpecTemplateSpec(
                        node_class_ref=kp.NodePoolSpecTemplateSpecNodeClassRef(
                            group="karpenter.k8s.aws", kind="EC2NodeClass", name=pool.name
                        ),
                        requirements=[
                            kp.NodePoolSpecTemplateSpecRequirements(
                                key="node.kubernetes.io/instance-type", operator=op.IN, values=list(pool.instance_types)
                            ),
                            kp.NodePoolSpecTemplateSpecRequirements(
                                key="karpenter.sh/capacity-type", operator=op.IN, values=["on-demand"]
                            ),
                            kp.NodePoolSpecTemplateSpecRequirements(
                                key="kubernetes.io/os", operator=op.IN, values=["linux"]
                            ),
                            kp.NodePoolSpecTemplateSpecRequirements(
                                key=ZONE_LABEL, operator=op.IN, values=[values.hyperpod_availability_zone]
                            ),
                        ],
                        taints=[
                            kp.NodePoolSpecTemplateSpecTaints(
                                key=key, value=value, effect=kp.NodePoolSpecTemplateSpecTaintsEffect.NO_SCHEDULE
                            )
                        ],
                        expire_after=pool.expire_after,
                        termination_grace_period=pool.termination_grace_period,
                    ),
                ),
            ),
        )
