"""Argo CD objects of an environment in `argocd` delivery mode (config/gitops.py): what syncs Git into the cluster.

- AppProject ``platform`` + Application ``platform``: ``platform_dir(path)`` (the shared part of ``dist/<env>/``)
  into the cluster, automated sync with self-heal and prune (prune deletes only objects the Application tracks: Argo
  CD labels what it applies with its tracking id, argo-cd v3.4.4 docs/user-guide/resource_tracking.md); per team an
  Application ``platform-<team>`` of ``platform_team_dir(path, team)`` (the team's platform objects,
  :func:`split_platform`), so no Application exceeds the capability's 150 resources.
- Per team: AppProject ``team-<team>`` + Application ``team-<team>``: ``team_jobs_dir(path, team)`` of the team's
  repository (``delivery.team_repositories``, else ``delivery.repository``) into the team's namespace only, with
  ``allowEmpty`` (the last job can be removed). The project allows one destination (that namespace on this cluster), no
  cluster-scoped kind and, namespaced, only :func:`team_delivery_kinds`: the job kinds of :data:`GITOPS_JOB_KINDS` the
  team's own Role lets its people create (so Argo CD never creates for a team what the team could not create itself).
- The repository: a Secret labelled ``argocd.argoproj.io/secret-type: repository`` (argo-cd v3.4.4
  docs/operator-manual/declarative-setup.md "Repositories"). Public repository: url and type only. With
  ``delivery.credentials_secret``, the Secrets Store CSI driver syncs the Secrets Manager secret into that Secret
  (SecretProviderClass ``gitops-repository``, kept synced by the pod of :class:`RepositoryCredentialsSync`); nothing
  secret is in the template.
- Managed EKS capability only: the cluster registered as a destination (a ``secret-type: cluster`` Secret whose
  ``server`` is the EKS cluster ARN; the capability does not register the local cluster and does not accept
  ``https://kubernetes.default.svc``: EKS User Guide "Register target clusters").

- Every AppProject lists ``sourceNamespaces: [argocd]`` (required by the managed capability). With the capability,
  :class:`CapabilityAccessChart` adds the ``argocd`` Namespace and the RBAC of the capability's access entry.

These objects are applied by the compute stack (they bootstrap Argo CD), never synced by Argo CD itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from config import EnvironmentConfig
from config.gitops import platform_dir, platform_team_dir, team_jobs_dir
from config.kubernetes import TeamConfig
from k8s_charts import serving
from k8s_charts.imports.application.io import argoproj as argo_app
from k8s_charts.imports.appproject.io import argoproj as argo_project
from k8s_charts.imports.secretproviderclass.io.x_k8s.csi import secrets_store as sscsi
from k8s_charts.values import PlatformValues, team_group

ARGOCD_NAMESPACE = "argocd"
"""Namespace of Argo CD's own objects: the Helm release's namespace and the capability's `Namespace` (default
`argocd`, AWS::EKS::Capability ArgoCd.Namespace)."""
IN_CLUSTER = "https://kubernetes.default.svc"
"""The cluster Argo CD runs in, as a self-installed Argo CD names it (argo-cd declarative-setup.md)."""
PLATFORM_PROJECT = "platform"
PLATFORM_APPLICATION = "platform"
REPOSITORY_SECRET = "gitops-repository"
CREDENTIALS_SERVICE_ACCOUNT = "gitops-credentials"
PART_OF = {"app.kubernetes.io/part-of": "llm-platform", "app.kubernetes.io/component": "gitops"}
SYNC_RETRY = {"limit": 5, "backoff": {"duration": "30s", "factor": 2, "maxDuration": "10m"}}


@dataclass(frozen=True)
class JobKind:
    group: str
    kind: str
    resource: str  # the plural an RBAC rule names


GITOPS_JOB_KINDS: tuple[JobKind, ...] = (
    JobKind("kubeflow.org", "PyTorchJob", "pytorchjobs"),
    JobKind("kubeflow.org", "MPIJob", "mpijobs"),
    JobKind("ray.io", "RayJob", "rayjobs"),
    JobKind("batch", "Job", "jobs"),  # llmft's CPU steps (download-model, prepare-data)
    JobKind("", "ConfigMap", "configmaps"),
    JobKind("argoproj.io", "Workflow", "workflows"),  # `llmft pipeline -o CHECKOUT` (Argo Workflows)
    JobKind("argoproj.io", "WorkflowTemplate", "workflowtemplates"),
    # `llmft render -o CHECKOUT` of a serve spec (llmft/serve_build.py); the NetworkPolicy it renders is not here:
    # NetworkPolicies in team namespaces are the platform's (k8s_charts/team_namespaces.py serving_rules)
    JobKind("apps", "Deployment", "deployments"),
    JobKind("", "Service", "services"),
    JobKind("keda.sh", "ScaledObject", "scaledobjects"),
)
"""What a team may deliver through Git (the one list; the team AppProject's whitelist is the part of it the team
Role allows). Secrets are deliberately absent: a Secret in Git is a plaintext credential in every clone."""

ARGOCD_WRITE_VERBS = ("create", "update", "patch", "delete")
"""What Argo CD does to the objects it manages (apply, prune); reads are the separate cluster-wide read role."""
MAX_RESOURCES_PER_APPLICATION = 150
"""EKS User Guide "Capability Kubernetes resources", Resource limits: "Maximum 150 Kubernetes resources per
Application resource in Argo CD" (the managed capability; the platform keeps every Application under it in both
install modes, so switching between them never breaks an Application)."""
MAX_APPLICATIONS = 3000
"""Same page: "Maximum 3,000 Application resources per Argo CD capability instance"."""
KEEP_FILE = ".gitkeep"
"""Kept in every team folder: Git stores no empty folder, and an Application whose path is missing fails with "app
path does not exist"; Argo CD's directory source reads only .yaml/.yml/.json files (argo-cd v3.4.4
docs/user-guide/directory.md), so this file is ignored."""


def plural(kind: str) -> str:
    """The resource name (plural) of ``kind`` as the API serves it for the kinds the platform manages (lowercase,
    ``y`` -> ``ies``, ``s`` -> ``ses``, else ``s``; tests/test_gitops.py checks it against every vendored CRD)."""
    k = kind.lower()
    if k.endswith("y") and k[-2:-1] not in "aeiou":
        return k[:-1] + "ies"
    if k.endswith("s"):
        return k + "es"
    return k + "s"


def api_group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def access_entry_group(principal_arn: str) -> str:
    """The Kubernetes group of an EKS access entry's principal: ``eks-access-entry:<principal ARN>`` (EKS User
    Guide "Register target clusters", "Access Entry RBAC requirements": the group name format for Access Entries is
    `eks-access-entry:` followed by the principal ARN)."""
    return f"eks-access-entry:{principal_arn}"


KUEUE_MUTATED_FIELDS = (".spec.suspend", ".spec.runPolicy.suspend")
"""Kueue suspends a job at creation and unsuspends it at admission (RayJob `spec.suspend`, PyTorchJob/MPIJob
`spec.runPolicy.suspend`; Kueue v0.19.2 pkg/controller/jobs): Argo CD must not undo it (ignoreDifferences with
RespectIgnoreDifferences)."""

SERVING_MUTATED_FIELDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "Deployment"): (".spec.replicas",),
    ("keda.sh", "ScaledObject"): (f'.metadata.annotations["{serving.KEDA_PAUSED_REPLICAS}"]',),
}
"""What the autoscaler and llmft change on a serve job delivered through Git: KEDA's HPA sets the Deployment's
replicas, `llmft port-forward` pins a sleeping endpoint with KEDA's paused-replicas annotation (llmft/cluster.py
``wake``). Self-heal would otherwise put the replicas back to Git's ``min_replicas`` and drop the pin."""


