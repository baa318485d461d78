"""GitOps delivery (issue 23): the delivery config, the Argo CD objects the compute stack applies in argocd mode, one
owner per object, the team projects' limits and `make gitops` (tools/gitops.py)."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from config.gitops import platform_dir, team_job_file, team_jobs_dir
from k8s_charts.gitops import (
    ARGOCD_NAMESPACE,
    GITOPS_JOB_KINDS,
    IN_CLUSTER,
    PLATFORM_APPLICATION,
    allows_create,
    credential_fields,
    team_delivery_kinds,
    team_project_name,
    team_role_rules,
)
from k8s_charts.validation import CRD_DIR, crd_validators, validate
from k8s_charts.values import PLACEHOLDER, PlatformValues, gitops_output_key

from .conftest import ENVIRONMENTS, ROOT, Synth, config_fails, config_with, synthesize
from .test_isolation_matrix import kube_manifests

REPO = "https://github.com/acme/platform-gitops.git"
IDC = {
    "instance_arn": "arn:aws:sso:::instance/ssoins-0123456789abcdef",
    "role_mappings": [
        {"role": "ADMIN", "groups": ["a1b2c3d4-0000-4000-8000-000000000001"]},
        {"role": "VIEWER", "groups": ["a1b2c3d4-0000-4000-8000-000000000002"]},
    ],
}
HELM = {
    "delivery": {
        "mode": "argocd",
        "repository": REPO,
        "path": "clusters/prod",
        "credentials_secret": "platform/gitops-repository",
    }
}
CAPABILITY = {"delivery": {"mode": "argocd", "repository": REPO, "identity_center": IDC}}
VARIANTS = {"helm": HELM, "capability": CAPABILITY}


def kube_objects(synth: Synth) -> list[dict[str, Any]]:
    """Every Kubernetes object the compute template applies through the kubectl handler (tokens as TOKEN)."""
    return kube_manifests(synth.templates["compute"])


def key(doc: dict[str, Any]) -> tuple[str, str, str, str]:
    group = doc["apiVersion"].rpartition("/")[0]
    return group, doc["kind"], doc["metadata"].get("namespace", ""), doc["metadata"]["name"]


def argo(synth: Synth, kind: str) -> dict[str, dict[str, Any]]:
    return {
        d["metadata"]["name"]: d
        for d in kube_objects(synth)
        if d["kind"] == kind and d["apiVersion"].startswith("argoproj.io/")
    }


@pytest.fixture(scope="module", params=list(VARIANTS))
def argocd(request: pytest.FixtureRequest) -> Synth:
    return synthesize("prod", VARIANTS[request.param])


@pytest.fixture(scope="module")
def platform_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """What the platform Application syncs: the platform charts of dist/prod/ as `make gitops` writes them."""
    from k8s_charts.__main__ import write_dist

    out = tmp_path_factory.mktemp("gitops-dist")
    return {
        p.name: [d for d in yaml.safe_load_all(p.read_text()) if d] for p in write_dist("prod", out, examples=False)
    }


# ---- the layout contract (config/gitops.py) --------------------------------------------------------------------
def test_layout_is_under_the_environment_path() -> None:
    config = config_with("prod", HELM)
    assert config.gitops_path == "clusters/prod"
    assert platform_dir(config.gitops_path) == "clusters/prod/platform"
    assert team_jobs_dir(config.gitops_path, "ml-research") == "clusters/prod/teams/ml-research"
    assert team_job_file(config.gitops_path, "ml-research", "sft") == "clusters/prod/teams/ml-research/sft.yaml"
    assert config_with("prod", CAPABILITY).gitops_path == "environments/prod"  # the default path


def test_shipped_environments_keep_cdk_delivery() -> None:
    for env in ENVIRONMENTS:
        assert config_with(env).delivery.mode == "cdk"


# ---- config errors ---------------------------------------------------------------------------------------------
def test_argocd_without_repository_is_refused() -> None:
    config_fails(
        {"delivery": {"mode": "argocd"}},
        r"delivery\.repository is not set",
        r"repository: https://",
        r"delivery\.mode: cdk",
    )


def test_capability_without_identity_center_is_refused() -> None:
    config_fails(
        {"delivery": {"mode": "argocd", "repository": REPO, "argocd": "capability"}},
        r"delivery\.argocd is capability but delivery\.identity_center is not set",
        r"identity_center\.instance_arn",
        r"delivery\.argocd: helm",
    )


@pytest.mark.parametrize(
    "path, problem",
    [
        ("../other-team", r"leaves the repository \('\.\.'\)"),
        ("envs/../../x", r"leaves the repository"),
        ("/environments/prod", r"is absolute"),
        ("C:/prod", r"is absolute"),
        ("envs//prod", r"not a normalized folder"),
        ("envs/./prod", r"not a normalized folder"),
    ],
)
def test_path_outside_the_repository_is_refused(path: str, problem: str) -> None:
    config_fails(
        {"delivery": {"mode": "argocd", "repository": REPO, "path": path}},
        "delivery\\.path " + re.escape(repr(path)),
        problem,
        r"relative to the repository root",
    )


def test_credentials_never_in_the_url() -> None:
    config_fails(
        {"delivery": {"mode": "argocd", "repository": "https://bot:ghp_x@github.com/acme/gitops.git"}},
        r"carries credentials in the URL",
        r"delivery\.credentials_secret",
    )


def test_other_bad_delivery_values() -> None:
    config_fails({"delivery": {"mode": "argocd", "repository": "github.com/acme/gitops"}}, r"not a Git URL")
    config_fails(
        {"delivery": {"mode": "argocd", "repository": REPO, "revision": "main..x"}}, r"delivery\.revision 'main\.\.x'"
    )
    config_fails(
        {
            "delivery": {
                "mode": "argocd",
                "repository": REPO,
                "credentials_secret": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:g-AbCdEf",
            }
        },
        r"region eu-west-1",
        r"region us-east-1",
        r"replicate the secret",
    )
    config_fails(
        {
            "delivery": {
                "mode": "argocd",
                "repository": REPO,
                "identity_center": {"instance_arn": "ssoins-123", "role_mappings": IDC["role_mappings"]},
            }
        },
        r"instance_arn 'ssoins-123'",
    )
    config_fails(
        {
            "delivery": {
                "mode": "argocd",
                "repository": REPO,
                "identity_center": {
                    "instance_arn": IDC["instance_arn"],
                    "role_mappings": [{"role": "VIEWER", "groups": ["g"]}],
                },
            }
        },
        r"no ADMIN mapping",
    )
    config_fails({"delivery": {"mode": "gitops"}}, r"delivery\.mode")


def test_ssh_repositories_are_accepted() -> None:
    config = config_with("prod", {"delivery": {"mode": "argocd", "repository": "git@github.com:acme/gitops.git"}})
    assert credential_fields(config.delivery.repository) == ("url", "sshPrivateKey")
    assert credential_fields(REPO) == ("url", "username", "password")


# ---- what the compute stack applies in argocd mode -------------------------------------------------------------
def test_argo_objects_validate_against_the_vendored_crds(argocd: Synth) -> None:
    validators = crd_validators()
    assert {("argoproj.io/v1alpha1", "Application"), ("argoproj.io/v1alpha1", "AppProject")} <= set(validators)
    objects = [d for d in kube_objects(argocd) if d["metadata"].get("namespace") == ARGOCD_NAMESPACE]
    kinds = {d["kind"] for d in objects}
    assert {"Application", "AppProject"} <= kinds
    errors = [e for d in objects for e in validate(d, argocd.config.compute.kubernetes_version)]
    assert errors == []


def test_no_object_has_two_owners(argocd: Synth, platform_files: dict[str, list[dict[str, Any]]]) -> None:
    """Objects the stack applies and objects the platform Application syncs are disjoint; the Applications read
    exactly the layout's folders."""
    synced = {key(d) for docs in platform_files.values() for d in docs}
    applied = {key(d) for d in kube_objects(argocd)}
    assert synced and not synced & applied, sorted(synced & applied)
    path = argocd.config.gitops_path
    apps = argo(argocd, "Application")
    assert apps[PLATFORM_APPLICATION]["spec"]["source"]["path"] == platform_dir(path)
    for team in argocd.config.kubernetes.teams:
        assert apps[team_project_name(team.name)]["spec"]["source"]["path"] == team_jobs_dir(path, team.name)
    sources = sorted(a["spec"]["source"]["path"] for a in apps.values())
    assert len(set(sources)) == len(sources)  # no folder synced by two Applications


