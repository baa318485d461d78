"""`Delivery-Pipeline`: the automation account's pipeline that promotes the platform from wave to wave
(config/organization/accounts.yaml ``waves``), built with aws-cdk-lib's ``pipelines`` module.

- **Source**: a CodeConnections repository (``CodePipelineSource.connection(repo, branch, connection_arn=...)``).
- **Synth** runs the README's two commands, ``make synth`` and ``make test`` (so nothing reaches an account that CI
  would reject), then ``make synth-delivery``, which writes this app's cloud assembly (``cdk.out/delivery``) for the
  pipeline to deploy and to update itself from (self-mutation).
- **Waves**: first the logging account (``Logging`` stage, :class:`stacks.logging_stack.LoggingStack`), then one
  wave per configured wave, each environment a :class:`app.PlatformStage` (the same ``app.build()`` that
  ``cdk synth -c env=<name>`` runs) deployed into its workload account through that account's CDK bootstrap roles
  (the pipeline assumes ``cdk-<qualifier>-deploy-role-<account>-<region>``, which passes
  ``cdk-<qualifier>-cfn-exec-role-…`` to CloudFormation: the roles ``cdk bootstrap --trust <automation account>``
  makes assumable, aws-cdk-lib pipelines README "CDK Environment Bootstrapping").
- A **manual approval** comes before a wave that asks for it or holds a production environment
  (``protect_stateful: true``).
- Before each environment: ``tools/predeploy.py`` (read only, through the workload account's CDK *lookup* role: the
  CDK CLI's bootstrap template, node_modules/aws-cdk/lib/api/bootstrap/bootstrap-template.yaml ``LookupRole``, trusts
  the ``--trust`` accounts too and carries ``ReadOnlyAccess`` with ``kms:Decrypt`` denied; ReadOnlyAccess's
  ``eks:List*`` covers ``eks:ListAddons``). After its Storage stack and before any stack that reads the image
  tags: ``make images`` through the workload account's ``llmft-<env>-delivery-images`` role (a post step of the
  Storage stack: the stacks that depend on Storage wait for it).

The steps reach the workload accounts with short-lived role credentials only (``credential_source = EcsContainer``
in an AWS config profile: the CodeBuild role's own credentials assume the target role); no IAM users, no keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import aws_cdk as cdk
import jsii
from aws_cdk import (
    Acknowledgment,
    RemovalPolicy,
    Validations,
    pipelines,
)
from aws_cdk import (
    aws_codebuild as codebuild,
)
from aws_cdk import (
    aws_codepipeline as codepipeline,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_s3 as s3,
)
from constructs import Construct, IValidation

from cdk_constructs.delivery import IMAGES_ROLE, PREDEPLOY_ROLE, WORKLOAD_IMAGES_ROLE, bootstrap_role_arn, partition_of
from cdk_constructs.governance.compliance import ignore_cfn_lint
from cdk_constructs.governance.trust_conditions import ServiceTrustConditions, exempt_from_trust_conditions
from cdk_constructs.storage.image_build import ImageBuildProject
from config import EnvironmentConfig
from config.accounts import OrganizationConfig, approval_before

SYNTH_COMMANDS = ("make synth", "make test", "make synth-delivery")
"""The synth step: the README's two commands, then the pipeline's own cloud assembly."""
DELIVERY_OUT = "cdk.out/delivery"


def profile_commands(role_arn: str, profile: str = "workload") -> list[str]:
    """Shell commands that make ``AWS_PROFILE=<profile>`` assume ``role_arn`` with the CodeBuild container's
    credentials (AWS CLI/SDK shared config: ``role_arn`` with ``credential_source = EcsContainer``)."""
    return [
        "mkdir -p ~/.aws",
        f"printf '[profile {profile}]\\nrole_arn = %s\\ncredential_source = EcsContainer\\n' '{role_arn}' "
        f">> ~/.aws/config",
    ]


# The IAM5 (wildcard) findings cdk-nag raises on the policies aws-cdk-lib's pipelines module writes, each with why it
# stands. A wildcard that matches none of these stays a finding (tests/test_delivery.py runs cdk-nag on the stack).
_PIPELINE_WILDCARDS: tuple[tuple[str, str], ...] = (
    (
        r"Action::(s3:(GetObject|GetBucket|List|DeleteObject|Abort)\*|kms:(GenerateDataKey|ReEncrypt)\*)",
        "Grants aws-cdk-lib's pipelines module writes for the pipeline's own artifact bucket and its KMS key "
        "(read/write of this pipeline's artifacts); no other bucket or key is named",
    ),
    (
        r"Resource::<PipelineArtifactsBucket[0-9A-F]{8}\.Arn>/\*",
        "Objects of the pipeline's own artifact bucket: each execution writes artifacts under new keys",
    ),
    (
        r"Resource::arn:aws[a-z-]*:logs:[a-z0-9-]+:[0-9]{12}:log-group:/aws/codebuild/(<[A-Za-z0-9]+>:\*|\*)",
        "CodeBuild log streams of the pipeline's own projects (their names are generated); CodeBuild creates one "
        "stream per build",
    ),
    (
        r"Resource::arn:aws[a-z-]*:codebuild:[a-z0-9-]+:[0-9]{12}:report-group/(<[A-Za-z0-9]+>-)?\*",
        "CodeBuild report groups named after the pipeline's own projects, created per build by CodeBuild",
    ),
    (
        r"Resource::arn:\*:iam::[0-9]{12}:role/\*",
        "Self-mutation assumes only roles tagged aws-cdk:bootstrap-role (deploy, file-publishing, image-publishing): "
        "the CDK bootstrap roles, whose names carry the account and region",
    ),
    (
        r"Resource::\*",
        "cloudformation:DescribeStacks/s3:ListBucket for self-mutation and codebuild:StartBuild/BatchGetBuilds/"
        "StopBuild of the asset projects: aws-cdk-lib's pipelines module scopes them no further",
    ),
)


def _render(value: Any) -> str:
    """A resolved policy value as cdk-nag prints it in an IAM5 finding ID."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Ref" in value:
        return f"<{value['Ref']}>"
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        return "<" + ".".join(value["Fn::GetAtt"]) + ">"
    if isinstance(value, dict) and "Fn::Join" in value:
        sep, parts = value["Fn::Join"]
        return sep.join(_render(p) for p in parts)
    return json.dumps(value, separators=(",", ":"))


