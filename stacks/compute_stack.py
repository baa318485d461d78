"""`<Env>-Compute`: EKS (aws_eks_v2), SageMaker HyperPod with its prerequisites, Karpenter, KubeRay, FSx volume."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cdk8s
from aws_cdk import CfnOutput, Reference, RemovalPolicy, Stack, Token, Tokenization, aws_ec2 as ec2, aws_eks_v2 as eks, aws_iam as iam, aws_kms as kms, aws_s3 as s3
from constructs import Construct

from cdk_constructs.compute.argo_cd import ArgoCd
from cdk_constructs.compute.argo_workflows import ArgoWorkflows
from cdk_constructs.governance.compliance import annotate_cdk_managed_handlers, ignore_cfn_lint
from cdk_constructs.compute.eks_cluster import PlatformEksCluster
from cdk_constructs.compute.fsx_static_volume import FsxStaticVolume
from cdk_constructs.governance.function_logs import govern_handler_logs
from cdk_constructs.compute.hyperpod_cluster import HyperPodCluster, InstanceGroup
from cdk_constructs.compute.hyperpod_log_group import HyperPodLogGroup
from cdk_constructs.compute.hyperpod_prerequisites import HyperPodPrerequisites
from cdk_constructs.compute.karpenter import Karpenter
from cdk_constructs.compute.keda import Keda
from cdk_constructs.compute.kuberay_operator import KubeRayOperator
from cdk_constructs.compute.kueue import Kueue
from cdk_constructs.governance.log_retention import retention
from cdk_constructs.governance.nag_findings import (
    acknowledge, asset_bucket_objects, attribute, managed_policy, wildcard_actions, wildcard_resources,
)
from cdk_constructs.compute.platform_charts import PlatformCharts
from cdk_constructs.network.platform_security_groups import PlatformSecurityGroups
from cdk_constructs.compute.secrets_store_csi_driver import SecretsStoreCsiDriver
from cdk_constructs.storage.shared_file_system import SharedFileSystem
from cdk_constructs.studio.studio_partitions import FsxDirectories
from config import EnvironmentConfig
from config.compute import hyperpod_instance_types, is_accelerated, is_nvidia_gpu
from k8s_charts.team_storage import platform_directories
from k8s_charts.queues import CAPACITY_LABEL
from k8s_charts.values import PlatformValues, deploy_time_values, gitops_output_key

from ._base import PlatformStack
from .mlflow_stack import MlflowConnection


class ComputeStack(PlatformStack):
    """The cluster layer. Contracts other stacks and charts rely on:

    - ``eks``: the ``PlatformEksCluster`` construct (``system_nodegroup``, ``addons`` by name);
    - ``cluster`` (``aws_eks_v2.Cluster``), ``cluster_name`` (= ``config.cluster_name``, the Karpenter discovery tag
      value on the private subnets and the ``eks_nodes`` security group);
    - ``karpenter_node_role`` (role for EC2NodeClasses), ``karpenter`` (queue, controller role);
    - ``hyperpod_execution_role``, ``hyperpod`` (the ``HyperPodCluster`` construct), ``hyperpod_logs`` (its log group
      with retention and the platform key, when ``log_encryption_key`` is given);
    - ``kueue``: the Kueue controller (``kueue.release``);
    - ``keda``: KEDA (``keda.release``, ``keda.role``: the operator's CloudWatch read role);
    - ``crd_dependencies``: the Helm releases installing the Karpenter, KubeRay, training-operator, MPI, Kueue,
      SecretProviderClass and KEDA CRDs;
      anything applying custom resources must depend on all of them (:meth:`add_cdk8s_chart` does);
    - ``encryption_key``: the compute KMS key (EKS secrets; usable for Karpenter node volumes);
    - ``fsx_volume``: the static FSx volume (``add_claim(namespace)`` -> PV ``fsx-<ns>`` + PVC ``fsx-claim``);
    - ``system_node_selector``: nodeSelector of the system node group (controllers);
    - ``fsx_directories``: the Job creating every team's FSx tree (``wait_handle``: the directories exist);
    - ``team_roles``: team name -> that team's EKS Pod Identity role (namespace ``<team>``, service account
      ``training``; created when ``data_bucket`` is given): grant it what the team's jobs may use, e.g.
      ``SecureBucket.grant_read(compute.team_roles["ml-research"], prefix="evals/")``;
    - ``argo_cd``: in ``delivery.mode: argocd`` only (else None), Argo CD and its projects/applications
      (cdk_constructs/compute/argo_cd.py); the platform charts are then not applied by this stack (one owner per object)
      and every deploy-time value of dist/<env>/ is an output ``GitOps<NAME>`` of the stack owning it (`make gitops`
      fills them in).

    ``mlflow``: an :class:`~stacks.mlflow_stack.MlflowConnection` (the ``MlflowStack``); with it the team namespaces
    get the ``mlflow`` ConfigMap and their team's credentials. Default: no MLflow wiring. Anything else is refused.
    """

    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig, vpc: ec2.IVpc,
                 private_subnets: Sequence[ec2.ISubnet], hyperpod_subnet: ec2.ISubnet,
                 security_groups: PlatformSecurityGroups, file_system: SharedFileSystem,
                 mlflow: MlflowConnection | None = None,
                 data_bucket: s3.IBucket | None = None, log_encryption_key: kms.IKey | None = None,
                 **kwargs: Any) -> None:
        super().__init__(scope, construct_id, config=config, stateful=True, **kwargs,
                         description=f"LLM fine-tuning platform ({config.name}): EKS, SageMaker HyperPod, Karpenter, "
                                     f"KubeRay")
        if mlflow is not None and not isinstance(mlflow, MlflowConnection):
            raise TypeError(f"{construct_id}: mlflow must be an MlflowConnection (the MlflowStack: tracking_uri, "
                            f"team_credentials_secrets), got {type(mlflow).__name__}; pass the MlflowStack or None")
        cc = config.compute
        self.cluster_name = config.cluster_name

        self.encryption_key: kms.IKey = kms.Key(
            self, "EncryptionKey",
            alias=f"alias/{config.resource_prefix}-compute",
            description=f"{config.resource_prefix}: EKS secrets envelope encryption, Karpenter node volumes",
            enable_key_rotation=True,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )

        # --- EKS ------------------------------------------------------------------------------------------
        self.eks = PlatformEksCluster(
            self, "Eks",
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
        system_ready = [self.eks.system_nodegroup, self.eks.addons["vpc-cni"], self.eks.addons["coredns"]]

        # --- HyperPod prerequisites, then HyperPod ---------------------------------------------------------
        self.hyperpod_prerequisites = HyperPodPrerequisites(
            self, "HyperPodPrerequisites",
            cluster=self.cluster,
            region=config.region,
            nvidia_instance_types=[t for t in hyperpod_instance_types() if is_nvidia_gpu(t)],
            neuron_instance_types=[t for t in hyperpod_instance_types()
                                   if is_accelerated(t) and not is_nvidia_gpu(t)],
            karpenter_ami_alias=config.kubernetes.karpenter.ami_alias,
            system_node_selector=self.system_node_selector,
            after=system_ready,
        )
        self.hyperpod = HyperPodCluster(
            self, "HyperPod",
            cluster_name=f"{config.resource_prefix}-hyperpod",
            eks_cluster=self.cluster,
            subnet=hyperpod_subnet,
            security_group=security_groups.efa,
            instance_groups=[
                InstanceGroup(name=g.name, instance_type=g.instance_type, count=g.count, gpu_type=g.node_gpu_type,
                              threads_per_core=g.threads_per_core, ebs_volume_size_gb=g.ebs_volume_size_gb,
                              deep_health_checks=g.run_deep_health_checks, training_plan_arn=g.training_plan_arn,
                              labels={**g.labels, CAPACITY_LABEL: g.name})
                for g in cc.hyperpod.instance_groups
            ],
            bucket_name=config.lifecycle_bucket_name,
            node_recovery=cc.hyperpod.node_recovery,
            prerequisites=[*self.hyperpod_prerequisites.releases, self.eks.addons["vpc-cni"],
                           self.eks.addons["eks-pod-identity-agent"], self.eks.addons["aws-fsx-csi-driver"]],
        )
        self.hyperpod_execution_role: iam.IRole = self.hyperpod.execution_role
        if log_encryption_key is not None:
            self.hyperpod_logs = HyperPodLogGroup(
                self, "HyperPodLogs", cluster_name=self.hyperpod.cluster.cluster_name,
                cluster_arn=self.hyperpod.cluster.attr_cluster_arn,
                retention_days=config.observability.log_retention_days, encryption_key=log_encryption_key)

        # --- Karpenter and KubeRay ------------------------------------------------------------------------
        self.karpenter = Karpenter(
            self, "Karpenter",
            cluster=self.cluster,
            cluster_name=self.cluster_name,
            volume_encryption_key=self.encryption_key,
            node_selector=self.system_node_selector,
            replicas=cc.karpenter.replicas,
            after=[*system_ready, self.eks.addons["eks-pod-identity-agent"]],
            version=cc.charts.karpenter,
        )
        self.karpenter_node_role: iam.IRole = self.karpenter.node_role
        self.kuberay = KubeRayOperator(self, "KubeRay", cluster=self.cluster, node_selector=self.system_node_selector,
                                       after=system_ready, version=cc.charts.kuberay)

        # Kueue integrates with the PyTorchJob, MPIJob, RayJob and RayCluster kinds, so it comes after their operators.
        self.kueue = Kueue(self, "Kueue", cluster=self.cluster, settings=cc.kueue,
                           node_selector=self.system_node_selector,
                           after=[*system_ready, self.kuberay.release, self.hyperpod_prerequisites.dependencies],
                           version=cc.charts.kueue)
        # Secrets Store CSI driver + AWS provider: team namespaces sync their MLflow user into a Kubernetes Secret.
        self.secrets_store = SecretsStoreCsiDriver(
            self, "SecretsStore", cluster=self.cluster,
            after=[*system_ready, self.eks.addons["eks-pod-identity-agent"]], version=cc.charts.secrets_store)
        # KEDA: the autoscaler of served models (llmft `type: serve` creates their ScaledObjects at submit).
        self.keda = Keda(self, "Keda", cluster=self.cluster, node_selector=self.system_node_selector,
                         after=[*system_ready, self.eks.addons["eks-pod-identity-agent"]])

        self.crd_dependencies: list[Construct] = [
            self.karpenter.crd_release,
            self.karpenter.release,
            self.kuberay.release,
            self.hyperpod_prerequisites.dependencies,
            self.kueue.release,
            self.secrets_store.release,
            self.keda.release,
        ]

        # --- the shared file system as a volume -----------------------------------------------------------
        self.fsx_volume = FsxStaticVolume(
            self, "FsxVolume",
            cluster=self.cluster,
            file_system_id=file_system.file_system_id,
            dns_name=file_system.dns_name,
            mount_name=file_system.mount_name,
            storage_capacity_gib=config.storage.fsx.storage_capacity_gib,
            after=[self.eks.addons["aws-fsx-csi-driver"]],
        )
        for namespace in cc.fsx_claim_namespaces:
            self.fsx_volume.add_claim(namespace)
        # The teams' trees (and Studio users' private directories) with their owners, before any pod mounts them.
        # Its pod runs on a system node and mounts FSx through the CSI driver: the Job is applied only once the
        # system node group, its networking and the FSx CSI add-on exist, so the wait (FsxDirectories.MAX_WAIT)
        # covers the pod alone, not a slow node group.
        self.fsx_directories = FsxDirectories(
            self, "FsxDirectories", cluster=self.cluster, directories=platform_directories(config),
            volume=lambda ns: [self.fsx_volume.persistent_volume(ns), self.fsx_volume.persistent_volume_claim(ns)],
            image=config.studio.partition_job_image, node_selector=self.system_node_selector,
            revision=config.studio.partition_job_revision,
            after=[*system_ready, self.eks.addons["aws-fsx-csi-driver"]],
        )

        # --- k8s_charts: PriorityClasses, GPU NodePools, team namespaces, Kueue queues; teams' Pod Identity roles
        self.platform_charts = PlatformCharts(
            self, "PlatformCharts", config=config, cluster=self.cluster, crd_dependencies=self.crd_dependencies,
            node_role=self.karpenter_node_role, volume_key=self.encryption_key, file_system=file_system,
            data_bucket=data_bucket, mlflow_tracking_uri=mlflow.tracking_uri if mlflow else None,
            mlflow_team_secrets=mlflow.team_credentials_secrets if mlflow else None,
            apply_manifests=config.delivery.mode == "cdk")
        self.team_roles: dict[str, iam.Role] = self.platform_charts.team_roles

        # --- Argo Workflows (pipelines.enabled): runs `llmft pipeline` Workflows in the team namespaces --------
        self.argo_workflows: ArgoWorkflows | None = None
        if config.pipelines.enabled:
            self.argo_workflows = ArgoWorkflows(self, "ArgoWorkflows", cluster=self.cluster,
                                                node_selector=self.system_node_selector, after=[*system_ready])

        # --- GitOps (delivery.mode argocd): Argo CD syncs the platform charts and the teams' jobs from Git ------
        self.argo_cd: ArgoCd | None = None
        if config.delivery.mode == "argocd":
            self.argo_cd = ArgoCd(self, "ArgoCd", cluster=self.cluster, config=config,
                                  values=self.platform_charts.values, node_selector=self.system_node_selector,
                                  after=[*system_ready, *self.crd_dependencies])
            # Each output lives in the stack that owns the value (a Ref/GetAtt there; an output of a value imported
            # from another stack would be an Fn::GetStackOutput, which outputs cannot hold).
            for name, value in deploy_time_values(PlatformValues.placeholders(config),
                                                  self.platform_charts.values).items():
                ref = Tokenization.reverse(value) if Token.is_unresolved(value) else None
                owner = Stack.of(ref.target) if isinstance(ref, Reference) else self
                CfnOutput(owner, gitops_output_key(name), value=value,
                          description=f"${{{name}}} in dist/{config.name}/ (make gitops fills it in)")

        self._acknowledge_shared_handlers()
        govern_handler_logs(self, self.cluster, retention_days=config.observability.log_retention_days,
                            encryption_key=log_encryption_key,
                            no_key_reason="No platform key was passed to the compute stack (log_encryption_key)")
        annotate_cdk_managed_handlers(self, self.cluster)

    def add_cdk8s_chart(self, construct_id: str, chart: cdk8s.Chart, *, ingress_alb: bool = False
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
                ignore_cfn_lint(child, "W3005", "aws-cdk-lib adds DependsOn on the handler's service role next to "
                                                "the GetAtt; harmless and not editable from here.")
                acknowledge(child, "The BucketDeployment runtime is pinned by aws-cdk-lib to match its bundled AWS "
                                   "CLI layer; it moves forward with aws-cdk-lib upgrades.", "L1")