def ignored_fields(kind: JobKind) -> list[str]:
    """jq paths Argo CD leaves to the cluster on ``kind`` (Kueue's suspension, and the serving fields above)."""
    return [*KUEUE_MUTATED_FIELDS, *SERVING_MUTATED_FIELDS.get((kind.group, kind.kind), ())]


def team_project_name(team: str) -> str:
    return f"team-{team}"


def platform_team_application_name(team: str) -> str:
    return f"{PLATFORM_APPLICATION}-{team}"


TEAM_LABEL = "platform/team"


def owning_team(doc: Mapping[str, Any], teams: Sequence[TeamConfig]) -> str | None:
    """The team a platform object belongs to: its namespace is the team's, or it is labelled ``platform/team``."""
    ns = doc.get("metadata", {}).get("namespace")
    for team in teams:
        if ns == team.namespace or doc.get("metadata", {}).get("labels", {}).get(TEAM_LABEL) == team.name:
            return team.name
    return None


def split_platform(
    files: Mapping[str, Sequence[Mapping[str, Any]]], path: str, teams: Sequence[TeamConfig]
) -> dict[str, list[Mapping[str, Any]]]:
    """The platform charts (file name -> objects) as Git holds them: shared objects in ``platform_dir(path)/<file>``,
    each team's in ``platform_team_dir(path, team)/<file>`` (path relative to the repository root)."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for name, docs in files.items():
        for d in docs:
            team = owning_team(d, teams)
            folder = platform_team_dir(path, team) if team else platform_dir(path)
            out.setdefault(f"{folder}/{name}", []).append(d)
    return out


def team_role_rules(team: TeamConfig, values: PlatformValues) -> list[dict[str, Any]]:
    """The RBAC rules of every Role the team's namespace binds to the team's group (as rendered, so the whitelist
    follows whatever k8s_charts.team_namespaces grants)."""
    from k8s_charts.team_namespaces import TeamNamespacesChart

    docs = TeamNamespacesChart(cdk8s.App(), "team", teams=[team], values=values).to_json()
    bound = {
        d["roleRef"]["name"]
        for d in docs
        if d["kind"] == "RoleBinding"
        and d["metadata"].get("namespace") == team.namespace
        and d["roleRef"]["kind"] == "Role"
        and any(s["kind"] == "Group" and s["name"] == team_group(team.name) for s in d.get("subjects", []))
    }
    return [
        rule
        for d in docs
        if d["kind"] == "Role" and d["metadata"]["name"] in bound and d["metadata"].get("namespace") == team.namespace
        for rule in d.get("rules", [])
    ]


def allows_create(rules: Sequence[Mapping[str, Any]], group: str, resource: str) -> bool:
    """Whether ``rules`` allow ``create`` on ``resource`` of API ``group`` (RBAC semantics incl. '*')."""
    return any(
        (group in r.get("apiGroups", []) or "*" in r.get("apiGroups", []))
        and (resource in r.get("resources", []) or "*" in r.get("resources", []))
        and ("create" in r.get("verbs", []) or "*" in r.get("verbs", []))
        and not r.get("resourceNames")
        for r in rules
    )


def team_delivery_kinds(rules: Sequence[Mapping[str, Any]]) -> list[JobKind]:
    """The kinds of :data:`GITOPS_JOB_KINDS` that ``rules`` (the team Role's) allow the team to create."""
    return [k for k in GITOPS_JOB_KINDS if allows_create(rules, k.group, k.resource)]


def platform_objects(config: EnvironmentConfig, values: PlatformValues) -> list[dict[str, Any]]:
    """Every object the platform Applications sync (the platform charts, as `make gitops` writes them)."""
    from k8s_charts.platform import platform_charts

    app = cdk8s.App()
    platform_charts(app, config, values)
    return [d for chart in app.charts for d in chart.to_json()]


def managed_kinds(config: EnvironmentConfig, values: PlatformValues) -> list[tuple[str, str]]:
    """(API group, resource) of every kind Argo CD applies: the platform charts' kinds and the teams' delivery kinds
    (what the capability's write ClusterRole names; nothing else)."""
    kinds = {(api_group(d["apiVersion"]), plural(d["kind"])) for d in platform_objects(config, values)}
    for team in config.kubernetes.teams:
        kinds |= {(k.group, k.resource) for k in team_delivery_kinds(team_role_rules(team, values))}
    return sorted(kinds)


def capability_rbac(principal_arn: str, kinds: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """Kubernetes RBAC of the managed capability's access entry (EKS creates the access entry for the capability
    role with no permissions: "Register target clusters", Access Entry RBAC requirements): cluster-wide read (Argo
    CD must read every type for discovery and health, same page) and write on exactly ``kinds`` (the platform's and
    the teams' kinds), both bound to the entry's group :func:`access_entry_group`. Argo CD projects still narrow
    each Application to its destinations and whitelists. Creating the team Roles needs ``escalate`` on roles and
    ``bind`` on role bindings (Kubernetes RBAC privilege-escalation prevention: a Role may only grant what its creator
    holds, or its creator needs ``escalate``)."""
    by_group: dict[str, list[str]] = {}
    for group, resource in kinds:
        by_group.setdefault(group, []).append(resource)
    write = [
        {"apiGroups": [g], "resources": sorted(rs), "verbs": list(ARGOCD_WRITE_VERBS)}
        for g, rs in sorted(by_group.items())
    ]
    roles = sorted(set(by_group.get("rbac.authorization.k8s.io", ())) & {"roles", "clusterroles"})
    if roles:
        write.append({"apiGroups": ["rbac.authorization.k8s.io"], "resources": roles, "verbs": ["bind", "escalate"]})
    subject = [{"kind": "Group", "name": access_entry_group(principal_arn), "apiGroup": "rbac.authorization.k8s.io"}]
    labels = dict(PART_OF)
    read_name, write_name = "llm-platform-argocd-read", "llm-platform-argocd-write"
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": read_name, "labels": labels},
            "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": write_name, "labels": labels},
            "rules": write,
        },
        *(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": name, "labels": labels},
                "subjects": subject,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            }
            for name in (read_name, write_name)
        ),
    ]


