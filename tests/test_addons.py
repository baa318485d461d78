"""The add-on shape (cdk_constructs/compute/addon.py): install order from declared needs, errors that name what is
wrong, versions from config/charts.py, and a new add-on as one declaration + one line (docs/extending.md)."""

from __future__ import annotations

import aws_cdk as cdk
import pytest

import app as platform_app
from cdk_constructs.compute.addon import (
    PLATFORM_CRDS,
    SYSTEM_NODES,
    AddOn,
    AddOnContext,
    AddOnOrderError,
    construct_id,
    install_order,
)
from cdk_constructs.compute.argo_cd import ARGO_CD
from cdk_constructs.compute.hyperpod_prerequisites import HyperPodPrerequisites
from config import charts
from stacks import compute_stack
from stacks.compute_stack import CLUSTER_ADDONS, DELIVERY_ADDONS

from .conftest import CDK_CONTEXT, config_with

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")


def addon(name: str, *needs: str, crds: bool = False) -> AddOn:
    return AddOn(
        name=name,
        chart=name,
        release=name,
        namespace="demo",
        repository="https://example.com/charts",
        version="1.0.0",
        needs=needs,
        provides_crds=crds,
    )


def names(addons: list[AddOn]) -> list[str]:
    return [a.name for a in addons]


def test_order_follows_needs_and_keeps_the_given_order_otherwise() -> None:
    order = install_order(
        [addon("c", "b"), addon("a", SYSTEM_NODES), addon("b", "a"), addon("d", SYSTEM_NODES)], provided=[SYSTEM_NODES]
    )
    assert names(order) == ["a", "b", "c", "d"]


def test_platform_crds_means_every_crd_provider() -> None:
    order = install_order([addon("gitops", PLATFORM_CRDS), addon("x", crds=True), addon("y"), addon("z", crds=True)])
    assert names(order) == ["x", "y", "z", "gitops"]


def test_an_unknown_need_names_the_addon_and_the_name() -> None:
    with pytest.raises(AddOnOrderError, match=r"add-on 'keda' needs 'cert-manager', which is neither an add-on"):
        install_order([addon("keda", SYSTEM_NODES, "cert-manager")], provided=[SYSTEM_NODES])


def test_a_cycle_names_the_addons_on_it() -> None:
    with pytest.raises(AddOnOrderError, match=r"cycle: (a -> b -> a|b -> a -> b)"):
        install_order([addon("a", "b"), addon("b", "a"), addon("c")])


def test_a_name_declared_twice_is_refused() -> None:
    with pytest.raises(AddOnOrderError, match="'a' is declared twice"):
        install_order([addon("a"), addon("a")])


def test_the_platform_addons_resolve_in_their_declared_order() -> None:
    every = [*HyperPodPrerequisites.addons, *CLUSTER_ADDONS, *DELIVERY_ADDONS]
    provided = [SYSTEM_NODES, "eks-pod-identity-agent", "aws-fsx-csi-driver", "vpc-cni", "coredns"]
    assert names(install_order(every, provided=provided)) == names(every)
    assert set(ARGO_CD.needs) == {SYSTEM_NODES, PLATFORM_CRDS}


def test_versions_come_from_config_charts() -> None:
    defaults = charts.ChartVersionsConfig()
    pinned = {
        charts.ARGOCD_CHART_VERSION,
        charts.ARGO_WORKFLOWS_CHART_VERSION,
        charts.NVIDIA_DEVICE_PLUGIN_CHART_VERSION,
        charts.EFA_DEVICE_PLUGIN_CHART_VERSION,
        charts.KEDA_CHART_VERSION,
    }
    for a in (*HyperPodPrerequisites.addons, *CLUSTER_ADDONS, *DELIVERY_ADDONS):
        if a.repository is None:
            continue  # our chart, an asset
        if a.version_setting:
            assert a.version == getattr(defaults, a.version_setting), a.name
        else:
            assert a.version in pinned, a.name


def test_a_new_addon_is_one_declaration_and_one_line(monkeypatch) -> None:
    extra = AddOn(
        name="metrics-server",
        chart="metrics-server",
        release="metrics-server",
        namespace="kube-system",
        repository="https://kubernetes-sigs.github.io/metrics-server/",
        version="3.13.0",
        values=lambda context: {"nodeSelector": dict(context.node_selector)},
        needs=(SYSTEM_NODES,),
    )
    monkeypatch.setattr(compute_stack, "CLUSTER_ADDONS", (*CLUSTER_ADDONS, extra))
    app = cdk.App(context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": []})
    stack = platform_app.build(app, config_with("dev"))["compute"]
    installed = stack.helm_addons["metrics-server"]
    assert installed.node.path.endswith(f"/{construct_id(extra)}") and construct_id(extra) == "MetricsServer"
    dependencies = {d.node.path for d in installed.release.node.dependencies}
    assert {c.node.path for c in stack.addons[SYSTEM_NODES]} <= dependencies
    assert isinstance(stack.addon_context, AddOnContext)
