"""Pipelines section: Argo Workflows, which runs `llmft pipeline` Workflows (docs/pipelines.md)."""

from __future__ import annotations

from pydantic import Field

from ._base import ConfigModel

ARGO_WORKFLOWS_CHART_VERSION = "1.0.18"
"""argoproj/argo-helm tag argo-workflows-1.0.18 (4f4cc4f9605668855e2303c9805f09ac4360f35e): appVersion v4.0.6, the
version of the Workflow/WorkflowTemplate CRDs in k8s_charts/crds (SOURCES.md)."""


class PipelinesConfig(ConfigModel):
    """Argo Workflows in the cluster (controller and server on the system nodes, server private)."""

    enabled: bool = Field(False, description="Install Argo Workflows (chart argo-workflows, argoproj/argo-helm) so "
                                             "teams can run `llmft pipeline` Workflows in their namespaces.")
