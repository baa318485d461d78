"""Storage layer (<Env>-Storage): the platform KMS key, S3 buckets, FSx for Lustre and the training images (ECR +
CodeBuild)."""

from __future__ import annotations

from cdk_constructs.storage.image_build import ImageBuildProject
from cdk_constructs.storage.platform_key import PlatformKey
from cdk_constructs.storage.secure_bucket import SecureBucket
from cdk_constructs.storage.shared_file_system import SharedFileSystem
from cdk_constructs.storage.training_image_repository import PlatformImageRepositories, TrainingImageRepository

__all__ = [
    "ImageBuildProject",
    "PlatformImageRepositories",
    "PlatformKey",
    "SecureBucket",
    "SharedFileSystem",
    "TrainingImageRepository",
]
