"""Team namespaces: one namespace per configured team with its guard rails and platform wiring."""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from config.kubernetes import TeamConfig
from k8s_charts.images import CONFIG_MAP as PLATFORM_IMAGES_CONFIG_MAP
from k8s_charts.team_isolation import TeamIdentityPolicy, TeamNetworkPolicies
from k8s_charts.team_storage import team_mount_name
from k8s_charts.queues import MANAGED_NAMESPACE_LABEL
from k8s_charts.mlflow_credentials import MlflowCredentials
from k8s_charts.tiers import GPU_RESOURCE
from k8s_charts.values import (
    FSX_CLAIM_NAME,
    MLFLOW_CONFIG_MAP,
    TEAM_SERVICE_ACCOUNT,
    PlatformValues,
    fsx_volume_name,
    team_group,
)

POD_SECURITY_LEVEL = "restricted"


def _q(value: str | int) -> k8s.Quantity:
    return k8s.Quantity.from_number(value) if isinstance(value, int) else k8s.Quantity.from_string(value)


JOB_SUBMITTER_ROLE = "job-submitter"
JOB_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"]


class TeamNamespace(Construct):
    """Everything one team gets, all named after the team (the namespace):

    - Namespace labelled for Pod Security Standards `restricted` (enforce, audit and warn) and
      `platform/kueue-managed: "true"` (Kueue manages and the admission policy refuses jobs without a queue name).
    - ResourceQuota `gpu`: at most `gpu_quota` GPUs requested at once.
    - ResourceQuota `disallowed-priority-classes`: zero pods for any PriorityClass outside the team's tiers
      (this also refuses pods that name no PriorityClass, so every pod states its tier).
    - LimitRange `container-defaults`: requests/limits for containers that set none.
    - ServiceAccount `training` (the compute stack associates it with the team's IAM role via EKS Pod Identity).
    - PersistentVolume `fsx-<team>` (static, FSx for Lustre CSI) mounting only the team's tree `/teams/<team>`,
      pre-bound to PVC `fsx-claim` of the namespace (k8s_charts/team_storage.py).
    - ConfigMap `mlflow` (MLFLOW_TRACKING_URI) and SecretProviderClass `mlflow-credentials`, which syncs the team's
      own MLflow user from Secrets Manager into the Secret `mlflow-credentials` (MLFLOW_TRACKING_USERNAME/PASSWORD);
      job pods take both through `k8s_charts.pods.mlflow_credentials()`.
    - ConfigMap `platform-images`: one key per platform image (`sft`, `verl-sglang`), the value its ECR URI.
    - Role `job-submitter` (PyTorchJob, MPIJob, RayJob, RayCluster) bound to the team's group
      (:func:`team_group`), which the EKS access entries of the team's Studio users carry.
    - ValidatingAdmissionPolicy + binding `llmft-team-identity-<team>`: pods run as the team's uid/gid only.
    - NetworkPolicies: default deny; same namespace, KubeRay operator, metrics scrapers, DNS, Pod Identity, HTTPS.
    """

    def __init__(self, scope: Construct, construct_id: str, *, team: TeamConfig, values: PlatformValues) -> None:
        super().__init__(scope, construct_id)
        ns = team.namespace
        labels = {"app.kubernetes.io/part-of": "llm-platform", "platform/team": team.name}

        def meta(name: str, *, namespaced: bool = True) -> k8s.ObjectMeta:
            return k8s.ObjectMeta(name=name, namespace=ns if namespaced else None, labels=labels)

        pss = {f"pod-security.kubernetes.io/{mode}": POD_SECURITY_LEVEL for mode in ("enforce", "audit", "warn")}
        self.namespace = k8s.KubeNamespace(self, "Namespace", metadata=k8s.ObjectMeta(
            name=ns, labels={**labels, **pss, MANAGED_NAMESPACE_LABEL: "true"}))
        self.gpu_quota = k8s.KubeResourceQuota(self, "GpuQuota", metadata=meta("gpu"), spec=k8s.ResourceQuotaSpec(
            hard={f"requests.{GPU_RESOURCE}": _q(team.gpu_quota)}))
        self.priority_quota = k8s.KubeResourceQuota(
            self, "PriorityQuota", metadata=meta("disallowed-priority-classes"),
            spec=k8s.ResourceQuotaSpec(
                hard={"pods": _q(0)},
                scope_selector=k8s.ScopeSelector(match_expressions=[k8s.ScopedResourceSelectorRequirement(
                    scope_name="PriorityClass", operator="NotIn", values=list(team.allowed_priority_classes))]),
            ))
        self.limit_range = k8s.KubeLimitRange(self, "LimitRange", metadata=meta("container-defaults"),
                                              spec=k8s.LimitRangeSpec(limits=[k8s.LimitRangeItem(
                                                  type="Container",
                                                  default_request={"cpu": _q("500m"), "memory": _q("1Gi")},
                                                  default={"cpu": _q("2"), "memory": _q("4Gi")})]))
        self.service_account = k8s.KubeServiceAccount(self, "ServiceAccount", metadata=meta(TEAM_SERVICE_ACCOUNT),
                                                      automount_service_account_token=False)
        self.volume = k8s.KubePersistentVolume(
            self, "FsxVolume", metadata=meta(fsx_volume_name(ns), namespaced=False),
            spec=k8s.PersistentVolumeSpec(
                capacity={"storage": _q(f"{values.fsx_storage_capacity_gib}Gi")},
                access_modes=["ReadWriteMany"],
                persistent_volume_reclaim_policy="Retain",
                storage_class_name="",
                volume_mode="Filesystem",
                mount_options=["flock"],
                claim_ref=k8s.ObjectReference(namespace=ns, name=FSX_CLAIM_NAME),
                csi=k8s.CsiPersistentVolumeSource(
                    driver="fsx.csi.aws.com", volume_handle=values.fsx_file_system_id,
                    volume_attributes={"dnsname": values.fsx_dns_name,
                                       "mountname": team_mount_name(values.fsx_mount_name, team)}),
            ))
        self.claim = k8s.KubePersistentVolumeClaim(
            self, "FsxClaim", metadata=meta(FSX_CLAIM_NAME),
            spec=k8s.PersistentVolumeClaimSpec(
                access_modes=["ReadWriteMany"], storage_class_name="", volume_name=fsx_volume_name(ns),
                resources=k8s.ResourceRequirements(
                    requests={"storage": _q(f"{values.fsx_storage_capacity_gib}Gi")}),
            ))
        self.mlflow = None
        self.mlflow_credentials = None
        if values.mlflow:
            self.mlflow = k8s.KubeConfigMap(self, "Mlflow", metadata=meta(MLFLOW_CONFIG_MAP), data={
                "MLFLOW_TRACKING_URI": values.mlflow.tracking_uri,
            })
            secret_arn = values.mlflow.team_secret_arns.get(team.name)
            if secret_arn:
                self.mlflow_credentials = MlflowCredentials(
                    self, "MlflowCredentials", namespace=ns, secret_arn=secret_arn, region=values.region,
                    labels=labels).secret_provider_class
        # Where the platform's images are (k8s_charts/images.py): jobs and the CLI read the URI of `sft` or
        # `verl-sglang` here instead of a hand-pasted one.
        self.images = None
        if values.images:
            self.images = k8s.KubeConfigMap(self, "PlatformImages", metadata=meta(PLATFORM_IMAGES_CONFIG_MAP),
                                            data=dict(values.images))
        self.job_submitter = k8s.KubeRole(self, "JobSubmitter", metadata=meta(JOB_SUBMITTER_ROLE), rules=[
            k8s.PolicyRule(api_groups=["kubeflow.org"], resources=["pytorchjobs", "mpijobs"], verbs=JOB_VERBS),
            k8s.PolicyRule(api_groups=["ray.io"], resources=["rayjobs", "rayclusters"], verbs=JOB_VERBS),
            k8s.PolicyRule(api_groups=["kubeflow.org"], resources=["pytorchjobs/status", "mpijobs/status"],
                           verbs=["get"]),
            k8s.PolicyRule(api_groups=["ray.io"], resources=["rayjobs/status", "rayclusters/status"], verbs=["get"]),
        ])
        self.job_submitters = k8s.KubeRoleBinding(
            self, "JobSubmitters", metadata=meta(JOB_SUBMITTER_ROLE),
            role_ref=k8s.RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name=JOB_SUBMITTER_ROLE),
            subjects=[k8s.Subject(kind="Group", name=team_group(team.name), api_group="rbac.authorization.k8s.io")])
        # Isolation from other teams (k8s_charts/team_isolation.py): the pods' uid/gid, enforced; network policies.
        self.identity_policy = TeamIdentityPolicy(self, "Identity", team=team, labels=labels)
        self.network_policies = TeamNetworkPolicies(self, "Network", team=team, labels=labels)
        # Namespaced objects must be created after their namespace when the chart is applied.
        for obj in (self.gpu_quota, self.priority_quota, self.limit_range, self.service_account, self.claim,
                    self.mlflow, self.mlflow_credentials, self.images, self.job_submitter, self.job_submitters, *self.network_policies.policies.values()):
            if obj is not None:
                obj.add_dependency(self.namespace)
        self.claim.add_dependency(self.volume)


class TeamNamespacesChart(cdk8s.Chart):
    """One :class:`TeamNamespace` per configured team."""

    def __init__(self, scope: Construct, construct_id: str, *, teams: Sequence[TeamConfig],
                 values: PlatformValues) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        self.teams = {t.name: TeamNamespace(self, t.name, team=t, values=values) for t in teams}