@jsii.implements(IValidation)
class _PipelineWildcards:
    """Acknowledges, once references are resolved (construct validations run before the validation plugins), the
    IAM5 findings of :data:`_PIPELINE_WILDCARDS` on every IAM policy in ``stack``."""

    def __init__(self, stack: cdk.Stack) -> None:
        self.stack = stack

    def validate(self) -> list[str]:
        for node in self.stack.node.find_all():
            if not isinstance(node, iam.CfnPolicy) or cdk.Stack.of(node) is not self.stack:
                continue  # the stages' stacks (children of this stack) have their own acknowledgements
            document = self.stack.resolve(node.policy_document)
            for statement in document.get("Statement", []):
                actions = statement.get("Action", [])
                resources = statement.get("Resource", [])
                found = [f"Action::{a}" for a in (actions if isinstance(actions, list) else [actions]) if "*" in a]
                found += [
                    f"Resource::{r}"
                    for r in map(_render, resources if isinstance(resources, list) else [resources])
                    if "*" in r
                ]
                for finding in found:
                    reason = next((why for pattern, why in _PIPELINE_WILDCARDS if re.fullmatch(pattern, finding)), None)
                    if reason:
                        Validations.of(node).acknowledge(
                            Acknowledgment(id=f"AwsSolutions::AwsSolutions-IAM5[{finding}]", reason=reason)
                        )
        return []


IMAGES_STEP_MARGIN = cdk.Duration.minutes(30)
"""What the image step needs beyond the longest build: installing the app (``make install-synth``), polling."""


def images_step_timeout(builds: Iterable[ImageBuildProject]) -> cdk.Duration:
    """The image step waits for every build it starts (``make images``): its limit is the longest a build may queue
    and run (the projects' own ``QueuedTimeoutInMinutes`` + ``TimeoutInMinutes``) plus :data:`IMAGES_STEP_MARGIN`;
    the builds run side by side. ``pipelines.CodeBuildStep`` would otherwise stop it after its default hour."""
    longest = max(b.queued_timeout.to_minutes() + b.timeout.to_minutes() for b in builds)
    return cdk.Duration.minutes(longest + IMAGES_STEP_MARGIN.to_minutes())


def account_wide_environments(
    organization: OrganizationConfig, environments: Mapping[str, EnvironmentConfig]
) -> set[str]:
    """The first environment of the waves in each workload account: it holds the account's OAM link and trail
    (stacks/delivery_stack.py), which exist once per account."""
    first: dict[str, str] = {}
    for name in organization.environment_names:
        first.setdefault(environments[name].account, name)
    return set(first.values())


def connection_service(connection_arn: str) -> str:
    """The IAM service prefix of a connection ARN: ``codeconnections`` (connections created since July 2024) or
    ``codestar-connections``."""
    return connection_arn.split(":")[2]


