"""Classes of bad configuration that must never reach CloudFormation (issue: "Bad configuration must never reach
CloudFormation"). One test per class; each feeds the real loader or model a bad value and checks the message names
the field, the value and the fix."""

from __future__ import annotations

import re
import time
import tracemalloc
from pathlib import Path

import pytest

from config import ConfigError, load_config, parse_config
from config.compute import hyperpod_instance_count_range
from config.kubernetes import MAX_GPUS
from config.strict_yaml import MAX_EXPANDED_NODES, load_yaml

from .conftest import CONFIG_DIR, ENVIRONMENTS, absent_environment, config_with, raw_config
from .conftest import config_fails as _fails


def _load_text(tmp_path: Path, text: str, name: str = "dev") -> str:
    """Load ``text`` as config/<name>.yaml through load_config; returns the error message."""
    (tmp_path / f"{name}.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(name, config_dir=tmp_path)
    return str(info.value)


SHIPPED = (CONFIG_DIR / "dev.yaml").read_text()


# --- YAML parsing -------------------------------------------------------------------------------------------------
def test_duplicate_keys_are_an_error(tmp_path: Path) -> None:
    text = SHIPPED.replace('account: "123456789012"', 'account: "123456789012"\naccount: "210987654321"', 1)
    message = _load_text(tmp_path, text)
    assert re.search(r"found duplicate key 'account' \(first at line \d+\).*remove or rename one", message, re.S)


def test_alias_bomb_is_refused_quickly_with_bounded_memory(tmp_path: Path) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]  # 10**10 leaves
    tracemalloc.start()
    started = time.perf_counter()
    message = _load_text(tmp_path, "\n".join(levels) + "\n")
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert f"expands to more than {MAX_EXPANDED_NODES:,} values" in message and "alias bomb" in message
    assert elapsed < 2.0 and peak < 20 * 2**20, (elapsed, peak)


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"an alias refers to its own anchor"):
        load_yaml("a: &a [1, *a]\n", source="x.yaml")


def test_legitimate_anchors_still_work() -> None:
    assert load_yaml("base: &b {x: 1}\nother: *b\n", source="x.yaml") == {"base": {"x": 1}, "other": {"x": 1}}


# --- YAML 1.1 scalars: strings, numbers and booleans must be what the field wants ---------------------------------
@pytest.mark.parametrize(
    ("line", "replacement", "patterns"),
    [
        (
            'account: "123456789012"',
            "account: 012345670123",
            [
                r"account: the YAML value 012345670123 was read as the integer 1402433619 \(YAML 1\.1 octal\)",
                r'quote it: "012345670123"',
            ],
        ),
        (
            'kubernetes_version: "1.34"',
            "kubernetes_version: 1.30",
            [r"compute\.kubernetes_version: the YAML value 1\.30 was read as the number 1\.3", r'quote it: "1\.30"'],
        ),
        (
            "name: ml-research",
            "name: 1:30",
            [
                r"kubernetes\.teams\.0\.name: the YAML value 1:30 was read as the integer 90 \(YAML 1\.1 base 60\)",
                r'quote it: "1:30"',
            ],
        ),
        (
            "region: us-east-1",
            "region: 01001",
            [r"region: the YAML value 01001 was read as the integer 513 \(YAML 1\.1 octal\)", r'quote it: "01001"'],
        ),
        (
            "gpu_quota: 16",
            "gpu_quota: yes",
            [
                r"kubernetes\.teams\.0\.gpu_quota: the YAML value true was read as a boolean, but a number is expected",
                r"yes/no/on/off",
            ],
        ),
        (
            "gpu_quota: 16",
            'gpu_quota: "16"',
            [r"kubernetes\.teams\.0\.gpu_quota: got the string '16', but a number is expected; write it as a number"],
        ),
        (
            "environment: dev",
            "environment: 2026-01-01",
            [r"tags: environment: the YAML value 2026-01-01 was read as a date.*quote it"],
        ),
    ],
)
def test_yaml_1_1_scalars_are_not_coerced(tmp_path: Path, line: str, replacement: str, patterns: list[str]) -> None:
    assert line in SHIPPED
    message = _load_text(tmp_path, SHIPPED.replace(line, replacement, 1))
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in:\n{message}"


def test_boolean_field_refuses_numbers() -> None:
    _fails(
        {"storage": {"fsx": {"auto_import": 1}}},
        r"storage\.fsx\.auto_import: got 1, but a boolean is expected; write true or false",
    )


