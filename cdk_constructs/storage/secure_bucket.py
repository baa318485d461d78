"""An S3 bucket with the platform's baseline: encryption, versioning, no public access, TLS only, lifecycle."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct

from cdk_constructs.governance.nag_findings import (
    acknowledge,
    acknowledge_grant,
    acknowledge_prefix_wildcard,
    wildcard_actions,
)

# What aws-cdk-lib's bucket grants add on the bucket's key besides the bucket's own statement (Key.grantDecrypt /
# grantEncryptDecrypt): the action groups among them are IAM5 findings on the grantee.
_KEY_ACTION_GROUPS = {"read": (), "read_write": ("kms:GenerateDataKey*", "kms:ReEncrypt*")}


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
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when the
        create that made it rolls back, so a retry finds no orphan).

    Grants: :meth:`grant_read` and :meth:`grant_read_write` give a principal (of any stack) the objects under a prefix
    and acknowledge the cdk-nag IAM5 findings such a grant causes (the prefix wildcard, the ``s3:GetObject*``-style
    action groups, the key's ``kms:GenerateDataKey*``) with a reason naming the bucket and the prefix, so the
    principal's stack passes cdk-nag.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        encryption_key: kms.IKey | None = None,
        server_access_logs_bucket: s3.IBucket | None = None,
        server_access_logs_prefix: str | None = None,
        noncurrent_version_expiration_days: int = 30,
        abort_incomplete_multipart_upload_days: int = 7,
        expiration_days: int | None = None,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    ) -> None:
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
            if server_access_logs_bucket
            else None,
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

    def _grant(self, kind: str, grantee: iam.IGrantable, prefix: str, reason: str | None) -> iam.Grant:
        if prefix and not prefix.endswith("/"):
            raise ValueError(
                f"{self.node.path}: grant_{kind} prefix {prefix!r} must end with '/' (a folder), e.g. "
                f"'evals/'; '' grants the whole bucket"
            )
        pattern = f"{prefix}*"
        grant = (
            self.bucket.grant_read(grantee, pattern)
            if kind == "read"
            else self.bucket.grant_read_write(grantee, pattern)
        )
        reason = reason or (
            f"{kind.replace('_', '/')} of every object under {prefix or 'the root of'} "
            f"{self.node.path}: the prefix, not object names, is the access boundary"
        )
        acknowledge_grant(grantee, grant, reason)
        if isinstance(grantee, Construct):
            if self.bucket.encryption_key is not None and _KEY_ACTION_GROUPS[kind]:
                acknowledge(
                    grantee,
                    f"{reason} (the bucket's key, its data-key operations)",
                    *wildcard_actions(*_KEY_ACTION_GROUPS[kind]),
                )
            acknowledge_prefix_wildcard(grantee, bucket_arn=self.bucket_arn, suffix=f"/{pattern}", reason=reason)
        return grant

    def grant_read(self, grantee: iam.IGrantable, *, prefix: str = "", reason: str | None = None) -> iam.Grant:
        """Read (get and list) of the objects under ``prefix`` (``""``: the whole bucket; else ending in ``/``), and
        decrypt with the bucket's key. ``reason``: the cdk-nag acknowledgement's reason (default names the bucket
        and prefix)."""
        return self._grant("read", grantee, prefix, reason)

    def grant_read_write(self, grantee: iam.IGrantable, *, prefix: str = "", reason: str | None = None) -> iam.Grant:
        """Read, write and delete of the objects under ``prefix``, and encrypt/decrypt with the bucket's key; as
        :meth:`grant_read`."""
        return self._grant("read_write", grantee, prefix, reason)