def test_cdk_mode_applies_what_argocd_would_sync(platform_files: dict[str, list[dict[str, Any]]]) -> None:
    """The same comparison in cdk mode finds every platform object applied by the stack (so the test above could
    see an overlap) and no Argo CD object."""
    prod = synthesize("prod")
    applied = {key(d) for d in kube_objects(prod)}
    synced = {key(d) for docs in platform_files.values() for d in docs}
    assert synced <= applied
    assert not [d for d in kube_objects(prod) if d["apiVersion"].startswith("argoproj.io/")]


def test_platform_application_syncs_automatically(argocd: Synth) -> None:
    app = argo(argocd, "Application")[PLATFORM_APPLICATION]
    assert app["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    assert app["spec"]["source"]["repoURL"] == REPO
    assert app["spec"]["source"]["targetRevision"] == argocd.config.delivery.revision


def test_every_placeholder_of_the_platform_files_is_a_stack_output(
    argocd: Synth, platform_files: dict[str, list[dict[str, Any]]]
) -> None:
    names = {m for docs in platform_files.values() for d in docs for m in PLACEHOLDER.findall(json.dumps(d))}
    assert names
    outputs = {k for t in argocd.templates.values() for k in t.get("Outputs", {})}
    assert {gitops_output_key(n) for n in names} <= outputs


# ---- team projects ---------------------------------------------------------------------------------------------
@functools.cache
def _crd_scopes() -> dict[tuple[str, str], str]:
    """(group, kind) -> scope of every vendored CRD (k8s_charts/crds), read once: the files hold 4 MB of YAML."""
    scopes: dict[tuple[str, str], str] = {}
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in sorted(CRD_DIR.glob("*.yaml")):
        for crd in (d for d in yaml.load_all(path.read_text(), Loader=loader) if d):
            scopes.setdefault((crd["spec"]["group"], crd["spec"]["names"]["kind"]), crd["spec"]["scope"])
    return scopes


def _namespaced(group: str, kind: str) -> bool:
    """Scope from the vendored CRD (k8s_charts/crds) or, for core kinds, the Kubernetes API."""
    if (group, kind) in _crd_scopes():
        return _crd_scopes()[(group, kind)] == "Namespaced"
    return {
        ("", "ConfigMap"): True,
        ("", "Secret"): True,
        ("batch", "Job"): True,
        ("apps", "Deployment"): True,
        ("", "Service"): True,
    }[(group, kind)]


def test_team_projects_stay_in_their_namespace(argocd: Synth) -> None:
    projects, apps = argo(argocd, "AppProject"), argo(argocd, "Application")
    server = argocd.stacks["compute"].argo_cd.destination_server
    expected_server = IN_CLUSTER if argocd.config.delivery.install == "helm" else "TOKEN"  # the cluster ARN
    values = PlatformValues.placeholders(argocd.config)
    for team in argocd.config.kubernetes.teams:
        spec = projects[team_project_name(team.name)]["spec"]
        assert spec["destinations"] == [{"server": expected_server, "namespace": team.namespace}]
        assert not spec.get("clusterResourceWhitelist")
        assert spec["sourceRepos"] == [REPO]
        whitelist = spec["namespaceResourceWhitelist"]
        assert whitelist and all(_namespaced(w["group"], w["kind"]) for w in whitelist)
        assert "*" not in {w["group"] for w in whitelist} | {w["kind"] for w in whitelist}
        app = apps[team_project_name(team.name)]["spec"]
        assert app["project"] == team_project_name(team.name)
        assert app["destination"] == {"server": expected_server, "namespace": team.namespace}
        # the team's own Role, as rendered into dist/: every whitelisted kind is one it may create
        rules = team_role_rules(team, values)
        plural = {(k.group, k.kind): k.resource for k in GITOPS_JOB_KINDS}
        assert all(allows_create(rules, w["group"], plural[(w["group"], w["kind"])]) for w in whitelist)
    assert server is not None


def test_team_role_in_dist_allows_every_whitelisted_kind(k8s_dist) -> None:
    """The whitelist against the Role as `make synth` writes it (the consumer: the API server's RBAC)."""
    config = config_with("dev")
    docs = k8s_dist["dev"]["team-namespaces"]
    for team in config.kubernetes.teams:
        roles = {
            d["metadata"]["name"]: d
            for d in docs
            if d["kind"] == "Role" and d["metadata"]["namespace"] == team.namespace
        }
        bound = [
            d["roleRef"]["name"]
            for d in docs
            if d["kind"] == "RoleBinding"
            and d["metadata"]["namespace"] == team.namespace
            and any(s["kind"] == "Group" and s["name"].endswith(team.name) for s in d["subjects"])
        ]
        rules = [r for name in bound for r in roles[name]["rules"]]
        kinds = team_delivery_kinds(team_role_rules(team, PlatformValues.placeholders(config)))
        assert kinds
        for k in kinds:
            assert allows_create(rules, k.group, k.resource), k


def test_whitelist_follows_the_role() -> None:
    """A kind the Role does not let the team create never reaches the project, whatever the candidate list says."""
    rules = [
        {"apiGroups": ["kubeflow.org"], "resources": ["pytorchjobs"], "verbs": ["get", "create"]},
        {"apiGroups": ["ray.io"], "resources": ["rayjobs"], "verbs": ["get", "list"]},
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"], "resourceNames": ["one"]},
    ]
    assert [k.kind for k in team_delivery_kinds(rules)] == ["PyTorchJob"]
    assert "Secret" not in {k.kind for k in GITOPS_JOB_KINDS}  # never plaintext credentials from Git


# ---- Argo CD itself --------------------------------------------------------------------------------------------
def test_capability_resource(argocd: Synth) -> None:
    caps = argocd.resources("compute", "AWS::EKS::Capability")
    if argocd.config.delivery.install != "capability":
        assert not caps
        return
    (cap,) = caps.values()
    props = cap["Properties"]
    assert props["Type"] == "ARGOCD" and props["DeletePropagationPolicy"] == "RETAIN"
    conf = props["Configuration"]["ArgoCd"]
    assert conf["AwsIdc"]["IdcInstanceArn"] == IDC["instance_arn"]
    assert conf["Namespace"] == ARGOCD_NAMESPACE
    assert {m["Role"]: [i["Id"] for i in m["Identities"]] for m in conf["RbacRoleMappings"]} == {
        m["role"]: m["groups"] for m in IDC["role_mappings"]
    }
    role = argocd.templates["compute"]["Resources"][props["RoleArn"]["Fn::GetAtt"][0]]
    (statement,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert statement["Principal"] == {"Service": "capabilities.eks.amazonaws.com"}
    assert set(statement["Action"]) == {"sts:AssumeRole", "sts:TagSession"}
    # the cluster is registered under its ARN, the name every Application uses
    (cluster,) = [
        d
        for d in kube_objects(argocd)
        if d["kind"] == "Secret" and d["metadata"]["labels"].get("argocd.argoproj.io/secret-type") == "cluster"
    ]
    assert cluster["stringData"]["server"] == "TOKEN"


def test_helm_install_on_system_nodes(argocd: Synth) -> None:
    from config.charts import ARGOCD_CHART_VERSION

    charts = [
        r["Properties"]
        for r in argocd.resources("compute", "Custom::AWSCDK-EKS-HelmChart").values()
        if r["Properties"].get("Chart") == "argo-cd"
    ]
    if argocd.config.delivery.install != "helm":
        assert not charts
        return
    (chart,) = charts
    assert chart["Version"] == ARGOCD_CHART_VERSION and chart["Namespace"] == ARGOCD_NAMESPACE
    values = json.loads(chart["Values"]) if isinstance(chart["Values"], str) else None
    if values is not None:
        selector = argocd.stacks["compute"].system_node_selector
        assert selector.items() <= values["global"]["nodeSelector"].items()
    # the chart's appVersion is the tag of the vendored CRDs (SOURCES.md names both)
    sources = (CRD_DIR / "SOURCES.md").read_text()
    assert f"argo-cd-{ARGOCD_CHART_VERSION}" in sources and "| application-crd.yaml | argoproj/argo-cd |" in sources


def test_repository_credentials_come_from_secrets_manager(argocd: Synth) -> None:
    secret = argocd.config.delivery.credentials_secret
    objects = kube_objects(argocd)
    repo_secrets = [
        d
        for d in objects
        if d["kind"] == "Secret" and d["metadata"]["labels"].get("argocd.argoproj.io/secret-type") == "repository"
    ]
    for d in objects:  # nothing secret in the template: no password, token or key in any Secret the stack applies
        if d["kind"] == "Secret":
            assert not {"password", "sshPrivateKey", "bearerToken"} & set(d.get("stringData", {}) | d.get("data", {}))
    if secret is None:
        assert [d["stringData"] for d in repo_secrets] == [{"type": "git", "url": REPO}]
        return
    (spc,) = [d for d in objects if d["kind"] == "SecretProviderClass" and d["metadata"]["namespace"] == "argocd"]
    (obj,) = json.loads(spc["spec"]["parameters"]["objects"])
    assert obj["objectName"] == secret
    (synced,) = spc["spec"]["secretObjects"]
    assert synced["labels"]["argocd.argoproj.io/secret-type"] == "repository"
    assert [d["key"] for d in synced["data"]] == list(credential_fields(REPO))
    pods = [d for d in objects if d["kind"] == "Deployment" and d["metadata"]["namespace"] == "argocd"]
    assert [
        v["csi"]["volumeAttributes"]["secretProviderClass"]
        for p in pods
        for v in p["spec"]["template"]["spec"]["volumes"]
    ] == [spc["metadata"]["name"]]
    # its role reads that secret only
    policies = [
        r["Properties"]["PolicyDocument"]["Statement"] for r in argocd.resources("compute", "AWS::IAM::Policy").values()
    ]
    reads = [s for st in policies for s in st if s.get("Sid") == "ReadRepositoryCredentials"]
    assert len(reads) == 1 and "platform/gitops-repository-??????" in json.dumps(reads[0]["Resource"])


def test_argocd_templates_pass_cfn_lint_and_cdk_nag(argocd: Synth) -> None:
    """cfn-lint knows AWS::EKS::Capability's schema: the capability's properties are checked against it."""
    templates = sorted(str(argocd.outdir / s.template_file) for s in argocd.stacks.values())
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("cfn-lint")), "--format", "parseable", *templates],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr
    assert argocd.error is None, argocd.error


