"""The AWS identity of the production promotion step (issue 40): the Pod Identity role of ServiceAccount
``llmft-promoter`` in namespace ``llmft-platform`` (k8s_charts/promotion.py), which may read the MLflow
evaluator's credentials secret and nothing else.

The evaluator (MLflow user ``platform-evaluator``) is the only non-admin MLflow user that records evaluation verdicts,
the alias ``evaluated`` and a version's ``llmft.model_dir`` (mlflow_image/registry_gate.py). Its secret is read by
this role only: no team's role (cdk_constructs/teams/team.py reads each team's own secret) and no Studio user; teams
have no verb in the platform namespace, so no team pod runs as this ServiceAccount. The role's trust is conditioned
on the association's session tags by cdk_constructs/governance/trust_conditions.py, like every Pod Identity role.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as sm
from constructs import Construct

from k8s_charts import serving


class PromotionIdentity(Construct):
    """Role ``Role`` (EKS Pod Identity of ``llmft-platform/llmft-promoter``) reading ``evaluator_secret``, and its
    association ``PodIdentity``.

    :param cluster: the EKS cluster. Required.
    :param evaluator_secret: ``{"username", "password"}`` of MLflow's evaluator (the MLflow stack's
        ``evaluator_credentials_secret``). Required.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, cluster: eks.ICluster, evaluator_secret: sm.ISecret
    ) -> None:
        super().__init__(scope, construct_id)
        region = Stack.of(self).region
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.SessionTagsPrincipal(iam.ServicePrincipal("pods.eks.amazonaws.com")),
            description=f"EKS Pod Identity of the production promotion step (namespace "
            f"{serving.PROMOTION_NAMESPACE}, service account {serving.PROMOTER_SERVICE_ACCOUNT}): MLflow evaluator",
        )
        # on the role only, as the team roles do: a grant would edit the key policy in the MLflow stack (a cycle)
        self.role.add_to_policy(
            iam.PolicyStatement(
                sid="ReadEvaluatorCredentials",
                resources=[evaluator_secret.secret_arn],
                actions=["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"],
            )
        )
        if evaluator_secret.encryption_key is not None:
            self.role.add_to_policy(
                iam.PolicyStatement(
                    sid="EvaluatorSecretKeyThroughSecretsManager",
                    actions=["kms:Decrypt"],
                    resources=[evaluator_secret.encryption_key.key_arn],
                    conditions={
                        "StringEquals": {
                            "kms:ViaService": f"secretsmanager.{region}.amazonaws.com",
                            "kms:EncryptionContext:SecretARN": evaluator_secret.secret_arn,
                        }
                    },
                )
            )
        self.pod_identity = eks_l1.CfnPodIdentityAssociation(
            self,
            "PodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=serving.PROMOTION_NAMESPACE,
            service_account=serving.PROMOTER_SERVICE_ACCOUNT,
            role_arn=self.role.role_arn,
        )
