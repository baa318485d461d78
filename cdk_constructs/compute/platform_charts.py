"""The platform's Kubernetes charts, deployed into the EKS cluster, and the teams' EKS Pod Identity roles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cdk8s
from aws_cdk import RemovalPolicy, Stack, aws_eks as eks_l1, aws_eks_v2 as eks, aws_iam as iam
from aws_cdk import aws_kms as kms, aws_s3 as s3, aws_secretsmanager as sm
from constructs import Construct, IDependable

from config import EnvironmentConfig, TeamConfig
from k8s_charts.images import image_uris
from k8s_charts.karpenter import CpuCapacityChart, GpuCapacityChart
from k8s_charts.node_shapes import node_kinds
from k8s_charts.priority_classes import PriorityClassesChart
from k8s_charts.queueing import QueueingChart
from k8s_charts.team_namespaces import TeamNamespacesChart
from k8s_charts.values import TEAM_SERVICE_ACCOUNT, MlflowValues, PlatformValues

from cdk_constructs.governance.nag_findings import acknowledge_prefix_wildcard
from cdk_constructs.storage.shared_file_system import SharedFileSystem


MANIFEST_IDS = {"priority-classes": "PriorityClasses", "gpu-capacity": "GpuCapacity", "cpu-capacity": "CpuCapacity",
                "team-namespaces": "TeamNamespaces", "queueing": "Queueing"}
"""Chart key -> construct id of its KubernetesManifest (the ids `add_cdk8s_chart` used: logical IDs unchanged)."""


class PlatformCharts(Construct):
    """Applies the k8s_charts platform charts to ``cluster`` and gives every team an IAM role through EKS Pod
    Identity (namespace `<team>`, service account `training`).

    Charts: ``priority-classes``, ``gpu-capacity`` and ``cpu-capacity`` (Karpenter EC2NodeClasses/NodePools of the
    GPU pools and of the CPU job pods; wait for ``crd_dependencies``, the Helm releases that install the CRDs),
    ``team-namespaces`` and ``queueing`` (Kueue
    flavors, cohorts, ClusterQueues, LocalQueues, the queue-name admission policy; after the namespaces).

    Team role: read/write under the team's S3 prefix of ``data_bucket`` only (list restricted to the prefix, its
    KMS key only through S3) and, when given, read of that team's own MLflow credentials secret (no other team's):
    the Secrets Store CSI driver fetches it with the pod's identity into the namespace's Secret
    ``mlflow-credentials``.

    :param config: the environment (teams, priority classes, GPU pools, HyperPod AZ, FSx settings).
    :param cluster: the EKS cluster.
    :param crd_dependencies: constructs the custom-resource chart must be applied after.
    :param node_role: the Karpenter node role (EC2NodeClass ``role``).
    :param volume_key: KMS key for the nodes' EBS volumes (Karpenter must be allowed to use it).
    :param file_system: the shared FSx for Lustre file system (static PV per team namespace).
    :param data_bucket: the data bucket (teams' S3 prefixes); without it no team roles are created.
    :param mlflow_tracking_uri: the `mlflow` ConfigMaps' MLFLOW_TRACKING_URI. Default: no MLflow wiring.
    :param mlflow_team_secrets: team name -> that team's MLflow credentials secret. Default: none.
    :param apply_manifests: apply the charts to the cluster. Default True (delivery mode `cdk`); False in `argocd`
        mode, where Argo CD syncs the same charts from Git (``make gitops`` writes them) and the stack must not
        own them too (``manifests`` is then empty; ``charts``, ``values`` and the team roles stay).
    """

    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig, cluster: eks.Cluster,
                 crd_dependencies: Sequence[IDependable], node_role: iam.IRole, volume_key: kms.IKey,
                 file_system: SharedFileSystem, data_bucket: s3.IBucket | None = None,
                 mlflow_tracking_uri: str | None = None,
                 mlflow_team_secrets: Mapping[str, sm.ISecret] | None = None, apply_manifests: bool = True) -> None:
        super().__init__(scope, construct_id)
        mlflow = None
        mlflow_team_secrets = dict(mlflow_team_secrets or {})
        if mlflow_tracking_uri:
            mlflow = MlflowValues(tracking_uri=mlflow_tracking_uri,
                                  team_secret_arns={t: s.secret_arn for t, s in mlflow_team_secrets.items()})
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
            "gpu-capacity": GpuCapacityChart(app, "gpu-capacity", pools=k.gpu_node_pools, node=k.karpenter,
                                             values=self.values),
            "cpu-capacity": CpuCapacityChart(app, "cpu-capacity", pool=k.cpu_node_pool, node=k.karpenter,
                                             values=self.values),
            "team-namespaces": TeamNamespacesChart(app, "team-namespaces", teams=k.teams, values=self.values),
            "queueing": QueueingChart(app, "queueing", config=config),
        }
        self.manifests: dict[str, eks.KubernetesManifest] = {}
        if apply_manifests:
            self._apply(cluster, crd_dependencies)

        self.team_roles: dict[str, iam.Role] = {}
        if data_bucket is not None:
            for team in k.teams:
                self.team_roles[team.name] = self._team_role(team, cluster, data_bucket,
                                                             mlflow_team_secrets.get(team.name))

    def _apply(self, cluster: eks.Cluster, crd_dependencies: Sequence[IDependable]) -> None:
        # What `cluster.add_cdk8s_chart` creates (same scope and id, so the same logical IDs), plus two settings that
        # make switching delivery.mode safe (docs/gitops.md "Switching delivery mode"): RETAIN, so that leaving cdk
        # mode (the manifests leave the template) does not `kubectl delete` the team namespaces Argo CD takes over,
        # and overwrite (`kubectl apply` instead of `kubectl create`), so that coming back from argocd mode adopts the
        # objects Argo CD left instead of failing with AlreadyExists.
        self.manifests.update({
            key: eks.KubernetesManifest(cluster, construct_id, cluster=cluster, manifest=self.charts[key].to_json(),
                                        overwrite=True, removal_policy=RemovalPolicy.RETAIN)
            for key, construct_id in MANIFEST_IDS.items()})
        self.manifests["gpu-capacity"].node.add_dependency(*crd_dependencies)
        self.manifests["cpu-capacity"].node.add_dependency(*crd_dependencies)
        # Kueue objects need Kueue's CRDs (in crd_dependencies) and LocalQueues need the team namespaces.
        self.manifests["queueing"].node.add_dependency(*crd_dependencies, self.manifests["team-namespaces"])
        # Pods name PriorityClasses; namespaces come after them so the quotas never refer to missing classes, and
        # after the CRD releases (their SecretProviderClass `mlflow-credentials` is a custom resource).
        self.manifests["team-namespaces"].node.add_dependency(self.manifests["priority-classes"], *crd_dependencies)

    def _team_role(self, team: TeamConfig, cluster: eks.Cluster, bucket: s3.IBucket,
                   mlflow_secret: sm.ISecret | None) -> iam.Role:
        scope = Construct(self, f"Team-{team.name}")
        prefix = team.data_prefix
        role = iam.Role(
            scope, "Role",
            assumed_by=iam.SessionTagsPrincipal(iam.ServicePrincipal("pods.eks.amazonaws.com")),
            description=f"EKS Pod Identity of team {team.name} (namespace {team.namespace}, service account "
                        f"{TEAM_SERVICE_ACCOUNT}): s3://<data bucket>/{prefix}",
        )
        objects = bucket.arn_for_objects(f"{prefix}*")
        role.add_to_policy(iam.PolicyStatement(
            sid="ListTeamPrefix", actions=["s3:ListBucket"], resources=[bucket.bucket_arn],
            conditions={"StringLike": {"s3:prefix": [prefix, f"{prefix}*"]}}))
        role.add_to_policy(iam.PolicyStatement(
            sid="ReadWriteTeamObjects", resources=[objects],
            actions=["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                     "s3:ListMultipartUploadParts"]))
        if bucket.encryption_key is not None:
            role.add_to_policy(iam.PolicyStatement(
                sid="DataKeyThroughS3", actions=["kms:Decrypt", "kms:GenerateDataKey"],
                resources=[bucket.encryption_key.key_arn],
                conditions={"StringEquals": {"kms:ViaService": f"s3.{Stack.of(self).region}.amazonaws.com"}}))
        if mlflow_secret is not None:
            # Written on the role only: `grant_read` would also edit the key policy in the MLflow stack, which
            # would then depend on this stack while this stack depends on the secret (a cycle).
            role.add_to_policy(iam.PolicyStatement(
                sid="ReadTeamMlflowCredentials", resources=[mlflow_secret.secret_arn],
                actions=["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"]))
            if mlflow_secret.encryption_key is not None:
                # Secrets Manager decrypts with the encryption context {"SecretARN": <arn>}: this secret only.
                role.add_to_policy(iam.PolicyStatement(
                    sid="MlflowSecretKeyThroughSecretsManager", actions=["kms:Decrypt"],
                    resources=[mlflow_secret.encryption_key.key_arn],
                    conditions={"StringEquals": {
                        "kms:ViaService": f"secretsmanager.{Stack.of(self).region}.amazonaws.com",
                        "kms:EncryptionContext:SecretARN": mlflow_secret.secret_arn}}))
        acknowledge_prefix_wildcard(
            role, bucket_arn=bucket.bucket_arn, suffix=f"/{prefix}*",
            reason=f"Team {team.name} reads and writes every object under its own prefix {prefix} of the data bucket "
                   f"(datasets, checkpoints); the prefix, not object names, is the access boundary.")
        eks_l1.CfnPodIdentityAssociation(
            scope, "PodIdentity", cluster_name=cluster.cluster_name, namespace=team.namespace,
            service_account=TEAM_SERVICE_ACCOUNT, role_arn=role.role_arn)
        return role
