"""Cost report and GPU budget: priced from the synthesized output, pinned totals, unpriced never counted as 0."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml

from config import ConfigError
from config.pricing import priced_regions
from k8s_charts.fallback import fallback_settings
from tools.cost import docs_table
from tools.cost.report import build_report, load_prices, render

from .conftest import ENVIRONMENTS, ROOT, config_with, manifests, raw_config, synthesize

PINNED = ROOT / "tests" / "baselines" / "cost.json"
COST_DOC = ROOT / "docs" / "cost.md"


def report_for(env: str):
    synth = synthesize(env)
    templates = {s.stack_name: synth.templates[k] for k, s in synth.stacks.items()}
    return build_report(env, synth.config.region, templates, manifests(env))


def test_every_price_line_has_source_and_date() -> None:
    prices = load_prices()
    for region, tables in prices["regions"].items():
        for table, entries in tables.items():
            for name, entry in entries.items():
                assert entry.get("source") and re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry.get("as_of", "")), (
                    f"{region}/{table}/{name} lacks a source or an as_of date"
                )


def unpriced_gpu_pools(report) -> list[str]:
    """The Karpenter GPU pools the maximum spend leaves out for want of a price (a CPU pool is never one of them)."""
    return sorted(m[1] for g in report.gpu_unpriced if (m := re.match(r"Karpenter pool (\S+) \(", g)))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_burst_is_computed_from_the_shipped_pools_and_fits_the_budget(env: str) -> None:
    report = report_for(env)
    config = synthesize(env).config
    unpriced = set(unpriced_gpu_pools(report))
    assert {b.name for b in report.burst} | unpriced == {p.name for p in config.kubernetes.gpu_node_pools}
    assert not {b.name for b in report.burst} & unpriced
    assert report.max_burst_per_hour <= (config.cost.max_burst_usd_per_hour or float("inf"))
    assert report.max_burst_complete == (config.region in priced_regions())
    assert ("INCOMPLETE" in render(report)) != report.max_burst_complete


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_nothing_in_the_templates_is_unpriced(env: str) -> None:
    """In a priced region every resource is priced, usage-based or free. In a region the price table lacks (a new
    environment; prices are advisory) every line is still classified and names the missing price."""
    report = report_for(env)
    if synthesize(env).config.region in priced_regions():
        assert not report.unpriced, "resource types without a price rule or a free/usage classification:\n" + "\n".join(
            f"{u.stack}/{u.resource} {u.type}" for u in report.unpriced
        )
    else:
        assert not [u for u in report.unpriced if u.item == "no price rule"]
        assert not report.max_burst_complete


def test_unknown_resource_type_is_reported_unpriced_not_zero() -> None:
    template = {
        "Resources": {
            "Mystery": {"Type": "AWS::NewService::Thing", "Properties": {}},
            "Nat": {"Type": "AWS::EC2::NatGateway", "Properties": {}},
        }
    }
    report = build_report("x", "us-east-1", {"S": template}, None)
    assert [(u.resource, u.type) for u in report.unpriced] == [("Mystery", "AWS::NewService::Thing")]
    assert report.idle_total == round(0.045 * 730, 2)
    assert "UNPRICED" in render(report)


def test_burst_from_nodepool_manifests(tmp_path: Path) -> None:
    (tmp_path / "pools.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: h100}\nspec:\n  limits: {nvidia.com/gpu: 16}\n"
        "  template:\n    spec:\n      requirements:\n"
        "        - {key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}\n"
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: nolimit}\nspec:\n  template:\n"
        "    spec: {requirements: []}\n"
    )
    report = build_report("x", "us-east-1", {}, tmp_path)
    assert [(b.name, b.gpus, b.usd_per_hour) for b in report.burst] == [("h100", 16, round(16 * 55.04 / 8, 2))]
    assert [u.resource for u in report.unpriced] == ["nolimit"]  # an unbounded pool is never "free"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_cpu_job_pool_is_priced_per_node_and_adds_no_idle_cost(env: str) -> None:
    """`make cost` shows what one CPU pool node costs per hour (its priciest allowed type) and the pool at its vCPU
    limit; nothing of it is idle cost (Karpenter launches nodes only for pending pods)."""
    from config.instances import instance_specs

    report = report_for(env)
    pool = synthesize(env).config.kubernetes.cpu_node_pool
    if synthesize(env).config.region not in priced_regions():  # advisory prices: listed unpriced, never $0
        assert not report.cpu_pools
        assert [u for u in report.unpriced if u.type == "NodePool" and u.resource == pool.name]
        return
    prices = load_prices()["regions"][synthesize(env).config.region]["ec2_instance_hour"]
    (line,) = report.cpu_pools
    assert (line.name, line.cpu_limit) == (pool.name, pool.cpu_limit)
    assert line.usd_per_node_hour == max(prices[t]["usd"] for t in pool.instance_types)
    assert line.usd_per_hour_at_limit == round(
        max(pool.cpu_limit // instance_specs()[t].vcpus * prices[t]["usd"] for t in pool.instance_types), 2
    )
    # Karpenter launches nodes only for pending pods; the one exception is the development fall-back controller's
    # CronJob (docs/queueing.md), whose pod every minute keeps the cheapest node of the pool up: idle cost.
    idle = [i for i in report.idle if pool.name in f"{i.resource} {i.item} {i.detail}"]
    if fallback_settings(synthesize(env).config) is None:
        assert not idle
    else:
        cheapest = min(pool.instance_types, key=lambda t: prices[t]["usd"])
        (controller,) = idle
        assert (controller.resource, controller.type) == ("llmft-platform/llmft-fallback", "CronJob")
        assert controller.monthly_usd == round(prices[cheapest]["usd"] * load_prices()["hours_per_month"], 2)
        assert cheapest in controller.item
    assert f"{line.usd_per_node_hour:,.4f}/h per node" in render(report)


POOL = {
    "kind": "NodePool",
    "metadata": {"name": "cpu"},
    "spec": {
        "limits": {"cpu": 8},
        "disruption": {"consolidateAfter": "5m"},
        "template": {
            "metadata": {"labels": {"role": "cpu"}},
            "spec": {
                "requirements": [
                    {
                        "key": "node.kubernetes.io/instance-type",
                        "operator": "In",
                        "values": ["m7i.xlarge", "m6i.xlarge"],
                    }
                ]
            },
        },
    },
}


def _cron(schedule: str, selector: dict[str, str]) -> dict:
    pod = {"nodeSelector": selector}
    return {
        "kind": "CronJob",
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": {"spec": pod}}}},
    }


@pytest.mark.parametrize(
    ("schedule", "selector", "idle"),
    [
        ("* * * * *", {"role": "cpu"}, True),
        ("*/5 * * * *", {"role": "cpu"}, True),  # as often as the pool consolidates: the node never empties long enough
        ("*/10 * * * *", {"role": "cpu"}, False),  # the node goes between runs
        ("0 * * * *", {"role": "cpu"}, False),
        ("* * * * *", {"role": "gpu"}, False),  # lands elsewhere
        ("* * * * *", {}, False),
    ],
)
def test_a_cron_job_that_keeps_a_cpu_node_up_is_idle_cost(tmp_path: Path, schedule, selector, idle) -> None:
    (tmp_path / "m.yaml").write_text(yaml.safe_dump_all([POOL, _cron(schedule, selector)]))
    report = build_report("dev", "us-east-1", {}, tmp_path)
    lines = [i for i in report.idle if i.type == "CronJob"]
    assert bool(lines) == idle, lines
    if idle:
        prices = load_prices()["regions"]["us-east-1"]["ec2_instance_hour"]
        usd = min(prices["m7i.xlarge"]["usd"], prices["m6i.xlarge"]["usd"])
        assert lines[0].monthly_usd == round(usd * load_prices()["hours_per_month"], 2)


def test_cpu_pool_from_nodepool_manifests(tmp_path: Path) -> None:
    (tmp_path / "pools.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: cpu}\nspec:\n  limits: {cpu: 10}\n"
        "  template:\n    spec:\n      requirements:\n"
        "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge, m6i.xlarge]}\n"
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: cpu-gpu-types}\nspec:\n"
        "  limits: {cpu: 10}\n  template:\n    spec:\n      requirements:\n"
        "        - {key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}\n"
    )
    report = build_report("x", "us-east-1", {}, tmp_path)
    assert [
        (c.name, c.instance_type, c.usd_per_node_hour, c.max_nodes, c.usd_per_hour_at_limit) for c in report.cpu_pools
    ] == [("cpu", "m7i.xlarge", 0.2016, 2, round(2 * 0.2016, 2))]
    assert [u.resource for u in report.unpriced] == ["cpu-gpu-types"]  # never priced as a CPU pool


def baseline_entry(report, region: str) -> dict:
    """What tests/baselines/cost.json pins for one environment: its totals where the price table covers its region;
    in a region it lacks, that the environment is unpriced and what is unpriced (never totals that would read $0)."""
    if region not in priced_regions():
        return {
            "unpriced_region": region,
            "unpriced_gpu_pools": unpriced_gpu_pools(report),
        }
    (observability_stack,) = [s for s in report.idle_by_stack() if s.endswith("-Observability")]
    return {
        "idle_monthly_usd": report.idle_total,
        "max_burst_usd_per_hour": report.max_burst_per_hour,
        "cpu_pools_usd_per_hour_at_limit": report.cpu_pools_per_hour,
        "observability_monthly_usd": report.observability_total,
        "observability_stack_monthly_usd": report.idle_by_stack()[observability_stack],
    }


def test_pinned_totals() -> None:
    """An accidental cost jump fails here with the delta. After a deliberate change: `make snapshots`."""
    now = {env: baseline_entry(report_for(env), synthesize(env).config.region) for env in ENVIRONMENTS}
    if os.environ.get("UPDATE_BASELINE") == "1":
        PINNED.write_text(json.dumps(now, indent=2, sort_keys=True) + "\n")
        docs_table.write(COST_DOC, now, budgets())  # the docs' figures follow the baseline, never a hand edit
    pinned = json.loads(PINNED.read_text())
    missing = sorted(set(now) - set(pinned))
    assert not missing, f"no cost baseline for {missing}: run `make snapshots`"
    deltas = [
        f"{env} {key}: {pinned[env].get(key)} -> {value}"
        for env in now
        for key, value in now[env].items()
        if not isinstance(value, float) and value != pinned[env].get(key)
    ]
    deltas += [
        f"{env} {key}: {pinned[env][key]} -> {value} ({value - pinned[env][key]:+.2f})"
        for env in now
        for key, value in now[env].items()
        if isinstance(value, float) and abs(value - pinned[env].get(key, 0)) > 0.005
    ]
    deltas += [f"{env} {key}: pinned but no longer computed" for env in now for key in set(pinned[env]) - set(now[env])]
    assert not deltas, "cost changed (run `make cost ENV=<env>` to see why):\n" + "\n".join(deltas)


def test_an_unpriced_region_is_pinned_as_unpriced() -> None:
    """A baseline for an environment in a region without prices says so; it pins no total (a $0 would pass for a
    price)."""
    region = next(r for r in ("eu-west-1", "us-west-2", "ap-southeast-2", "eu-central-1") if r not in priced_regions())
    report = report_for(ENVIRONMENTS[0])
    entry = baseline_entry(report, region)
    assert entry["unpriced_region"] == region
    assert not [k for k, v in entry.items() if isinstance(v, (int, float))]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_budget_exceeded_is_a_config_error(env: str) -> None:
    """A budget below what the pools can spend fails, naming every GPU pool with its GPU limit. In a region the price
    table lacks nothing is priced, so the check has nothing to count (docs/cost.md: prices are advisory)."""
    pools = config_with(env).kubernetes.gpu_node_pools
    if config_with(env).region not in priced_regions():
        assert config_with(env, {"cost": {"max_burst_usd_per_hour": 1}}).cost.max_burst_usd_per_hour == 1
        return
    named = "".join(rf"(?=.*{re.escape(p.name)}: {p.gpu_limit} GPUs)" for p in pools)
    with pytest.raises(
        ConfigError,
        match=rf"cost\.max_burst_usd_per_hour 1: the GPU pools and HyperPod groups "
        rf"could spend \$[\d,.]+/hour \({named}.*\); lower "
        rf"kubernetes\.gpu_node_pools\[\]\.gpu_limit",
    ):
        config_with(env, {"cost": {"max_burst_usd_per_hour": 1}})


def test_budget_counts_what_is_priced_and_names_the_rest() -> None:
    """An instance type without a price does not stop the config (prices are advisory); the budget check leaves it
    out and names it, and it still fails when what is priced exceeds the budget."""
    from config.cost import burst_per_hour

    shipped = raw_config("dev")["compute"]["hyperpod"]["instance_groups"]  # teams' Kueue shares name them
    groups = [*shipped, {"name": "extra", "instance_type": "ml.g6e.xlarge", "count": 1}]
    assert load_prices()["regions"]["us-east-1"].get("sagemaker_instance_hour", {}).get("ml.g6e.xlarge") is None
    cfg = config_with(
        "dev", {"compute": {"hyperpod": {"instance_groups": groups}}, "cost": {"max_burst_usd_per_hour": 1000}}
    )
    _, _, missing = burst_per_hour(
        cfg.region, [], [(g.name, g.instance_type, g.count) for g in cfg.compute.hyperpod.instance_groups]
    )
    assert missing == ["ml.g6e.xlarge"]
    with pytest.raises(ConfigError, match=r"could spend .*not counted, no price: .*ml\.g6e\.xlarge"):
        config_with(
            "dev", {"compute": {"hyperpod": {"instance_groups": groups}}, "cost": {"max_burst_usd_per_hour": 10}}
        )


def test_idle_targets() -> None:
    """prod stays under $1,000/month idle with HA. dev cannot reach $300: docs/cost.md explains why, and this keeps
    the explanation true - the lines that no dev config can remove already add up to $300."""
    assert report_for("prod").idle_total < 1000
    dev = report_for("dev")
    floor_items = {
        "FSx for Lustre capacity",
        "EKS control plane",
        "NAT gateway",
        "Public IPv4 address",
        "Application Load Balancer",
        "KMS key",
        "Secrets Manager secret",
    }
    floor = sum(line.monthly_usd for line in dev.idle if line.item in floor_items)
    assert floor >= 300, f"dev's irreducible lines now cost ${floor:.2f}: revisit the dev config and docs/cost.md"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_each_image_build_is_priced_per_build(env: str) -> None:
    """`make cost` tells what one build of each platform image costs: its CodeBuild compute type's per-minute
    price times the image's expected build minutes (at most its timeout)."""
    from k8s_charts.images import IMAGES, build_project_name

    report = report_for(env)
    config = synthesize(env).config
    if config.region not in priced_regions():  # each build listed unpriced, never $0
        assert not report.builds
        assert len([u for u in report.unpriced if u.item.startswith("CodeBuild ")]) == len(IMAGES)
        return
    rates = load_prices()["regions"][config.region]["codebuild_build_minute"]
    builds = {b.project: b for b in report.builds}
    assert set(builds) == {build_project_name(config, name) for name in IMAGES}
    for name, image in IMAGES.items():
        build = builds[build_project_name(config, name)]
        assert build.usd_per_minute == rates[build.compute_type]["usd"]
        assert build.expected_usd == round(image.expected_build_minutes * build.usd_per_minute, 2)
        assert build.max_usd == round(build.timeout_minutes * build.usd_per_minute, 2) >= build.expected_usd
    assert "Image builds (CodeBuild" in render(report)


