"""Bad compute configuration fails in the config layer, naming the field, the value and the fix."""

from __future__ import annotations

import re

import pytest

from config import ConfigError
from config.compute import (
    DEFAULT_KUBERNETES_VERSION,
    HYPERPOD_KUBERNETES_VERSIONS,
    KUBECTL_LAYER_VERSIONS,
    hyperpod_instance_types,
    nvidia_hyperpod_instance_types,
)

from .conftest import ENVIRONMENTS, config_with
from .conftest import config_fails as _fails


def group(**overrides):
    return {"name": "gpu-workers", "instance_type": "ml.g5.8xlarge", "count": 1, **overrides}


def hyperpod(*groups):
    return {"compute": {"hyperpod": {"instance_groups": list(groups)}}}


def test_shipped_environments_are_valid() -> None:
    """Valid, each on a version the app pins (which versions may differ: tests/test_upgrade_path.py, the runbook)."""
    for env in ENVIRONMENTS:
        assert config_with(env).compute.kubernetes_version in KUBECTL_LAYER_VERSIONS


def test_default_version_is_the_newest_hyperpod_supports() -> None:
    newest = max(HYPERPOD_KUBERNETES_VERSIONS, key=lambda v: tuple(map(int, v.split("."))))
    assert DEFAULT_KUBERNETES_VERSION == newest


def test_instance_types_come_from_botocore_offline() -> None:
    types = hyperpod_instance_types()
    assert "ml.p5.48xlarge" in types and "ml.g5.8xlarge" in types
    assert all(t.startswith("ml.") for t in types)
    nvidia = nvidia_hyperpod_instance_types()
    assert "ml.p4d.24xlarge" in nvidia and "ml.m5.large" not in nvidia and "ml.trn1.32xlarge" not in nvidia


def _minor(version: str) -> int:
    return int(version.split(".")[1])


_HYPERPOD_RANGE = sorted(HYPERPOD_KUBERNETES_VERSIONS, key=_minor)
_SUPPORTED = re.escape(", ".join(HYPERPOD_KUBERNETES_VERSIONS))
_PINNED = re.escape(", ".join(KUBECTL_LAYER_VERSIONS))
_UNSUPPORTED = [
    (f"1.{_minor(_HYPERPOD_RANGE[0]) - 1}", rf"SageMaker HyperPod supports {_SUPPORTED}"),
    (f"1.{_minor(_HYPERPOD_RANGE[-1]) + 1}", rf"SageMaker HyperPod supports {_SUPPORTED}"),
    *[
        (v, rf"the app pins kubectl layers only for {_PINNED}")
        for v in _HYPERPOD_RANGE
        if v not in KUBECTL_LAYER_VERSIONS
    ][-1:],
]


@pytest.mark.parametrize(("version", "why"), _UNSUPPORTED)
def test_unsupported_kubernetes_version(version: str, why: str) -> None:
    with pytest.raises(
        ConfigError,
        match=rf"compute\.kubernetes_version '{re.escape(version)}' is not supported "
        rf"\({why}\); use '{re.escape(DEFAULT_KUBERNETES_VERSION)}'",
    ):
        config_with("dev", {"compute": {"kubernetes_version": version}})


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_kube_proxy_must_match_the_kubernetes_version(env: str) -> None:
    cfg = config_with(env).compute
    other = next((v for v in KUBECTL_LAYER_VERSIONS if v != cfg.kubernetes_version), None)
    if other is None:
        pytest.skip("the app pins one Kubernetes version only")
    proxy = cfg.addons.kube_proxy
    with pytest.raises(
        ConfigError,
        match=rf"compute\.addons\.kube_proxy '{re.escape(proxy)}' is for Kubernetes "
        rf"{re.escape(cfg.kubernetes_version)} but compute\.kubernetes_version is "
        rf"'{re.escape(other)}'",
    ):
        config_with(env, {"compute": {"kubernetes_version": other}})


