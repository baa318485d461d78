"""Kubernetes config section: teams, tiers and their validation messages."""

from __future__ import annotations

import re

import pytest

from config import ConfigError, load_config
from config.kubernetes import TIER_PRIORITY_CLASSES

from .conftest import ENVIRONMENTS, config_with, raw_config

# the shipped teams by name (other sections, Studio, refer to them)
SHIPPED_TEAMS = [{"name": t.name} for t in load_config("dev").kubernetes.teams]


def _teams(*teams: dict) -> dict:
    return {"kubernetes": {"teams": list(teams)}}


def test_shipped_teams() -> None:
    """Every team of every environment: its own S3 prefix, and only its tiers' PriorityClasses (no `critical`
    without the production tier)."""
    for env in ENVIRONMENTS:
        teams = load_config(env).kubernetes.teams
        assert teams and len({t.name for t in teams}) == len(teams)
        for team in teams:
            assert team.data_prefix == f"teams/{team.name}/"
            assert set(team.allowed_priority_classes) == {
                pc for tier in team.allowed_tiers for pc in TIER_PRIORITY_CLASSES[tier]
            }
            assert ("critical" in team.allowed_priority_classes) == ("production" in team.allowed_tiers)


def test_priority_classes_follow_tiers() -> None:
    team = config_with(
        "dev", _teams(*SHIPPED_TEAMS, {"name": "hyperpod-a", "allowed_tiers": ["research", "production", "experiment"]})
    )
    assert team.kubernetes.team("hyperpod-a").allowed_priority_classes == ("critical", "medium", "low", "preemptible")


def test_unknown_team_lookup() -> None:
    teams = load_config("dev").kubernetes.teams
    with pytest.raises(ValueError, match=rf"unknown team 'nope'; known teams .*{', '.join(t.name for t in teams)}"):
        load_config("dev").kubernetes.team("nope")


@pytest.mark.parametrize("name", ["ML-Research", "team_a", "-a", "a-", "a" * 64, ""])
def test_namespace_must_be_dns1123(name: str) -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.teams\[\].name .* is not a DNS-1123 label"):
        config_with("dev", _teams({"name": name}))


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public", "karpenter", "kubeflow"])
def test_namespace_must_not_be_a_system_namespace(name: str) -> None:
    with pytest.raises(ConfigError, match=rf"kubernetes.teams\[\].name '{name}' is a system namespace"):
        config_with("dev", _teams({"name": name}))


def test_unknown_tier() -> None:
    with pytest.raises(ConfigError, match=r"allowed_tiers \['gold'\] are not job tiers; use any of production"):
        config_with("dev", _teams({"name": "a", "allowed_tiers": ["research", "gold"]}))


def test_empty_and_duplicate_tiers() -> None:
    with pytest.raises(ConfigError, match="allowed_tiers is empty"):
        config_with("dev", _teams({"name": "a", "allowed_tiers": []}))
    with pytest.raises(ConfigError, match="lists a tier twice"):
        config_with("dev", _teams({"name": "a", "allowed_tiers": ["research", "research"]}))


def test_negative_gpu_quota() -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.teams.0.gpu_quota: .*greater than or equal to 0"):
        config_with("dev", _teams({"name": "a", "gpu_quota": -1}))


def test_duplicate_team_names() -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.teams names \['a'\] appear more than once"):
        config_with("dev", _teams({"name": "a"}, {"name": "a"}))


@pytest.mark.parametrize("prefix", ["/teams/a/", "teams/a", "teams//a/", "teams/a b/"])
def test_bad_s3_prefix(prefix: str) -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.teams\[\].s3_prefix .* is not a key prefix"):
        config_with("dev", _teams({"name": "a", "s3_prefix": prefix}))


def test_overlapping_s3_prefixes() -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.teams\[b\].s3_prefix 'teams/a/b/' lies inside team 'a'"):
        config_with("dev", _teams({"name": "a"}, {"name": "b", "s3_prefix": "teams/a/b/"}))


def test_unknown_team_key() -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.teams.0.gpus: unknown key \(value 4\)"):
        config_with("dev", _teams({"name": "a", "gpus": 4}))


# ---- priority classes ----------------------------------------------------------------------------------------
def _classes(**changes: dict) -> dict:
    base = [
        {"name": p.name, "value": p.value, "description": p.description}
        for p in load_config("dev").kubernetes.priority_classes
    ]
    for item in base:
        item.update(changes.get(item["name"], {}))
    return {"kubernetes": {"priority_classes": base}}


def test_priority_value_above_one_billion() -> None:
    with pytest.raises(
        ConfigError,
        match=r"kubernetes.priority_classes\[\].value 1,000,000,001 is out of range; "
        r"user-defined PriorityClasses must be between",
    ):
        config_with("dev", _classes(critical={"value": 1_000_000_001}))


def test_priority_value_duplicated() -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.priority_classes values \[600000\] are duplicated"):
        config_with("dev", _classes(high={"value": 600_000}))


def test_priority_class_name_duplicated_or_missing() -> None:
    with pytest.raises(ConfigError, match=r"kubernetes.priority_classes names \['medium'\] are duplicated"):
        config_with("dev", _classes(high={"name": "medium"}))
    with pytest.raises(ConfigError, match=r"kubernetes.priority_classes lacks \['high'\], which the job tiers use"):
        config_with("dev", _classes(high={"name": "urgent"}))