class DeliveryPipelineStack(cdk.Stack):
    """Attributes: ``pipeline`` (``pipelines.CodePipeline``, built), ``stages`` (environment name -> stage),
    ``logging_stage``, ``waves`` (pipeline wave name -> environment names), ``approvals`` (wave names)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        organization: OrganizationConfig,
        environments: Mapping[str, EnvironmentConfig],
        stage_factory: Callable[..., cdk.Stage],
        logging_stage_factory: Callable[..., cdk.Stage],
        **kwargs: Any,
    ) -> None:
        auto = organization.automation
        super().__init__(
            scope,
            construct_id,
            stack_name=construct_id,
            env=cdk.Environment(account=auto.account, region=auto.region),
            description="Delivery pipeline: promotes the platform from wave to wave across accounts",
            termination_protection=True,
            **kwargs,
        )
        src = organization.source
        source = pipelines.CodePipelineSource.connection(src.repository, src.branch, connection_arn=src.connection_arn)
        # `make test` in the synth step wants the cores (pytest -n 2 and the synths): LARGE; the other steps only
        # start builds or call one API: SMALL.
        build_env = codebuild.BuildEnvironment(
            build_image=codebuild.LinuxBuildImage.STANDARD_7_0, compute_type=codebuild.ComputeType.SMALL
        )
        synth_env = codebuild.BuildEnvironment(
            build_image=codebuild.LinuxBuildImage.STANDARD_7_0, compute_type=codebuild.ComputeType.LARGE
        )
        self._create_pipeline(source, build_env=build_env, synth_env=synth_env)
        self.waves: dict[str, tuple[str, ...]] = {}
        self.approvals: list[str] = []
        self.stages: dict[str, cdk.Stage] = {}

        self.logging_stage = logging_stage_factory(self, "Logging")
        self.pipeline.add_stage(self.logging_stage)
        self.waves["Logging"] = ("logging",)
        self._add_waves(organization, environments, stage_factory=stage_factory, source=source, build_env=build_env)
        self.pipeline.build_pipeline()
        self._log_artifact_access()
        self.node.add_validation(_PipelineWildcards(self))
        self._grant_connection(src.connection_arn)
        self._condition_role_trust()
        self._ignore_generated_lint()

    def _create_pipeline(
        self,
        source: pipelines.CodePipelineSource,
        *,
        build_env: codebuild.BuildEnvironment,
        synth_env: codebuild.BuildEnvironment,
    ) -> None:
        """Create the CodePipeline (V2, cross-account keys) with its synth step."""
        self.pipeline = pipelines.CodePipeline(
            self,
            "Pipeline",
            pipeline_name="llmft-delivery",
            pipeline_type=codepipeline.PipelineType.V2,
            cross_account_keys=True,  # the artifact bucket's key must be usable by the workload accounts' roles
            enable_key_rotation=True,
            synth=pipelines.ShellStep(
                "Synth", input=source, commands=list(SYNTH_COMMANDS), primary_output_directory=DELIVERY_OUT
            ),
            code_build_defaults=pipelines.CodeBuildOptions(build_environment=build_env),
            synth_code_build_defaults=pipelines.CodeBuildOptions(build_environment=synth_env),
        )

    def _add_waves(
        self,
        organization: OrganizationConfig,
        environments: Mapping[str, EnvironmentConfig],
        *,
        stage_factory: Callable[..., cdk.Stage],
        source: pipelines.CodePipelineSource,
        build_env: codebuild.BuildEnvironment,
    ) -> None:
        """Add a wave per configured wave: its approval, and per environment its stage, pre-deploy check and image
        step (with the step roles that assume the workload accounts' roles)."""
        images_role = iam.Role(
            self,
            "ImagesStepRole",
            role_name=IMAGES_ROLE,
            assumed_by=iam.ServicePrincipal("codebuild.amazonaws.com"),
            description="Pipeline image step: assumes each workload account's images role",
        )
        predeploy_role = iam.Role(
            self,
            "PredeployStepRole",
            role_name=PREDEPLOY_ROLE,
            assumed_by=iam.ServicePrincipal("codebuild.amazonaws.com"),
            description="Pipeline pre-deploy check: assumes each workload account's CDK lookup role (read only)",
        )
        for wave_config in organization.waves:
            wave = self.pipeline.add_wave(wave_config.name)
            self.waves[wave_config.name] = wave_config.environments
            if approval_before(wave_config, environments):
                wave.add_pre(
                    pipelines.ManualApprovalStep(
                        f"Approve-{wave_config.name}",
                        comment=f"Promote to {', '.join(wave_config.environments)}: review the previous wave first",
                    )
                )
                self.approvals.append(wave_config.name)
            for name in wave_config.environments:
                config = environments[name]
                stage = stage_factory(
                    self,
                    config.stack_prefix,
                    config=config,
                    organization=organization,
                    account_wide=name in account_wide_environments(organization, environments),
                )
                self.stages[name] = stage
                lookup = bootstrap_role_arn("lookup", config.account, config.region)
                workload_images = (
                    f"arn:{partition_of(config.region)}:iam::{config.account}:role/"
                    f"{WORKLOAD_IMAGES_ROLE.format(env=name)}"
                )
                predeploy_role.add_to_policy(iam.PolicyStatement(actions=["sts:AssumeRole"], resources=[lookup]))
                images_role.add_to_policy(iam.PolicyStatement(actions=["sts:AssumeRole"], resources=[workload_images]))
                predeploy = pipelines.CodeBuildStep(
                    f"Predeploy-{name}",
                    input=source,
                    role=predeploy_role,
                    build_environment=build_env,
                    commands=[
                        *profile_commands(lookup),
                        "make install-synth",
                        f"AWS_PROFILE=workload .venv/bin/python -m tools.predeploy --env {name}",
                    ],
                )
                storage = stage.stacks["storage"]
                images = pipelines.CodeBuildStep(
                    f"Images-{name}",
                    input=source,
                    role=images_role,
                    build_environment=build_env,
                    commands=[*profile_commands(workload_images), f"AWS_PROFILE=workload make images ENV={name}"],
                    timeout=images_step_timeout(storage.image_builds.values()),
                )
                wave.add_stage(stage, pre=[predeploy], stack_steps=[pipelines.StackSteps(stack=storage, post=[images])])

    def _log_artifact_access(self) -> None:
        """Log server access to the artifact bucket into a bucket of its own."""
        # Server access logs of the artifact bucket (cdk-nag AwsSolutions-S1), into a bucket of their own.
        access_logs = s3.Bucket(
            self,
            "ArtifactAccessLogs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            lifecycle_rules=[s3.LifecycleRule(expiration=cdk.Duration.days(365))],
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        artifacts = self.pipeline.pipeline.artifact_bucket
        access_logs.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("logging.s3.amazonaws.com")],
                actions=["s3:PutObject"],
                resources=[access_logs.arn_for_objects("artifacts/*")],
                conditions={
                    "ArnLike": {"aws:SourceArn": artifacts.bucket_arn},
                    "StringEquals": {"aws:SourceAccount": self.account},
                },
            )
        )
        cfn_artifacts = artifacts.node.default_child
        assert isinstance(cfn_artifacts, s3.CfnBucket)
        cfn_artifacts.logging_configuration = s3.CfnBucket.LoggingConfigurationProperty(
            destination_bucket_name=access_logs.bucket_name, log_file_prefix="artifacts/"
        )

    def _condition_role_trust(self) -> None:
        """Add confused-deputy conditions to the CodeBuild roles (the CodePipeline service role is exempt)."""
        # Confused-deputy conditions on the CodeBuild roles, as on every platform stack (app.build)
        exempt_from_trust_conditions(
            self.pipeline.pipeline.role,
            "The CodePipeline service role trust the CodePipeline User Guide documents has no condition keys "
            "(pipelines-create-service-role-cli.html); a key the service does not send would stop the pipeline",
        )
        ServiceTrustConditions().apply_to(self)

    def _ignore_generated_lint(self) -> None:
        """Acknowledge the cfn-lint findings of the template aws-cdk-lib generates for the pipeline."""
        code_pipeline = self.pipeline.pipeline.node.default_child
        ignore_cfn_lint(
            code_pipeline,
            "E3703",
            "aws-cdk-lib's pipelines module renders each cross-account action's "
            "role ARN as Fn::Join of the partition; the template is generated",
        )
        ignore_cfn_lint(
            code_pipeline,
            "W3005",
            "aws-cdk-lib adds DependsOn on the pipeline role's policy next to the "
            "GetAtt of the role; the redundant edge is harmless",
        )

    def _grant_connection(self, connection_arn: str) -> None:
        """aws-cdk-lib 2.275.0's source action grants ``codestar-connections:UseConnection`` only, whereas "when
        specifying a resource in the IAM policy, the service prefix needs to match that of the resource"
        (https://docs.aws.amazon.com/dtconsole/latest/userguide/rename.html): a ``codeconnections`` ARN also gets
        ``codeconnections:UseConnection`` on the source action's role."""
        if connection_service(connection_arn) != "codeconnections":
            return
        roles = [
            c
            for c in self.pipeline.pipeline.node.find_all()
            if isinstance(c, iam.Role) and "/Source/" in c.node.path and c.node.id == "CodePipelineActionRole"
        ]
        assert len(roles) == 1, [r.node.path for r in roles]
        roles[0].add_to_principal_policy(
            iam.PolicyStatement(actions=["codeconnections:UseConnection"], resources=[connection_arn])
        )
        policy = roles[0].node.find_child("DefaultPolicy")
        ignore_cfn_lint(
            policy,
            "I3510",
            "aws-cdk-lib also grants codestar-connections:UseConnection on the "
            "codeconnections ARN (ineffective, harmless); the codeconnections statement "
            "next to it is the one IAM matches",
        )
