"""Per-region facts the configuration check needs (pure data, no CDK import).

The SageMaker HyperPod health-monitoring agent runs on every HyperPod EKS node; its image lives in a
HyperPod-owned ECR repository in each region where HyperPod EKS clusters are offered. A region missing here has
no agent image, so an environment there is refused by the config check rather than failing at deploy time.
The table moved here unchanged from cdk_constructs/compute/hyperpod_prerequisites.py, which builds the image URI from
it.
"""

from __future__ import annotations

HEALTH_MONITORING_AGENT_ACCOUNTS = {
    "us-east-1": "767398015722",
    "us-west-2": "905418368575",
    "us-east-2": "851725546812",
    "us-west-1": "011528288828",
    "eu-central-1": "211125453373",
    "eu-north-1": "654654141839",
    "eu-west-1": "533267293120",
    "eu-west-2": "011528288831",
    "ap-northeast-1": "533267052152",
    "ap-south-1": "011528288864",
    "ap-southeast-1": "905418428165",
    "ap-southeast-2": "851725636348",
    "sa-east-1": "025066253954",
}
