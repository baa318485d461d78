"""The HyperPod cluster's log group, with the platform's retention and key.

HyperPod writes lifecycle-script and node logs to ``/aws/sagemaker/Clusters/<cluster name>/<cluster id>`` (streams
``LifecycleConfig/<group>/<instance>``), where the cluster ID is the last segment of the cluster ARN. The name exists
only once the cluster does, and HyperPod creates the group itself while the first nodes run their scripts - possibly
before CloudFormation could create an ``AWS::Logs::LogGroup`` of that name (which would then fail on "already
exists"). So custom resources (CloudWatch Logs API calls, idempotent) create the group if it is missing and set its
retention and KMS key either way. Deleting them leaves the group; its retention expires what it holds.
"""

from __future__ import annotations

from aws_cdk import (
    ArnFormat,
    Fn,
    RemovalPolicy,
    Stack,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_logs as logs,
)
from aws_cdk import (
    custom_resources as cr,
)
from aws_cdk.region_info import RegionInfo
from constructs import Construct

from cdk_constructs.governance.compliance import ignore_cfn_lint, skip_checkov
from cdk_constructs.governance.log_retention import retention
from cdk_constructs.governance.nag_findings import acknowledge, managed_policy, wildcard_resources

SINGLETON_ID = "AWS679f53fac002430cb0da5b7982bd2287"
"""Construct ID of the stack-level Lambda function aws-cdk-lib creates for every AwsCustomResource."""


class HyperPodLogGroup(Construct):
    """Attributes: ``log_group_name`` (token), ``create``, ``retention``, ``key`` (the ``AwsCustomResource`` calls).

    :param cluster_name: HyperPod cluster name. Required.
    :param cluster_arn: its ARN (``CfnCluster.attr_cluster_arn``). Required.
    :param retention_days: a CloudWatch Logs retention value. Required.
    :param encryption_key: KMS key whose policy admits CloudWatch Logs. Required.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster_name: str,
        cluster_arn: str,
        retention_days: int,
        encryption_key: kms.IKey,
    ) -> None:
        super().__init__(scope, construct_id)
        prefix = f"/aws/sagemaker/Clusters/{cluster_name}/"
        self.log_group_name = Fn.join("", [prefix, Fn.select(1, Fn.split("/", cluster_arn))])
        handler_logs = logs.LogGroup(
            self,
            "HandlerLogs",
            retention=retention(retention_days),
            encryption_key=encryption_key,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self._add_calls(
            cluster_name=cluster_name,
            policy=self._policy(prefix),
            handler_logs=handler_logs,
            retention_days=retention_days,
            key_arn=encryption_key.key_arn,
        )
        self._acknowledge_handler(prefix)

    def _policy(self, prefix: str) -> cr.AwsCustomResourcePolicy:
        """The calls' policy: create, set retention and key on the cluster's log groups only."""
        group_arn = Stack.of(self).format_arn(
            service="logs", resource="log-group", resource_name=f"{prefix}*", arn_format=ArnFormat.COLON_RESOURCE_NAME
        )
        return cr.AwsCustomResourcePolicy.from_statements(
            [
                iam.PolicyStatement(
                    actions=["logs:CreateLogGroup", "logs:PutRetentionPolicy", "logs:AssociateKmsKey"],
                    resources=[group_arn],
                )
            ]
        )

    def _add_calls(
        self,
        *,
        cluster_name: str,
        policy: cr.AwsCustomResourcePolicy,
        handler_logs: logs.ILogGroup,
        retention_days: int,
        key_arn: str,
    ) -> None:
        """Create the log group, then set its retention and its key, as CloudWatch Logs SDK calls."""
        name = self.log_group_name

        def call(action: str, parameters: dict[str, object], ignore: str | None = None) -> cr.AwsSdkCall:
            """One CloudWatch Logs call, its physical ID fixed per action and cluster."""
            return cr.AwsSdkCall(
                service="CloudWatchLogs",
                action=action,
                parameters=parameters,
                physical_resource_id=cr.PhysicalResourceId.of(f"{action}:{cluster_name}"),
                ignore_error_codes_matching=ignore,
            )

        self.create = cr.AwsCustomResource(
            self,
            "Create",
            on_create=call(
                "createLogGroup", {"logGroupName": name, "kmsKeyId": key_arn}, ignore="ResourceAlreadyExistsException"
            ),
            policy=policy,
            log_group=handler_logs,
            install_latest_aws_sdk=False,
        )
        self.retention = cr.AwsCustomResource(
            self,
            "Retention",
            on_create=call("putRetentionPolicy", {"logGroupName": name, "retentionInDays": retention_days}),
            on_update=call("putRetentionPolicy", {"logGroupName": name, "retentionInDays": retention_days}),
            policy=policy,
            log_group=handler_logs,
            install_latest_aws_sdk=False,
        )
        self.key = cr.AwsCustomResource(
            self,
            "Key",
            on_create=call("associateKmsKey", {"logGroupName": name, "kmsKeyId": key_arn}),
            on_update=call("associateKmsKey", {"logGroupName": name, "kmsKeyId": key_arn}),
            policy=policy,
            log_group=handler_logs,
            install_latest_aws_sdk=False,
        )
        for step in (self.retention, self.key):
            step.node.add_dependency(self.create)

    def _acknowledge_handler(self, prefix: str) -> None:
        """Record the reviewed cdk-nag, cfn-lint and checkov findings of the shared SDK-call handler."""
        stack = Stack.of(self)
        singleton = stack.node.find_child(SINGLETON_ID)
        acknowledge(
            singleton,
            "aws-cdk-lib's AwsCustomResource handler logs through the AWS-managed basic execution "
            "policy and runs the runtime the library pins.",
            managed_policy("service-role/AWSLambdaBasicExecutionRole"),
            "L1",
        )
        partition = RegionInfo.get(stack.region).partition or "aws"
        acknowledge(
            self,
            "The HyperPod log group's name ends in the cluster ID, known only after the cluster "
            "exists; the calls are limited to this cluster's log groups.",
            *wildcard_resources(f"arn:{partition}:logs:{stack.region}:{stack.account}:log-group:{prefix}*"),
        )
        function = singleton.node.default_child
        ignore_cfn_lint(
            function,
            "W3005",
            "aws-cdk-lib adds DependsOn on the handler's service role next to the "
            "GetAtt; harmless and not editable from here.",
        )
        for check_id, reason in {
            "CKV_AWS_115": "deploy-time handler invoked by CloudFormation only; reserved concurrency adds nothing",
            "CKV_AWS_116": "invoked synchronously by CloudFormation, which reports every failure; no DLQ event",
            "CKV_AWS_117": "calls only the CloudWatch Logs API; no VPC resource to reach",
            "CKV_AWS_173": "the environment holds no secrets; Lambda encrypts it with an AWS-managed key",
        }.items():
            skip_checkov(function, check_id, reason)