# ---- make gitops (tools/gitops.py) -----------------------------------------------------------------------------
def test_make_gitops_diffs_fills_and_writes(tmp_path: Path, argocd: Synth) -> None:
    from tools import gitops

    if argocd.config.delivery.install != "helm":
        pytest.skip("one variant is enough: the tool does not depend on where Argo CD runs")
    # the environment the synthesized stacks are of: the outputs below come from its templates, so its own teams'
    # placeholders are the ones to fill (another environment may have other teams)
    env = argocd.config.name
    path = config_with(env).gitops_path
    repo = tmp_path / "checkout"
    repo.mkdir()
    stale = repo / platform_dir(path) / "old-chart.yaml"
    stale.parent.mkdir(parents=True)
    stale.write_text("kind: ConfigMap\n")
    first = gitops.plan(env, repo, dist=tmp_path / "dist", outputs=None)
    assert first.removed == ["old-chart.yaml"] and "team-namespaces.yaml" in first.added
    assert not [n for n in first.files if n.startswith("example-")]
    assert (tmp_path / "dist" / env / "example-sft.yaml").is_file()  # dist/<env>/ is written as by make synth
    assert f"+++ b/{platform_dir(path)}/team-namespaces.yaml" in first.diff
    assert first.unresolved
    with pytest.raises(gitops.GitOpsError, match=r"placeholders without a value: .*GITOPS_OUTPUTS"):
        gitops.write(first)
    # the outputs a deploy in argocd mode writes (cdk deploy --outputs-file): names from the synthesized template
    outputs = {
        argocd.stacks[stack].stack_name: {k: f"value-of-{k}" for k in t.get("Outputs", {})}
        for stack, t in argocd.templates.items()
    }
    second = gitops.plan(env, repo, dist=tmp_path / "dist", outputs=outputs)
    assert second.unresolved == []
    assert "${" not in "".join(second.files.values())
    gitops.write(second)
    assert not stale.exists()
    third = gitops.plan(env, repo, dist=tmp_path / "dist", outputs=outputs)
    assert not third.differs and third.diff == ""
    # every team job folder exists (.gitkeep) and the team's platform objects are in the team's folder
    from k8s_charts.gitops import KEEP_FILE

    for team in config_with(env).kubernetes.teams:
        assert (repo / team_jobs_dir(path, team.name) / KEEP_FILE).is_file()
        assert any(n.startswith(f"teams/{team.name}/") for n in third.files)
    # the teams' pipelines and jobs in the checkout are listed (what each team Application syncs)
    first_team, *other_teams = (t.name for t in config_with(env).kubernetes.teams)
    (repo / team_jobs_dir(path, first_team) / "pipeline-medical.yaml").write_text("kind: Workflow\n")
    listed = gitops.plan(env, repo, dist=tmp_path / "dist", outputs=outputs).team_files
    assert listed[first_team] == ["pipeline-medical.yaml"] and all(listed[t] == [] for t in other_teams)
    written = yaml.safe_load_all((repo / platform_dir(path) / "gpu-capacity.yaml").read_text())
    errors = [e for d in written if d for e in validate(d, config_with(env).compute.kubernetes_version)]
    assert errors == []


