"""Storage section: S3 buckets, FSx for Lustre and the training-image ECR repository."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ._base import ConfigModel, check_log_retention

PERSISTENT_2_THROUGHPUT = (125, 250, 500, 1000)


class S3LifecycleConfig(ConfigModel):
    """Lifecycle rules applied to every platform bucket."""

    noncurrent_version_expiration_days: int = Field(
        30, description="Delete overwritten/deleted object versions after this many days."
    )
    abort_incomplete_multipart_upload_days: int = Field(
        7, description="Abort multipart uploads (e.g. interrupted checkpoint exports) after this many days."
    )
    access_logs_expiration_days: int = Field(365, description="Delete server access logs after this many days.")

    @field_validator(
        "noncurrent_version_expiration_days", "abort_incomplete_multipart_upload_days", "access_logs_expiration_days"
    )
    @classmethod
    def _positive(cls, v: int, info) -> int:
        if v <= 0:
            raise ValueError(f"storage.s3.{info.field_name} {v} must be a positive number of days; use 1 or more")
        return v


class FsxConfig(ConfigModel):
    """FSx for Lustre PERSISTENT_2 file system in the HyperPod subnet; each team's tree is linked to its S3 prefix."""

    storage_capacity_gib: int = Field(1200, description="1200, 2400 or a multiple of 2400 GiB.")
    throughput_mib_per_tib: int = Field(125, description="PERSISTENT_2 per-unit throughput: 125, 250, 500 or 1000.")
    backup_retention_days: int = Field(7, description="Daily automatic backups kept (0 turns backups off).")
    compression: Literal["LZ4", "NONE"] = Field("LZ4", description="Data compression.")
    auto_import: bool = Field(
        True,
        description="Import new/changed/deleted S3 objects of a team's prefix into its "
        "FSx tree `/teams/<team>` automatically (one data repository "
        "association per team).",
    )
    auto_export: bool = Field(
        True, description="Export new/changed/deleted files of a team's FSx tree to its S3 prefix automatically."
    )

    @field_validator("storage_capacity_gib")
    @classmethod
    def _capacity(cls, v: int) -> int:
        if v not in (1200, 2400) and (v <= 0 or v % 2400):
            lower = max(2400, v // 2400 * 2400)
            raise ValueError(
                f"storage.fsx.storage_capacity_gib {v} is not a valid PERSISTENT_2 size; use 1200, 2400 or a "
                f"multiple of 2400 (nearest: {lower} or {lower + 2400})"
            )
        return v

    @field_validator("throughput_mib_per_tib")
    @classmethod
    def _throughput(cls, v: int) -> int:
        if v not in PERSISTENT_2_THROUGHPUT:
            raise ValueError(
                f"storage.fsx.throughput_mib_per_tib {v} is not offered for PERSISTENT_2; use one of "
                f"{', '.join(map(str, PERSISTENT_2_THROUGHPUT))}"
            )
        return v

    @field_validator("backup_retention_days")
    @classmethod
    def _retention(cls, v: int) -> int:
        if not 0 <= v <= 90:
            raise ValueError(f"storage.fsx.backup_retention_days {v} is outside 0-90; use 0 (no backups) to 90")
        return v


class EcrConfig(ConfigModel):
    """ECR repositories of the platform images (one per image in images/) and the CodeBuild projects that fill them."""

    untagged_image_expiry_days: int = Field(14, description="Expire untagged images after this many days.")
    build_log_retention_days: int = Field(30, description="CloudWatch retention of the image builds' logs.")

    @field_validator("build_log_retention_days")
    @classmethod
    def _log_retention(cls, v: int) -> int:
        return check_log_retention("storage.ecr.build_log_retention_days", v)

    @field_validator("untagged_image_expiry_days")
    @classmethod
    def _positive(cls, v: int) -> int:
        if v <= 0:
            raise ValueError(f"storage.ecr.untagged_image_expiry_days {v} must be positive; use 1 or more")
        return v


class StorageConfig(ConfigModel):
    s3: S3LifecycleConfig = S3LifecycleConfig()
    fsx: FsxConfig = FsxConfig()
    ecr: EcrConfig = EcrConfig()
