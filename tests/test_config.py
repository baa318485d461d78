"""Configuration validation: bad input fails before any construct is built, naming field, value and fix."""

from __future__ import annotations

import re

import pytest

from config import ConfigError, load_config

from .conftest import ENVIRONMENTS, absent_environment, config_with
from .conftest import config_fails as _fails


def test_shipped_configs_load() -> None:
    dev, prod = load_config("dev"), load_config("prod")
    assert (dev.name, prod.name) == ("dev", "prod")
    assert len(dev.network.availability_zones) == 2 and len(prod.network.availability_zones) == 3
    assert dev.nat_gateway_count == 1 and prod.nat_gateway_count == 3
    assert dev.network.interface_endpoints == () and "eks-auth" in prod.network.interface_endpoints


def test_default_environment_is_dev() -> None:
    assert load_config(None).name == "dev"


def test_models_are_frozen() -> None:
    cfg = load_config("dev")
    with pytest.raises(Exception, match="frozen"):
        cfg.network.vpc_cidr = "10.9.0.0/16"  # type: ignore[misc]


def test_unknown_environment_lists_known_ones() -> None:
    name = absent_environment()
    with pytest.raises(
        ConfigError,
        match=rf"unknown environment '{name}'.*known environments are: "
        rf"{re.escape(', '.join(ENVIRONMENTS))}\. .*create config/{name}.yaml",
    ):
        load_config(name)


@pytest.mark.parametrize("cidr", ["10.0.0.0/33", "10.0.0.1/16", "banana"])
def test_malformed_cidr(cidr: str) -> None:
    _fails(
        {"network": {"vpc_cidr": cidr}},
        r"network\.vpc_cidr",
        re.escape(repr(cidr)),
        r"not a valid IPv4 CIDR",
        r"e\.g\. '10\.0\.0\.0/16'",
    )


def test_public_cidr_rejected() -> None:
    _fails(
        {"network": {"vpc_cidr": "8.8.0.0/16"}},
        r"network\.vpc_cidr '8\.8\.0\.0/16' is not a private range",
        r"10\.0\.0\.0/8",
    )


def test_secondary_cidr_must_be_private() -> None:
    _fails(
        {"network": {"hyperpod": {"secondary_cidr": "52.0.0.0/16"}}},
        r"network\.hyperpod\.secondary_cidr '52\.0\.0\.0/16' is not a private range",
        r"100\.64\.0\.0/10",
    )


def test_secondary_cidr_overlapping_primary() -> None:
    _fails(
        {"network": {"hyperpod": {"secondary_cidr": "10.0.128.0/17"}}},
        r"secondary_cidr 10\.0\.128\.0/17 overlaps network\.vpc_cidr 10\.0\.0\.0/16",
        r"pick a block outside it",
    )


def test_secondary_cidr_from_another_rfc1918_range() -> None:
    _fails(
        {"network": {"hyperpod": {"secondary_cidr": "192.168.0.0/16"}}},
        r"different RFC 1918 range",
        r"use a block inside 10\.0\.0\.0/8 or 100\.64\.0\.0/10",
    )


def test_shared_address_space_is_a_valid_secondary() -> None:
    cfg = config_with("dev", {"network": {"hyperpod": {"secondary_cidr": "100.64.0.0/16"}}})
    assert cfg.network.hyperpod.secondary_cidr == "100.64.0.0/16"


@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        (
            {"network": {"hyperpod": {"subnet_mask": 12}}},
            r"network\.hyperpod\.subnet_mask /12 does not fit network\.hyperpod\.secondary_cidr 10\.1\.0\.0/16; use a "
            r"mask between /16 and /28",
        ),
        (
            {"network": {"private_subnet_mask": 16}},
            r"network\.private_subnet_mask /16 does not fit network\.vpc_cidr 10\.0\.0\.0/16; use a mask between /17 "
            r"and /28",
        ),
        (
            {"network": {"private_subnet_mask": 17}},
            r"network subnets need \d+ addresses .* but network\.vpc_cidr 10\.0\.0\.0/16 has 65536; use larger masks",
        ),
    ],
)
def test_subnet_mask_that_does_not_fit(overrides: dict, pattern: str) -> None:
    _fails(overrides, pattern)


def test_az_not_in_region() -> None:
    _fails(
        {"network": {"availability_zones": ["us-east-1a", "eu-west-1b"]}},
        r"network\.availability_zones \['eu-west-1b'\] are not AZs of region 'us-east-1'",
        r"use names like 'us-east-1a'",
    )


