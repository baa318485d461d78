"""Team namespaces: one namespace per configured team with its guard rails and platform wiring."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from config.kubernetes import TeamConfig
from k8s_charts.fallback import IMAGE, DevelopmentFallback
from k8s_charts.guardrails.common import CLUSTER_NAME_LABEL, REGION_LABEL
from k8s_charts.images import CONFIG_MAP as PLATFORM_IMAGES_CONFIG_MAP
from k8s_charts.mlflow_credentials import MlflowCredentials
from k8s_charts.node_shapes import CPU_POOL, NodeKind, Resources
from k8s_charts.promotion import ProductionPromotion
from k8s_charts.queues import MANAGED_NAMESPACE_LABEL, queue_namespace_label
from k8s_charts.team_guardrails import TeamGuardrails
from k8s_charts.team_isolation import StrictSupplementalGroups, TeamIdentityPolicy, TeamNetworkPolicies
from k8s_charts.team_storage import team_mount_name
from k8s_charts.tiers import GPU_RESOURCE, cpu_priority_class
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


OBJECT_QUOTA: dict[str, int] = {
    "pods": 256,
    "count/jobs.batch": 64,
    "count/pytorchjobs.kubeflow.org": 32,
    "count/mpijobs.kubeflow.org": 16,
    "count/rayjobs.ray.io": 16,
    "count/rayclusters.ray.io": 16,
    "configmaps": 256,
    "secrets": 64,
    "services": 64,
    "persistentvolumeclaims": 4,
    "count/deployments.apps": 16,
    "count/scaledobjects.keda.sh": 16,
    "count/workflows.argoproj.io": 32,
    "count/workflowtemplates.argoproj.io": 32,
    "count/workflowtaskresults.argoproj.io": 512,
}
"""ResourceQuota ``objects`` of every team namespace: how many objects of each kind the team (and what its jobs
create) may hold at once (kubernetes.io "Resource Quotas", object count quota: ``count/<resource>.<group>``, and
the core names ``pods``, ``configmaps``, ``secrets``, ``services``, ``persistentvolumeclaims``; a custom resource
is counted the same way, ``count/scaledobjects.keda.sh``). Serving: one Deployment and one ScaledObject per endpoint,
at most 16 endpoints per team (each with at most k8s_charts.guardrails.common.MAX_SERVE_REPLICAS pods, which the
``pods`` count caps again). Without it one
team can exhaust pod slots and IPs on every node it reaches and grow etcd until the API server refuses writes.
Pipelines (issue 40): Workflows and WorkflowTemplates (the team Role), WorkflowTaskResults (the pipelines'
ServiceAccount; Argo's executor writes one per step, Argo Workflows v4.0.6 docs/workflow-rbac.md). Every kind a
Role bound in the namespace lets anyone create is counted (tests/test_redteam_classes.py derives the list from the
rendered Roles and their bindings, not from a list of kinds)."""

TEAM_MEMBER_ROLE = "team-member"
JOB_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"]
READ_VERBS = ["get", "list", "watch"]


def team_member_rules() -> list[k8s.PolicyRule]:
    """What a person (Studio user, CI principal) of a team may do in its namespace, and nothing else (issue 21):
    the job kinds (PyTorchJob, MPIJob, RayJob; RayCluster; batch Jobs for llmft's CPU steps, which the guard rails
    keep off GPUs) and the ConfigMaps and Secrets of its jobs (llmft step files, ``secret_env``) in full; pods, logs,
    events, quotas, limit ranges, claims and Kueue's workloads/queues read-only; ``pods/exec`` into the namespace's
    pods (all of them are the team's job pods: nobody else runs pods there). Serving (``llmft submit`` of a serve
    spec, ``llmft port-forward``, llmft/serve_build.py): Deployments, Services and KEDA ScaledObjects created, read and
    deleted (the guard rails admit only the serving shape of each, k8s_charts/team_guardrails.py), the Deployment's
    scale subresource and the ScaledObject patched (wake: ``autoscaling.keda.sh/paused-replicas``), and
    ``pods/portforward``. No pods, other workload controllers, NetworkPolicies (the namespace's are the platform's),
    ServiceAccounts (or their tokens), RBAC, or anything cluster-scoped."""
    rule = k8s.PolicyRule
    return [
        rule(api_groups=["kubeflow.org"], resources=["pytorchjobs", "mpijobs"], verbs=JOB_VERBS),
        rule(api_groups=["ray.io"], resources=["rayjobs", "rayclusters"], verbs=JOB_VERBS),
        rule(api_groups=["batch"], resources=["jobs"], verbs=JOB_VERBS),
        rule(api_groups=["kubeflow.org"], resources=["pytorchjobs/status", "mpijobs/status"], verbs=["get"]),
        rule(api_groups=["ray.io"], resources=["rayjobs/status", "rayclusters/status"], verbs=["get"]),
        rule(api_groups=[""], resources=["configmaps", "secrets"], verbs=JOB_VERBS),
        rule(
            api_groups=[""],
            resources=["pods", "pods/log", "events", "resourcequotas", "limitranges", "persistentvolumeclaims"],
            verbs=READ_VERBS,
        ),
        rule(api_groups=["events.k8s.io"], resources=["events"], verbs=READ_VERBS),
        rule(api_groups=["kueue.x-k8s.io"], resources=["workloads", "localqueues"], verbs=READ_VERBS),
        # `kubectl exec` over WebSockets (Kubernetes >= 1.30) is a GET on pods/exec, over SPDY a POST (create)
        rule(api_groups=[""], resources=["pods/exec"], verbs=["create", "get"]),
        # `llmft pipeline` Workflows (Argo Workflows, pipelines.enabled); they run as PIPELINE_SERVICE_ACCOUNT
        rule(api_groups=["argoproj.io"], resources=["workflows", "workflowtemplates"], verbs=JOB_VERBS),
        *serving_rules(),
    ]


SERVE_VERBS = ["get", "list", "watch", "create", "delete"]


def serving_rules() -> list[k8s.PolicyRule]:
    """What a serve job needs beyond the job kinds (:func:`team_member_rules`): no ``update``/``patch`` on the
    Deployment or Service (a changed endpoint is a new one), ``patch`` on the scale subresource and the ScaledObject
    (``llmft port-forward`` wakes an endpoint: scale to 1, pin with KEDA's paused-replicas annotation)."""
    rule = k8s.PolicyRule
    return [
        rule(api_groups=["apps"], resources=["deployments"], verbs=SERVE_VERBS),
        rule(api_groups=["apps"], resources=["deployments/scale"], verbs=["get", "patch"]),
        rule(api_groups=[""], resources=["services"], verbs=SERVE_VERBS),
        rule(api_groups=["keda.sh"], resources=["scaledobjects"], verbs=[*SERVE_VERBS, "patch"]),
        # `kubectl port-forward` is a POST (create) over SPDY and a GET over WebSockets, as pods/exec above
        rule(api_groups=[""], resources=["pods/portforward"], verbs=["create", "get"]),
    ]


PIPELINE_SERVICE_ACCOUNT = "llmft-pipelines"
"""The ServiceAccount a team's Workflows run as (llmft/pipeline.py sets it as ``serviceAccountName``)."""
PIPELINE_JOB_RESOURCES = {"kubeflow.org": ("pytorchjobs", "mpijobs"), "ray.io": ("rayjobs",), "batch": ("jobs",)}
"""The job kinds a pipeline step may create, each only if :func:`team_member_rules` lets the team create it."""


def pipeline_rules() -> list[k8s.PolicyRule]:
    """What a team's Workflows may do in its namespace: apply (get, create, patch) and watch the job kinds the team
    Role lets its people create and their step ConfigMaps, and what the Argo executor needs (``workflowtaskresults``
    create/patch, Argo Workflows v4.0.6 docs/workflow-rbac.md). Nothing else: no Secrets, pods, RBAC, no delete."""
    members = [r for r in team_member_rules() if "create" in (r.verbs or [])]

    def member_may(group: str, resource: str) -> bool:
        return any(group in (r.api_groups or []) and resource in (r.resources or []) for r in members)

    apply = ["get", "list", "watch", "create", "patch"]
    rules = [
        k8s.PolicyRule(api_groups=[g], resources=[r for r in rs if member_may(g, r)], verbs=apply)
        for g, rs in PIPELINE_JOB_RESOURCES.items()
        if any(member_may(g, r) for r in rs)
    ]
    rules.append(k8s.PolicyRule(api_groups=[""], resources=["configmaps"], verbs=apply))
    rules.append(
        k8s.PolicyRule(api_groups=["argoproj.io"], resources=["workflowtaskresults"], verbs=["create", "patch"])
    )
    return rules


def team_access_manifests(team: str, *, labels: dict[str, str] | None = None) -> list[dict]:
    """The Role ``team-member`` (:func:`team_member_rules`) and its RoleBinding to the team's group
    (:func:`team_group`) in namespace ``team``, as plain manifests: what a Studio user's access entry needs in a
    cluster the platform's charts do not manage (existing-cluster mode, stacks/existing_studio_stack.py)."""
    chart = cdk8s.Chart(cdk8s.App(), "TeamAccess", namespace=team, labels=labels or {})
    k8s.KubeRole(chart, "TeamMember", metadata=k8s.ObjectMeta(name=TEAM_MEMBER_ROLE), rules=team_member_rules())
    k8s.KubeRoleBinding(
        chart,
        "TeamMembers",
        metadata=k8s.ObjectMeta(name=TEAM_MEMBER_ROLE),
        role_ref=k8s.RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name=TEAM_MEMBER_ROLE),
        subjects=[k8s.Subject(kind="Group", name=team_group(team), api_group="rbac.authorization.k8s.io")],
    )
    return list(chart.to_json())


def _allowed_classes(team: TeamConfig) -> list[str]:
    """The PriorityClasses the team's pods may use: its tiers' classes and their CPU twins (k8s_charts/tiers.py)."""
    return [c for pc in team.allowed_priority_classes for c in (pc, cpu_priority_class(pc))]


@dataclass(frozen=True)
class TeamCapacity:
    """What one team may hold at once (its ResourceQuota) and the largest container its LimitRange admits."""

    quota: Resources
    container_max: Resources
    reachable: Resources  # everything the team's pods could land on: the ceiling both stay within


def _largest_per_pool(kinds: Iterable[NodeKind]) -> dict[str, Resources]:
    """Per node pool (HyperPod group or Karpenter pool): the most it can hold, ``max_nodes`` x allocatable of its
    largest instance type (a pool's limit is shared by its instance types)."""
    out: dict[str, Resources] = {}
    for kind in kinds:
        pool = kind.name.rsplit("/", 1)[0] if kind.source in ("karpenter", CPU_POOL) else kind.name
        a = kind.allocatable
        total = Resources(
            a.cpu_m * (kind.max_nodes or 0),
            a.memory_mib * (kind.max_nodes or 0),
            a.gpus * (kind.max_nodes or 0),
            a.efa * (kind.max_nodes or 0),
        )
        out[pool] = max(out.get(pool, Resources()), total, key=lambda r: (r.gpus, r.cpu_m, r.memory_mib))
    return out


def team_capacity(team: TeamConfig, kinds: Sequence[NodeKind]) -> TeamCapacity:
    """The team's quota, derived from the node model (k8s_charts/node_shapes.py) and Kueue's cap:

    - GPUs: ``gpu_quota``, the cap Kueue enforces for the team across its tiers (k8s_charts/queueing.py, resource
      ``platform/team-gpus``); the config refuses one above the GPUs the team's tiers can reach.
    - CPU and memory: what ``gpu_quota`` GPUs bring along (the largest per-GPU allocatable among the GPU nodes of
      the team's tiers, at most all of those nodes) plus the whole Karpenter CPU job pool (Ray heads, submitters,
      llmft CPU steps), so never more than the nodes the team's pods can land on.
    - Largest container: the largest allocatable of those node kinds (the system nodes' too: CPU pods may run there).
    """
    gpu_kinds = [k for k in kinds if k.spec.is_gpu and set(k.tiers) & set(team.allowed_tiers)]
    cpu_kinds = [k for k in kinds if k.source == CPU_POOL]
    gpu_room = sum(_largest_per_pool(gpu_kinds).values(), Resources())
    cpu_room = sum(_largest_per_pool(cpu_kinds).values(), Resources())
    per_gpu_cpu = max((k.allocatable.cpu_m // k.allocatable.gpus for k in gpu_kinds if k.allocatable.gpus), default=0)
    per_gpu_mem = max(
        (k.allocatable.memory_mib // k.allocatable.gpus for k in gpu_kinds if k.allocatable.gpus), default=0
    )
    gpus = team.gpu_quota
    quota = Resources(
        cpu_m=min(per_gpu_cpu * gpus, gpu_room.cpu_m) + cpu_room.cpu_m,
        memory_mib=min(per_gpu_mem * gpus, gpu_room.memory_mib) + cpu_room.memory_mib,
        gpus=gpus,
    )
    landing = [*gpu_kinds, *cpu_kinds, *(k for k in kinds if k.source == "system")]
    container_max = Resources(
        cpu_m=max((k.allocatable.cpu_m for k in landing), default=0),
        memory_mib=max((k.allocatable.memory_mib for k in landing), default=0),
    )
    return TeamCapacity(quota=quota, container_max=container_max, reachable=gpu_room + cpu_room)


class TeamNamespace(Construct):
    """Everything one team gets, all named after the team (the namespace):

    - Namespace labelled for Pod Security Standards `restricted` (enforce, audit and warn) and
      `platform/kueue-managed: "true"` (Kueue manages and the admission policy refuses jobs without a queue name),
      and `platform/local-queue-<queue>: "true"` for the LocalQueue of each allowed tier (the guard rails admit a
      serving Deployment only with one of them, k8s_charts/queues.py `queue_namespace_label`).
    - ResourceQuota `compute`: at most `gpu_quota` GPUs (Kueue's cap for the team), and the CPU and memory those
      GPUs' nodes bring plus the CPU job pool (:func:`team_capacity`), requested at once.
    - ResourceQuota `disallowed-priority-classes`: zero pods for any PriorityClass outside the team's tiers
      (and their CPU twins, k8s_charts/tiers.py `cpu_priority_class`)
      (this also refuses pods that name no PriorityClass, so every pod states its tier).
    - ResourceQuota `objects`: how many pods, jobs, ConfigMaps, Secrets, Services and claims it may hold
      (:data:`OBJECT_QUOTA`).
    - LimitRange `container-defaults`: requests/limits for containers that set none, and as maximum the largest
      node the team's pods can land on.
    - ServiceAccount `training` (the compute stack associates it with the team's IAM role via EKS Pod Identity).
    - PersistentVolume `fsx-<team>` (static, FSx for Lustre CSI) mounting only the team's tree `/teams/<team>`,
      pre-bound to PVC `fsx-claim` of the namespace (k8s_charts/team_storage.py).
    - ConfigMap `mlflow` (MLFLOW_TRACKING_URI) and SecretProviderClass `mlflow-credentials`, which syncs the team's
      own MLflow user from Secrets Manager into the Secret `mlflow-credentials` (MLFLOW_TRACKING_USERNAME/PASSWORD);
      job pods take both through `k8s_charts.pods.mlflow_credentials()`.
    - ConfigMap `platform-images`: one key per platform image (`sft`, `verl-sglang`), the value its ECR URI.
    - Role `team-member` (:func:`team_member_rules`) bound to the team's group (:func:`team_group`), the only
      Kubernetes permission the EKS access entries of the team's Studio users (and CI principals) carry.
    - ValidatingAdmissionPolicy + binding `llmft-team-identity-<team>`: pods run as the team's uid/gid only.
    - (once, for all teams) the guard rails of k8s_charts/team_guardrails.py and the supplementalGroupsPolicy policy.
    - NetworkPolicies: default deny; same namespace, KubeRay operator, metrics scrapers, DNS, Pod Identity, HTTPS.
    """

    def __init__(self, scope: Construct, construct_id: str, *, team: TeamConfig, values: PlatformValues) -> None:
        super().__init__(scope, construct_id)
        self._ns = team.namespace
        self._labels = {"app.kubernetes.io/part-of": "llm-platform", "platform/team": team.name}
        self.namespace = self._add_namespace(team, values)
        self.capacity = team_capacity(team, values.node_kinds)
        self._add_quotas(team)
        self.limit_range = self._add_limit_range()
        self.service_account = k8s.KubeServiceAccount(
            self, "ServiceAccount", metadata=self._meta(TEAM_SERVICE_ACCOUNT), automount_service_account_token=False
        )
        self._add_storage(team, values)
        self._add_mlflow(team, values)
        # Where the platform's images are (k8s_charts/images.py): jobs and the CLI read the URI of `sft` or
        # `verl-sglang` here instead of a hand-pasted one.
        self.images = None
        if values.images:
            self.images = k8s.KubeConfigMap(
                self, "PlatformImages", metadata=self._meta(PLATFORM_IMAGES_CONFIG_MAP), data=dict(values.images)
            )
        self._add_member_access(team)
        self._add_pipeline_access()
        # Isolation from other teams (k8s_charts/team_isolation.py): the pods' uid/gid, enforced; network policies.
        self.identity_policy = TeamIdentityPolicy(self, "Identity", team=team, labels=self._labels)
        self.network_policies = TeamNetworkPolicies(self, "Network", team=team, labels=self._labels)
        self._order_after_namespace()

    def _meta(self, name: str, *, namespaced: bool = True) -> k8s.ObjectMeta:
        """Metadata of the team's object ``name`` (in its namespace unless ``namespaced`` is False)."""
        return k8s.ObjectMeta(name=name, namespace=self._ns if namespaced else None, labels=self._labels)

    def _add_namespace(self, team: TeamConfig, values: PlatformValues) -> k8s.KubeNamespace:
        """The Namespace, labelled for Pod Security ``restricted``, Kueue, the team's LocalQueues, and the cluster
        and region its ScaledObjects may read metrics of (k8s_charts/team_guardrails.py; teams cannot label
        namespaces)."""
        pss = {f"pod-security.kubernetes.io/{mode}": POD_SECURITY_LEVEL for mode in ("enforce", "audit", "warn")}
        return k8s.KubeNamespace(
            self,
            "Namespace",
            metadata=k8s.ObjectMeta(
                name=self._ns,
                labels={
                    **self._labels,
                    **pss,
                    MANAGED_NAMESPACE_LABEL: "true",
                    **{queue_namespace_label(t): "true" for t in team.allowed_tiers},
                    CLUSTER_NAME_LABEL: values.cluster_name,
                    REGION_LABEL: values.region,
                },
            ),
        )

    def _add_quotas(self, team: TeamConfig) -> None:
        """ResourceQuotas ``compute`` (:attr:`capacity`), ``disallowed-priority-classes`` and ``objects``."""
        quota = self.capacity.quota
        self.gpu_quota = k8s.KubeResourceQuota(
            self,
            "GpuQuota",
            metadata=self._meta("compute"),
            spec=k8s.ResourceQuotaSpec(
                hard={
                    f"requests.{GPU_RESOURCE}": _q(quota.gpus),
                    "requests.cpu": _q(f"{quota.cpu_m}m"),
                    "requests.memory": _q(f"{quota.memory_mib}Mi"),
                }
            ),
        )
        self.priority_quota = k8s.KubeResourceQuota(
            self,
            "PriorityQuota",
            metadata=self._meta("disallowed-priority-classes"),
            spec=k8s.ResourceQuotaSpec(
                hard={"pods": _q(0)},
                scope_selector=k8s.ScopeSelector(
                    match_expressions=[
                        k8s.ScopedResourceSelectorRequirement(
                            scope_name="PriorityClass", operator="NotIn", values=_allowed_classes(team)
                        )
                    ]
                ),
            ),
        )
        self.object_quota = k8s.KubeResourceQuota(
            self,
            "ObjectQuota",
            metadata=self._meta("objects"),
            spec=k8s.ResourceQuotaSpec(hard={k: _q(v) for k, v in OBJECT_QUOTA.items()}),
        )

    def _add_limit_range(self) -> k8s.KubeLimitRange:
        """LimitRange ``container-defaults``: defaults, and at most the largest node the team reaches."""
        biggest = self.capacity.container_max
        return k8s.KubeLimitRange(
            self,
            "LimitRange",
            metadata=self._meta("container-defaults"),
            spec=k8s.LimitRangeSpec(
                limits=[
                    k8s.LimitRangeItem(
                        type="Container",
                        default_request={"cpu": _q("500m"), "memory": _q("1Gi")},
                        default={"cpu": _q("2"), "memory": _q("4Gi")},
                        max={"cpu": _q(f"{biggest.cpu_m}m"), "memory": _q(f"{biggest.memory_mib}Mi")},
                    )
                ]
            ),
        )

    def _add_storage(self, team: TeamConfig, values: PlatformValues) -> None:
        """PersistentVolume ``fsx-<team>`` (the team's FSx tree) and its pre-bound claim ``fsx-claim``."""
        ns = self._ns
        self.volume = k8s.KubePersistentVolume(
            self,
            "FsxVolume",
            metadata=self._meta(fsx_volume_name(ns), namespaced=False),
            spec=k8s.PersistentVolumeSpec(
                capacity={"storage": _q(f"{values.fsx_storage_capacity_gib}Gi")},
                access_modes=["ReadWriteMany"],
                persistent_volume_reclaim_policy="Retain",
                storage_class_name="",
                volume_mode="Filesystem",
                mount_options=["flock"],
                claim_ref=k8s.ObjectReference(namespace=ns, name=FSX_CLAIM_NAME),
                csi=k8s.CsiPersistentVolumeSource(
                    driver="fsx.csi.aws.com",
                    volume_handle=values.fsx_file_system_id,
                    volume_attributes={
                        "dnsname": values.fsx_dns_name,
                        "mountname": team_mount_name(values.fsx_mount_name, team),
                    },
                ),
            ),
        )
        self.claim = k8s.KubePersistentVolumeClaim(
            self,
            "FsxClaim",
            metadata=self._meta(FSX_CLAIM_NAME),
            spec=k8s.PersistentVolumeClaimSpec(
                access_modes=["ReadWriteMany"],
                storage_class_name="",
                volume_name=fsx_volume_name(ns),
                resources=k8s.ResourceRequirements(requests={"storage": _q(f"{values.fsx_storage_capacity_gib}Gi")}),
            ),
        )

    def _add_mlflow(self, team: TeamConfig, values: PlatformValues) -> None:
        """ConfigMap ``mlflow`` and, with a team secret, SecretProviderClass ``mlflow-credentials`` (if MLflow)."""
        self.mlflow = None
        self.mlflow_credentials = None
        if values.mlflow:
            self.mlflow = k8s.KubeConfigMap(
                self,
                "Mlflow",
                metadata=self._meta(MLFLOW_CONFIG_MAP),
                data={
                    "MLFLOW_TRACKING_URI": values.mlflow.tracking_uri,
                },
            )
            secret_arn = values.mlflow.team_secret_arns.get(team.name)
            if secret_arn:
                self.mlflow_credentials = MlflowCredentials(
                    self,
                    "MlflowCredentials",
                    namespace=self._ns,
                    secret_arn=secret_arn,
                    region=values.region,
                    labels=self._labels,
                ).secret_provider_class

    def _add_member_access(self, team: TeamConfig) -> None:
        """Role ``team-member`` (:func:`team_member_rules`) and its RoleBinding to the team's group."""
        self.member_role = k8s.KubeRole(
            self, "TeamMember", metadata=self._meta(TEAM_MEMBER_ROLE), rules=team_member_rules()
        )
        self.member_binding = k8s.KubeRoleBinding(
            self,
            "TeamMembers",
            metadata=self._meta(TEAM_MEMBER_ROLE),
            role_ref=k8s.RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name=TEAM_MEMBER_ROLE),
            subjects=[k8s.Subject(kind="Group", name=team_group(team.name), api_group="rbac.authorization.k8s.io")],
        )

    def _add_pipeline_access(self) -> None:
        """ServiceAccount, Role (:func:`pipeline_rules`) and RoleBinding ``llmft-pipelines`` of the Workflows."""
        # `llmft pipeline` Workflows run as this ServiceAccount (no token mounted in job pods: they never use it)
        self.pipeline_account = k8s.KubeServiceAccount(
            self, "PipelineServiceAccount", metadata=self._meta(PIPELINE_SERVICE_ACCOUNT)
        )
        self.pipeline_role = k8s.KubeRole(
            self, "PipelineRole", metadata=self._meta(PIPELINE_SERVICE_ACCOUNT), rules=pipeline_rules()
        )
        self.pipeline_binding = k8s.KubeRoleBinding(
            self,
            "PipelineBinding",
            metadata=self._meta(PIPELINE_SERVICE_ACCOUNT),
            role_ref=k8s.RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name=PIPELINE_SERVICE_ACCOUNT),
            subjects=[k8s.Subject(kind="ServiceAccount", name=PIPELINE_SERVICE_ACCOUNT, namespace=self._ns)],
        )

    def _order_after_namespace(self) -> None:
        """Make the namespaced objects depend on the Namespace, and the claim on its volume."""
        # Namespaced objects must be created after their namespace when the chart is applied.
        for obj in (
            self.gpu_quota,
            self.priority_quota,
            self.object_quota,
            self.limit_range,
            self.service_account,
            self.claim,
            self.mlflow,
            self.mlflow_credentials,
            self.images,
            self.member_role,
            self.member_binding,
            self.pipeline_account,
            self.pipeline_role,
            self.pipeline_binding,
            *self.network_policies.policies.values(),
        ):
            if obj is not None:
                obj.add_dependency(self.namespace)
        self.claim.add_dependency(self.volume)


class TeamNamespacesChart(cdk8s.Chart):
    """One :class:`TeamNamespace` per configured team."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        teams: Sequence[TeamConfig],
        values: PlatformValues,
        fallback: dict[str, Any] | None = None,
    ) -> None:
        """``fallback``: the development fall-back controller's settings (k8s_charts/fallback.py
        ``fallback_settings``); default none (no controller)."""
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        self.teams = {t.name: TeamNamespace(self, t.name, team=t, values=values) for t in teams}
        labels = {"app.kubernetes.io/part-of": "llm-platform"}
        self.guardrails = TeamGuardrails(self, "guardrails", labels=labels)
        # who may create production serving endpoints: the platform's promotion identity (k8s_charts/promotion.py)
        self.promotion = ProductionPromotion(
            self,
            "promotion",
            teams=teams,
            labels=labels,
            mlflow=values.mlflow,
            region=values.region,
            storage=values,
        )
        for name, binding in self.promotion.bindings.items():
            self.promotion.roles[name].add_dependency(self.teams[name].namespace)
            binding.add_dependency(self.teams[name].namespace)
        self.fallback = None
        if fallback is not None and IMAGE in values.images:
            self.fallback = DevelopmentFallback(
                self,
                "fallback",
                settings=fallback,
                image=values.images[IMAGE],
                labels=labels,
                after=[self.promotion.namespace, *(t.namespace for t in self.teams.values())],
            )
        self.strict_groups = StrictSupplementalGroups(
            self, "strict-groups", labels=labels, selector={MANAGED_NAMESPACE_LABEL: "true"}
        )
