"""An S3 bucket with the platform's baseline: encryption, versioning, no public access, TLS only, lifecycle."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy, aws_kms as kms, aws_s3 as s3
from constructs import Construct


class SecureBucket(Construct):
    """A versioned, private, TLS-only bucket that is retained on delete and on replacement.

    Noncurrent versions expire and incomplete multipart uploads are aborted after the given days.

    :param encryption_key: customer-managed key for SSE-KMS (with S3 bucket keys, to cut KMS calls). Default: none,
        which means SSE-S3 - the only encryption a server-access-log target bucket supports.
    :param server_access_logs_bucket: where server access logs go. Default: no access logging (use it only for the
        log bucket itself).
    :param server_access_logs_prefix: prefix of this bucket's access logs. Default: ``<construct id>/``.
    :param noncurrent_version_expiration_days: default 30.
    :param abort_incomplete_multipart_upload_days: default 7.
    :param expiration_days: expire current objects too (log buckets). Default: never.
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when the create that made it rolls back, so a retry finds no orphan) (on delete and on replacement).
    """

    def __init__(self, scope: Construct, construct_id: str, *, encryption_key: kms.IKey | None = None,
                 server_access_logs_bucket: s3.IBucket | None = None, server_access_logs_prefix: str | None = None,
                 noncurrent_version_expiration_days: int = 30, abort_incomplete_multipart_upload_days: int = 7,
                 expiration_days: int | None = None, removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE) -> None:
        super().__init__(scope, construct_id)
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            encryption=s3.BucketEncryption.KMS if encryption_key else s3.BucketEncryption.S3_MANAGED,
            encryption_key=encryption_key,
            bucket_key_enabled=bool(encryption_key),
            versioned=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            minimum_tls_version=1.2,
            server_access_logs_bucket=server_access_logs_bucket,
            server_access_logs_prefix=(server_access_logs_prefix or f"{construct_id}/")
            if server_access_logs_bucket else None,
            removal_policy=removal_policy,
            lifecycle_rules=[
                s3.LifecycleRule(
                    id="noncurrent-and-incomplete",
                    noncurrent_version_expiration=Duration.days(noncurrent_version_expiration_days),
                    abort_incomplete_multipart_upload_after=Duration.days(abort_incomplete_multipart_upload_days),
                    expiration=Duration.days(expiration_days) if expiration_days else None,
                    expired_object_delete_marker=None if expiration_days else True,
                )
            ],
        )

    @property
    def bucket_name(self) -> str:
        return self.bucket.bucket_name

    @property
    def bucket_arn(self) -> str:
        return self.bucket.bucket_arn
