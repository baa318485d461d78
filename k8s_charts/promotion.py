"""The production promotion identity (issue 40): the platform namespace ``llmft-platform``, its ServiceAccount
``llmft-promoter`` and the Roles that let it, and nobody a team controls, create production serving endpoints.

Production serving needs the platform's word. The admission rule is on the requesting identity
(k8s_charts/guardrails/production.py ``_production_rules``: only :data:`~k8s_charts.serving.PROMOTER` and the platform's
controllers create or change a production-tier serving Deployment), so the promise holds whatever a team does with
kubectl or its GitOps folder (Argo CD applies a team's folder with its own identity, which is not the promoter).

The promotion step is a Job the platform runs in :data:`~k8s_charts.serving.PROMOTION_NAMESPACE` as this
ServiceAccount (docs/serving.md "The production promotion path"): with the MLflow evaluator's credentials (the
Secrets Manager secret ``EvaluatorCredentials`` of the MLflow stack, readable only by this ServiceAccount's Pod
Identity role) it evaluates the version (``llmp-evaluate``: the verdict, the alias and the weights digest, which
the MLflow server lets only the evaluator write, mlflow_image/registry_gate.py); the promotion Job (``llmft
promote``, llmft/promote.py) checks with MLflow, in the cluster, that the version passed and that the Deployment
serves its directory and digest (training/llm_platform/promotion_check.py), then applies the endpoint with this
identity. Teams have no verb in the platform namespace (their Role is namespaced to their own), so they can neither
run as it nor read its credentials. Why not a webhook that resolves the version at admission: it would put MLflow (and
its availability) in the path of every Deployment write, and the evaluator's credential in the API server's webhook.
"""

from __future__ import annotations

from collections.abc import Sequence

from cdk8s_plus_28 import k8s
from constructs import Construct

from config import TeamConfig
from k8s_charts import serving
from k8s_charts.mlflow_credentials import MlflowCredentials
from k8s_charts.queues import MANAGED_NAMESPACE_LABEL, PLATFORM_MANAGED_VALUE, evaluates_in_platform
from k8s_charts.team_storage import team_mount_name
from k8s_charts.values import MLFLOW_CONFIG_MAP, MlflowValues, PlatformValues

PROMOTER_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"]


def team_claim_name(team: str) -> str:
    """The claim of ``team``'s FSx tree in the platform namespace (read-only: the gated evaluation reads the team's
    weights and test data there, llmft/promote_evaluate.py)."""
    return f"fsx-{team}"


def team_volume_name(team: str) -> str:
    """The PersistentVolume behind :func:`team_claim_name` (cluster-scoped: beside the team's own ``fsx-<ns>``)."""
    return f"fsx-{serving.PROMOTION_NAMESPACE}-{team}"


def promoter_rules() -> list[k8s.PolicyRule]:
    """What the promotion identity may do in a team namespace with a production tier: the serving objects llmft
    renders (llmft/serve_build.py), read the pods it waits for. Nothing else (no Secrets, jobs, RBAC)."""
    rule = k8s.PolicyRule
    return [
        rule(api_groups=["apps"], resources=["deployments"], verbs=PROMOTER_VERBS),
        rule(api_groups=["apps"], resources=["deployments/scale"], verbs=["get", "patch"]),
        rule(api_groups=[""], resources=["services"], verbs=PROMOTER_VERBS),
        rule(api_groups=["keda.sh"], resources=["scaledobjects"], verbs=PROMOTER_VERBS),
        rule(api_groups=[""], resources=["pods", "events"], verbs=["get", "list", "watch"]),
    ]


