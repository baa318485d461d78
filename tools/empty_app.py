"""The benchmark's floor: an app with the same settings as app.py (cdk.json context, cdk-nag, built-in
validation) and one stack with a single no-op resource. `python -m tools.bench` runs it through the same CDK CLI."""

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

app = cdk.App()
cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
stack = cdk.Stack(app, "Empty", env=cdk.Environment(account="123456789012", region="us-east-1"))
cdk.CfnWaitConditionHandle(stack, "Placeholder")  # CloudFormation (and its validation) rejects an empty template
app.synth()
