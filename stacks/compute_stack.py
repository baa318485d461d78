"""`<Env>-Compute`: EKS (aws_eks_v2), SageMaker HyperPod with its prerequisites, Karpenter, KubeRay, FSx volume."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cdk8s
from aws_cdk import RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import (
    SYSTEM_NODES,
    AddOn,
    AddOnContext,
    AddOnOrderError,
    AddOnSite,
    HelmAddOn,
    InstalledAddOns,
    Stage,
    install_chart,
    install_order,
    registered,
)
from cdk_constructs.compute.argo_cd import ArgoCd
from cdk_constructs.compute.argo_workflows import ArgoWorkflows
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
from cdk_constructs.compute.promotion_identity import PromotionIdentity
from cdk_constructs.compute.secrets_store_csi_driver import SecretsStoreCsiDriver
from cdk_constructs.governance.compliance import annotate_cdk_managed_handlers, ignore_cfn_lint
from cdk_constructs.governance.function_logs import govern_handler_logs
from cdk_constructs.governance.log_retention import retention
from cdk_constructs.governance.nag_findings import (
    acknowledge,
    asset_bucket_objects,
    attribute,
    managed_policy,
    wildcard_actions,
    wildcard_resources,
)
from cdk_constructs.network.platform_security_groups import PlatformSecurityGroups
from cdk_constructs.storage.shared_file_system import SharedFileSystem
from cdk_constructs.teams.team import Team
from config import EnvironmentConfig
from k8s_charts.queues import CAPACITY_LABEL
from k8s_charts.team_storage import platform_directories
from k8s_charts.values import PlatformValues, deploy_time_values

from ._base import PlatformStack
from .mlflow_stack import MlflowConnection


class ComputeStack(PlatformStack):
    """The cluster layer. Contracts other stacks and charts rely on:

    - ``eks``: the ``PlatformEksCluster`` construct (``system_nodegroup``, ``addons`` by name);
    - ``cluster`` (``aws_eks_v2.Cluster``), ``cluster_name`` (= ``config.cluster_name``, the Karpenter discovery tag
      value on the private subnets and the ``eks_nodes`` security group);
    - ``karpenter_node_role`` (role for EC2NodeClasses), ``karpenter`` (queue, controller role);
    - ``hyperpod_execution_role``, ``hyperpod`` (the ``HyperPodCluster`` construct), ``hyperpod_logs`` (its log group
      with retention and the platform key, when ``log_encryption_key`` is given), ``hyperpod_prerequisites``;
    - ``kueue``: the Kueue controller (``kueue.release``); ``kuberay``, ``secrets_store``;
    - ``keda``: KEDA (``keda.release``, ``keda.role``: the operator's CloudWatch read role), the autoscaler of served
      models;
    - ``crd_dependencies``: the Helm releases installing the CRDs the platform uses (every installed add-on declared
      with ``provides_platform_crds``: Karpenter, KubeRay, training-operator, MPI, Kueue, SecretProviderClass,
      KEDA); anything applying custom resources must depend on all of them (:meth:`add_cdk8s_chart` does);
    - ``addons``: what is installed, by add-on name (``addons["kueue"]``: its releases; ``system-nodes`` and the EKS
      add-ons too); ``addon_order``: the install order resolved from the registered declarations
      (:func:`~cdk_constructs.compute.addon.registered`); ``addon_constructs``: the construct each installer
      returned, by add-on name; ``helm_addons``: the add-ons that are their chart alone (``HelmAddOn``), by name;
    - ``teams``: a :class:`~cdk_constructs.teams.team.Team` per ``kubernetes.teams`` entry;
    - ``encryption_key``: the compute KMS key (EKS secrets; usable for Karpenter node volumes);
    - ``fsx_volume``: the static FSx volume (``add_claim(namespace)`` -> PV ``fsx-<ns>`` + PVC ``fsx-claim``);
    - ``system_node_selector``: nodeSelector of the system node group (controllers);
    - ``fsx_directories``: the Job creating every team's FSx tree (``wait_handle``: the directories exist);
    - ``team_roles``: team name -> that team's EKS Pod Identity role (namespace ``<team>``, service account
      ``training``; created when ``data_bucket`` is given): grant it what the team's jobs may use, e.g.
      ``SecureBucket.grant_read(compute.team_roles["ml-research"], prefix="evals/")``;
    - ``argo_cd``: in ``delivery.mode: argocd`` only (else None), Argo CD and its projects/applications
      (cdk_constructs/compute/argo_cd.py); the platform charts are then not applied by this stack (one owner per object)
      and every deploy-time value of dist/<env>/ (``deploy_time_values``) is an output ``GitOps<NAME>`` of the stack
      owning it (`make gitops` fills them in; ``app.build`` asks the owners).

    ``mlflow``: an :class:`~stacks.mlflow_stack.MlflowConnection` (the ``MlflowStack``); with it the team namespaces
    get the ``mlflow`` ConfigMap and their team's credentials. Default: no MLflow wiring. Anything else is refused.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        vpc: ec2.IVpc,
        private_subnets: Sequence[ec2.ISubnet],
        hyperpod_subnet: ec2.ISubnet,
        security_groups: PlatformSecurityGroups,
        file_system: SharedFileSystem,
        mlflow: MlflowConnection | None = None,
        data_bucket: s3.IBucket | None = None,
        log_encryption_key: kms.IKey | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            config=config,
            stateful=True,
            **kwargs,
            description=f"LLM fine-tuning platform ({config.name}): EKS, SageMaker HyperPod, Karpenter, KubeRay",
        )
        if mlflow is not None and not isinstance(mlflow, MlflowConnection):
            raise TypeError(
                f"{construct_id}: mlflow must be an MlflowConnection (the MlflowStack: tracking_uri, "
                f"team_credentials_secrets), got {type(mlflow).__name__}; pass the MlflowStack or None"
            )
        self.config = config
        self.cluster_name = config.cluster_name
        self.teams: list[Team] = Team.all(config.kubernetes.teams)
        self.addon_constructs: dict[str, Construct] = {}
        self._build_cluster(
            vpc=vpc,
            private_subnets=private_subnets,
            security_groups=security_groups,
            log_encryption_key=log_encryption_key,
        )
        self._plan_addons()
        self._install_addons("hyperpod")
        self._build_hyperpod(
            hyperpod_subnet=hyperpod_subnet, security_groups=security_groups, log_encryption_key=log_encryption_key
        )
        self._install_addons("controllers")
        self.crd_dependencies: list[IDependable] = self.addons.crd_releases
        self._build_file_system_volume(file_system)
        self._build_platform_charts(file_system=file_system, data_bucket=data_bucket, mlflow=mlflow)
        self._install_addons("delivery")
        self._govern(log_encryption_key)

    # --- the steps, in construct order (logical IDs and template order depend on it) --------------------------------
    def _build_cluster(
        self,
        *,
        vpc: ec2.IVpc,
        private_subnets: Sequence[ec2.ISubnet],
        security_groups: PlatformSecurityGroups,
        log_encryption_key: kms.IKey | None,
    ) -> None:
        """The compute KMS key and the EKS cluster with its system node group and EKS add-ons."""
        config, cc = self.config, self.config.compute
        self.encryption_key: kms.IKey = kms.Key(
            self,
            "EncryptionKey",
            alias=f"alias/{config.resource_prefix}-compute",
            description=f"{config.resource_prefix}: EKS secrets envelope encryption, Karpenter node volumes",
            enable_key_rotation=True,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.eks = PlatformEksCluster(
            self,
            "Eks",
            cluster_name=self.cluster_name,
            version=cc.kubernetes_version,
            vpc=vpc,
            subnets=private_subnets,
            control_plane_security_group=security_groups.eks_nodes,
            encryption_key=self.encryption_key,
            addon_versions=cc.addons.model_dump(),
            admin_role_arns=cc.admin_role_arns,
            public_access_cidrs=cc.public_access_cidrs,
            system_instance_types=cc.system_nodes.instance_types,
            system_min_size=cc.system_nodes.min_size,
            system_desired_size=cc.system_nodes.desired_size,
            system_max_size=cc.system_nodes.max_size,
            system_disk_size_gib=cc.system_nodes.disk_size_gib,
            log_encryption_key=log_encryption_key,
            log_retention=retention(config.observability.log_retention_days),
        )
        self.cluster: eks.Cluster = self.eks.cluster
        # Studio's terminals run kubectl against the private endpoint (docs/studio.md "SageMaker Studio").
        self.eks.allow_api_from(security_groups.studio, "SageMaker Studio apps: kubectl to the EKS API")
        self.system_node_selector = self.eks.system_node_selector

    def _plan_addons(self) -> None:
        """What exists before any add-on (the system nodes, the EKS add-ons by name), and the install order of
        every registered add-on this environment enables, checked once for unknown names, later stages and cycles."""
        system_ready = [self.eks.system_nodegroup, self.eks.addons["vpc-cni"], self.eks.addons["coredns"]]
        self.addons = InstalledAddOns(
            {SYSTEM_NODES: system_ready, **{name: [addon] for name, addon in self.eks.addons.items()}}
        )
        self.addon_context = AddOnContext(config=self.config, node_selector=self.system_node_selector)
        self.addon_order: list[AddOn] = install_order(registered(self.config), provided=self.addons.names())

    def _install_addons(self, stage: Stage) -> None:
        """Install the add-ons of ``stage`` in the planned order, each by its installer (default: its chart alone,
        :func:`~cdk_constructs.compute.addon.install_chart`), which records what it installed; an add-on installed
        with a sibling of its module is skipped."""
        site = AddOnSite(
            scope=self,
            cluster=self.cluster,
            context=self.addon_context,
            installed=self.addons,
            encryption_key=self.encryption_key,
            platform_values=self.platform_charts.values if stage == "delivery" else None,
        )
        for addon in self.addon_order:
            if addon.stage != stage or addon.name in self.addons:
                continue
            before = set(self.addons.names())
            construct = (addon.installer or install_chart)(site, addon)
            if addon.name not in self.addons:
                raise AddOnOrderError(f"the installer of add-on {addon.name!r} did not record it (site.installed.add)")
            for name in set(self.addons.names()) - before:
                self.addon_constructs[name] = construct

    def _addon_construct(self, name: str) -> Any:
        """The construct that installed add-on ``name``, None where this environment does not install it."""
        return self.addon_constructs.get(name)

    @property
    def helm_addons(self) -> dict[str, HelmAddOn]:
        """The installed add-ons that are their chart alone, by name."""
        return {n: c for n, c in self.addon_constructs.items() if isinstance(c, HelmAddOn)}

    # contracts other stacks and tests rely on (class docstring): the constructs of the shipped add-ons
    @property
    def hyperpod_prerequisites(self) -> HyperPodPrerequisites:
        return self._addon_construct("hyperpod-prerequisites")

    @property
    def karpenter(self) -> Karpenter:
        return self._addon_construct("karpenter")

    @property
    def karpenter_node_role(self) -> iam.IRole:
        return self.karpenter.node_role

    @property
    def kuberay(self) -> KubeRayOperator:
        return self._addon_construct("kuberay")

    @property
    def kueue(self) -> Kueue:
        return self._addon_construct("kueue")

    @property
    def secrets_store(self) -> SecretsStoreCsiDriver:
        return self._addon_construct("secrets-store")

    @property
    def keda(self) -> Keda:
        return self._addon_construct("keda")

    @property
    def argo_workflows(self) -> ArgoWorkflows | None:
        return self._addon_construct("argo-workflows")

    @property
    def argo_cd(self) -> ArgoCd | None:
        return self._addon_construct("argo-cd")

    def _build_hyperpod(
        self,
        *,
        hyperpod_subnet: ec2.ISubnet,
        security_groups: PlatformSecurityGroups,
        log_encryption_key: kms.IKey | None,
    ) -> None:
        """HyperPod, after every add-on of stage ``hyperpod`` (its prerequisites), and its log group."""
        config, cc = self.config, self.config.compute
        prerequisites = [r for a in self.addon_order if a.stage == "hyperpod" for r in self.addons[a.name]]
        self.hyperpod = HyperPodCluster(
            self,
            "HyperPod",
            cluster_name=f"{config.resource_prefix}-hyperpod",
            eks_cluster=self.cluster,
            subnet=hyperpod_subnet,
            security_group=security_groups.efa,
            instance_groups=[
                InstanceGroup(
                    name=g.name,
                    instance_type=g.instance_type,
                    count=g.count,
                    gpu_type=g.node_gpu_type,
                    threads_per_core=g.threads_per_core,
                    ebs_volume_size_gb=g.ebs_volume_size_gb,
                    deep_health_checks=g.run_deep_health_checks,
                    training_plan_arn=g.training_plan_arn,
                    labels={**g.labels, CAPACITY_LABEL: g.name},
                )
                for g in cc.hyperpod.instance_groups
            ],
            bucket_name=config.lifecycle_bucket_name,
            node_recovery=cc.hyperpod.node_recovery,
            prerequisites=[
                *prerequisites,
                self.eks.addons["vpc-cni"],
                self.eks.addons["eks-pod-identity-agent"],
                self.eks.addons["aws-fsx-csi-driver"],
            ],
        )
        self.hyperpod_execution_role: iam.IRole = self.hyperpod.execution_role
        if log_encryption_key is not None:
            self.hyperpod_logs = HyperPodLogGroup(
                self,
                "HyperPodLogs",
                cluster_name=self.hyperpod.cluster.cluster_name,
                cluster_arn=self.hyperpod.cluster.attr_cluster_arn,
                retention_days=config.observability.log_retention_days,
                encryption_key=log_encryption_key,
            )

    def _build_file_system_volume(self, file_system: SharedFileSystem) -> None:
        """The shared file system as a static volume, and the platform's directories on it."""
        config = self.config
        self.fsx_volume = FsxStaticVolume(
            self,
            "FsxVolume",
            cluster=self.cluster,
            file_system_id=file_system.file_system_id,
            dns_name=file_system.dns_name,
            mount_name=file_system.mount_name,
            storage_capacity_gib=config.storage.fsx.storage_capacity_gib,
            after=self.addons["aws-fsx-csi-driver"],
        )
        for namespace in config.compute.fsx_claim_namespaces:
            self.fsx_volume.add_claim(namespace)
        # The teams' trees (and Studio users' private directories) with their owners, before any pod mounts them.
        # Its pod runs on a system node and mounts FSx through the CSI driver: the Job is applied only once the
        # system node group, its networking and the FSx CSI add-on exist, so the wait (FsxDirectories.MAX_WAIT)
        # covers the pod alone, not a slow node group.
        self.fsx_directories = FsxDirectories(
            self,
            "FsxDirectories",
            cluster=self.cluster,
            directories=platform_directories(config),
            volume=lambda ns: [self.fsx_volume.persistent_volume(ns), self.fsx_volume.persistent_volume_claim(ns)],
            image=config.studio.partition_job_image,
            node_selector=self.system_node_selector,
            revision=config.studio.partition_job_revision,
            after=[*self.addons[SYSTEM_NODES], *self.addons["aws-fsx-csi-driver"]],
        )

    def _build_platform_charts(
        self, *, file_system: SharedFileSystem, data_bucket: s3.IBucket | None, mlflow: MlflowConnection | None
    ) -> None:
        """k8s_charts: PriorityClasses, GPU NodePools, team namespaces, Kueue queues; the teams' Pod Identity roles
        (:meth:`Team.pod_identity_role`; with ``data_bucket`` only)."""
        config = self.config
        self.platform_charts = PlatformCharts(
            self,
            "PlatformCharts",
            config=config,
            cluster=self.cluster,
            crd_dependencies=self.crd_dependencies,
            node_role=self.karpenter_node_role,
            volume_key=self.encryption_key,
            file_system=file_system,
            mlflow_tracking_uri=mlflow.tracking_uri if mlflow else None,
            mlflow_team_secrets=mlflow.team_credentials_secrets if mlflow else None,
            mlflow_evaluator_secret=getattr(mlflow, "evaluator_credentials_secret", None) if mlflow else None,
            apply_manifests=config.delivery.mode == "cdk",
        )
        # Each team's Pod Identity role, under PlatformCharts where it has always been (logical IDs).
        self.team_roles: dict[str, iam.Role] = {}
        if data_bucket is not None:
            secrets = mlflow.team_credentials_secrets if mlflow else {}
            for team in self.teams:
                self.team_roles[team.name] = team.pod_identity_role(
                    self.platform_charts,
                    cluster=self.cluster,
                    data_bucket=data_bucket,
                    mlflow_secret=secrets.get(team.name),
                )
        # the production promotion step's identity: the MLflow evaluator's secret, nothing else (issue 40)
        self.promotion_identity: PromotionIdentity | None = None
        evaluator_secret = getattr(mlflow, "evaluator_credentials_secret", None) if mlflow else None
        if evaluator_secret is not None:
            self.promotion_identity = PromotionIdentity(
                self, "PromotionIdentity", cluster=self.cluster, evaluator_secret=evaluator_secret
            )

    @property
    def deploy_time_values(self) -> dict[str, str]:
        """Delivery mode ``argocd``: every deploy-time value of the GitOps manifests in dist/<env>/ (``${NAME}`` ->
        its value here, a token of the stack that owns it); empty in ``cdk`` mode. ``app.build`` has each owner
        output its values (:func:`~stacks._base.output_deploy_time_values`): an output must live in the stack that
        owns the value, and this stack creates nothing in other stacks."""
        if self.argo_cd is None:
            return {}
        return deploy_time_values(PlatformValues.placeholders(self.config), self.platform_charts.values)

    def _govern(self, log_encryption_key: kms.IKey | None) -> None:
        """cdk-nag acknowledgements and log governance of the handlers aws-cdk-lib creates."""
        self._acknowledge_shared_handlers()
        govern_handler_logs(
            self,
            self.cluster,
            retention_days=self.config.observability.log_retention_days,
            encryption_key=log_encryption_key,
            no_key_reason="No platform key was passed to the compute stack (log_encryption_key)",
        )
        annotate_cdk_managed_handlers(self, self.cluster)

    def add_cdk8s_chart(
        self, construct_id: str, chart: cdk8s.Chart, *, ingress_alb: bool = False
    ) -> eks.KubernetesManifest:
        """Deploy a cdk8s chart after every CRD-installing release (so its custom resources have their types)."""
        manifest = self.cluster.add_cdk8s_chart(construct_id, chart, ingress_alb=ingress_alb)
        manifest.node.add_dependency(*self.crd_dependencies)
        return manifest

    def _acknowledge_shared_handlers(self) -> None:
        """Stack-level singleton aws-cdk-lib creates for the lifecycle-scripts BucketDeployment."""
        for child in self.node.children:
            if child.node.id.startswith("Custom::CDKBucketDeployment"):
                acknowledge(
                    child,
                    "The BucketDeployment handler of aws-cdk-lib logs through the AWS-managed basic execution policy "
                    "and copies every object of the scripts asset into the lifecycle bucket (object wildcards).",
                    managed_policy("service-role/AWSLambdaBasicExecutionRole"),
                    *wildcard_actions("s3:Abort*", "s3:DeleteObject*", "s3:GetBucket*", "s3:GetObject*", "s3:List*"),
                    *wildcard_resources(asset_bucket_objects(self), f"{attribute(self.hyperpod.lifecycle_bucket)}/*"),
                )
                ignore_cfn_lint(
                    child,
                    "W3005",
                    "aws-cdk-lib adds DependsOn on the handler's service role next to "
                    "the GetAtt; harmless and not editable from here.",
                )
                acknowledge(
                    child,
                    "The BucketDeployment runtime is pinned by aws-cdk-lib to match its bundled AWS "
                    "CLI layer; it moves forward with aws-cdk-lib upgrades.",
                    "L1",
                )
