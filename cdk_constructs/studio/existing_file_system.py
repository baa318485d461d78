"""Studio on an FSx for Lustre file system the platform does not own (issue 36): the custom resource that lets the
Studio domain's NFS security group reach the file system's network interfaces.

The handler is ``lambda/fsx_network_interfaces/index.py`` (its docstring has the contract); it is deployed with
aws-cdk-lib's custom resource ``Provider`` framework (``custom_resources.Provider``: the framework's own function
sends the CloudFormation response, retries nothing on its own and fails the event with the handler's message, so a
failure rolls back instead of leaving the stack waiting an hour).
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import (
    CustomResource,
    Duration,
    RemovalPolicy,
    Stack,
    Token,
)
from aws_cdk import (
    aws_ec2 as ec2,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_lambda as lambda_,
)
from aws_cdk import (
    aws_logs as logs,
)
from aws_cdk import (
    custom_resources as cr,
)
from constructs import Construct

from cdk_constructs.governance.compliance import ignore_cfn_lint
from cdk_constructs.governance.log_retention import retention
from cdk_constructs.governance.nag_findings import acknowledge, wildcard_resources

HANDLER_DIR = Path(__file__).resolve().parents[2] / "lambda" / "fsx_network_interfaces"
RUNTIME = lambda_.Runtime.PYTHON_3_14
"""The newest Python runtime of the pinned aws-cdk-lib that Lambda supports (cdk-nag AwsSolutions-L1)."""


class ExistingFileSystemAccess(Construct):
    """Adds ``security_group`` to every network interface of the existing FSx for Lustre file system
    ``file_system_id`` in ``vpc`` (and removes exactly that group when the resource is deleted).

    IAM (least privilege): ``fsx:DescribeFileSystems`` on that file system; ``ec2:DescribeNetworkInterfaces``
    (EC2 supports no resource scope for Describe calls); ``ec2:ModifyNetworkInterfaceAttribute`` only on network
    interfaces in ``vpc`` (condition ``ec2:Vpc``, Service Authorization Reference "Amazon EC2": the
    network-interface resource of ModifyNetworkInterfaceAttribute supports it) and only with ``security_group`` or
    groups of that VPC. Re-run it (change ``revision``) to reach interfaces that appeared after a scale-up.

    Attributes: ``resource`` (the ``CustomResource``; ``get_att_string("NetworkInterfaceIds")``), ``function``.

    :param file_system_id: ``fs-...``. Required.
    :param security_group: the group Studio apps use for NFS/Lustre. Required.
    :param vpc: the file system's VPC. Required.
    :param encryption_key: key of the handler's log group. Default: the log group is encrypted by CloudWatch Logs.
    :param log_retention_days: handler log retention. Default 365.
    :param revision: bump to run the reconciliation again without other changes. Default 1.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        file_system_id: str,
        security_group: ec2.ISecurityGroup,
        vpc: ec2.IVpc,
        encryption_key: kms.IKey | None = None,
        log_retention_days: int = 365,
        revision: int = 1,
    ) -> None:
        super().__init__(scope, construct_id)
        log_group = logs.LogGroup(
            self,
            "Logs",
            retention=retention(log_retention_days),
            encryption_key=encryption_key,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        handler_role = self._log_writer_role(
            "HandlerRole", f"Adds a Studio security group to the interfaces of {file_system_id}", log_group
        )
        framework_role = self._log_writer_role(
            "ProviderRole", "Custom resource provider framework of the FSx interface handler", log_group
        )
        self.function = self._build_handler(
            file_system_id=file_system_id, vpc=vpc, log_group=log_group, handler_role=handler_role
        )
        self.provider = self._build_provider(log_group=log_group, framework_role=framework_role)
        self.resource = CustomResource(
            self,
            "Resource",
            service_token=self.provider.service_token,
            resource_type="Custom::FsxNetworkInterfaces",
            properties={
                "FileSystemId": file_system_id,
                "SecurityGroupId": security_group.security_group_id,
                "Revision": str(revision),
            },
        )

    def _log_writer_role(self, name: str, what: str, log_group: logs.ILogGroup) -> iam.Role:
        """A function role that may write to ``log_group`` only (no AWS-managed policy)."""
        out = iam.Role(self, name, assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"), description=what)
        out.add_to_policy(
            iam.PolicyStatement(
                sid="WriteItsLogs",
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[log_group.log_group_arn],
            )
        )
        return out

    def _build_handler(
        self, *, file_system_id: str, vpc: ec2.IVpc, log_group: logs.ILogGroup, handler_role: iam.Role
    ) -> lambda_.Function:
        """Create the handler function and grant it the FSx and EC2 calls it makes."""
        function = lambda_.Function(
            self,
            "Handler",
            runtime=RUNTIME,
            handler="index.on_event",
            code=lambda_.Code.from_asset(str(HANDLER_DIR)),
            timeout=Duration.minutes(5),
            memory_size=256,
            log_group=log_group,
            role=handler_role,
            description=f"Adds a Studio security group to the network interfaces of {file_system_id}",
        )
        self._grant_handler(function, file_system_id=file_system_id, vpc=vpc)
        self._acknowledge_handler_role(handler_role)
        return function

    @staticmethod
    def _grant_handler(function: lambda_.Function, *, file_system_id: str, vpc: ec2.IVpc) -> None:
        """Let the handler describe the file system and modify interfaces of the VPC."""
        stack = Stack.of(function)
        function.add_to_role_policy(
            iam.PolicyStatement(
                sid="DescribeTheFileSystem",
                actions=["fsx:DescribeFileSystems"],
                resources=[stack.format_arn(service="fsx", resource="file-system", resource_name=file_system_id)],
            )
        )
        function.add_to_role_policy(
            iam.PolicyStatement(sid="DescribeInterfaces", actions=["ec2:DescribeNetworkInterfaces"], resources=["*"])
        )
        function.add_to_role_policy(
            iam.PolicyStatement(
                sid="ModifyInterfacesOfTheVpc",
                actions=["ec2:ModifyNetworkInterfaceAttribute"],
                resources=[stack.format_arn(service="ec2", resource="network-interface", resource_name="*")],
                conditions={"StringEquals": {"ec2:Vpc": vpc.vpc_arn}},
            )
        )
        function.add_to_role_policy(
            iam.PolicyStatement(
                sid="WithGroupsOfTheVpc",
                actions=["ec2:ModifyNetworkInterfaceAttribute"],
                resources=[stack.format_arn(service="ec2", resource="security-group", resource_name="*")],
                conditions={"StringEquals": {"ec2:Vpc": vpc.vpc_arn}},
            )
        )

    def _acknowledge_handler_role(self, handler_role: iam.Role) -> None:
        """Record the reviewed wildcard findings of the handler's role."""
        stack = Stack.of(self)
        region = "<AWS::Region>" if Token.is_unresolved(stack.region) else stack.region
        account = "<AWS::AccountId>" if Token.is_unresolved(stack.account) else stack.account
        partition = "<AWS::Partition>" if Token.is_unresolved(stack.partition) else stack.partition
        ec2_arn = f"arn:{partition}:ec2:{region}:{account}"
        acknowledge(
            handler_role,
            "EC2 Describe calls support no resource scope; ModifyNetworkInterfaceAttribute is "
            "limited to interfaces and groups of the file system's VPC by ec2:Vpc",
            *wildcard_resources("*", f"{ec2_arn}:network-interface/*", f"{ec2_arn}:security-group/*"),
        )

    def _build_provider(self, *, log_group: logs.ILogGroup, framework_role: iam.Role) -> cr.Provider:
        """Create the custom resource provider around the handler and record its findings."""
        stack = Stack.of(self)
        provider = cr.Provider(
            self,
            "Provider",
            on_event_handler=self.function,
            log_group=log_group,
            framework_on_event_role=framework_role,
        )
        acknowledge(
            framework_role,
            "The provider framework invokes the handler and its versions (<function ARN>:*), "
            "as aws-cdk-lib's Provider grants",
            *wildcard_resources(f"<{stack.get_logical_id(self.function.node.default_child)}.Arn>:*"),
        )
        acknowledge(provider, "The provider framework's function runs the runtime aws-cdk-lib pins for it", "L1")
        for function in (self.function, provider.node.find_child("framework-onEvent")):
            ignore_cfn_lint(
                function,
                "W3005",
                "aws-cdk-lib adds DependsOn on the function's role next to the GetAtt; "
                "harmless and not editable from here.",
            )
        return provider
