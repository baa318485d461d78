"""The places a Kubernetes minor-version change touches (docs/deploying.md "Upgrading Kubernetes") agree with each
other: every supported version has a kubectl Lambda layer pinned in requirements.txt and mapped in the EKS construct, a
Studio kubectl pin, and the default add-on pins match the default version; docs/deploying.md's runbook names every
place."""

from __future__ import annotations

import re

import aws_cdk as cdk
import pytest

from cdk_constructs.compute.eks_cluster import _kubectl_layer
from config import EnvironmentConfig
from config.compute import (
    DEFAULT_KUBERNETES_VERSION,
    HYPERPOD_KUBERNETES_VERSIONS,
    KUBECTL_LAYER_VERSIONS,
    AddonVersionsConfig,
)

from .conftest import ENVIRONMENTS, ROOT, config_fails, config_with


def minor(version: str) -> tuple[int, int]:
    major, minor_ = version.split(".")[:2]
    return int(major), int(minor_)


def runbook_violations(configs: dict[str, EnvironmentConfig]) -> list[str]:
    """docs/deploying.md "Upgrading Kubernetes": every environment runs a version the app pins (each place of the
    runbook's table), environments move one minor at a time, one environment at a time, so at any moment they are
    at most one minor apart."""
    problems = [
        f"{name}: {c.compute.kubernetes_version} is not pinned ({', '.join(KUBECTL_LAYER_VERSIONS)})"
        for name, c in configs.items()
        if c.compute.kubernetes_version not in KUBECTL_LAYER_VERSIONS
    ]
    minors = {name: minor(c.compute.kubernetes_version) for name, c in configs.items()}
    if minors and max(minors.values())[1] - min(minors.values())[1] > 1:
        problems.append(f"environments are more than one minor apart: {minors}")
    return problems


PLACES = (
    "config/compute.py",
    "requirements.txt",
    "cdk_constructs/compute/eks_cluster.py",
    "studio_lifecycle/kube_context.sh",
    "compute.addons",
    "compute.charts",
)


def test_every_supported_version_is_pinned_in_every_place() -> None:
    requirements = (ROOT / "requirements.txt").read_text()
    studio = (ROOT / "studio_lifecycle" / "kube_context.sh").read_text()
    stack = cdk.Stack(cdk.App(), "Probe")
    assert DEFAULT_KUBERNETES_VERSION in KUBECTL_LAYER_VERSIONS
    for version in KUBECTL_LAYER_VERSIONS:
        minor = version.split(".", 1)[1]
        assert version in HYPERPOD_KUBERNETES_VERSIONS, f"SageMaker HyperPod does not support Kubernetes {version}"
        # requirements.txt: the layer package, pinned
        assert re.search(rf"^aws-cdk\.lambda-layer-kubectl-v{minor}==\S+$", requirements, re.M), (
            f"requirements.txt pins no aws-cdk.lambda-layer-kubectl-v{minor}"
        )
        # cdk_constructs/compute/eks_cluster.py: the version maps to that layer's construct
        layer = _kubectl_layer(cdk.Stack(stack, f"V{minor}"), version)
        assert f"kubectl_v{minor}" in type(layer).__module__, f"{version} maps to {type(layer).__module__}"
        # studio_lifecycle/kube_context.sh: a kubectl of the same minor, with its SHA-256
        block = re.search(rf"^  {re.escape(version)}\)\n(.*?);;", studio, re.M | re.S)
        assert block, f"kube_context.sh pins no kubectl for {version}"
        assert re.search(rf'KUBECTL_VERSION="v{re.escape(version)}\.\d+"', block[1])
        assert re.search(r'KUBECTL_SHA256="[0-9a-f]{64}"', block[1])
    # the default add-on pins are for the default version (kube-proxy carries the cluster's minor)
    assert AddonVersionsConfig().kube_proxy.startswith(f"v{DEFAULT_KUBERNETES_VERSION}.")


def test_an_unpinned_version_is_refused_everywhere() -> None:
    """A version without pins fails in the config (naming the supported ones) and in the EKS construct."""
    newest = max(KUBECTL_LAYER_VERSIONS, key=lambda v: tuple(map(int, v.split("."))))
    unpinned = f"1.{int(newest.split('.')[1]) + 1}"
    config_fails(
        {"compute": {"kubernetes_version": unpinned}},
        rf"compute\.kubernetes_version '{unpinned}'",
        re.escape(", ".join(KUBECTL_LAYER_VERSIONS)),
    )
    with pytest.raises(ValueError, match=rf"no kubectl layer pinned for Kubernetes {unpinned}"):
        _kubectl_layer(cdk.Stack(cdk.App(), "Probe"), unpinned)


@pytest.mark.parametrize("version", [v for v in KUBECTL_LAYER_VERSIONS if v != DEFAULT_KUBERNETES_VERSION])
def test_another_supported_version_needs_its_add_on_pins(version: str) -> None:
    """Moving an environment to another supported minor is refused until its add-on pins move too (step 2)."""
    config_fails(
        {"compute": {"kubernetes_version": version}},
        r"compute\.addons\.kube_proxy",
        rf"compute\.kubernetes_version is '{re.escape(version)}'",
    )


def test_the_runbook_names_every_place_and_the_order() -> None:
    from .conftest import doc_section

    section = doc_section("deploying.md", "Upgrading Kubernetes")
    missing = [p for p in PLACES if f"`{p}`" not in section]
    assert not missing, f"docs/deploying.md's upgrade runbook does not name {missing}"
    steps = [m.lower() for m in re.findall(r"^\d+\. \*\*(.+?)\*\*", section, re.M)]
    assert steps == ["one minor at a time.", "add-ons.", "hyperpod nodes.", "karpenter drift."], steps


def test_shipped_environments_follow_the_runbook() -> None:
    """Not "every environment on the default version": the runbook lets environments differ by one minor while an
    upgrade goes through them (dev first); each must run a version every place pins."""
    assert runbook_violations({env: config_with(env) for env in ENVIRONMENTS}) == []


def test_runbook_rule_can_fail() -> None:
    """An environment two minors from another, on a version without pins, breaks the rule the check above applies."""
    shipped = {env: config_with(env) for env in ENVIRONMENTS}
    first = next(iter(shipped.values()))
    far = f"1.{minor(first.compute.kubernetes_version)[1] + 2}"
    moved = first.model_copy(update={"compute": first.compute.model_copy(update={"kubernetes_version": far})})
    problems = runbook_violations({**shipped, "moved": moved})
    assert any("more than one minor apart" in p for p in problems) and any("not pinned" in p for p in problems)
