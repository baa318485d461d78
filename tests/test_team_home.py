"""The Team home (cdk_constructs/teams/team.py): each stack's team parts come from it, and what it renders for one
team is what the platform charts render for that team."""

from __future__ import annotations

import cdk8s

from cdk_constructs.teams.team import Team, team_username
from k8s_charts.team_namespaces import TeamNamespacesChart
from k8s_charts.values import PlatformValues

from .conftest import Synth


def test_every_team_gets_its_parts(dev: Synth) -> None:
    config = dev.config
    compute, storage, mlflow = dev.stacks["compute"], dev.stacks["storage"], dev.stacks["mlflow"]
    for team in Team.all(config.kubernetes.teams):
        role = compute.team_roles[team.name]
        assert role.node.path.endswith(f"/PlatformCharts/Team-{team.name}/Role")
        assert (
            storage.file_system.node.try_find_child(f"DataRepository{''.join(p.title() for p in team.name.split('-'))}")
            is not None
        )
        if mlflow.team_credentials:
            assert mlflow.team_credentials[team.name].username == team_username(team.name)
        assert team.cluster_queues() and len(team.cluster_queues()) == len(team.local_queues())
        assert team.storage_tree()[0].path == team.file_system_path


def test_the_namespace_is_what_the_platform_chart_renders() -> None:
    from .conftest import config_with

    config = config_with("dev")
    values = PlatformValues.placeholders(config)
    team = Team.all(config.kubernetes.teams)[0]
    alone = cdk8s.Chart(cdk8s.App(), "one")
    team.namespace(alone, values=values)
    chart = TeamNamespacesChart(cdk8s.App(), "team-namespaces", teams=[team.config], values=values)
    rendered = [
        d
        for d in chart.to_json()
        if d.get("metadata", {}).get("namespace") == team.namespace_name
        or d.get("metadata", {}).get("name") == team.namespace_name
    ]
    assert all(d in alone.to_json() for d in rendered) and rendered
