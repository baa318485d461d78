"""The CloudFormation execution policy of a workload account, instead of AdministratorAccess:
`python -m tools.execution_policy --cdk-out cdk.out/delivery --account <workload account>`.

`cdk bootstrap --trust <automation account> --cloudformation-execution-policies <policy ARN>` makes the pipeline's
deployments run with exactly this policy (aws-cdk-lib pipelines README, "CDK Environment Bootstrapping": with
`--trust` a policy must be given, and whoever the trusted account lets deploy "effectively has all permissions conferred
by the configured CloudFormation execution policies"). The policy allows the IAM service prefixes of the resource types
the account's synthesized stacks hold, and nothing else; and it denies what would create long-lived credentials
(IAM users, access keys, login passwords). A resource type this file does not map stops the tool, naming the type, so
a new kind of resource is a deliberate change of the policy (docs/deploying.md "Multi-account delivery").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# CloudFormation namespace (AWS::<namespace>::<type>) -> IAM service prefix (Service Authorization Reference).
SERVICE_PREFIX = {
    "ApplicationAutoScaling": "application-autoscaling",
    "CertificateManager": "acm",
    "CloudFormation": "cloudformation",
    "CloudTrail": "cloudtrail",
    "CloudWatch": "cloudwatch",
    "CodeBuild": "codebuild",
    "EC2": "ec2",
    "ECR": "ecr",
    "ECS": "ecs",
    "EKS": "eks",
    "ElasticLoadBalancingV2": "elasticloadbalancing",
    "Events": "events",
    "FSx": "fsx",
    "IAM": "iam",
    "KMS": "kms",
    "Lambda": "lambda",
    "Logs": "logs",
    "Oam": "oam",
    "RDS": "rds",
    "Route53": "route53",
    "S3": "s3",
    "SNS": "sns",
    "SQS": "sqs",
    "SSM": "ssm",
    "SageMaker": "sagemaker",
    "SecretsManager": "secretsmanager",
    "StepFunctions": "states",
}
# Types that create nothing in a service of their own.
NO_SERVICE = {"AWS::CDK::Metadata", "AWS::CloudFormation::WaitConditionHandle"}
LONG_LIVED_CREDENTIALS = (
    "iam:CreateUser",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:UpdateLoginProfile",
    "iam:CreateServiceSpecificCredential",
)


class UnmappedType(ValueError):
    pass


def services(resource_types: set[str]) -> set[str]:
    """The IAM service prefixes that deploying ``resource_types`` needs; custom resources invoke Lambda functions."""
    out: set[str] = set()
    unmapped = []
    for type_ in resource_types:
        if type_ in NO_SERVICE:
            continue
        if type_.startswith("Custom::") or type_ == "AWS::CloudFormation::CustomResource":
            out.add("lambda")
            continue
        namespace = type_.split("::")[1] if type_.startswith("AWS::") else None
        if namespace not in SERVICE_PREFIX:
            unmapped.append(type_)
            continue
        out.add(SERVICE_PREFIX[namespace])
    if unmapped:
        raise UnmappedType(
            f"no IAM service prefix for {', '.join(sorted(unmapped))}: add its namespace to "
            f"tools/execution_policy.py SERVICE_PREFIX (Service Authorization Reference)"
        )
    return out


def policy(resource_types: set[str]) -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "PlatformServices",
                "Effect": "Allow",
                "Action": [f"{s}:*" for s in sorted(services(resource_types))],
                "Resource": "*",
            },
            {
                "Sid": "NoLongLivedCredentials",
                "Effect": "Deny",
                "Action": list(LONG_LIVED_CREDENTIALS),
                "Resource": "*",
            },
        ],
    }


def stack_templates(cdk_out: Path) -> list[tuple[str, dict[str, Any]]]:
    """(account, template) of every stack in a cloud assembly and its nested ones (a pipeline's stages)."""
    found: list[tuple[str, dict[str, Any]]] = []
    manifest = json.loads((cdk_out / "manifest.json").read_text())
    for artifact in manifest["artifacts"].values():
        if artifact.get("type") == "cdk:cloud-assembly":
            found += stack_templates(cdk_out / artifact["properties"]["directoryName"])
        elif artifact.get("type") == "aws:cloudformation:stack":
            account = artifact["environment"].removeprefix("aws://").split("/")[0]
            found.append((account, json.loads((cdk_out / artifact["properties"]["templateFile"]).read_text())))
    return found


def resource_types(cdk_out: Path, account: str) -> set[str]:
    return {
        r["Type"]
        for acct, template in stack_templates(cdk_out)
        if acct == account
        for r in template.get("Resources", {}).values()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.execution_policy", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cdk-out",
        type=Path,
        default=Path("cdk.out/delivery"),
        help="cloud assembly (default: the delivery pipeline's, `make synth-delivery`)",
    )
    parser.add_argument("--account", required=True, help="the workload account whose stacks the policy deploys")
    args = parser.parse_args(argv)
    if not (args.cdk_out / "manifest.json").is_file():
        print(f"{args.cdk_out} holds no cloud assembly: run `make synth-delivery` first", file=sys.stderr)
        return 2
    types = resource_types(args.cdk_out, args.account)
    if not types:
        print(f"no stack of {args.cdk_out} deploys to account {args.account}", file=sys.stderr)
        return 2
    try:
        print(json.dumps(policy(types), indent=2))
    except UnmappedType as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
