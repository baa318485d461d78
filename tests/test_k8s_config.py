"""Kubernetes config section: teams, tiers and their validation messages."""

from __future__ import annotations

import pytest

from config import ConfigError, load_config

from .conftest import config_with


def _teams(*teams: dict) -> dict:
    return {"kubernetes": {"teams": list(teams)}}


def test_shipped_teams() -> None:
    for env in ("dev", "prod"):
        teams = load_config(env).kubernetes.teams
        assert [t.name for t in teams] == ["ml-research", "ml-platform"]
        research = load_config(env).kubernetes.team("ml-research")
        assert research.data_prefix == "teams/ml-research/"
        assert "production" not in research.allowed_tiers
        assert "critical" not in research.allowed_priority_classes


def test_priority_classes_follow_tiers() -> None:
    team = config_with("dev", _teams({"name": "a", "allowed_tiers": ["research", "production", "experiment"]}))
    assert team.kubernetes.teams[0].allowed_priority_classes == ("critical", "medium", "low", "preemptible")


def test_unknown_team_lookup() -> None:
    with pytest.raises(ValueError, match="unknown team 'nope'; known teams .*ml-research, ml-platform"):
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
