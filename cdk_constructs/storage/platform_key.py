"""The platform's customer-managed KMS key."""

from __future__ import annotations

from aws_cdk import Aws, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from cdk_constructs.governance.compliance import skip_checkov
from cdk_constructs.governance.nag_findings import acknowledge_grant


class PlatformKey(Construct):
    """A customer-managed key with yearly rotation, retained on delete and on replacement.

    Besides the account's administrators (default key policy), the key admits:

    - FSx for Lustre's per-file-system service-linked role ``AWSServiceRoleForFSxS3Access_fs-*``, through S3 only,
      so the data repository association can read and write the SSE-KMS data bucket. The role's name contains the
      file system ID, which does not exist until the file system does, hence the ARN pattern;
    - CloudWatch Logs in this account and region, for encrypted log groups.

    :param alias: key alias without the ``alias/`` prefix. Required.
    :param removal_policy: default ``RETAIN_ON_UPDATE_OR_DELETE`` (kept on delete and replacement; removed when the
        create that made it rolls back, so a retry finds no orphan).

    Grants: :meth:`grant_decrypt` and :meth:`grant_encrypt_decrypt` (on this key only), acknowledging the cdk-nag
    IAM5 findings of the ``kms:GenerateDataKey*``/``kms:ReEncrypt*`` action groups on the grantee.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        alias: str,
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    ) -> None:
        super().__init__(scope, construct_id)
        self.key = kms.Key(
            self,
            "Key",
            alias=f"alias/{alias}",
            description=f"{alias}: platform data at rest (S3, FSx, ECR, logs, secrets)",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        account, region = Aws.ACCOUNT_ID, Aws.REGION
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="FsxDataRepositoryThroughS3",
                principals=[iam.AnyPrincipal()],
                actions=["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*", "kms:DescribeKey"],
                resources=["*"],
                conditions={
                    "StringEquals": {"kms:CallerAccount": account, "kms:ViaService": f"s3.{region}.amazonaws.com"},
                    "ArnLike": {
                        "aws:PrincipalArn": f"arn:{Aws.PARTITION}:iam::{account}:role/aws-service-role/"
                        f"s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_fs-*"
                    },
                },
            )
        )
        skip_checkov(
            self.key,
            "CKV_AWS_33",
            "The only wildcard principal is bound by aws:PrincipalArn to FSx's per-file-system S3 link role, "
            "kms:CallerAccount to this account and kms:ViaService to S3; the role name is unknown until the "
            "file system exists",
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchLogs",
                principals=[iam.ServicePrincipal(f"logs.{Stack.of(self).region}.amazonaws.com")],
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                conditions={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": f"arn:{Aws.PARTITION}:logs:{region}:{account}:log-group:*"
                    }
                },
            )
        )

    @property
    def key_arn(self) -> str:
        return self.key.key_arn

    def grant_decrypt(self, grantee: iam.IGrantable) -> iam.Grant:
        """``kms:Decrypt`` on this key (read data encrypted with it)."""
        return self.key.grant_decrypt(grantee)

    def grant_encrypt_decrypt(self, grantee: iam.IGrantable, *, reason: str | None = None) -> iam.Grant:
        """Encrypt, decrypt, re-encrypt and data keys with this key (write data encrypted with it). ``reason``: the
        cdk-nag acknowledgement's reason for the action groups (default names the key)."""
        grant = self.key.grant_encrypt_decrypt(grantee)
        acknowledge_grant(
            grantee,
            grant,
            reason
            or f"Encrypt and decrypt with {self.node.path} only (this key's "
            f"ARN): the action groups are KMS's data-key operations",
        )
        return grant
