"""The team storage contract (k8s_charts/team_storage.py): config rules for the teams' POSIX identities, the FSx
directories Job, the teams' volumes and the pods' security context. All expectations come from the config."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cdk_constructs.compute.fsx_directories import NAMESPACE, partition_script
from config import ConfigError
from config.kubernetes import MAX_TEAMS, TeamConfig, default_team_posix_id
from k8s_charts.team_storage import (
    TEAM_DIR_MODE,
    TEAM_MOUNT_PATH,
    TOP_LEVEL_DIRS,
    USER_DIR_MODE,
    Directory,
    platform_directories,
    team_paths,
    team_security_context_json,
)

from .conftest import ENVIRONMENTS, Synth, config_with


def _teams(*teams: dict) -> dict:
    return {"kubernetes": {"teams": list(teams)}}


SHIPPED = (
    {"name": "ml-research", "posix_uid": 5001, "posix_gid": 5001},
    {"name": "hyperpod-platform", "posix_uid": 5002, "posix_gid": 5002},
)


# ---- config ----------------------------------------------------------------------------------------------------------


def test_shipped_teams_have_distinct_identities() -> None:
    for env in ENVIRONMENTS:
        teams = config_with(env).kubernetes.teams
        assert len({t.posix_uid for t in teams}) == len({t.posix_gid for t in teams}) == len(teams)


def test_default_identity_is_stable_and_outside_studio_uids() -> None:
    team = TeamConfig(name="ml-vision")
    assert team.posix_uid == team.posix_gid == default_team_posix_id("ml-vision")
    assert TeamConfig(name="ml-vision").posix_uid == team.posix_uid
    assert 5000 <= team.posix_uid < 10000


@pytest.mark.parametrize("uid", [0, 999, 10000, 200001])
def test_team_uid_outside_range(uid: int) -> None:
    with pytest.raises(ConfigError, match=rf"kubernetes\.teams\[\]\.posix_uid {uid} is outside 1000-9999"):
        config_with("dev", _teams({**SHIPPED[0], "posix_uid": uid}, SHIPPED[1]))


def test_studio_range_uid_message_says_why() -> None:
    with pytest.raises(ConfigError, match=r"SageMaker Studio's uid range: a Studio user could own the team's files"):
        config_with("dev", _teams({**SHIPPED[0], "posix_uid": 200001}, SHIPPED[1]))


@pytest.mark.parametrize("gid", [0, 1000, 4000001])
def test_team_gid_outside_range(gid: int) -> None:
    with pytest.raises(ConfigError, match=rf"kubernetes\.teams\[\]\.posix_gid {gid} is outside 1001-4000000"):
        config_with("dev", _teams({**SHIPPED[0], "posix_gid": gid}, SHIPPED[1]))


@pytest.mark.parametrize("attr", ["posix_uid", "posix_gid"])
def test_team_identities_unique(attr: str) -> None:
    with pytest.raises(
        ConfigError,
        match=rf"kubernetes\.teams\[hyperpod-platform\]\.{attr} 5001 is already the "
        rf"{attr} of team 'ml-research'",
    ):
        config_with("dev", _teams(SHIPPED[0], {**SHIPPED[1], attr: 5001}))


def test_at_most_eight_teams() -> None:
    teams = [{"name": f"team-{i}", "posix_uid": 6000 + i, "posix_gid": 6000 + i} for i in range(MAX_TEAMS + 1)]
    with pytest.raises(ConfigError, match=r"kubernetes\.teams lists 9 teams; .* at most 8 per file system"):
        config_with("dev", {"kubernetes": {"teams": teams}, "studio": {"user_profiles": []}})


# ---- the directories Job ---------------------------------------------------------------------------------------------


def _manifests(resources: dict[str, Any]) -> list[dict[str, Any]]:
    from .test_studio_stack import flatten

    docs = []
    for r in resources.values():
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource":
            docs += json.loads(re.sub(r"<TOKEN>", "TOKEN", flatten(r["Properties"]["Manifest"])))
    return docs


def expected_directories(synth: Synth) -> dict[str, tuple[int, int, str]]:
    """What the config says must exist on the file system: path -> (uid, gid, mode)."""
    cfg = synth.config
    out = {"/teams": (0, 0, "0755")}
    for team in cfg.kubernetes.teams:
        for d in ("", *(f"/{n}" for n in ("datasets", "models", "checkpoints", "outputs", "hf-cache", "users"))):
            out[f"/teams/{team.name}{d}"] = (team.posix_uid, team.posix_gid, "2770")
        if cfg.studio.fsx_mode == "per-user":
            for p in cfg.studio.user_profiles:
                if p.team == team.name:
                    out[f"/teams/{team.name}/users/{p.name}"] = (cfg.studio.uid_of(p), team.posix_gid, "0700")
    return out


def test_directories_job_creates_every_team_tree(env_synth: Synth) -> None:
    docs = _manifests(env_synth.templates["compute"]["Resources"])
    job = next(d for d in docs if d["kind"] == "Job" and d["metadata"]["namespace"] == NAMESPACE)
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    created = {
        m.group(1): (int(m.group(2)), int(m.group(3)), m.group(4))
        for m in re.finditer(r"^reconcile (\S+) (\d+) (\d+) (\d+) ", script, re.M)
    }
    assert created == expected_directories(env_synth)
    assert [(d.path, d.uid, d.gid, d.mode) for d in platform_directories(env_synth.config)] == [
        (p, *v) for p, v in expected_directories(env_synth).items()
    ]


def _run(script: str) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=False)


def _owner(path: Path) -> tuple[int, int, int]:
    st = path.lstat()
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to other uids needs root (the Job runs as root)")


@needs_root
def test_partition_script_creates_reconciles_and_never_deletes(tmp_path: Path) -> None:
    """Runs the real script as root with the real mkdir/chown/chmod, twice (idempotent)."""
    root = tmp_path / "fsx"
    (root / "teams" / "a" / "datasets").mkdir(parents=True)
    (root / "teams" / "a" / "datasets" / "train.jsonl").write_text("{}")
    (root / "teams" / "removed").mkdir()
    dirs = [
        Directory("/teams", 0, 0, "0755"),
        Directory("/teams/a", 5001, 5001, TEAM_DIR_MODE),
        Directory("/teams/a/datasets", 5001, 5001, TEAM_DIR_MODE),
        Directory("/teams/a/users/alice", 200001, 5001, USER_DIR_MODE),
    ]
    script = partition_script(dirs, root=str(root))
    for _ in range(2):
        proc = _run(script)
        assert proc.returncode == 0, proc.stderr
    assert (root / "teams" / "a" / "datasets" / "train.jsonl").read_text() == "{}"
    assert (root / "teams" / "removed").is_dir()
    assert _owner(root / "teams" / "a") == (5001, 5001, 0o2770)
    assert _owner(root / "teams" / "a" / "users" / "alice") == (200001, 5001, 0o700)
    assert _owner(root / "teams" / "a" / "users") == (0, 0, 0o755) or (root / "teams" / "a" / "users").is_dir()
    assert (root / "teams" / "a" / "datasets" / "train.jsonl").stat().st_uid == 0  # never recursive
    assert "4 directories reconciled" in proc.stdout and f"ok {root}/teams/a 5001:5001 2770" in proc.stdout


@needs_root
@pytest.mark.parametrize("attack", ["leaf", "team-root", "dangling", "file"])
def test_partition_script_never_follows_a_symlink(tmp_path: Path, attack: str) -> None:
    """Issue 21's lockout: a member of team a replaces a directory of its tree with a symbolic link to team b's tree;
    the next two runs of the Job must leave b's tree (and what the link points at) with its owner and mode, refuse
    the path loudly, and still reconcile every other directory."""
    root = tmp_path / "fsx"
    root.mkdir()  # the mount point
    dirs = [Directory("/teams", 0, 0, "0755")]
    for name, uid in (("a", 5001), ("b", 5002)):
        dirs += [
            Directory(f"/teams/{name}", uid, uid, TEAM_DIR_MODE),
            Directory(f"/teams/{name}/models", uid, uid, TEAM_DIR_MODE),
            Directory(f"/teams/{name}/users/u{name}", 200000 + uid, uid, USER_DIR_MODE),
        ]
    script = partition_script(dirs, root=str(root))
    assert _run(script).returncode == 0
    before = {p: _owner(p) for p in root.rglob("*")}
    b = root / "teams" / "b"
    victim = root / "teams" / "a" / "models"
    victim.rmdir()
    if attack == "leaf":  # teams/a/models -> ../b (the reproduction in the issue)
        victim.symlink_to("../b")
        refused = "/teams/a/models"
    elif attack == "team-root":  # a link in the middle of a path: teams/a/users -> ../b/users
        shutil.rmtree(root / "teams" / "a" / "users")
        (root / "teams" / "a" / "users").symlink_to("../b/users")
        victim.mkdir()
        refused = "/teams/a/users/ua"
    elif attack == "dangling":  # a link to where b's tree would be created
        victim.symlink_to("../b/new")
        refused = "/teams/a/models"
    else:  # a plain file where a directory belongs
        victim.write_text("x")
        refused = "/teams/a/models"
    for _ in range(2):
        proc = _run(script)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert f"REFUSED {root}{refused}" in proc.stderr and "directories refused" in proc.stderr
    for path, owner in before.items():
        if path.is_relative_to(b):
            assert _owner(path) == owner, path  # b's tree: owner and mode untouched
    assert _owner(b) == (5002, 5002, 0o2770) and _owner(b / "models") == (5002, 5002, 0o2770)
    assert not (b / "new").exists()
    assert f"ok {root}/teams/b/models 5002:5002 2770" in proc.stdout  # the rest is still reconciled
    if attack != "team-root":
        assert (root / "teams" / "a" / "models").is_symlink() or attack == "file"  # refused, not repaired


@pytest.mark.parametrize(
    "bad",
    [
        Directory("/../etc", 1, 1, "0755"),
        Directory("/a b", 1, 1, "0755"),
        Directory("relative", 1, 1, "0755"),
        Directory("/ok", 1, 1, "rwx"),
        Directory("/a;rm", 1, 1, "0755"),
    ],
)
def test_partition_script_refuses_unsafe_values(bad: Directory) -> None:
    with pytest.raises(ValueError):
        partition_script([bad])


# ---- volumes and pods ------------------------------------------------------------------------------------------------


def test_layout_is_the_contract() -> None:
    paths = team_paths()
    assert paths.root == TEAM_MOUNT_PATH == "/fsx"
    assert (paths.datasets, paths.models, paths.checkpoints, paths.outputs, paths.hf_cache, paths.user("x")) == (
        "/fsx/datasets",
        "/fsx/models",
        "/fsx/checkpoints",
        "/fsx/outputs",
        "/fsx/hf-cache",
        "/fsx/users/x",
    )
    assert TOP_LEVEL_DIRS == ("datasets", "models", "checkpoints", "outputs", "hf-cache", "users")


def test_security_context_is_the_teams_identity() -> None:
    team = TeamConfig(name="ml-vision", posix_uid=7001, posix_gid=7002)
    ctx = team_security_context_json(team)
    assert (ctx["runAsUser"], ctx["runAsGroup"], ctx["fsGroup"], ctx["runAsNonRoot"]) == (7001, 7002, 7002, True)


# ---- the identity policy, evaluated (CEL) ----------------------------------------------------------------------------


def _policy_rules(dist_docs: list[dict[str, Any]], namespace: str) -> list[dict[str, str]]:
    binding = next(
        d
        for d in dist_docs
        if d["kind"] == "ValidatingAdmissionPolicyBinding"
        and d["spec"]["matchResources"]["namespaceSelector"].get("matchLabels", {}).get("kubernetes.io/metadata.name")
        == namespace
    )
    assert binding["spec"]["validationActions"] == ["Deny"]
    policy = next(
        d
        for d in dist_docs
        if d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == binding["spec"]["policyName"]
    )
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert {"pods", "pods/ephemeralcontainers"} <= set(
        policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"]
    )
    return policy["spec"]["validations"]


def _admits(rules: list[dict[str, str]], pod_spec: dict[str, Any]) -> list[str]:
    """The messages of the rules ``pod_spec`` violates (empty: admitted), evaluated with a CEL interpreter."""
    import celpy

    from .cel import program

    activation = {"object": celpy.json_to_cel({"apiVersion": "v1", "kind": "Pod", "spec": pod_spec})}
    return [r["message"] for r in rules if not program(r["expression"]).evaluate(activation)]


@pytest.fixture(scope="module")
def dist_docs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    import yaml

    from k8s_charts.__main__ import write_dist

    out = tmp_path_factory.mktemp("dist")
    return {
        env: [d for f in write_dist(env, out) for d in yaml.safe_load_all(f.read_text()) if d] for env in ENVIRONMENTS
    }


def _job_pods(docs: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    from k8s_charts.validation import embedded_pod_templates

    return [
        (d["metadata"]["namespace"], tpl["spec"])
        for d in docs
        if d["kind"] in ("PyTorchJob", "RayJob")
        for _, tpl in embedded_pod_templates(d)
    ]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_job_pod_is_admitted_in_its_namespace_only(dist_docs, env: str) -> None:
    docs = dist_docs[env]
    teams = [t.namespace for t in config_with(env).kubernetes.teams]
    pods = _job_pods(docs)
    assert pods
    for namespace, spec in pods:
        assert _admits(_policy_rules(docs, namespace), spec) == []
        for other in set(teams) - {namespace}:  # the same pod submitted into another team's namespace
            assert _admits(_policy_rules(docs, other), spec), f"{other} admits a pod of {namespace}"


MUTATIONS = {
    "no pod securityContext": lambda s: s.pop("securityContext"),
    "pod runs as root": lambda s: s["securityContext"].update(runAsUser=0),
    "pod picks another uid": lambda s: s["securityContext"].update(runAsUser=5002),
    "pod picks another gid": lambda s: s["securityContext"].update(runAsGroup=5002),
    "other fsGroup": lambda s: s["securityContext"].update(fsGroup=5002),
    "extra supplemental group": lambda s: s["securityContext"].update(supplementalGroups=[5001, 5002]),
    "container overrides uid": lambda s: s["containers"][0]["securityContext"].update(runAsUser=200001),
    "container overrides gid": lambda s: s["containers"][0]["securityContext"].update(runAsGroup=0),
    "init container overrides uid": lambda s: s.update(
        initContainers=[{"name": "i", "image": "x", "securityContext": {"runAsUser": 5002}}]
    ),
    "ephemeral container overrides uid": lambda s: s.update(
        ephemeralContainers=[{"name": "d", "image": "x", "securityContext": {"runAsUser": 1}}]
    ),
    "inline FSx CSI volume": lambda s: s["volumes"].append(
        {"name": "root", "csi": {"driver": "fsx.csi.aws.com", "volumeAttributes": {"dnsname": "fs", "mountname": "m"}}}
    ),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_a_pod_that_leaves_the_team_identity_is_refused(dist_docs, mutation: str) -> None:
    import copy

    docs = dist_docs["dev"]
    namespace, spec = next((ns, s) for ns, s in _job_pods(docs) if ns == "ml-research")
    assert config_with("dev").kubernetes.team("ml-research").posix_uid == 5001  # the mutations assume it
    bad = copy.deepcopy(spec)
    MUTATIONS[mutation](bad)
    assert _admits(_policy_rules(docs, namespace), bad), f"admitted: {mutation}"