def test_make_gitops_cli_errors(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tools.gitops", "--env", "dev", "--repo", str(tmp_path / "none")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "is not a folder" in proc.stderr and "GITOPS_REPO" in proc.stderr


# ---- snapshot --------------------------------------------------------------------------------------------------
def test_argocd_mode_snapshot(argocd: Synth, snapshot) -> None:
    """The stacks argocd mode changes (compute: Argo CD, no platform charts; storage and mlflow: GitOps outputs),
    per variant, masked like tests/test_snapshots.py. Update after review: --snapshot-update."""
    from syrupy.extensions.json import JSONSnapshotExtension

    from .test_snapshots import mask

    variant = argocd.config.delivery.install
    for stack in ("compute", "storage", "mlflow"):
        assert mask(argocd.templates[stack]) == snapshot.use_extension(JSONSnapshotExtension)(
            name=f"prod-argocd-{variant}-{stack}"
        ), f"{variant} {stack} changed"


# ---- issue 33: what makes Argo CD really sync ------------------------------------------------------------------
def test_every_project_allows_the_namespace_of_its_applications(argocd: Synth) -> None:
    """EKS User Guide "Working with Argo CD Projects": with the managed capability `spec.sourceNamespaces` is
    required; an Application is refused unless its own namespace is in its project's list."""
    projects, apps = argo(argocd, "AppProject"), argo(argocd, "Application")
    for app in apps.values():
        project = projects[app["spec"]["project"]]
        assert app["metadata"]["namespace"] in project["spec"].get("sourceNamespaces", []), app["metadata"]["name"]


def test_team_applications_allow_empty_and_their_folders_stay(argocd: Synth, tmp_path: Path) -> None:
    """argo-cd v3.4.4 application CRD `syncPolicy.automated.allowEmpty`: without it automated sync never prunes a
    team's last job; `make gitops --write` keeps every team job folder with a file Argo CD does not read."""
    from k8s_charts.gitops import KEEP_FILE

    apps = argo(argocd, "Application")
    for team in argocd.config.kubernetes.teams:
        assert apps[team_project_name(team.name)]["spec"]["syncPolicy"]["automated"]["allowEmpty"] is True
    assert not KEEP_FILE.endswith((".yaml", ".yml", ".json"))  # the directory source's manifest extensions


def test_team_applications_leave_the_autoscaler_its_fields(argocd: Synth) -> None:
    """A serve job delivered through Git: KEDA's HPA owns the Deployment's replicas and `llmft port-forward` pins a
    sleeping endpoint with KEDA's paused-replicas annotation; self-heal must leave both (ignoreDifferences with
    RespectIgnoreDifferences), next to Kueue's suspension fields on every kind."""
    from k8s_charts.serving import KEDA_PAUSED_REPLICAS

    apps, checked = argo(argocd, "Application"), 0
    for team in argocd.config.kubernetes.teams:
        spec = apps[team_project_name(team.name)]["spec"]
        ignored = {(d["group"], d["kind"]): d["jqPathExpressions"] for d in spec["ignoreDifferences"]}
        if ("apps", "Deployment") not in ignored:
            continue  # a team whose Role cannot create Deployments delivers none
        checked += 1
        assert ".spec.replicas" in ignored[("apps", "Deployment")]
        assert f'.metadata.annotations["{KEDA_PAUSED_REPLICAS}"]' in ignored[("keda.sh", "ScaledObject")]
        assert all(".spec.suspend" in paths for paths in ignored.values())
        assert "RespectIgnoreDifferences=true" in spec["syncPolicy"]["syncOptions"]
    assert checked, "no team delivers serve jobs through Git"


def _project_permits(project: dict[str, Any], *, repo: str, namespace: str | None, group: str, kind: str) -> bool:
    """Whether an AppProject lets an Application sync one object (argo-cd v3.4.4 docs/user-guide/projects.md:
    the source repository must match `sourceRepos`, the destination namespace a `destinations` entry, a
    cluster-scoped kind `clusterResourceWhitelist`, a namespaced kind `namespaceResourceWhitelist` when set)."""
    spec = project["spec"]

    def match(pattern: str, value: str) -> bool:
        return pattern == "*" or pattern == value

    if not any(match(r, repo) for r in spec.get("sourceRepos", [])):
        return False
    if namespace is None:
        return any(
            match(w["group"], group) and match(w["kind"], kind) for w in spec.get("clusterResourceWhitelist") or []
        )
    if not any(match(d.get("namespace", ""), namespace) for d in spec.get("destinations", [])):
        return False
    whitelist = spec.get("namespaceResourceWhitelist")
    return whitelist is None or any(match(w["group"], group) and match(w["kind"], kind) for w in whitelist)


TEAM_REPO = "https://github.com/acme/ml-research-jobs.git"


def test_team_repository_separates_team_from_platform() -> None:
    """A team with its own repository: its project allows that repository only, the platform project never allows
    it, and nothing from a team's repository reaches another namespace or a cluster-scoped kind."""
    import cdk8s

    from k8s_charts.gitops import GitOpsChart

    config = config_with("prod", {"delivery": {**HELM["delivery"], "team_repositories": {"ml-research": TEAM_REPO}}})
    chart = GitOpsChart(cdk8s.App(), "g", config=config, values=PlatformValues.placeholders(config))
    projects = {d["metadata"]["name"]: d for d in chart.to_json() if d["kind"] == "AppProject"}
    platform = projects["platform"]
    teams = config.kubernetes.teams
    assert not _project_permits(platform, repo=TEAM_REPO, namespace="ml-research", group="", kind="ConfigMap")
    for team in teams:
        project = projects[team_project_name(team.name)]
        own = config.delivery.team_repository(team.name)
        assert project["spec"]["sourceRepos"] == [own]
        kinds = team_delivery_kinds(team_role_rules(team, PlatformValues.placeholders(config)))
        assert all(
            _project_permits(project, repo=own, namespace=team.namespace, group=k.group, kind=k.kind) for k in kinds
        )
        for other in teams:
            if other.name != team.name:
                assert not _project_permits(project, repo=own, namespace=other.namespace, group="", kind="ConfigMap")
        for group, kind in (
            ("", "Namespace"),
            ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
            ("kueue.x-k8s.io", "ClusterQueue"),
            ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ):
            assert not _project_permits(project, repo=own, namespace=None, group=group, kind=kind)
        for group, kind in (("rbac.authorization.k8s.io", "RoleBinding"), ("", "Secret"), ("", "ServiceAccount")):
            assert not _project_permits(project, repo=own, namespace=team.namespace, group=group, kind=kind)
    assert projects[team_project_name("hyperpod-platform")]["spec"]["sourceRepos"] == [REPO]


def test_team_repository_config_errors() -> None:
    config_fails(
        {"delivery": {**HELM["delivery"], "team_repositories": {"nobody": TEAM_REPO}}},
        r"team_repositories names nobody",
        r"kubernetes\.teams",
        env="prod",
    )
    config_fails(
        {"delivery": {**HELM["delivery"], "team_repositories": {"ml-research": REPO}}},
        r"names the platform repository",
        env="prod",
    )
    config_fails(
        {"delivery": {**HELM["delivery"], "capability_vpc_endpoints": ["vpce-0123456789abcdef0"]}},
        r"runs from the Helm chart",
        env="prod",
    )


def test_no_application_outgrows_the_capability_limit(tmp_path: Path) -> None:
    """EKS User Guide "Capability Kubernetes resources": at most 150 resources per Application. With eight teams the
    platform holds more than that in total; `make gitops` splits it so every Application's folder stays below."""
    from k8s_charts.gitops import MAX_RESOURCES_PER_APPLICATION, platform_objects, split_platform

    names = ["ml-research", "hyperpod-platform", *(f"team{i}" for i in range(6))]
    config = config_with(
        "prod",
        {**HELM, "kubernetes": {"teams": [{"name": n, "gpu_quota": 1, "allowed_tiers": ["research"]} for n in names]}},
    )
    values = PlatformValues.placeholders(config)
    docs = platform_objects(config, values)
    assert len(docs) > MAX_RESOURCES_PER_APPLICATION  # one platform Application would be refused
    folders: dict[str, int] = {}
    for rel, part in split_platform({"x.yaml": docs}, config.gitops_path, config.kubernetes.teams).items():
        folders[rel.rpartition("/")[0]] = folders.get(rel.rpartition("/")[0], 0) + len(part)
    assert sum(folders.values()) == len(docs)
    assert max(folders.values()) <= MAX_RESOURCES_PER_APPLICATION, folders
    # every folder is exactly one Application's source
    import cdk8s

    from k8s_charts.gitops import GitOpsChart

    chart = GitOpsChart(cdk8s.App(), "g", config=config, values=values)
    sources = {d["spec"]["source"]["path"] for d in chart.to_json() if d["kind"] == "Application"}
    assert set(folders) <= sources
    # the shared Application does not also read the team folders below it
    (platform,) = [d for d in chart.to_json() if d["kind"] == "Application" and d["metadata"]["name"] == "platform"]
    assert platform["spec"]["source"].get("directory", {}).get("recurse") is False


def test_capability_access_entry_gets_least_privilege_rbac(argocd: Synth) -> None:
    """EKS creates the capability role's access entry without Kubernetes permissions ("Register target clusters");
    the stack binds the entry's group `eks-access-entry:<role ARN>` to read everything and write exactly the kinds
    Argo CD applies: every platform object and every team delivery kind, no wildcard write."""
    from k8s_charts.gitops import managed_kinds, platform_objects, plural

    objects = kube_objects(argocd)
    roles = {
        d["metadata"]["name"]: d
        for d in objects
        if d["kind"] == "ClusterRole" and d["metadata"]["name"].startswith("llm-platform-argocd")
    }
    if argocd.config.delivery.install != "capability":
        assert not roles
        return
    (namespace,) = [d for d in objects if d["kind"] == "Namespace" and d["metadata"]["name"] == ARGOCD_NAMESPACE]
    assert "namespace" not in namespace["metadata"]
    bindings = [d for d in objects if d["kind"] == "ClusterRoleBinding" and d["roleRef"]["name"] in roles]
    assert {b["roleRef"]["name"] for b in bindings} == set(roles)
    for b in bindings:
        assert [s["name"] for s in b["subjects"]] == ["eks-access-entry:TOKEN"]  # the capability role's ARN
    write = roles["llm-platform-argocd-write"]["rules"]
    assert all("*" not in r["apiGroups"] + r["resources"] + r["verbs"] for r in write)
    values = PlatformValues.placeholders(argocd.config)
    for d in platform_objects(argocd.config, values):
        assert allows_create(write, d["apiVersion"].rpartition("/")[0], plural(d["kind"])), d["kind"]
    for team in argocd.config.kubernetes.teams:
        for k in team_delivery_kinds(team_role_rules(team, values)):
            assert allows_create(write, k.group, k.resource)
    assert not allows_create(write, "apiextensions.k8s.io", "customresourcedefinitions")
    assert not allows_create(write, "", "secrets")
    assert set(managed_kinds(argocd.config, values)) == {
        (r["apiGroups"][0], res) for r in write if "create" in r["verbs"] for res in r["resources"]
    }


def test_plural_is_the_served_resource_name() -> None:
    for (group, kind), crd in _crd_plurals().items():
        assert plural(kind) == crd, (group, kind)
    from k8s_charts.gitops import plural as p

    assert [p(k) for k in ("NetworkPolicy", "PriorityClass", "ResourceQuota", "LimitRange")] == [
        "networkpolicies",
        "priorityclasses",
        "resourcequotas",
        "limitranges",
    ]  # the core API's resource names


@functools.cache
def _crd_plurals() -> dict[tuple[str, str], str]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out = {}
    for path in sorted(CRD_DIR.glob("*.yaml")):
        for crd in (d for d in yaml.load_all(path.read_text(), Loader=loader) if d):
            out[(crd["spec"]["group"], crd["spec"]["names"]["kind"])] = crd["spec"]["names"]["plural"]
    return out


def plural(kind: str) -> str:  # noqa: F811 (the function under test, imported lazily)
    from k8s_charts.gitops import plural as p

    return p(kind)


def test_argocd_chart_components_have_requests(argocd: Synth) -> None:
    from cdk_constructs.compute.argo_cd import HELM_RESOURCES, helm_values

    values = helm_values({"role": "system"})
    disabled = {k for k, v in values.items() if isinstance(v, dict) and v.get("enabled") is False}
    assert {"controller", "repoServer", "server", "redis", "applicationSet"} <= set(HELM_RESOURCES)
    for component, resources in HELM_RESOURCES.items():
        assert component not in disabled
        assert {"cpu", "memory"} <= set(resources["requests"]), component
        assert values[component]["resources"] == resources


def test_capability_endpoint_private_with_vpc_endpoints() -> None:
    config = config_with(
        "prod", {"delivery": {**CAPABILITY["delivery"], "capability_vpc_endpoints": ["vpce-0123456789abcdef0"]}}
    )
    assert config.delivery.capability_vpc_endpoints == ("vpce-0123456789abcdef0",)
    config_fails(
        {"delivery": {**CAPABILITY["delivery"], "capability_vpc_endpoints": ["vpc-123"]}},
        r"not a VPC endpoint ID",
        r"eks-capabilities",
        env="prod",
    )


def test_switching_delivery_mode_neither_deletes_nor_collides() -> None:
    """cdk -> argocd removes the platform manifests from the template: RETAIN keeps CloudFormation from running
    `kubectl delete` on the team namespaces. argocd -> cdk applies onto what Argo CD left: overwrite (kubectl apply,
    not create) adopts instead of failing with AlreadyExists."""
    prod = synthesize("prod")
    manifests = [
        r
        for r in prod.resources("compute", "Custom::AWSCDK-EKS-KubernetesResource").values()
        if re.search(r"kind\W+Namespace\W", json.dumps(r["Properties"].get("Manifest", "")))
        and "platform/team" in json.dumps(r["Properties"].get("Manifest", ""))
    ]
    assert manifests
    for r in manifests:
        assert (
            r.get("DeletionPolicy") in ("Retain", "RetainExceptOnCreate") and r["Properties"].get("Overwrite") is True
        )
