"""Issue 33: an add-on's chart, controller image and CRDs move together (a per-environment chart version must not
upgrade one and leave the other behind)."""

from __future__ import annotations

import re

from config.charts import KUBERAY_CHART_VERSION
from k8s_charts.validation import CRD_DIR

from .conftest import config_fails, synthesize
from .test_compute import helm_releases


def test_kueue_controller_image_follows_the_chart_version() -> None:
    """A per-environment `compute.charts.kueue` upgrades the chart and the controller image it runs (the released
    chart's `image.tag` is `v<chart version>`; the platform pins it explicitly, so it must follow)."""
    other = "0.19.1"
    synth = synthesize("dev", {"compute": {"charts": {"kueue": other}}})
    kueue = helm_releases(synth)["kueue"]
    assert kueue["Version"] == other
    image = kueue["Values"]["controllerManager"]["manager"]["image"]
    assert image["tag"] == f"v{other}" and image["repository"] == "registry.k8s.io/kueue/kueue"


def test_kuberay_chart_is_the_version_of_its_vendored_crds() -> None:
    """Helm never upgrades the CRDs of a chart's crds/ folder (Helm docs, chart best practices "Custom Resource
    Definitions"), where kuberay-operator ships them: another chart version is refused with the upgrade steps."""
    rows = [
        line
        for line in (CRD_DIR / "SOURCES.md").read_text().splitlines()
        if line.startswith("| ray.io_") and "| ray-project/kuberay |" in line
    ]
    assert rows
    for row in rows:
        assert re.search(rf"\| v{re.escape(KUBERAY_CHART_VERSION)} \(", row), row
    major, minor, patch = KUBERAY_CHART_VERSION.split(".")
    config_fails(
        {"compute": {"charts": {"kuberay": f"{major}.{int(minor) + 1}.0"}}},
        r"compute\.charts\.kuberay",
        r"Helm never upgrades",
        r"k8s_charts/crds",
        r"kubectl apply --server-side",
    )
