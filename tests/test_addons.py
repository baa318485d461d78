"""The add-on shape (cdk_constructs/compute/addon.py): install order from declared needs, errors that name what is
wrong, versions from the versions table (config/versions.py), and a new chart-only add-on as one registered
declaration (docs/extending.md). tests/test_addons_registry.py adds one with logic of its own."""

from __future__ import annotations

import aws_cdk as cdk
import pytest

import app as platform_app
from cdk_constructs.compute.addon import (
    PLATFORM_CRDS,
    STAGES,
    SYSTEM_NODES,
    AddOn,
    AddOnContext,
    AddOnOrderError,
    construct_id,
    install_order,
    register,
    registered,
    unregister,
)
from config import charts
from config.versions import UPSTREAM

from .conftest import CDK_CONTEXT, config_with

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")


def addon(name: str, *needs: str, crds: bool = False, stage: str = "controllers") -> AddOn:
    return AddOn(
        name=name,
        chart=name,
        release=name,
        namespace="demo",
        repository="https://example.com/charts",
        version="1.0.0",
        needs=needs,
        provides_platform_crds=crds,
        stage=stage,
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


def test_a_need_on_a_later_stage_names_both_and_the_fix() -> None:
    with pytest.raises(AddOnOrderError, match=r"'early' \(stage 'hyperpod'\) needs 'late', installed later"):
        install_order([addon("early", "late", stage="hyperpod"), addon("late")])


def test_every_bad_need_is_reported_at_once() -> None:
    with pytest.raises(AddOnOrderError) as error:
        install_order([addon("a", "nope"), addon("b", "c", stage="hyperpod"), addon("c")], provided=[SYSTEM_NODES])
    assert "'a' needs 'nope'" in str(error.value) and "'b' (stage 'hyperpod') needs 'c'" in str(error.value)


def test_the_order_comes_from_the_needs_not_from_any_list() -> None:
    """Every registered add-on comes after what it needs and after no add-on of a later stage, whatever order the
    declarations are given in (reversed here)."""
    every = registered()
    provided = [SYSTEM_NODES, "eks-pod-identity-agent", "aws-fsx-csi-driver", "vpc-cni", "coredns"]
    for given in (every, every[::-1]):
        order = names(install_order(given, provided=provided))
        for a in every:
            expanded = [n for n in a.needs if n != PLATFORM_CRDS] + (
                [b.name for b in every if b.provides_platform_crds and b is not a] if PLATFORM_CRDS in a.needs else []
            )
            assert all(order.index(n) < order.index(a.name) for n in expanded if n in order), a.name
            stage = STAGES.index(a.stage)
            assert all(STAGES.index(b.stage) <= stage for b in every if b.name in expanded), a.name


def test_versions_come_from_the_versions_table() -> None:
    """Every registered chart from a repository installs a chart version of config/versions.py (a per-environment
    setting defaults to it)."""
    defaults = charts.ChartVersionsConfig()
    table = {u.chart_version for u in UPSTREAM.values()}
    for a in registered():
        if a.repository is None:
            continue  # our chart, an asset
        assert a.version in table, f"{a.name}: {a.version} is not a chart version of config/versions.py"
        if a.version_setting:
            assert a.version == getattr(defaults, a.version_setting), a.name


def test_a_registered_name_is_refused_twice() -> None:
    (first, *_) = registered()
    with pytest.raises(AddOnOrderError, match=f"'{first.name}' is registered twice"):
        register(addon(first.name))


def test_a_new_addon_is_one_registered_declaration(monkeypatch) -> None:
    """docs/extending.md's metrics-server module, run as written, with its versions row: the stack installs it."""
    from config import versions

    from .test_extending import readme_example

    monkeypatch.setitem(versions.UPSTREAM, "metrics-server", versions.Upstream("0.0.0", chart="3.13.0"))
    module: dict = {}
    exec(readme_example("cdk_constructs/compute/metrics_server.py"), module)  # registers it
    extra = module["METRICS_SERVER"]
    try:
        assert extra.version == "3.13.0" and extra in registered()
        app = cdk.App(context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": []})
        stack = platform_app.build(app, config_with("dev"))["compute"]
    finally:
        unregister(extra.name)
    installed = stack.helm_addons["metrics-server"]
    assert installed.node.path.endswith(f"/{construct_id(extra)}") and construct_id(extra) == "MetricsServer"
    dependencies = {d.node.path for d in installed.release.node.dependencies}
    assert {c.node.path for c in stack.addons[SYSTEM_NODES]} <= dependencies
    assert isinstance(stack.addon_context, AddOnContext)