def budgets() -> dict[str, float | None]:
    """Each environment's configured burst budget (config/<env>.yaml cost.max_burst_usd_per_hour)."""
    return {env: raw_config(env).get("cost", {}).get("max_burst_usd_per_hour") for env in ENVIRONMENTS}


def test_readme_cost_figures_are_the_pinned_ones() -> None:
    """docs/cost.md's cost table is exactly what tests/baselines/cost.json and the configured budgets give, one row
    per pinned environment (an unpriced one says so): `make snapshots` writes both, nobody copies figures by hand."""
    text = COST_DOC.read_text()
    pinned = json.loads(PINNED.read_text())
    block = docs_table.block_of(text)
    assert block is not None, f"docs/cost.md lacks the cost table markers {docs_table.BEGIN!r} ... {docs_table.END!r}"
    assert block == docs_table.table(pinned, budgets()), (
        "docs/cost.md's cost table is not the pinned figures (tests/baselines/cost.json) and config budgets: run "
        "`make snapshots`"
    )
    assert set(pinned) == set(ENVIRONMENTS), "tests/baselines/cost.json does not pin every environment"
    for env, figures in pinned.items():
        assert re.search(rf"^\| {env} \|[^\n]*" + ("unpriced" if "unpriced_region" in figures else r"\d"), block, re.M)


