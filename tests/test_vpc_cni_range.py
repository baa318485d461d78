"""vpc-cni versions that break HyperPod's cross-account subnets are refused with the field, the value and the fix."""

from __future__ import annotations

import pytest

from config.compute import BROKEN_VPC_CNI

from .conftest import ENVIRONMENTS, config_fails, config_with


@pytest.mark.parametrize("version", ["v1.22.0-eksbuild.1", "v1.22.4-eksbuild.3"])
def test_vpc_cni_in_the_hyperpod_subnet_bug_range_is_refused(version: str) -> None:
    config_fails(
        {"compute": {"addons": {"vpc_cni": version}}},
        rf"compute\.addons\.vpc_cni '{version}' is in v1\.22\.0-v1\.22\.x",
        r"ad95439 \"fix hyperpod cross-account subnet issue\"",
        r"v1\.23\.0-eksbuild\.1 or later",
    )


@pytest.mark.parametrize("version", ["v1.21.2-eksbuild.1", "v1.23.0-eksbuild.1", "v1.24.1-eksbuild.2"])
def test_vpc_cni_outside_the_range_is_accepted(version: str) -> None:
    assert config_with("dev", {"compute": {"addons": {"vpc_cni": version}}}).compute.addons.vpc_cni == version


def test_range_is_the_one_upstream_fixed() -> None:
    """The bug came with v1.22.0's secondary-ENI exclusion and the fix's first tag is v1.23.0 (aws/amazon-vpc-cni-k8s
    1d749c9 and ad95439); the shipped default lies outside."""
    assert BROKEN_VPC_CNI == ((1, 22, 0), (1, 23, 0))
    for env in ENVIRONMENTS:
        v = config_with(env).compute.addons.vpc_cni
        assert not BROKEN_VPC_CNI[0] <= tuple(int(x) for x in v[1:].split("-")[0].split(".")) < BROKEN_VPC_CNI[1]