class GitOpsChart(cdk8s.Chart):
    """Argo CD's projects, applications and repository for one environment (namespace :data:`ARGOCD_NAMESPACE`).

    :param config: the environment (``delivery`` in argocd mode, teams).
    :param values: platform values (the team Role is rendered with them to derive the team whitelists).
    :param destination_server: the cluster as Argo CD names it: :data:`IN_CLUSTER` (Helm install) or the EKS cluster
        ARN (managed capability; a CDK token inside the stack). Default :data:`IN_CLUSTER`.
    :param register_cluster: create the ``secret-type: cluster`` Secret for ``destination_server`` (capability).
        Default False.
    :param sync_image: image of the pod that keeps the repository credentials synced (it only sleeps; the CSI
        driver syncs the Secret while a pod mounts the volume). Default ``config.studio.partition_job_image`` (the
        pinned busybox the platform already runs).
    :param node_selector: nodeSelector of that pod (the system nodes). Default: any node.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        values: PlatformValues,
        destination_server: str = IN_CLUSTER,
        register_cluster: bool = False,
        sync_image: str | None = None,
        node_selector: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id, namespace=ARGOCD_NAMESPACE, disable_resource_name_hashes=True)
        if config.delivery.repository is None:
            raise ValueError("GitOpsChart needs delivery.repository (config validation requires it in argocd mode)")
        self.destination_server = destination_server
        self.cluster_secret: k8s.KubeSecret | None = None
        if register_cluster:
            self.cluster_secret = self._cluster_secret()
        self._add_repository(config, sync_image=sync_image, node_selector=node_selector)
        self._add_platform(config)
        self._add_platform_team_applications(config)
        self._add_teams(config, values)

    @staticmethod
    def _meta(name: str) -> cdk8s.ApiObjectMetadata:
        """Metadata of an Argo CD object named ``name`` in :data:`ARGOCD_NAMESPACE`."""
        return cdk8s.ApiObjectMetadata(name=name, namespace=ARGOCD_NAMESPACE, labels=dict(PART_OF))

    @staticmethod
    def _source_namespaces() -> list[str]:
        """The ``sourceNamespaces`` of every AppProject: only :data:`ARGOCD_NAMESPACE`."""
        # EKS User Guide "Working with Argo CD Projects": with the managed capability `spec.sourceNamespaces` is
        # required (no namespace is allowed by default); the Applications live in ARGOCD_NAMESPACE only.
        return [ARGOCD_NAMESPACE]

    def _cluster_secret(self) -> k8s.KubeSecret:
        """The ``secret-type: cluster`` Secret registering :attr:`destination_server` (managed capability)."""
        return k8s.KubeSecret(
            self,
            "Cluster",
            metadata=k8s.ObjectMeta(
                name="in-cluster",
                namespace=ARGOCD_NAMESPACE,
                labels={**PART_OF, "argocd.argoproj.io/secret-type": "cluster"},
            ),
            string_data={"name": "in-cluster", "server": self.destination_server},
        )

    # --- the repository ---------------------------------------------------------------------------------------
    def _add_repository(
        self, config: EnvironmentConfig, *, sync_image: str | None, node_selector: Mapping[str, str] | None
    ) -> None:
        """The repository Secret: plain for a public repository, else synced from Secrets Manager."""
        d = config.delivery
        self.repository_secret: k8s.KubeSecret | None = None
        self.credentials: sscsi.SecretProviderClass | None = None
        if d.credentials_secret is None:
            self.repository_secret = k8s.KubeSecret(
                self,
                "Repository",
                metadata=k8s.ObjectMeta(
                    name=REPOSITORY_SECRET,
                    namespace=ARGOCD_NAMESPACE,
                    labels={**PART_OF, "argocd.argoproj.io/secret-type": "repository"},
                ),
                string_data={"type": "git", "url": d.repository},
            )
        else:
            self.credentials = self._repository_credentials(config)
            self.credentials_sync = RepositoryCredentialsSync(
                self,
                "CredentialsSync",
                image=sync_image or config.studio.partition_job_image,
                node_selector=node_selector,
            )

    def _repository_credentials(self, config: EnvironmentConfig) -> sscsi.SecretProviderClass:
        """The SecretProviderClass syncing ``delivery.credentials_secret`` into the repository Secret."""
        d = config.delivery
        fields = credential_fields(d.repository)
        return sscsi.SecretProviderClass(
            self,
            "RepositoryCredentials",
            metadata=self._meta(REPOSITORY_SECRET),
            spec=sscsi.SecretProviderClassSpec(
                provider="aws",
                parameters={
                    "region": config.region,
                    "usePodIdentity": "true",
                    "objects": json.dumps(
                        [
                            {
                                "objectName": d.credentials_secret,
                                "objectType": "secretsmanager",
                                "filePermission": "0400",
                                "jmesPath": [{"path": f, "objectAlias": f, "filePermission": "0400"} for f in fields],
                            }
                        ]
                    ),
                },
                secret_objects=[
                    sscsi.SecretProviderClassSpecSecretObjects(
                        secret_name=REPOSITORY_SECRET,
                        type="Opaque",
                        labels={**PART_OF, "argocd.argoproj.io/secret-type": "repository"},
                        data=[sscsi.SecretProviderClassSpecSecretObjectsData(object_name=f, key=f) for f in fields],
                    )
                ],
            ),
        )

    # --- the platform -----------------------------------------------------------------------------------------
    def _add_platform(self, config: EnvironmentConfig) -> None:
        """AppProject ``platform`` and the shared Application ``platform`` (``platform_dir``, not recursive)."""
        d, path = config.delivery, config.gitops_path
        self.platform_project = argo_project.AppProject(
            self,
            "PlatformProject",
            metadata=self._meta(PLATFORM_PROJECT),
            spec=argo_project.AppProjectSpec(
                description=f"{config.name}: the platform's manifests (make gitops -> {platform_dir(path)})",
                source_repos=[d.repository],
                source_namespaces=self._source_namespaces(),
                destinations=[argo_project.AppProjectSpecDestinations(server=self.destination_server, namespace="*")],
                cluster_resource_whitelist=[argo_project.AppProjectSpecClusterResourceWhitelist(group="*", kind="*")],
            ),
        )
        self.platform_application = argo_app.Application(
            self,
            "PlatformApplication",
            metadata=self._meta(PLATFORM_APPLICATION),
            spec=argo_app.ApplicationSpec(
                project=PLATFORM_PROJECT,
                # not recursive (the default, restated): the teams' platform folders below are their own
                # Applications (argo-cd docs user-guide/directory.md: only the path's root unless `recurse`)
                source=argo_app.ApplicationSpecSource(
                    repo_url=d.repository,
                    target_revision=d.revision,
                    path=platform_dir(path),
                    directory=argo_app.ApplicationSpecSourceDirectory(recurse=False),
                ),
                destination=argo_app.ApplicationSpecDestination(server=self.destination_server),
                sync_policy=argo_app.ApplicationSpecSyncPolicy(
                    automated=argo_app.ApplicationSpecSyncPolicyAutomated(prune=True, self_heal=True), retry=_retry()
                ),
            ),
        )

    def _add_platform_team_applications(self, config: EnvironmentConfig) -> None:
        """Per team, Application ``platform-<team>`` of the team's platform objects (``platform_team_dir``)."""
        # one Application per team for the team's platform objects (namespace, quota, Roles, queues, ...): the
        # shared Application stays the same size however many teams there are (MAX_RESOURCES_PER_APPLICATION)
        d, path = config.delivery, config.gitops_path
        self.platform_team_applications: dict[str, argo_app.Application] = {}
        for team in config.kubernetes.teams:
            self.platform_team_applications[team.name] = argo_app.Application(
                self,
                f"PlatformApplication-{team.name}",
                metadata=self._meta(platform_team_application_name(team.name)),
                spec=argo_app.ApplicationSpec(
                    project=PLATFORM_PROJECT,
                    source=argo_app.ApplicationSpecSource(
                        repo_url=d.repository, target_revision=d.revision, path=platform_team_dir(path, team.name)
                    ),
                    destination=argo_app.ApplicationSpecDestination(server=self.destination_server),
                    sync_policy=argo_app.ApplicationSpecSyncPolicy(
                        automated=argo_app.ApplicationSpecSyncPolicyAutomated(prune=True, self_heal=True),
                        retry=_retry(),
                    ),
                ),
            )

    # --- the teams --------------------------------------------------------------------------------------------
    def _add_teams(self, config: EnvironmentConfig, values: PlatformValues) -> None:
        """Per team, AppProject and Application ``team-<team>`` (in that order, team after team)."""
        d, path = config.delivery, config.gitops_path
        self.team_projects: dict[str, argo_project.AppProject] = {}
        self.team_applications: dict[str, argo_app.Application] = {}
        for team in config.kubernetes.teams:
            kinds = team_delivery_kinds(team_role_rules(team, values))
            team_repo = d.team_repository(team.name) or d.repository
            self.team_projects[team.name] = self._team_project(team, path, team_repo, kinds)
            self.team_applications[team.name] = self._team_application(team, path, team_repo, d.revision, kinds)

    def _team_project(
        self, team: TeamConfig, path: str, team_repo: str, kinds: Sequence[JobKind]
    ) -> argo_project.AppProject:
        """AppProject ``team-<team>``: the team's repository into its namespace, only its delivery ``kinds``."""
        return argo_project.AppProject(
            self,
            f"Project-{team.name}",
            metadata=self._meta(team_project_name(team.name)),
            spec=argo_project.AppProjectSpec(
                description=f"Team {team.name}: its jobs from {team_jobs_dir(path, team.name)} into namespace "
                f"{team.namespace} only",
                source_repos=[team_repo],
                source_namespaces=self._source_namespaces(),
                destinations=[
                    argo_project.AppProjectSpecDestinations(server=self.destination_server, namespace=team.namespace)
                ],
                cluster_resource_whitelist=[],
                namespace_resource_whitelist=[
                    argo_project.AppProjectSpecNamespaceResourceWhitelist(group=k.group, kind=k.kind) for k in kinds
                ],
            ),
        )

    def _team_application(
        self, team: TeamConfig, path: str, team_repo: str, revision: str, kinds: Sequence[JobKind]
    ) -> argo_app.Application:
        """Application ``team-<team>``: ``team_jobs_dir`` into the team's namespace, allowEmpty, Kueue-aware."""
        name = team_project_name(team.name)
        return argo_app.Application(
            self,
            f"Application-{team.name}",
            metadata=self._meta(name),
            spec=argo_app.ApplicationSpec(
                project=name,
                source=argo_app.ApplicationSpecSource(
                    repo_url=team_repo, target_revision=revision, path=team_jobs_dir(path, team.name)
                ),
                destination=argo_app.ApplicationSpecDestination(
                    server=self.destination_server, namespace=team.namespace
                ),
                ignore_differences=[
                    argo_app.ApplicationSpecIgnoreDifferences(
                        group=k.group, kind=k.kind, jq_path_expressions=ignored_fields(k)
                    )
                    for k in kinds
                    if k.group
                ],
                # allowEmpty (argo-cd v3.4.4 application CRD: "AllowEmpty allows apps have zero live
                # resources"): without it automated sync refuses to prune the team's last job, so removing it
                # from Git would never stop it; the folder itself stays (KEEP_FILE)
                sync_policy=argo_app.ApplicationSpecSyncPolicy(
                    automated=argo_app.ApplicationSpecSyncPolicyAutomated(prune=True, self_heal=True, allow_empty=True),
                    sync_options=["RespectIgnoreDifferences=true"],
                    retry=_retry(),
                ),
            ),
        )


