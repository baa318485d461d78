"""`<Env>-Observability`: Container Insights add-on with its log groups, the platform dashboard, alarms to SNS."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import Annotations
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_kms as kms
from aws_cdk import aws_rds as rds
from constructs import Construct, IDependable

from cdk_constructs.governance.log_retention import retention
from cdk_constructs.observability.container_insights import ContainerInsights
from cdk_constructs.observability.platform_alarms import AlarmedResources, GpuAlarmProps, PlatformAlarms
from cdk_constructs.observability.platform_dashboard import CapacityKinds, PlatformDashboard
from config import EnvironmentConfig
from config.pricing import Pricer

from ._base import PlatformStack


def hyperpod_gpu_instance_types(config: EnvironmentConfig) -> tuple[str, ...]:
    """The HyperPod groups' instance types (``ml.*``, the nodes' instance-type label) that have GPUs."""
    from config.instances import find_spec

    return tuple(
        sorted(
            {
                g.instance_type
                for g in config.compute.hyperpod.instance_groups
                if (spec := find_spec(g.instance_type)) is not None and spec.is_gpu
            }
        )
    )


def serving_namespaces(config: EnvironmentConfig) -> tuple[str, ...]:
    """Where served models run: every team namespace (llmft ``type: serve`` renders into the team's namespace; serving
    is part of every environment, no switch)."""
    return tuple(t.namespace for t in config.kubernetes.teams)


def cluster_queues(config: EnvironmentConfig) -> tuple[str, ...]:
    """Every Kueue ClusterQueue of the environment (one per team and allowed tier, k8s_charts/queueing.py)."""
    from k8s_charts.queues import cluster_queue_name

    return tuple(cluster_queue_name(team.name, tier) for team in config.kubernetes.teams for tier in team.allowed_tiers)


def burst_prices(config: EnvironmentConfig, per_gpu: dict[str, float]) -> tuple[tuple[str, str, float], ...]:
    """(instance type, capacity type, on-demand USD per GPU-hour) of every Karpenter GPU pool member: spot priced at
    the on-demand list price, an upper bound."""
    return tuple(
        sorted(
            {
                (t, p.capacity_type, per_gpu[t])
                for p in config.kubernetes.gpu_node_pools
                for t in p.instance_types
                if t in per_gpu
            }
        )
    )


def gpu_prices(config: EnvironmentConfig) -> tuple[dict[str, float], int, float]:
    """(Karpenter instance type -> on-demand USD per GPU-hour, HyperPod GPUs, HyperPod USD/hour) from
    config/data/prices.yaml - the same price file `make cost` and the budget check use. GPUs come from the instance
    specs, so an unpriced HyperPod group still counts its GPUs; what has no price is :func:`unpriced_gpu_types`."""
    from config.instances import find_spec

    pricer = Pricer.of(config.region)
    per_gpu: dict[str, float] = {}
    for pool in config.kubernetes.gpu_node_pools:
        for itype in pool.instance_types:
            price = pricer.usd_per_gpu_hour(itype)
            if price is not None:
                per_gpu[itype] = price
    reserved_gpus, reserved_usd = 0, 0.0
    for group in config.compute.hyperpod.instance_groups:
        spec = find_spec(group.instance_type)
        reserved_gpus += (spec.gpus if spec else 0) * group.count
        entry = pricer.instance(group.instance_type)
        if entry:
            reserved_usd += entry["usd"] * group.count
    return per_gpu, reserved_gpus, reserved_usd


def unpriced_gpu_types(config: EnvironmentConfig) -> tuple[str, ...]:
    """GPU instance types of the Karpenter pools and HyperPod groups without a price in config/data/prices.yaml for
    the environment's region: the burst alarm cannot count them, the dashboard's spend lines leave them out."""
    pricer = Pricer.of(config.region)
    types = {t for p in config.kubernetes.gpu_node_pools for t in p.instance_types}
    types |= set(hyperpod_gpu_instance_types(config))
    return tuple(sorted(t for t in types if pricer.instance(t) is None))


class ObservabilityStack(PlatformStack):
    """Deployed after `<Env>-Compute`. Contracts: ``container_insights`` (add-on, role, log groups), ``alarms``
    (``topic``, ``alarms``), ``dashboard``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        cluster: eks.ICluster,
        encryption_key: kms.IKey,
        file_system_id: str,
        load_balancer: elbv2.IApplicationLoadBalancer,
        target_group: elbv2.IApplicationTargetGroup,
        database_cluster: rds.IDatabaseCluster,
        hyperpod_cluster_arn: str,
        spot_interruption_rule_name: str,
        system_node_selector: Mapping[str, str],
        addon_after: Sequence[IDependable] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            config=config,
            **kwargs,
            description=f"LLM fine-tuning platform ({config.name}): Container Insights, dashboard, alarms",
        )
        self._add_container_insights(
            config,
            cluster=cluster,
            encryption_key=encryption_key,
            system_node_selector=system_node_selector,
            addon_after=addon_after,
        )
        per_gpu, reserved_gpus, reserved_usd = gpu_prices(config)
        unpriced = unpriced_gpu_types(config)
        self._add_unpriced_warning(config, unpriced)
        common = dict(
            file_system_id=file_system_id,
            load_balancer_full_name=load_balancer.load_balancer_full_name,
            target_group_full_name=target_group.target_group_full_name,
            database_cluster_identifier=database_cluster.cluster_identifier,
            spot_interruption_rule_name=spot_interruption_rule_name,
        )
        self._add_dashboard(
            config, per_gpu=per_gpu, reserved_gpus=reserved_gpus, reserved_usd=reserved_usd, common=common
        )
        self._add_alarms(
            config,
            per_gpu=per_gpu,
            reserved_gpus=reserved_gpus,
            unpriced=unpriced,
            hyperpod_cluster_arn=hyperpod_cluster_arn,
            common=common,
        )

    def _add_container_insights(
        self,
        config: EnvironmentConfig,
        *,
        cluster: eks.ICluster,
        encryption_key: kms.IKey,
        system_node_selector: Mapping[str, str],
        addon_after: Sequence[IDependable],
    ) -> None:
        """The Container Insights add-on with its role and log groups."""
        ob = config.observability
        self.container_insights = ContainerInsights(
            self,
            "ContainerInsights",
            cluster=cluster,
            cluster_name=config.cluster_name,
            addon_version=ob.addon_version,
            log_retention=retention(ob.log_retention_days),
            encryption_key=encryption_key,
            prometheus_node_selector=system_node_selector,
            argo_workflows=config.pipelines.enabled,
            serving_namespaces=serving_namespaces(config),
            after=tuple(addon_after),
        )

    def _add_unpriced_warning(self, config: EnvironmentConfig, unpriced: Sequence[str]) -> None:
        """Warn at synthesis about GPU instance types without a price (prices are advisory)."""
        if unpriced:
            # Prices are advisory: an unpriced region or instance type synthesizes, and says what it leaves out.
            Annotations.of(self).add_warning_v2(
                "llmft:UnpricedGpuTypes",
                Pricer.of(config.region).missing_note(f"GPU instance types {', '.join(unpriced)}")
                + "; the burst-spend alarm and the dashboard's spend "
                "lines do not count them, and `make cost` marks its maximum GPU spend incomplete",
            )

    @staticmethod
    def _pipeline_namespaces(config: EnvironmentConfig) -> list[str]:
        """Where Argo Workflows run: the team namespaces, counted only where the controller runs."""
        return [t.namespace for t in config.kubernetes.teams] if config.pipelines.enabled else []

    def _add_dashboard(
        self,
        config: EnvironmentConfig,
        *,
        per_gpu: dict[str, float],
        reserved_gpus: int,
        reserved_usd: float,
        common: Mapping[str, str],
    ) -> None:
        """The platform dashboard."""
        pools = config.kubernetes.gpu_node_pools
        capacity = CapacityKinds(
            on_demand=tuple(sorted({t for p in pools if p.capacity_type == "on-demand" for t in p.instance_types})),
            spot=tuple(sorted({t for p in pools if p.capacity_type == "spot" for t in p.instance_types})),
            burst_prices=burst_prices(config, per_gpu),
        )
        self.dashboard = PlatformDashboard(
            self,
            "Dashboard",
            prefix=config.resource_prefix,
            cluster_name=config.cluster_name,
            teams=[t.name for t in config.kubernetes.teams],
            capacity=capacity,
            reserved_usd_per_hour=reserved_usd,
            hyperpod_gpu_instance_types=hyperpod_gpu_instance_types(config),
            reserved_gpus=reserved_gpus,
            burst_budget_usd_per_hour=config.burst_alarm_usd_per_hour,
            pipeline_namespaces=self._pipeline_namespaces(config),
            serving_namespaces=serving_namespaces(config),
            **common,
        )

    def _add_alarms(
        self,
        config: EnvironmentConfig,
        *,
        per_gpu: dict[str, float],
        reserved_gpus: int,
        unpriced: Sequence[str],
        hyperpod_cluster_arn: str,
        common: Mapping[str, str],
    ) -> None:
        """The platform alarms and their SNS topic."""
        ob = config.observability
        self.alarms = PlatformAlarms(
            self,
            "Alarms",
            prefix=config.resource_prefix,
            emails=ob.alarm_emails,
            thresholds=ob.thresholds,
            resources=AlarmedResources(
                cluster_name=config.cluster_name,
                file_system_capacity_gib=config.storage.fsx.storage_capacity_gib,
                hyperpod_cluster_arn=hyperpod_cluster_arn,
                **common,
            ),
            gpus=GpuAlarmProps(
                reserved_gpus=reserved_gpus,
                hyperpod_gpu_instance_types=hyperpod_gpu_instance_types(config),
                burst_prices=burst_prices(config, per_gpu),
                unpriced_instance_types=unpriced,
                burst_usd_per_hour=config.burst_alarm_usd_per_hour,
            ),
            cluster_queues=cluster_queues(config),
            pipeline_namespaces=self._pipeline_namespaces(config),
            serving_namespaces=serving_namespaces(config),
            training_namespaces=[t.namespace for t in config.kubernetes.teams],
            application_log_group=self.container_insights.log_groups["application"],
        )