# --- Non-ASCII digits ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        (
            {"account": "١٢٣٤٥٦٧٨٩٠١٢"},
            r"account '١٢٣٤٥٦٧٨٩٠١٢' is not a 12-digit AWS account ID.*\(ASCII digits 0-9 only\)",
        ),
        ({"region": "us-east-１"}, r"region 'us-east-１' is not an AWS region name"),
        ({"compute": {"admin_role_arns": ["arn:aws:iam::١٢٣٤٥٦٧٨٩٠١٢:role/Admin"]}}, r"are not IAM role ARNs"),
    ],
)
def test_non_ascii_digits(overrides: dict, pattern: str) -> None:
    _fails(overrides, pattern)


# --- Tags -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tags", "pattern"),
    [
        ({"aws:createdBy": "me"}, r"tags key 'aws:createdBy' starts with 'aws:', a prefix reserved for AWS"),
        ({"owner": "x" * 257}, r"tags 'owner': value of 257 characters.*at most 256"),
        ({"k" * 129: "v"}, r"is not a valid AWS tag key; use 1-128"),
    ],
)
def test_tag_rules(tags: dict, pattern: str) -> None:
    _fails({"tags": tags}, pattern)


# --- Regions --------------------------------------------------------------------------------------------------------
def test_region_without_hyperpod_agent_image() -> None:
    _fails(
        {
            "region": "af-south-1",
            "network": {
                "availability_zones": ["af-south-1a", "af-south-1b"],
                "hyperpod": {"availability_zone": "af-south-1a"},
            },
        },
        r"region 'af-south-1' has no SageMaker HyperPod health-monitoring agent image.*use one of",
    )


def test_region_without_prices_is_valid_and_its_gpus_are_named_unpriced() -> None:
    """Prices are advisory: a region config/data/prices.yaml lacks validates (budget set or not); the budget check
    counts what it can price and names the rest."""
    from config.cost import burst_per_hour
    from config.pricing import priced_regions

    region = "eu-north-1"  # has an agent image
    assert region not in priced_regions(), "pick a region the price table lacks"
    cfg = config_with(
        "dev",
        {
            "region": region,
            "network": {
                "availability_zones": [f"{region}a", f"{region}b"],
                "hyperpod": {"availability_zone": f"{region}a"},
            },
            "mlflow": {
                "endpoint": {
                    "certificate_arn": raw_config("dev")["mlflow"]["endpoint"]["certificate_arn"].replace(
                        "us-east-1", region
                    )
                }
            },
        },
    )
    assert cfg.cost.max_burst_usd_per_hour is not None
    pools = [(p.name, p.instance_types, p.gpu_limit) for p in cfg.kubernetes.gpu_node_pools]
    groups = [(g.name, g.instance_type, g.count) for g in cfg.compute.hyperpod.instance_groups]
    total, _, missing = burst_per_hour(region, pools, groups)
    assert total == 0
    assert set(missing) == {t for p in cfg.kubernetes.gpu_node_pools for t in p.instance_types} | {
        g.instance_type for g in cfg.compute.hyperpod.instance_groups
    }


def test_cdk_app_prints_config_errors_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import aws_cdk as cdk

    import app as platform_app

    # `cdk synth -c env=<name>` hands the context to app.py like this (the jsii process is already running, so
    # CDK_CONTEXT_JSON set now would not reach it).
    name = absent_environment()
    real_app = cdk.App
    monkeypatch.setattr(platform_app.cdk, "App", lambda: real_app(context={"env": name}))
    with pytest.raises(SystemExit) as info:
        platform_app.main()
    assert info.value.code != 0
    err = capsys.readouterr().err
    assert f"unknown environment '{name}'" in err and "Traceback" not in err


# --- Ranges the services enforce ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        ({"kubernetes": {"karpenter": {"data_volume_gib": 16385}}}, r"kubernetes\.karpenter\.data_volume_gib.*16384"),
        ({"kubernetes": {"karpenter": {"root_volume_gib": 20000}}}, r"kubernetes\.karpenter\.root_volume_gib.*16384"),
    ],
)
def test_ebs_volumes_at_most_16_tib(overrides: dict, pattern: str) -> None:
    _fails(overrides, pattern)


def test_hyperpod_ebs_at_most_16_tib() -> None:
    groups = raw_config("dev")["compute"]["hyperpod"]["instance_groups"]
    _fails(
        {"compute": {"hyperpod": {"instance_groups": [{**groups[0], "ebs_volume_size_gb": 16385}]}}},
        r"ebs_volume_size_gb 16385 is outside 1-16384 GB \(the largest EBS volume is 16 TiB\)",
    )


def test_gpu_limits_have_a_sane_maximum() -> None:
    pools = raw_config("dev")["kubernetes"]["gpu_node_pools"]
    _fails(
        {"kubernetes": {"gpu_node_pools": [{**pools[0], "gpu_limit": 10**30}, *pools[1:]]}},
        rf"gpu_limit {10**30} is outside 1-{MAX_GPUS}",
    )
    teams = raw_config("dev")["kubernetes"]["teams"]
    _fails(
        {"kubernetes": {"teams": [{**teams[0], "gpu_quota": 10**30}, *teams[1:]]}},
        rf"kubernetes\.teams\.0\.gpu_quota.*less than or equal to {MAX_GPUS}",
    )


