"""Pipelines section: Argo Workflows, which runs `llmft pipeline` Workflows (docs/pipelines.md)."""

from __future__ import annotations

from pydantic import Field

from ._base import ConfigModel


class PipelinesConfig(ConfigModel):
    """Argo Workflows in the cluster (controller and server on the system nodes, server private)."""

    enabled: bool = Field(
        False,
        description="Install Argo Workflows (chart argo-workflows, argoproj/argo-helm) so "
        "teams can run `llmft pipeline` Workflows in their namespaces.",
    )