def test_the_cost_table_writer_replaces_only_its_block(tmp_path: Path) -> None:
    page = tmp_path / "cost.md"
    page.write_text(f"before\n{docs_table.BEGIN}\nold\n{docs_table.END}\nafter\n")
    pinned = {"b": {"unpriced_region": "xx-west-9", "unpriced_gpu_pools": ["p"]}, "a": json.loads(PINNED.read_text())}
    pinned["a"] = next(f for f in pinned["a"].values() if "unpriced_region" not in f)
    docs_table.write(page, pinned, {"a": 100, "b": None})
    text = page.read_text()
    assert text.startswith("before\n") and text.endswith("\nafter\n") and "old" not in text
    assert re.search(r"^\| a \| [\d,.]+ \| [\d,.]+ \(budget 100\) \|", text, re.M)
    assert "| b | unpriced: xx-west-9 is not in config/data/prices.yaml | unpriced (GPU pools: p) (no budget)" in text
    page.write_text("no markers\n")
    with pytest.raises(ValueError, match="has no cost table block"):
        docs_table.write(page, pinned, {})


def test_karpenter_gpu_names_resolve_through_the_family_table() -> None:
    """A NodePool that selects by Karpenter's GPU name is priced on the families config/instances.py gives that GPU;
    a name the report does not know stays unresolved (reported), never guessed."""
    from config.instances import GPU_TYPE_BY_FAMILY
    from config.pricing import Pricer
    from tools.cost.report import KARPENTER_GPU_NAMES, _gpu_instance_types

    pricer = Pricer.of(priced_regions()[0])
    for name in KARPENTER_GPU_NAMES:
        types, unresolved = _gpu_instance_types(
            [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": [name, "no-such-gpu"]}], pricer
        )
        assert unresolved == ["no-such-gpu"]
        assert all(GPU_TYPE_BY_FAMILY[t.split(".")[0]].removesuffix("-80gb") == name for t in types), (name, types)