def test_vpc_cni_below_hyperpod_minimum() -> None:
    with pytest.raises(
        ConfigError,
        match=r"compute\.addons\.vpc_cni 'v1\.18\.2-eksbuild\.1' is older than "
        r"v1\.18\.3",
    ):
        config_with("dev", {"compute": {"addons": {"vpc_cni": "v1.18.2-eksbuild.1"}}})


def test_malformed_addon_version() -> None:
    with pytest.raises(ConfigError, match=r"compute\.addons\.coredns 'latest' is not an EKS add-on version"):
        config_with("dev", {"compute": {"addons": {"coredns": "latest"}}})


def test_unknown_instance_type_lists_close_matches() -> None:
    with pytest.raises(
        ConfigError,
        match=r"instance_type 'ml\.p5\.48xlarg' is not a SageMaker HyperPod "
        r"ClusterInstanceType known to botocore; close matches: ml\.p5\.48xlarge",
    ):
        config_with("dev", hyperpod(group(instance_type="ml.p5.48xlarg")))


def test_ec2_instance_type_is_not_a_hyperpod_type() -> None:
    with pytest.raises(
        ConfigError,
        match=r"'p5\.48xlarge' is not a SageMaker HyperPod ClusterInstanceType.*"
        r"ml\.p5\.48xlarge",
    ):
        config_with("dev", hyperpod(group(instance_type="p5.48xlarge")))


def test_negative_count() -> None:
    with pytest.raises(
        ConfigError,
        match=r"instance_groups count -1 is outside 0-6758 \(SageMaker ClusterInstanceCount\); use 0 \(scale to zero",
    ):
        config_with("dev", hyperpod(group(count=-1)))


def test_zero_count_is_allowed_with_continuous_provisioning() -> None:
    teams = [
        {"name": "hyperpod-platform", "allowed_tiers": ["production"], "gpu_quota": 0}
    ]  # no Kueue share on an empty group
    (g,) = config_with(
        "dev", {**hyperpod(group(count=0)), "kubernetes": {"teams": teams}, "studio": {"user_profiles": []}}
    ).compute.hyperpod.instance_groups
    assert g.count == 0


def test_duplicate_instance_group_names() -> None:
    with pytest.raises(ConfigError, match=r"duplicate names \['gpu-workers'\]; give each group a unique name"):
        config_with("dev", hyperpod(group(), group(instance_type="ml.g5.12xlarge")))


def test_empty_instance_groups() -> None:
    with pytest.raises(ConfigError, match=r"compute\.hyperpod\.instance_groups is empty"):
        config_with("dev", hyperpod())


def test_invalid_group_name() -> None:
    with pytest.raises(ConfigError, match=r"name 'gpu_workers' is invalid; use 1-63 letters, digits and hyphens"):
        config_with("dev", hyperpod(group(name="gpu_workers")))


def test_malformed_training_plan_arn() -> None:
    with pytest.raises(
        ConfigError,
        match=r"training_plan_arn 'arn:aws:sagemaker:us-east-1:123:training-plan/x' is "
        r"not a training plan ARN; expected arn:aws:sagemaker:<region>",
    ):
        config_with("dev", hyperpod(group(training_plan_arn="arn:aws:sagemaker:us-east-1:123:training-plan/x")))


def test_valid_training_plan_arn() -> None:
    arn = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-reservation"
    (g,) = config_with("dev", hyperpod(group(training_plan_arn=arn))).compute.hyperpod.instance_groups
    assert g.training_plan_arn == arn


def test_deep_health_checks_on_a_cpu_group() -> None:
    with pytest.raises(ConfigError, match=r"deep_health_checks is true but ml\.m5\.large is a CPU type"):
        config_with("dev", hyperpod(group(instance_type="ml.m5.large", deep_health_checks=True)))


def test_reserved_labels_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"labels must not set 'gpu-type'"):
        config_with("dev", hyperpod(group(labels={"gpu-type": "x"})))


