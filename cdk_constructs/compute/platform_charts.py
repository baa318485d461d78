"""The platform's Kubernetes charts, deployed into the EKS cluster."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cdk8s
from aws_cdk import RemovalPolicy
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as sm
from constructs import Construct, IDependable

from cdk_constructs.storage.shared_file_system import SharedFileSystem
from config import EnvironmentConfig
from k8s_charts.fallback import fallback_settings
from k8s_charts.images import image_uris
from k8s_charts.karpenter import CpuCapacityChart, GpuCapacityChart
from k8s_charts.node_shapes import node_kinds
from k8s_charts.priority_classes import PriorityClassesChart
from k8s_charts.queueing import QueueingChart
from k8s_charts.team_namespaces import TeamNamespacesChart
from k8s_charts.values import MlflowValues, PlatformValues

MANIFEST_IDS = {
    "priority-classes": "PriorityClasses",
    "gpu-capacity": "GpuCapacity",
    "cpu-capacity": "CpuCapacity",
    "team-namespaces": "TeamNamespaces",
    "queueing": "Queueing",
}
"""Chart key -> construct id of its KubernetesManifest (the ids `add_cdk8s_chart` used: logical IDs unchanged)."""


class PlatformCharts(Construct):
    """Applies the k8s_charts platform charts to ``cluster``. The teams' Pod Identity roles are created by their
    :class:`~cdk_constructs.teams.team.Team` under this construct (``Team-<team>``; the compute stack asks).

    Charts: ``priority-classes``, ``gpu-capacity`` and ``cpu-capacity`` (Karpenter EC2NodeClasses/NodePools of the
    GPU pools and of the CPU job pods; wait for ``crd_dependencies``, the Helm releases that install the CRDs),
    ``team-namespaces`` and ``queueing`` (Kueue
    flavors, cohorts, ClusterQueues, LocalQueues, the queue-name admission policy; after the namespaces).

    :param config: the environment (teams, priority classes, GPU pools, HyperPod AZ, FSx settings).
    :param cluster: the EKS cluster.
    :param crd_dependencies: constructs the custom-resource chart must be applied after.
    :param node_role: the Karpenter node role (EC2NodeClass ``role``).
    :param volume_key: KMS key for the nodes' EBS volumes (Karpenter must be allowed to use it).
    :param file_system: the shared FSx for Lustre file system (static PV per team namespace).
    :param mlflow_tracking_uri: the `mlflow` ConfigMaps' MLFLOW_TRACKING_URI. Default: no MLflow wiring.
    :param mlflow_team_secrets: team name -> that team's MLflow credentials secret. Default: none.
    :param mlflow_evaluator_secret: the MLflow evaluator's credentials secret, synced into the platform namespace
        for the promotion Job's check (k8s_charts/promotion.py). Default: none (no check credentials).
    :param apply_manifests: apply the charts to the cluster. Default True (delivery mode `cdk`); False in `argocd`
        mode, where Argo CD syncs the same charts from Git (``make gitops`` writes them) and the stack must not
        own them too (``manifests`` is then empty; ``charts`` and ``values`` stay).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        cluster: eks.Cluster,
        crd_dependencies: Sequence[IDependable],
        node_role: iam.IRole,
        volume_key: kms.IKey,
        file_system: SharedFileSystem,
        mlflow_tracking_uri: str | None = None,
        mlflow_team_secrets: Mapping[str, sm.ISecret] | None = None,
        mlflow_evaluator_secret: sm.ISecret | None = None,
        apply_manifests: bool = True,
    ) -> None:
        super().__init__(scope, construct_id)
        mlflow = None
        mlflow_team_secrets = dict(mlflow_team_secrets or {})
        if mlflow_tracking_uri:
            mlflow = MlflowValues(
                tracking_uri=mlflow_tracking_uri,
                team_secret_arns={t: s.secret_arn for t, s in mlflow_team_secrets.items()},
                evaluator_secret_arn=mlflow_evaluator_secret.secret_arn if mlflow_evaluator_secret else None,
            )
        self.values = PlatformValues(
            cluster_name=config.cluster_name,
            region=config.region,
            hyperpod_availability_zone=config.network.hyperpod.availability_zone,
            node_role_name=node_role.role_name,
            kms_key_arn=volume_key.key_arn,
            fsx_file_system_id=file_system.file_system_id,
            fsx_dns_name=file_system.dns_name,
            fsx_mount_name=file_system.mount_name,
            fsx_storage_capacity_gib=config.storage.fsx.storage_capacity_gib,
            images=image_uris(config),
            mlflow=mlflow,
            node_kinds=node_kinds(config),
        )
        k = config.kubernetes
        app = cdk8s.App()
        self.charts: dict[str, cdk8s.Chart] = {
            "priority-classes": PriorityClassesChart(app, "priority-classes", priority_classes=k.priority_classes),
            "gpu-capacity": GpuCapacityChart(
                app, "gpu-capacity", pools=k.gpu_node_pools, node=k.karpenter, values=self.values
            ),
            "cpu-capacity": CpuCapacityChart(
                app, "cpu-capacity", pool=k.cpu_node_pool, node=k.karpenter, values=self.values
            ),
            "team-namespaces": TeamNamespacesChart(
                app, "team-namespaces", teams=k.teams, values=self.values, fallback=fallback_settings(config)
            ),
            "queueing": QueueingChart(app, "queueing", config=config),
        }
        self.manifests: dict[str, eks.KubernetesManifest] = {}
        if apply_manifests:
            self._apply(cluster, crd_dependencies)

    def _apply(self, cluster: eks.Cluster, crd_dependencies: Sequence[IDependable]) -> None:
        # What `cluster.add_cdk8s_chart` creates (same scope and id, so the same logical IDs), plus two settings that
        # make switching delivery.mode safe (docs/gitops.md "Switching delivery mode"): RETAIN, so that leaving cdk
        # mode (the manifests leave the template) does not `kubectl delete` the team namespaces Argo CD takes over,
        # and overwrite (`kubectl apply` instead of `kubectl create`), so that coming back from argocd mode adopts the
        # objects Argo CD left instead of failing with AlreadyExists.
        self.manifests.update(
            {
                key: eks.KubernetesManifest(
                    cluster,
                    construct_id,
                    cluster=cluster,
                    manifest=self.charts[key].to_json(),
                    overwrite=True,
                    removal_policy=RemovalPolicy.RETAIN,
                )
                for key, construct_id in MANIFEST_IDS.items()
            }
        )
        self.manifests["gpu-capacity"].node.add_dependency(*crd_dependencies)
        self.manifests["cpu-capacity"].node.add_dependency(*crd_dependencies)
        # Kueue objects need Kueue's CRDs (in crd_dependencies) and LocalQueues need the team namespaces.
        self.manifests["queueing"].node.add_dependency(*crd_dependencies, self.manifests["team-namespaces"])
        # Pods name PriorityClasses; namespaces come after them so the quotas never refer to missing classes, and
        # after the CRD releases (their SecretProviderClass `mlflow-credentials` is a custom resource).
        self.manifests["team-namespaces"].node.add_dependency(self.manifests["priority-classes"], *crd_dependencies)
