"""Studio users can submit jobs in their team's namespace, and only there.

The users' access entries carry no EKS access policy, only the team's Kubernetes group, which each team namespace
binds to its `team-member` Role (what that Role allows and refuses: tests/test_team_guardrails.py).
"""

from __future__ import annotations

import pytest
import yaml

from k8s_charts.team_namespaces import TEAM_MEMBER_ROLE
from k8s_charts.values import team_group

from .conftest import ENVIRONMENTS, Synth, manifests


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_team_namespace_binds_the_team_group_to_job_submission(env: str) -> None:
    docs = [d for d in yaml.safe_load_all((manifests(env) / "team-namespaces.yaml").read_text()) if d]
    # the people's Role (the namespace also holds the pipelines' Role llmft-pipelines, tests/test_pipelines.py)
    roles = {
        (d["metadata"]["namespace"]): d
        for d in docs
        if d["kind"] == "Role" and d["metadata"]["name"] == TEAM_MEMBER_ROLE
    }
    bindings = {
        (d["metadata"]["namespace"]): d
        for d in docs
        if d["kind"] == "RoleBinding" and d["metadata"]["name"] == TEAM_MEMBER_ROLE
    }
    namespaces = {
        d["metadata"]["name"] for d in docs if d["kind"] == "Namespace" and "platform/team" in d["metadata"]["labels"]
    }  # not the platform's promotion namespace (k8s_charts/promotion.py)
    assert namespaces and set(roles) == set(bindings) == namespaces
    for ns, role in roles.items():
        granted = {
            (g, r): set(rule["verbs"]) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]
        }
        for kind in (("kubeflow.org", "pytorchjobs"), ("ray.io", "rayjobs"), ("ray.io", "rayclusters")):
            assert {"create", "get", "list", "watch", "delete"} <= granted[kind], (ns, kind)
        assert not any("*" in verbs for verbs in granted.values())
        binding = bindings[ns]
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": role["metadata"]["name"],
        }
        assert binding["subjects"] == [
            {"kind": "Group", "name": team_group(ns), "apiGroup": "rbac.authorization.k8s.io"}
        ]


def test_studio_access_entries_carry_the_team_group(env_synth: Synth) -> None:
    entries = env_synth.resources("studio", "AWS::EKS::AccessEntry")
    users = {u.name: u.team for u in env_synth.config.studio.user_profiles}
    assert len(entries) == len(users)
    groups = sorted(g for e in entries.values() for g in e["Properties"]["KubernetesGroups"])
    assert groups == sorted(team_group(t) for t in users.values())
    for entry in entries.values():
        # access policies would add to the Role (EKS authorizes the union), so there are none
        assert not entry["Properties"].get("AccessPolicies")