class ProductionPromotion(Construct):
    """Namespace and ServiceAccount of the promotion identity, and a Role (:func:`promoter_rules`) bound to it in
    every team namespace whose team may use a production tier (:data:`~k8s_charts.serving.PRODUCTION_TIERS`); no
    ClusterRole, as for everything in team namespaces.

    With MLflow's evaluator (``mlflow.evaluator_secret_arn``), the namespace also gets what the promotion Job's check
    (training/llm_platform/promotion_check.py) reads, as a team namespace has it for its own user: the ConfigMap
    ``mlflow`` (``MLFLOW_TRACKING_URI``) and the SecretProviderClass ``mlflow-credentials`` of the evaluator's
    secret, which the CSI driver reads with the pod's Pod Identity (only the promoter's role may,
    cdk_constructs/compute/promotion_identity.py).

    :param teams: the environment's teams. Required.
    :param labels: labels of every object. Required.
    :param mlflow: the tracking URI and the evaluator's secret. Default: none (no check credentials: the Job's
        check then fails, and nothing is applied).
    :param region: the secret's region. Default: none (required with ``mlflow``).
    :param storage: the FSx file system. Default: none (no team volumes in the platform namespace). With it, each
        team with a production tier gets a read-only PersistentVolume of its own FSx tree (the same subtree mount as
        its namespace's volume, k8s_charts/team_storage.py) and its claim :func:`team_claim_name` in the platform
        namespace: what the platform's gated evaluation reads (docs/serving.md, step 3).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        teams: Sequence[TeamConfig],
        labels: dict[str, str],
        mlflow: MlflowValues | None = None,
        region: str | None = None,
        storage: PlatformValues | None = None,
    ):
        super().__init__(scope, construct_id)
        ns = serving.PROMOTION_NAMESPACE
        pss = {f"pod-security.kubernetes.io/{m}": "restricted" for m in ("enforce", "audit", "warn")}
        # Kueue admits the platform's gated evaluations here (k8s_charts/queues.py PLATFORM_MANAGED_VALUE); the
        # team guard rails bind to the value "true" only
        kueue = {MANAGED_NAMESPACE_LABEL: PLATFORM_MANAGED_VALUE}
        self.namespace = k8s.KubeNamespace(
            self, "Namespace", metadata=k8s.ObjectMeta(name=ns, labels={**labels, **pss, **kueue})
        )
        self.service_account = k8s.KubeServiceAccount(
            self,
            "ServiceAccount",
            metadata=k8s.ObjectMeta(name=serving.PROMOTER_SERVICE_ACCOUNT, namespace=ns, labels=labels),
        )
        self.service_account.add_dependency(self.namespace)
        self._add_mlflow(mlflow, region=region, labels=labels)
        self.volumes: dict[str, k8s.KubePersistentVolume] = {}
        self.claims: dict[str, k8s.KubePersistentVolumeClaim] = {}
        if storage is not None:
            for team in teams:
                if evaluates_in_platform(team):
                    self._add_team_volume(team, storage, labels=labels)
        subject = k8s.Subject(kind="ServiceAccount", name=serving.PROMOTER_SERVICE_ACCOUNT, namespace=ns)
        self.roles: dict[str, k8s.KubeRole] = {}
        self.bindings: dict[str, k8s.KubeRoleBinding] = {}
        for team in teams:
            if not evaluates_in_platform(team):
                continue
            meta = k8s.ObjectMeta(name=serving.PROMOTER_SERVICE_ACCOUNT, namespace=team.namespace, labels=labels)
            self.roles[team.name] = k8s.KubeRole(self, f"Role-{team.name}", metadata=meta, rules=promoter_rules())
            self.bindings[team.name] = k8s.KubeRoleBinding(
                self,
                f"Binding-{team.name}",
                metadata=meta,
                role_ref=k8s.RoleRef(
                    api_group="rbac.authorization.k8s.io", kind="Role", name=serving.PROMOTER_SERVICE_ACCOUNT
                ),
                subjects=[subject],
            )

    def _add_mlflow(self, mlflow: MlflowValues | None, *, region: str | None, labels: dict[str, str]) -> None:
        """ConfigMap ``mlflow`` and SecretProviderClass ``mlflow-credentials`` (the evaluator's) in the namespace."""
        self.mlflow = self.mlflow_credentials = None
        if mlflow is None or not mlflow.evaluator_secret_arn:
            return
        if not region:
            raise ValueError("ProductionPromotion: region is required with mlflow (the evaluator secret's region)")
        ns = serving.PROMOTION_NAMESPACE
        self.mlflow = k8s.KubeConfigMap(
            self,
            "Mlflow",
            metadata=k8s.ObjectMeta(name=MLFLOW_CONFIG_MAP, namespace=ns, labels=labels),
            data={"MLFLOW_TRACKING_URI": mlflow.tracking_uri},
        )
        self.mlflow_credentials = MlflowCredentials(
            self,
            "MlflowCredentials",
            namespace=ns,
            secret_arn=mlflow.evaluator_secret_arn,
            region=region,
            labels=labels,
        ).secret_provider_class
        for obj in (self.mlflow, self.mlflow_credentials):
            obj.add_dependency(self.namespace)

    def _add_team_volume(self, team: TeamConfig, storage: PlatformValues, *, labels: dict[str, str]) -> None:
        """PersistentVolume :func:`team_volume_name` (``team``'s subtree, read-only) and its pre-bound claim.

        Read-only twice over: the PV's ``csi.readOnly`` (kubelet publishes a CSI volume read-only when its PV says
        so, kubernetes.io "Volumes", csi ``readOnly``; the FSx CSI driver then mounts Lustre with ``ro``,
        kubernetes-sigs/aws-fsx-csi-driver pkg/driver/node.go ``NodePublishVolume``: ``if req.GetReadonly() {
        mountOptions = append(mountOptions, "ro") }``) and the pod's own read-only claim and mount
        (llmft/promote_evaluate.py). The access mode stays ``ReadWriteMany``: the driver accepts only single-node
        writer and multi-node multi-writer capabilities (pkg/driver/controller.go ``volumeCaps``), so
        ``ReadOnlyMany`` would fail at NodePublishVolume. Nothing the platform runs here can change what a team's
        pods later load."""
        ns = serving.PROMOTION_NAMESPACE
        size = {"storage": k8s.Quantity.from_string(f"{storage.fsx_storage_capacity_gib}Gi")}
        self.volumes[team.name] = k8s.KubePersistentVolume(
            self,
            f"FsxVolume-{team.name}",
            metadata=k8s.ObjectMeta(name=team_volume_name(team.name), labels={**labels, "platform/team": team.name}),
            spec=k8s.PersistentVolumeSpec(
                capacity=size,
                access_modes=["ReadWriteMany"],
                persistent_volume_reclaim_policy="Retain",
                storage_class_name="",
                volume_mode="Filesystem",
                mount_options=["flock"],
                claim_ref=k8s.ObjectReference(namespace=ns, name=team_claim_name(team.name)),
                csi=k8s.CsiPersistentVolumeSource(
                    driver="fsx.csi.aws.com",
                    volume_handle=storage.fsx_file_system_id,
                    read_only=True,
                    volume_attributes={
                        "dnsname": storage.fsx_dns_name,
                        "mountname": team_mount_name(storage.fsx_mount_name, team),
                    },
                ),
            ),
        )
        self.claims[team.name] = k8s.KubePersistentVolumeClaim(
            self,
            f"FsxClaim-{team.name}",
            metadata=k8s.ObjectMeta(name=team_claim_name(team.name), namespace=ns, labels=labels),
            spec=k8s.PersistentVolumeClaimSpec(
                access_modes=["ReadWriteMany"],
                storage_class_name="",
                volume_name=team_volume_name(team.name),
                resources=k8s.ResourceRequirements(requests=size),
            ),
        )
        self.claims[team.name].add_dependency(self.namespace, self.volumes[team.name])
