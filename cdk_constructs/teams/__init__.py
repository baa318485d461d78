"""Teams: the one home of what a team gets (namespace, quota, RBAC, Pod Identity role, storage tree, MLflow user,
queues, Studio profiles, GitOps project); each stack asks a team's :class:`Team` for its part."""

from __future__ import annotations

from cdk_constructs.teams.team import Team

__all__ = ["Team"]