def test_largest_gpu_limit_renders_as_an_integer() -> None:
    """jsii passes numbers as JavaScript doubles: the largest accepted limit must still render as digits."""
    import cdk8s

    from k8s_charts.karpenter import GpuCapacityChart
    from k8s_charts.values import PlatformValues

    pools = raw_config("dev")["kubernetes"]["gpu_node_pools"]
    cfg = config_with(
        "dev",
        {
            "kubernetes": {"gpu_node_pools": [{**pools[0], "gpu_limit": MAX_GPUS}, *pools[1:]]},
            "cost": {"max_burst_usd_per_hour": None},
        },
    )
    chart = GpuCapacityChart(
        cdk8s.App(),
        "c",
        pools=cfg.kubernetes.gpu_node_pools,
        node=cfg.kubernetes.karpenter,
        values=PlatformValues.placeholders(cfg),
    )
    limits = [o["spec"]["limits"]["nvidia.com/gpu"] for o in chart.to_json() if o["kind"] == "NodePool"]
    assert str(MAX_GPUS) in [str(v) for v in limits] and not any("e+" in str(v) for v in limits)


@pytest.mark.parametrize(
    ("where", "value", "pattern"),
    [
        ("system", "m7i.superlarge", r"'m7i\.superlarge' is not an EC2 instance type.*m7i comes in m7i\.12xlarge"),
        ("system", "m7i.48xlarge", r"'m7i\.48xlarge' has no specs in config/data/instance_specs\.yaml"),
        ("pool", "p5.96xlarge", r"'p5\.96xlarge' is not a known GPU instance type"),
    ],
)
def test_instance_types_from_pinned_lists(where: str, value: str, pattern: str) -> None:
    if where == "system":
        _fails({"compute": {"system_nodes": {"instance_types": [value]}}}, pattern)
    else:
        pools = raw_config("dev")["kubernetes"]["gpu_node_pools"]
        _fails({"kubernetes": {"gpu_node_pools": [{**pools[0], "instance_types": [value]}, *pools[1:]]}}, pattern)


# --- kubernetes.cpu_node_pool (the Karpenter pool of the CPU job pods) ----------------------------------------------
_GPU_POOL = load_config("dev").kubernetes.gpu_node_pools[-1].name  # a shipped GPU pool's name


@pytest.mark.parametrize(
    ("pool", "pattern"),
    [
        (
            {"instance_types": ["t3.xlarge"]},
            r"kubernetes\.cpu_node_pool\.instance_types 't3\.xlarge' is not a current-generation general-purpose type; "
            r"use an m6 or later family such as 'm7i\.xlarge'",
        ),
        ({"instance_types": ["m5.xlarge"]}, r"'m5\.xlarge' is not a current-generation general-purpose type"),
        ({"instance_types": ["g5.xlarge"]}, r"'g5\.xlarge' is not a current-generation general-purpose type"),
        (
            {"instance_types": ["m7i.superlarge"]},
            r"kubernetes\.cpu_node_pool\.instance_types 'm7i\.superlarge' is not an EC2 instance type.*m7i comes in",
        ),
        (
            {"instance_types": ["m7i.48xlarge"]},
            r"kubernetes\.cpu_node_pool\.instance_types 'm7i\.48xlarge' has no specs in "
            r"config/data/instance_specs\.yaml",
        ),
        ({"instance_types": ["ml.m7i.xlarge"]}, r"'ml\.m7i\.xlarge' is a SageMaker \(ml\.\) type.*without 'ml\.'"),
        ({"instance_types": []}, r"kubernetes\.cpu_node_pool\.instance_types is empty; list at least one"),
        ({"instance_types": ["m7i.xlarge", "m7i.xlarge"]}, r"lists a type twice"),
        (
            {"cpu_limit": 2},
            r"kubernetes\.cpu_node_pool\.cpu_limit 2 is outside 4-4096.*smallest instance type\) the pool could never "
            r"launch a node; raise it to at least 4",
        ),
        ({"cpu_limit": 10**30}, r"kubernetes\.cpu_node_pool\.cpu_limit .* is outside 4-4096"),
        ({"consolidate_after": "Never"}, r"kubernetes\.cpu_node_pool\.consolidate_after 'Never' is not a duration"),
        (
            {"termination_grace_period": "1d"},
            r"kubernetes\.cpu_node_pool\.termination_grace_period '1d' is not a duration; use a Go duration",
        ),
        ({"name": "CPU_jobs"}, r"kubernetes\.cpu_node_pool\.name 'CPU_jobs' is not a DNS-1123 label"),
        (
            {"name": _GPU_POOL},
            rf"kubernetes\.cpu_node_pool\.name '{_GPU_POOL}' is also the name of a GPU pool.*rename one",
        ),
        ({"data_volume_gib": 16385}, r"kubernetes\.cpu_node_pool\.data_volume_gib.*16384"),
        ({"cpu_limt": 8}, r"kubernetes\.cpu_node_pool\.cpu_limt"),
    ],
)
def test_cpu_node_pool(pool: dict, pattern: str) -> None:
    _fails({"kubernetes": {"cpu_node_pool": pool}}, pattern)