class CapabilityAccessChart(cdk8s.Chart):
    """What the managed capability needs before anything syncs (applied before :class:`GitOpsChart`): the ``argocd``
    Namespace (the capability may not have created it yet when the stack applies into it; apply keeps an existing
    one) and the Kubernetes RBAC of :func:`capability_rbac` for the access entry EKS made for the capability role.

    Why RBAC objects and not an ``AWS::EKS::AccessEntry`` with access policies: EKS creates the capability role's
    access entry itself ("Register target clusters": an EKS Access Entry is automatically created ... but no
    Kubernetes RBAC permissions are granted), so a second AccessEntry for the same principal would fail, and the
    managed access policies are coarse (AmazonEKSEditPolicy cannot create ClusterQueues or Namespaces, the cluster
    admin policy is everything). Bindings to the entry's group grant exactly the kinds the platform delivers.

    :param principal_arn: ARN of the capability's IAM role (a CDK token inside the stack).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        values: PlatformValues,
        principal_arn: str,
    ) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        self.rbac: list[k8s.KubeClusterRole | k8s.KubeClusterRoleBinding] = []
        self.argocd_namespace = k8s.KubeNamespace(
            self, "Namespace", metadata=k8s.ObjectMeta(name=ARGOCD_NAMESPACE, labels=dict(PART_OF))
        )
        for i, doc in enumerate(capability_rbac(principal_arn, managed_kinds(config, values))):
            m = k8s.ObjectMeta(name=doc["metadata"]["name"], labels=doc["metadata"]["labels"])
            if doc["kind"] == "ClusterRole":
                self.rbac.append(
                    k8s.KubeClusterRole(
                        self,
                        f"Rbac{i}",
                        metadata=m,
                        rules=[
                            k8s.PolicyRule(api_groups=r["apiGroups"], resources=r["resources"], verbs=r["verbs"])
                            for r in doc["rules"]
                        ],
                    )
                )
            else:
                self.rbac.append(
                    k8s.KubeClusterRoleBinding(
                        self,
                        f"Rbac{i}",
                        metadata=m,
                        subjects=[
                            k8s.Subject(kind=x["kind"], name=x["name"], api_group=x["apiGroup"])
                            for x in doc["subjects"]
                        ],
                        role_ref=k8s.RoleRef(
                            api_group=doc["roleRef"]["apiGroup"],
                            kind=doc["roleRef"]["kind"],
                            name=doc["roleRef"]["name"],
                        ),
                    )
                )


class RepositoryCredentialsSync(Construct):
    """ServiceAccount :data:`CREDENTIALS_SERVICE_ACCOUNT` (EKS Pod Identity: read of the repository secret only) and
    a one-replica Deployment mounting the SecretProviderClass :data:`REPOSITORY_SECRET`: the Secrets Store CSI
    driver creates and rotates the synced Secret only while some pod mounts the volume (secrets-store-csi-driver
    docs "Sync as Kubernetes Secret").

    :param image: the container image (it sleeps). Required.
    :param node_selector: nodeSelector of the pod. Default: any node.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, image: str, node_selector: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(scope, construct_id)
        labels = {**PART_OF, "app.kubernetes.io/name": "gitops-credentials-sync"}
        self.service_account = k8s.KubeServiceAccount(
            self,
            "ServiceAccount",
            metadata=k8s.ObjectMeta(name=CREDENTIALS_SERVICE_ACCOUNT, namespace=ARGOCD_NAMESPACE, labels=dict(PART_OF)),
        )
        self.deployment = k8s.KubeDeployment(
            self,
            "Deployment",
            metadata=k8s.ObjectMeta(name="gitops-credentials-sync", namespace=ARGOCD_NAMESPACE, labels=labels),
            spec=k8s.DeploymentSpec(
                replicas=1,
                selector=k8s.LabelSelector(match_labels=labels),
                template=k8s.PodTemplateSpec(
                    metadata=k8s.ObjectMeta(labels=labels),
                    spec=k8s.PodSpec(
                        service_account_name=CREDENTIALS_SERVICE_ACCOUNT,
                        node_selector=dict(node_selector or {}) or None,
                        security_context=k8s.PodSecurityContext(
                            run_as_non_root=True,
                            run_as_user=65534,
                            run_as_group=65534,
                            seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
                        ),
                        containers=[
                            k8s.Container(
                                name="sync",
                                image=image,
                                command=["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 3600 & wait; done"],
                                resources=k8s.ResourceRequirements(
                                    requests={
                                        "cpu": k8s.Quantity.from_string("10m"),
                                        "memory": k8s.Quantity.from_string("16Mi"),
                                    },
                                    limits={"memory": k8s.Quantity.from_string("16Mi")},
                                ),
                                security_context=k8s.SecurityContext(
                                    allow_privilege_escalation=False,
                                    read_only_root_filesystem=True,
                                    capabilities=k8s.Capabilities(drop=["ALL"]),
                                ),
                                volume_mounts=[
                                    k8s.VolumeMount(name="credentials", mount_path="/mnt/credentials", read_only=True)
                                ],
                            )
                        ],
                        volumes=[
                            k8s.Volume(
                                name="credentials",
                                csi=k8s.CsiVolumeSource(
                                    driver="secrets-store.csi.k8s.io",
                                    read_only=True,
                                    volume_attributes={"secretProviderClass": REPOSITORY_SECRET},
                                ),
                            )
                        ],
                    ),
                ),
            ),
        )
        self.deployment.add_dependency(self.service_account)


def _retry() -> argo_app.ApplicationSpecSyncPolicyRetry:
    b = SYNC_RETRY["backoff"]
    return argo_app.ApplicationSpecSyncPolicyRetry(
        limit=SYNC_RETRY["limit"],
        backoff=argo_app.ApplicationSpecSyncPolicyRetryBackoff(
            duration=b["duration"], factor=b["factor"], max_duration=b["maxDuration"]
        ),
    )


def credential_fields(repository: str) -> tuple[str, ...]:
    """Keys of the Argo CD repository Secret the Secrets Manager secret's JSON must hold (declarative-setup.md
    "Repositories"): ``url`` plus ``username``/``password`` for HTTPS or ``sshPrivateKey`` for SSH."""
    if repository.startswith("https://"):
        return ("url", "username", "password")
    return ("url", "sshPrivateKey")