def test_priority_class_reserved_prefix_and_policy() -> None:
    with pytest.raises(ConfigError, match=r"'system-x' uses the reserved 'system-' prefix"):
        config_with("dev", _classes(low={"name": "system-x"}))
    with pytest.raises(ConfigError, match=r"preemption_policy: Input should be 'PreemptLowerPriority' or 'Never'"):
        config_with("dev", _classes(low={"preemption_policy": "Sometimes"}))


# ---- GPU node pools ------------------------------------------------------------------------------------------
def _pool(**changes) -> dict:
    pool = {
        "name": "h100-on-demand",
        "instance_types": ["p5.48xlarge"],
        "capacity_type": "on-demand",
        "gpu_limit": 16,
        "weight": 50,
        "efa": True,
    }
    spot = {
        "name": "a100-spot",
        "instance_types": ["p4d.24xlarge"],
        "capacity_type": "spot",
        "gpu_limit": 16,
        "weight": 40,
    }
    # dev's other pools as configured (a team's gpu_shares may name them)
    others = [
        p for p in raw_config("dev")["kubernetes"]["gpu_node_pools"] if p["name"] not in {pool["name"], spot["name"]}
    ]
    return {"kubernetes": {"gpu_node_pools": [{**pool, **changes}, spot, *others]}}


def test_shipped_pools() -> None:
    dev, prod = load_config("dev").kubernetes, load_config("prod").kubernetes
    assert {(p.gpu_type, p.capacity_type) for p in dev.gpu_node_pools} >= {("h100", "on-demand"), ("a100", "spot")}
    assert {(p.gpu_type, p.capacity_type) for p in prod.gpu_node_pools} >= {("h100", "on-demand"), ("a100", "spot")}
    assert all(p.efa for p in dev.gpu_node_pools if p.gpu_type == "h100")


def test_efa_on_non_efa_family() -> None:
    with pytest.raises(
        ConfigError,
        match=r"kubernetes.gpu_node_pools\[h100-on-demand\].efa is true but "
        r"\['g5.2xlarge'\] do not support EFA",
    ):
        config_with("dev", _pool(instance_types=["g5.2xlarge"], gpu_limit=4))


@pytest.mark.parametrize("field", ["consolidate_after", "expire_after", "termination_grace_period"])
@pytest.mark.parametrize("value", ["30 minutes", "1d", "10", "-5m", "1.5h"])
def test_non_go_duration(field: str, value: str) -> None:
    with pytest.raises(
        ConfigError,
        match=rf"kubernetes.gpu_node_pools\[\].{field} '{re.escape(value)}' is not a "
        rf"duration; use a Go duration",
    ):
        config_with("dev", _pool(**{field: value}))


def test_never_is_allowed_except_for_grace_period() -> None:
    assert config_with("dev", _pool(expire_after="Never")).kubernetes.gpu_node_pools[0].expire_after == "Never"
    with pytest.raises(ConfigError, match=r"termination_grace_period 'Never' is not a duration"):
        config_with("dev", _pool(termination_grace_period="Never"))


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"weight": 40}, r"kubernetes.gpu_node_pools weights \[40, 40[^]]*\] repeat"),
        ({"weight": 0}, r"weight 0 is outside 1-100"),
        ({"name": "a100-spot"}, r"kubernetes.gpu_node_pools names .* repeat"),
        ({"capacity_type": "spot"}, r"kubernetes.gpu_node_pools has no on-demand pool; the development tier needs one"),
        ({"gpu_limit": 4}, r"gpu_limit 4 is below the 8 GPUs of its smallest instance type"),
        ({"instance_types": ["p5.48xlarge", "p4d.24xlarge"]}, r"mix GPU types \['a100', 'h100'\]"),
        ({"instance_types": ["ml.p5.48xlarge"]}, r"name HyperPod \(ml.\) types"),
        ({"instance_types": ["p9.96xlarge"]}, r"'p9.96xlarge' is not a known GPU instance type"),
        ({"instance_types": []}, r"instance_types is empty"),
        ({"name": "H100"}, r"kubernetes.gpu_node_pools\[\].name 'H100' is not a DNS-1123 label"),
        ({"instance_types": ["p5.48xlarge", "p5en.48xlarge"], "efa": True}, r"mix GPU types"),
    ],
)
def test_bad_pools(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_with("dev", _pool(**changes))


def test_efa_pool_needs_one_network_layout() -> None:
    with pytest.raises(ConfigError, match=r"different EFA network card counts \[16, 32\]"):
        config_with("dev", _pool(instance_types=["p5e.48xlarge", "p5en.48xlarge"]))


@pytest.mark.parametrize("alias", ["ubuntu@latest", "bottlerocket", "al2@latest", "bottlerocket@1.2"])
def test_bad_ami_alias(alias: str) -> None:
    with pytest.raises(ConfigError, match=rf"kubernetes.karpenter.ami_alias '{alias}' is not an accelerated EKS AMI"):
        config_with("dev", {"kubernetes": {"karpenter": {"ami_alias": alias}}})


def test_production_team_must_live_where_hyperpod_auto_resumes() -> None:
    from config import ConfigError

    from .conftest import config_with

    teams = [{"name": "ml-research"}, {"name": "prod-team", "allowed_tiers": ["production"]}]
    with pytest.raises(
        ConfigError,
        match=r"kubernetes\.teams\[\]\.name 'prod-team' may run the production tier.*"
        r"HyperPod resumes jobs only in namespaces named 'kubeflow' or starting "
        r"with 'hyperpod'; rename the team to 'hyperpod-prod-team'",
    ):
        config_with("dev", {"kubernetes": {"teams": teams}})
