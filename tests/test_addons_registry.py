"""The add-on registry (cdk_constructs/compute/addon.py ``register``/``registered``/``discover``): a toy add-on with
logic of its own, registered by one module (tests/toy_addon.py) plus its versions-table row, synthesizes with every
promise the other add-ons keep (install order, CRD wait, chart pin, system-node room, cdk-nag), with no edit to
the stack or to another test; a module dropped into an add-on package is found without a list."""

from __future__ import annotations

import importlib
import sys
from dataclasses import replace

import pytest

from cdk_constructs.compute.addon import (
    SYSTEM_NODES,
    AddOn,
    AddOnOrderError,
    AddOnSite,
    discover,
    register,
    registered,
    unregister,
)
from cdk_constructs.compute.eks_cluster import SYSTEM_NODE_LABEL
from config import versions

from .conftest import config_with, synthesize_config
from .test_compute import helm_releases
from .test_node_shapes import addon_system_pods

pytestmark = pytest.mark.synth  # synthesizes a CDK app (docs/testing.md "Tiers")

TOY_VERSION = "1.19.1"


@pytest.fixture
def toy(monkeypatch):
    """tests/toy_addon.py registered, with its row in the versions table; unregistered afterwards."""
    monkeypatch.setitem(versions.UPSTREAM, "toy-cert-manager", versions.Upstream(TOY_VERSION))
    module = importlib.import_module("tests.toy_addon")
    register(module.TOY)  # already registered on first import; again after an earlier test unregistered it
    yield module
    unregister(module.TOY.name)


@pytest.fixture
def toy_synth(toy):
    return synthesize_config(config_with("dev"), key="dev+toy-cert-manager")


def test_the_toy_is_registered_by_its_module_alone(toy) -> None:
    assert toy.TOY in registered() and toy.TOY.version == TOY_VERSION


def test_the_toy_synthesizes_with_its_own_logic(toy, toy_synth) -> None:
    assert toy_synth.error is None, toy_synth.error  # cdk-nag and the app's own checks
    stack = toy_synth.stacks["compute"]
    construct = stack.addon_constructs[toy.TOY.name]
    assert isinstance(construct, toy.ToyCertManager) and construct.node.path == f"{stack.node.path}/ToyCertManager"
    after = {d.node.path for d in construct.release.node.dependencies}
    needed = [*stack.addons[SYSTEM_NODES], *stack.addons["eks-pod-identity-agent"], construct.pod_identity]
    assert {c.node.path for c in needed} <= after
    assert toy.TOY.name in [a.name for a in stack.addon_order]


def test_the_platform_charts_wait_for_the_toys_crds(toy, toy_synth) -> None:
    stack = toy_synth.stacks["compute"]
    release = stack.addon_constructs[toy.TOY.name].release
    assert any(d is release for d in stack.crd_dependencies)
    template = toy_synth.templates["compute"]["Resources"]
    release_id = helm_releases(toy_synth)[toy.TOY.release]["LogicalId"]
    manifests = [r for r in template.values() if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"]
    waiting = [r for r in manifests if release_id in r.get("DependsOn", [])]
    assert waiting, "no platform chart waits for the toy's CRDs"


def test_the_derived_checks_cover_the_toy(toy, toy_synth, tmp_path) -> None:
    """What tests/test_compute.py and tests/test_node_shapes.py derive from the registry includes the toy: its chart
    is pinned to its declaration, its pod is packed onto the system nodes."""
    releases = helm_releases(toy_synth)
    pin = releases[toy.TOY.release]
    assert (pin["Repository"], pin["Chart"], pin["Version"]) == (
        "https://charts.jetstack.io",
        "cert-manager",
        TOY_VERSION,
    )
    values = {name: r["Values"] for name, r in releases.items()}
    pods = addon_system_pods(registered(toy_synth.config), values, dict([SYSTEM_NODE_LABEL]), tmp_path)
    assert ("toy-cert-manager", toy.system_pods(values[toy.TOY.release])[0].requests) in pods


def test_an_installer_that_records_nothing_is_named(toy) -> None:
    import aws_cdk as cdk

    import app as platform_app

    from .conftest import CDK_CONTEXT

    def forgetful(site: AddOnSite, addon: AddOn):
        return toy.ToyCertManager(site.scope, "ToyCertManager", site=site, addon=addon)

    unregister(toy.TOY.name)
    forgetful_toy = register(replace(toy.TOY, installer=forgetful))
    try:
        with pytest.raises(AddOnOrderError, match="installer of add-on 'toy-cert-manager' did not record it"):
            platform_app.build(cdk.App(context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": []}), config_with("dev"))
    finally:
        unregister(forgetful_toy.name)


def test_a_module_dropped_into_an_addon_package_is_discovered(tmp_path, monkeypatch) -> None:
    package = tmp_path / "toy_addons"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "dropped.py").write_text(
        "from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, register\n"
        "DROPPED = register(AddOn(name='dropped', chart='dropped', release='dropped', namespace='demo',\n"
        "    repository='https://example.com/charts', version='1.0.0', needs=(SYSTEM_NODES,)))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        discover("toy_addons")
        assert "dropped" in [a.name for a in registered()]
    finally:
        unregister("dropped")
        for name in ("toy_addons", "toy_addons.dropped"):
            sys.modules.pop(name, None)