def test_fewer_than_two_azs() -> None:
    _fails(
        {"network": {"availability_zones": ["us-east-1a"]}},
        r"network\.availability_zones \['us-east-1a'\] has 1 AZ; list at least 2 AZs",
    )


def test_hyperpod_az_not_in_vpc() -> None:
    _fails(
        {"network": {"hyperpod": {"availability_zone": "us-east-1c"}}},
        r"network\.hyperpod\.availability_zone 'us-east-1c' is not among network\.availability_zones "
        r"\['us-east-1a', 'us-east-1b'\]; pick one of them",
    )


@pytest.mark.parametrize("capacity", [0, 1000, 3600, 5000])
def test_fsx_capacity(capacity: int) -> None:
    _fails(
        {"storage": {"fsx": {"storage_capacity_gib": capacity}}},
        rf"storage\.fsx\.storage_capacity_gib {capacity} is not a valid PERSISTENT_2 size; use 1200, 2400 or a "
        r"multiple of 2400",
    )


@pytest.mark.parametrize("capacity", [1200, 2400, 4800, 9600])
def test_fsx_capacity_accepted(capacity: int) -> None:
    assert (
        config_with("dev", {"storage": {"fsx": {"storage_capacity_gib": capacity}}}).storage.fsx.storage_capacity_gib
        == capacity
    )


def test_fsx_throughput() -> None:
    _fails(
        {"storage": {"fsx": {"throughput_mib_per_tib": 200}}},
        r"storage\.fsx\.throughput_mib_per_tib 200 is not offered for PERSISTENT_2; use one of 125, 250, 500, 1000",
    )


@pytest.mark.parametrize("days", [-1, 91])
def test_fsx_backup_retention(days: int) -> None:
    _fails(
        {"storage": {"fsx": {"backup_retention_days": days}}},
        rf"storage\.fsx\.backup_retention_days {days} is outside 0-90; use 0 \(no backups\) to 90",
    )


@pytest.mark.parametrize("field", ["noncurrent_version_expiration_days", "abort_incomplete_multipart_upload_days"])
@pytest.mark.parametrize("days", [0, -5])
def test_s3_lifecycle_days(field: str, days: int) -> None:
    _fails(
        {"storage": {"s3": {field: days}}},
        rf"storage\.s3\.{field} {days} must be a positive number of days; use 1 or more",
    )


def test_unknown_top_level_key() -> None:
    _fails(
        {"netwrok": {"vpc_cidr": "10.0.0.0/16"}},
        r"netwrok: unknown key",
        r"remove it or fix its spelling",
        r"known keys here: .*network",
    )


def test_unknown_nested_key() -> None:
    _fails(
        {"storage": {"fsx": {"storage_capacity": 1200}}},
        r"storage\.fsx\.storage_capacity: unknown key",
        r"known keys here: .*storage_capacity_gib",
    )


def test_wrong_type_names_field_and_value() -> None:
    _fails({"network": {"nat_gateways": "two"}}, r"network\.nat_gateways", r"'two'", r"fix the value")


def test_account_must_be_twelve_digits() -> None:
    _fails({"account": "12345"}, r"account '12345' is not a 12-digit AWS account ID; quote it")


def test_flow_log_retention_must_be_a_cloudwatch_value() -> None:
    _fails(
        {"network": {"flow_logs_retention_days": 10}},
        r"network\.flow_logs_retention_days 10 is not a CloudWatch Logs retention; use one of 1, 3, 5, 7, 14",
    )


def test_image_build_log_retention_must_be_a_cloudwatch_value() -> None:
    _fails(
        {"storage": {"ecr": {"build_log_retention_days": 45}}},
        r"storage\.ecr\.build_log_retention_days 45 is not a CloudWatch Logs retention; use one of 1, 3, 5",
    )


def test_all_errors_reported_at_once() -> None:
    message = _fails(
        {"storage": {"fsx": {"throughput_mib_per_tib": 1, "backup_retention_days": 100}}},
        r"throughput_mib_per_tib 1",
        r"backup_retention_days 100",
    )
    assert message.count("\n  - ") == 2


def test_bad_config_fails_before_any_construct(monkeypatch: pytest.MonkeyPatch) -> None:
    """app.main() loads the config before it creates a single stack."""
    import types

    import app

    built = []

    class FakeApp:
        node = types.SimpleNamespace(try_get_context=lambda key: {"env": "nope"}.get(key))

        def synth(self) -> None:
            built.append("synth")

    monkeypatch.setattr(app, "build", lambda *a, **k: built.append("build"))
    monkeypatch.setattr(app.cdk, "App", FakeApp)
    with pytest.raises(SystemExit) as info:
        app.main()
    assert info.value.code == 1 and built == []
