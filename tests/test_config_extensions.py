"""The four everyday extensions, made to a temporary copy of config/ exactly as a platform engineer would edit the
YAML, then synthesized (cdk-nag and cfn-lint included), rendered to dist/ and put through the invariants every
shipped environment must hold (the three edits of one environment's file together, in one copy, as one change; the
new environment in another):

* a new team (``kubernetes.teams``),
* a new Karpenter GPU pool, L40S on spot (``kubernetes.gpu_node_pools``, plus a share for a team that may use it),
* a new environment ``staging`` in eu-west-1, a region the price table lacks, delivered by Argo CD,
* one environment moved one Kubernetes minor away from the others (``compute.kubernetes_version`` and
  ``compute.addons.kube_proxy``), the state in the middle of the upgrade runbook (docs/deploying.md).

No test or code file is edited for any of them: everything below is derived from the edited configuration.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from config import CONFIG_DIR, EnvironmentConfig, known_environments, load_config
from config.compute import KUBECTL_LAYER_VERSIONS
from config.instances import find_spec
from config.pricing import priced_regions
from k8s_charts.__main__ import write_dist
from k8s_charts.validation import kubernetes_schema_version, validate
from tools.cost.report import build_report, render

from .conftest import ROOT, Synth, synthesize_config
from .test_cost import baseline_entry
from .test_upgrade_path import minor, runbook_violations

pytestmark = pytest.mark.scenario  # docs/testing.md "Tiers"

STAGING, STAGING_REGION = "staging", "eu-west-1"
GITOPS_REPO = "https://github.com/acme/platform-gitops.git"


# ---- the edits ---------------------------------------------------------------------------------------------------
def _read(folder: Path, env: str) -> dict[str, Any]:
    return yaml.safe_load((folder / f"{env}.yaml").read_text())


def _write(folder: Path, env: str, data: dict[str, Any]) -> None:
    (folder / f"{env}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def _moved(data: Any, old: str, new: str) -> Any:
    """``data`` with every string naming region ``old`` renamed to ``new`` (AZs, certificate ARN, ...)."""
    if isinstance(data, dict):
        return {k: _moved(v, old, new) for k, v in data.items()}
    if isinstance(data, list):
        return [_moved(v, old, new) for v in data]
    return data.replace(old, new) if isinstance(data, str) else data


def _fresh_name(taken: set[str], stem: str) -> str:
    return next(n for i in range(100) if (n := f"{stem}{i or ''}") not in taken)


def add_team(folder: Path, env: str) -> str:
    data = _read(folder, env)
    teams = data["kubernetes"]["teams"]
    name = _fresh_name({t["name"] for t in teams}, "nlp-eval")
    ids = {t.get(k) for t in teams for k in ("posix_uid", "posix_gid")}
    uid = max(i for i in ids if i) + 1
    pool = next(p for p in data["kubernetes"]["gpu_node_pools"] if p["capacity_type"] == "spot")
    teams.append(
        {
            "name": name,
            "gpu_quota": 4,
            "gpu_shares": {pool["name"]: 4},
            "allowed_tiers": ["research"],
            "posix_uid": uid,
            "posix_gid": uid,
        }
    )
    _write(folder, env, data)
    return name


def add_l40s_spot_pool(folder: Path, env: str) -> str:
    data = _read(folder, env)
    pools = data["kubernetes"]["gpu_node_pools"]
    name = _fresh_name({p["name"] for p in pools}, "l40s-spot")
    # the largest L40S instance the instance table knows with 4 GPUs: g6e.12xlarge (gpu_type l40s)
    pools.append(
        {
            "name": name,
            "instance_types": ["g6e.12xlarge"],
            "capacity_type": "spot",
            "gpu_limit": 8,
            "weight": min(p.get("weight", 10) for p in pools) - 1,
        }
    )
    team = next(t for t in data["kubernetes"]["teams"] if "research" in t.get("allowed_tiers", []))
    team["gpu_shares"] = {**team.get("gpu_shares", {}), name: 4}
    team["gpu_quota"] = team["gpu_quota"] + 4  # the share is on top of what the team already had
    budget = data.get("cost", {}).get("max_burst_usd_per_hour")
    if budget is not None:  # the pool's spend fits: raise the budget by the pool's worst case (8 GPUs at <= $5/h)
        data["cost"]["max_burst_usd_per_hour"] = budget + 40
    _write(folder, env, data)
    return name


def add_staging(folder: Path, base: str) -> str:
    data = _moved(_read(folder, base), load_config(base).region, STAGING_REGION)
    data.setdefault("tags", {})["environment"] = STAGING
    data["delivery"] = {"mode": "argocd", "repository": GITOPS_REPO, "argocd": "helm"}
    _write(folder, STAGING, data)
    return STAGING


def move_kubernetes_minor(folder: Path, env: str) -> str | None:
    """``env`` to the next pinned minor if there is one, else the previous one (dev upgraded, prod not yet)."""
    data = _read(folder, env)
    current = load_config(env).compute.kubernetes_version
    pinned = sorted(KUBECTL_LAYER_VERSIONS, key=minor)
    i = pinned.index(current)
    if len(pinned) < 2:
        return None  # the app pins one Kubernetes minor: there is no other to move to (its test says so)
    target = pinned[i + 1] if i + 1 < len(pinned) else pinned[i - 1]
    compute = data.setdefault("compute", {})
    compute["kubernetes_version"] = target
    # kube-proxy carries the cluster's minor (runbook step 2); the patch and build stay as shipped
    proxy = load_config(env).compute.addons.kube_proxy
    compute.setdefault("addons", {})["kube_proxy"] = re.sub(r"^v\d+\.\d+", f"v{target}", proxy)
    _write(folder, env, data)
    return target


# ---- the invariants ------------------------------------------------------------------------------------------------
def check_environment(synth: Synth, dist: Path, others: dict[str, EnvironmentConfig]) -> None:
    """What every environment must hold, derived from its configuration."""
    cfg = synth.config
    assert synth.error is None, synth.error  # cdk-nag: no unacknowledged finding
    assert set(synth.templates) == set(synth.stacks)
    # cfn-lint, as tests/test_compliance.py runs it on the shipped environments
    templates = sorted(str(synth.outdir / s.template_file) for s in synth.stacks.values())
    lint = subprocess.run(
        [str(Path(sys.executable).with_name("cfn-lint")), "--format", "parseable", *templates],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )  # ROOT: .cfnlintrc.yaml
    assert lint.returncode == 0 and not lint.stdout.strip(), f"cfn-lint findings:\n{lint.stdout}{lint.stderr}"
    # every manifest is valid against the vendored CRDs and the cluster's Kubernetes version
    docs = {f.name: [d for d in yaml.safe_load_all(f.read_text()) if d] for f in dist.glob("*.yaml")}
    version = kubernetes_schema_version(cfg.compute.kubernetes_version)
    errors = [e for file_docs in docs.values() for d in file_docs for e in validate(d, version)]
    assert errors == []
    objects = [d for file_docs in docs.values() for d in file_docs]

    def named(kind: str) -> dict[str, dict[str, Any]]:
        return {d["metadata"]["name"]: d for d in objects if d["kind"] == kind}

    # every team: its namespace, quota and queues; every GPU pool: a NodePool with the configured weight and labels
    for team in cfg.kubernetes.teams:
        assert team.namespace in named("Namespace")
        assert any(d["kind"] == "ResourceQuota" and d["metadata"]["namespace"] == team.namespace for d in objects)
        assert any(d["kind"] == "LocalQueue" and d["metadata"]["namespace"] == team.namespace for d in objects)
    pools = named("NodePool")
    for pool in cfg.kubernetes.gpu_node_pools:
        spec = pools[pool.name]["spec"]
        assert spec["weight"] == pool.weight
        assert spec["template"]["metadata"]["labels"]["gpu-type"] == find_spec(pool.instance_types[0]).gpu_type
        assert pool.name in named("ResourceFlavor")
    # the cluster runs the configured version, and the environments follow the upgrade runbook
    clusters = [
        r
        for t in synth.templates.values()
        for r in t["Resources"].values()
        if r["Type"] in ("AWS::EKS::Cluster", "Custom::AWSCDK-EKS-Cluster")
    ]
    assert [c["Properties"].get("Version", c["Properties"].get("Config", {}).get("version")) for c in clusters] == [
        cfg.compute.kubernetes_version
    ]
    assert runbook_violations({**others, cfg.name: cfg}) == []
    # cost: complete where the region is priced, otherwise every GPU pool is named unpriced (never counted as $0)
    templates = {s.stack_name: synth.templates[k] for k, s in synth.stacks.items()}
    report = build_report(cfg.name, cfg.region, templates, dist)
    if cfg.region in priced_regions():
        assert report.max_burst_complete and not report.unpriced
        assert {b.name for b in report.burst} == {p.name for p in cfg.kubernetes.gpu_node_pools}
        assert report.max_burst_per_hour <= (cfg.cost.max_burst_usd_per_hour or float("inf"))
    else:
        assert not report.max_burst_complete and "INCOMPLETE" in render(report)
        assert {u.resource for u in report.unpriced if u.type == "NodePool"} >= {
            p.name for p in cfg.kubernetes.gpu_node_pools
        }
    # `make snapshots` pins it as unpriced, never as $0 totals
    entry = baseline_entry(report, cfg.region)
    assert ("unpriced_region" in entry) == (cfg.region not in priced_regions())
    assert "unpriced_region" not in entry or not [v for v in entry.values() if isinstance(v, (int, float))]


# The three edits of one environment's file are made together, as a platform engineer's change often is (and as
# issue 45's combined trial was): one copy of config/, one synthesis, every invariant; the new environment is its own.
SCENARIOS = {"edits": ("team", "pool", "kubernetes-minor"), "environment": ("environment",)}
EDITS = {"team": add_team, "pool": add_l40s_spot_pool, "kubernetes-minor": move_kubernetes_minor}


@pytest.fixture(scope="module")
def scenario(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Synth, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("config")
    for path in CONFIG_DIR.glob("*.yaml"):
        shutil.copyfile(path, folder / path.name)
    env = known_environments()[0]
    details: dict[str, Any] = {}
    if request.param == "environment":
        env = details["environment"] = add_staging(folder, env)
    else:
        for kind in SCENARIOS[request.param]:
            details[kind] = EDITS[kind](folder, env)
    configs = {name: load_config(name, config_dir=folder) for name in known_environments(folder)}
    synth = synthesize_config(configs[env])
    dist = write_dist(env, tmp_path_factory.mktemp("dist"), config=configs[env])[0].parent
    check_environment(synth, dist, {n: c for n, c in configs.items() if n != env})
    return synth, details


@pytest.mark.parametrize(
    ("scenario", "kind"),
    [(name, kind) for name, kinds in SCENARIOS.items() for kind in kinds],
    indirect=["scenario"],
    scope="module",  # one synthesis per scenario (without it the parameters would be function-scoped)
    ids=[kind for kinds in SCENARIOS.values() for kind in kinds],
)
def test_extension_synthesizes_and_holds_every_invariant(scenario: tuple[Synth, dict[str, Any]], kind: str) -> None:
    synth, details = scenario
    detail = details[kind]
    cfg = synth.config
    if kind == "team":
        assert detail in {t.name for t in cfg.kubernetes.teams}
        roles = [r for r in synth.templates["compute"]["Resources"].values() if r["Type"] == "AWS::IAM::Role"]
        assert any(
            detail in str(r["Properties"].get("RoleName", "")) or detail in str(r["Properties"]) for r in roles
        ), "the new team gets its own role"
    elif kind == "pool":
        assert find_spec("g6e.12xlarge").gpu_type == "l40s"
        assert detail in {p.name for p in cfg.kubernetes.gpu_node_pools}
    elif kind == "environment":
        assert (cfg.name, cfg.region, cfg.delivery.mode) == (STAGING, STAGING_REGION, "argocd")
        assert STAGING_REGION not in priced_regions()
        # Argo CD: one AppProject and Application per team (their namespace only), and the platform Application
        from k8s_charts.gitops import platform_team_application_name, team_project_name

        from .test_gitops import argo

        projects, apps = argo(synth, "AppProject"), argo(synth, "Application")
        for team in cfg.kubernetes.teams:
            project = projects[team_project_name(team.name)]["spec"]
            assert [d["namespace"] for d in project["destinations"]] == [team.namespace]
            assert apps[team_project_name(team.name)]["spec"]["source"]["repoURL"] == GITOPS_REPO
        for team in cfg.kubernetes.teams:  # the team's platform objects in their own Application (EKS limits)
            assert platform_team_application_name(team.name) in apps
        assert len(apps) == 2 * len(cfg.kubernetes.teams) + 1
    else:
        if detail is None:
            pytest.skip("the app pins one Kubernetes minor: there is no other to move to")
        assert cfg.compute.kubernetes_version == detail