@pytest.mark.parametrize(
    "arn",
    [
        "arn:aws:iam::123456789012:user/alice",
        "arn:aws:sts::123456789012:assumed-role/Admin/alice",
        "arn:aws:iam::12345:role/Admin",
        "PlatformAdmin",
    ],
)
def test_malformed_admin_arn(arn: str) -> None:
    with pytest.raises(
        ConfigError,
        match=r"compute\.admin_role_arns \[.*\] are not IAM role ARNs; use "
        r"arn:aws:iam::<12-digit account>:role/<name>",
    ):
        config_with("dev", {"compute": {"admin_role_arns": [arn]}})


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_public_endpoint_open_to_the_world_is_rejected(env: str) -> None:
    with pytest.raises(
        ConfigError,
        match=r"compute\.public_access_cidrs \['0\.0\.0\.0/0'\] together cover every "
        r"public IPv4 address.*list your office/VPN CIDRs",
    ):
        config_with(env, {"compute": {"public_access_cidrs": ["0.0.0.0/0"]}})


def test_public_endpoint_with_explicit_cidrs_is_allowed() -> None:
    assert config_with("prod", {"compute": {"public_access_cidrs": ["203.0.113.0/24"]}}).compute.public_access_cidrs
    assert config_with("dev", {"compute": {"public_access_cidrs": ["198.51.100.0/24", "8.0.0.0/7"]}})


def test_malformed_public_cidr() -> None:
    with pytest.raises(ConfigError, match=r"compute\.public_access_cidrs '203\.0\.113\.1/24' is not an IPv4 CIDR"):
        config_with("dev", {"compute": {"public_access_cidrs": ["203.0.113.1/24"]}})


def test_hyperpod_subnet_az_mismatch() -> None:
    with pytest.raises(
        ConfigError,
        match=r"'gpu-workers' availability_zone 'us-east-1b' differs from "
        r"network\.hyperpod\.availability_zone 'us-east-1a'; HyperPod nodes launch "
        r"in the HyperPod subnet",
    ):
        config_with("dev", hyperpod(group(availability_zone="us-east-1b")))


def test_system_node_sizes_are_ordered() -> None:
    with pytest.raises(ConfigError, match=r"min_size <= desired_size <= max_size; got 2 <= 5 <= 3"):
        config_with("dev", {"compute": {"system_nodes": {"desired_size": 5}}})


def test_unknown_compute_key_is_reported() -> None:
    with pytest.raises(ConfigError, match=r"compute\.kubernetes_versoin: unknown key"):
        config_with("dev", {"compute": {"kubernetes_versoin": "1.34"}})


@pytest.mark.parametrize("field", ["karpenter", "kueue", "kuberay", "secrets_store"])
@pytest.mark.parametrize("value", ["1.14", "latest", ">=1.0.0", "1.x.0"])
def test_chart_versions_must_be_exact(field: str, value: str) -> None:
    from config.charts import ChartVersionsConfig

    default = ChartVersionsConfig.model_fields[field].default
    _fails(
        {"compute": {"charts": {field: value}}},
        rf"compute\.charts\.{field}",
        re.escape(repr(value)),
        r"not an exact chart version",
        rf"e\.g\. {re.escape(repr(default))}",
    )


@pytest.mark.parametrize(
    ("service", "shape"),
    [
        ("ec2", "InstanceType"),
        ("sagemaker", "ClusterInstanceType"),
        ("sagemaker", "ClusterInstanceCount"),
        ("sagemaker", "AppInstanceType"),
    ],
)
def test_the_fast_botocore_shape_reader_agrees_with_botocore(service: str, shape: str) -> None:
    """config/instances.py reads one shape of a botocore model without parsing the whole model (a tenth of a synth
    before); it must give what botocore's own loader gives."""
    import botocore.session

    from config.instances import botocore_shape

    full = botocore.session.get_session().get_service_model(service)._service_description["shapes"][shape]
    assert botocore_shape(service, shape) == full