def test_cpu_node_pool_defaults_and_shipped_values() -> None:
    """The shipped environments set the pool's limit; a config without the block gets a valid default pool."""
    for env in ENVIRONMENTS:
        pool = raw_config(env)["kubernetes"]["cpu_node_pool"]
        assert load_config(env).kubernetes.cpu_node_pool.cpu_limit == pool["cpu_limit"]
    from config.kubernetes import CpuNodePoolConfig

    default = CpuNodePoolConfig()
    assert default.name == "cpu-jobs" and default.cpu_limit >= 4


def test_hyperpod_instance_count_bounds_come_from_the_api_model() -> None:
    low, high = hyperpod_instance_count_range()
    groups = raw_config("dev")["compute"]["hyperpod"]["instance_groups"]
    _fails(
        {"compute": {"hyperpod": {"instance_groups": [{**groups[0], "count": high + 1}]}}},
        rf"count {high + 1} is outside {low}-{high} \(SageMaker ClusterInstanceCount\)",
    )


def test_training_plan_in_another_account_or_region() -> None:
    groups = raw_config("dev")["compute"]["hyperpod"]["instance_groups"]
    for arn, where in [
        ("arn:aws:sagemaker:us-east-1:999999999999:training-plan/p5-plan", "account 999999999999"),
        ("arn:aws:sagemaker:us-west-2:123456789012:training-plan/p5-plan", "region us-west-2"),
    ]:
        _fails(
            {"compute": {"hyperpod": {"instance_groups": [{**groups[0], "training_plan_arn": arn}]}}},
            rf"training_plan_arn is in .*{where}",
            r"deploys to account 123456789012 region us-east-1",
            r"only use training plans of its own account and region",
        )


@pytest.mark.parametrize(
    ("cidrs", "pattern"),
    [
        (["0.0.0.0/1", "128.0.0.0/1"], r"together cover every public IPv4 address"),
        (
            [
                "0.0.0.0/5",
                "8.0.0.0/7",
                "11.0.0.0/8",
                "12.0.0.0/6",
                "16.0.0.0/4",
                "32.0.0.0/3",
                "64.0.0.0/2",
                "128.0.0.0/1",
            ],
            r"together cover every public IPv4 address",
        ),  # everything but 10.0.0.0/8
        (["10.0.0.0/8"], r"'10\.0\.0\.0/8' lies in the non-public block 10\.0\.0\.0/8"),
        (["192.168.1.0/24"], r"lies in the non-public block 192\.168\.0\.0/16"),
    ],
)
def test_public_access_cidrs_public_and_not_the_whole_internet(cidrs: list[str], pattern: str) -> None:
    _fails({"compute": {"public_access_cidrs": cidrs}}, pattern)


# --- Names that become physical resource names -----------------------------------------------------------------------
def test_environment_name_too_long_for_bucket_names() -> None:
    data = raw_config("dev")
    fixed = len(f"sagemaker-llmft--lifecycle-{data['account']}-{data['region']}")  # everything but the name
    with pytest.raises(
        ConfigError,
        match=rf"environment name 'abcdefghijklmnop' makes the HyperPod lifecycle bucket "
        rf"name .* over S3's 63-character limit.*may have at most {63 - fixed} "
        rf"characters",
    ):
        parse_config("abcdefghijklmnop", data)


def test_environment_name_charset() -> None:
    with pytest.raises(ConfigError, match=r"environment name 'dev-' .*not ending with '-'"):
        parse_config("dev-", raw_config("dev"))


# --- fsx_claim_namespaces -------------------------------------------------------------------------------------------
def test_fsx_claim_namespace_overlapping_a_team() -> None:
    _fails(
        {"compute": {"fsx_claim_namespaces": ["default", "ml-research"]}},
        r"compute\.fsx_claim_namespaces names 'ml-research', a team namespace.*remove it from the list",
    )


def test_fsx_claim_namespace_nothing_creates() -> None:
    _fails(
        {"compute": {"fsx_claim_namespaces": ["default", "analytics"]}},
        r"compute\.fsx_claim_namespaces names 'analytics', a namespace nothing creates.*add a team",
    )
