"""Add security groups to the network interfaces of an existing FSx file system, without replacing it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from aws_cdk import (
    Acknowledgment, CustomResource, Duration, RemovalPolicy, Stack, Validations, aws_ec2 as ec2, aws_iam as iam,
    aws_kms as kms, aws_lambda as lambda_, aws_logs as logs, custom_resources as cr,
)
from constructs import Construct

from cdk_constructs.compliance import ignore_cfn_lint, skip_checkov

HANDLER_DIR = Path(__file__).resolve().parents[1] / "lambda" / "fsx_eni_security_groups"
RESOURCE_TYPE = "Custom::FsxEniSecurityGroups"
TAG_PREFIX = "fsx-eni-sg/"
"""Tag keys the handler writes on each interface (one per managed group: was it there before, who relies on it)."""


def _ack(construct: Construct, rule: str, reason: str) -> None:
    Validations.of(construct).acknowledge(Acknowledgment(id=f"AwsSolutions::AwsSolutions-{rule}", reason=reason))


class FsxEniSecurityGroups(Construct):
    """A Lambda-backed custom resource (CDK Provider framework) that adds ``security_groups`` to every network
    interface of ``file_system_id``, records each interface's original membership in tags, and restores it on
    delete. CloudFormation alone would replace the file system to change its groups.

    The handler (``lambda/fsx_eni_security_groups/index.py``) uses only the Lambda runtime's boto3 (no download at
    cold start), adaptive retries, and is idempotent; see its docstring for the fault handling.

    IAM of the handler (exactly): ``fsx:DescribeFileSystems`` (on ``*``: the action has no resource-level
    permission); ``ec2:DescribeNetworkInterfaces`` (on ``*``, same reason); ``ec2:ModifyNetworkInterfaceAttribute``
    on network interfaces and security groups of ``vpc`` only; ``ec2:CreateTags``/``ec2:DeleteTags`` on network
    interfaces of ``vpc`` only, and only for tag keys ``fsx-eni-sg/*``.

    Attributes: ``function``, ``provider``, ``resource``.

    :param file_system_id: the FSx file system.
    :param security_groups: the groups to add (e.g. the Studio domain's inbound-NFS group).
    :param vpc: the VPC of the file system (scopes the write permissions).
    :param service_timeout: how long CloudFormation waits for the handler. Default 10 minutes.
    :param handler_timeout: the Lambda timeout (backoff stays inside it). Default 5 minutes.
    :param log_retention: default one month.
    :param log_encryption_key: KMS key of the two log groups (its policy must allow CloudWatch Logs). Default: none.
    """

    def __init__(self, scope: Construct, construct_id: str, *, file_system_id: str,
                 security_groups: Sequence[ec2.ISecurityGroup], vpc: ec2.IVpc,
                 service_timeout: Duration = Duration.minutes(10), handler_timeout: Duration = Duration.minutes(5),
                 log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
                 log_encryption_key: kms.IKey | None = None) -> None:
        super().__init__(scope, construct_id)
        if not security_groups:
            raise ValueError("FsxEniSecurityGroups needs at least one security group")
        stack = Stack.of(self)
        vpc_arn = stack.format_arn(service="ec2", resource="vpc", resource_name=vpc.vpc_id)

        log_group = logs.LogGroup(self, "HandlerLogs", retention=log_retention, encryption_key=log_encryption_key,
                                   removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
        self.function = lambda_.Function(
            self,
            "Handler",
            runtime=lambda_.Runtime.PYTHON_3_14,
            handler="index.on_event",
            code=lambda_.Code.from_asset(str(HANDLER_DIR)),
            timeout=handler_timeout,
            memory_size=256,
            description="Adds security groups to an FSx file system's network interfaces; restores them on delete",
            log_group=log_group,
        )
        self.function.add_to_role_policy(iam.PolicyStatement(
            sid="Describe",
            actions=["fsx:DescribeFileSystems", "ec2:DescribeNetworkInterfaces"],
            resources=["*"],
        ))
        self.function.add_to_role_policy(iam.PolicyStatement(
            sid="ModifyInterfacesOfThisVpc",
            actions=["ec2:ModifyNetworkInterfaceAttribute"],
            resources=[stack.format_arn(service="ec2", resource="network-interface", resource_name="*"),
                       stack.format_arn(service="ec2", resource="security-group", resource_name="*")],
            conditions={"ArnEquals": {"ec2:Vpc": vpc_arn}},
        ))
        self.function.add_to_role_policy(iam.PolicyStatement(
            sid="RecordOriginalGroups",
            actions=["ec2:CreateTags", "ec2:DeleteTags"],
            resources=[stack.format_arn(service="ec2", resource="network-interface", resource_name="*")],
            conditions={"ArnEquals": {"ec2:Vpc": vpc_arn},
                        "ForAllValues:StringLike": {"aws:TagKeys": [f"{TAG_PREFIX}*"]}},
        ))
        _ack(self.function, "IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                            "AWSLambdaBasicExecutionRole]",
             "The handler writes its logs through the AWS-managed basic execution policy (logs only).")
        _ack(self.function, "IAM5[Resource::*]",
             "fsx:DescribeFileSystems and ec2:DescribeNetworkInterfaces support no resource-level permissions.")
        for kind in ("network-interface", "security-group"):
            _ack(self.function, f"IAM5[Resource::arn:{stack.partition}:ec2:{stack.region}:{stack.account}:{kind}/*]",
                 "FSx creates its interfaces with IDs unknown at synth; writes are limited to the platform VPC by "
                 "the ec2:Vpc condition and tagging to the handler's own fsx-eni-sg/* keys.")
        skip_checkov(self.function, "CKV_AWS_116", "Invoked synchronously by the Provider framework, which reports "
                                                   "failures to CloudFormation; a dead-letter queue would hold "
                                                   "nothing actionable.")
        skip_checkov(self.function, "CKV_AWS_117", "Calls only the EC2 and FSx APIs; placing it in the VPC would add "
                                                   "ENIs and endpoint dependencies without reducing exposure.")
        skip_checkov(self.function, "CKV_AWS_173", "The function has no environment variables to encrypt.")
        skip_checkov(self.function, "CKV_AWS_115", "Runs only when CloudFormation changes this resource; reserving "
                                                   "concurrency fails in accounts at the 10-execution minimum.")
        ignore_cfn_lint(self.function, "W3005", "aws-cdk-lib adds DependsOn on the service role's policy next to "
                                                "the GetAtt of the role; harmless and not editable from here.")

        provider_logs = logs.LogGroup(self, "ProviderLogs", retention=log_retention,
                                      encryption_key=log_encryption_key,
                                      removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
        self.provider = cr.Provider(self, "Provider", on_event_handler=self.function, log_group=provider_logs)
        _ack(self.provider, "IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                            "AWSLambdaBasicExecutionRole]",
             "The CDK Provider framework function logs through the AWS-managed basic execution policy.")
        _ack(self.provider, f"IAM5[Resource::<{stack.get_logical_id(self.function.node.default_child)}.Arn>:*]",
             "The Provider framework invokes any published version of the handler (function ARN with :*).")
        _ack(self.provider, "L1", "The Provider framework's runtime is chosen by aws-cdk-lib and moves forward "
                                  "with aws-cdk-lib upgrades.")
        framework = self.provider.node.find_child("framework-onEvent")
        for check, reason in (
            ("CKV_AWS_116", "The Provider framework function is invoked synchronously by CloudFormation."),
            ("CKV_AWS_117", "The Provider framework function only calls Lambda and CloudFormation's response URL."),
            ("CKV_AWS_115", "The Provider framework function runs once per deployment of this resource."),
            ("CKV_AWS_173", "The framework's only environment variable is the handler's function name."),
        ):
            skip_checkov(framework, check, reason)
        ignore_cfn_lint(framework, "W3005", "aws-cdk-lib adds DependsOn on the framework role's policy next to the "
                                            "GetAtt of the role; harmless and not editable from here.")

        self.resource = CustomResource(
            self,
            "Resource",
            service_token=self.provider.service_token,
            resource_type=RESOURCE_TYPE,
            service_timeout=service_timeout,
            properties={
                "FileSystemId": file_system_id,
                "SecurityGroupIds": [sg.security_group_id for sg in security_groups],
            },
        )
