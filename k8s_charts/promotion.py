"""The production promotion identity (issue 40): the platform namespace ``llmft-platform``, its ServiceAccount
``llmft-promoter`` and the Roles that let it, and nobody a team controls, create production serving endpoints.

Production serving needs the platform's word. The admission rule is on the requesting identity
(k8s_charts/guardrails/production.py ``_production_rules``: only :data:`~k8s_charts.serving.PROMOTER` and the platform's
controllers create or change a production-tier serving Deployment), so the promise holds whatever a team does with
kubectl or its GitOps folder (Argo CD applies a team's folder with its own identity, which is not the promoter).

The promotion step is a Job the platform runs in :data:`~k8s_charts.serving.PROMOTION_NAMESPACE` as this
ServiceAccount (docs/serving.md "The production promotion path"): with the MLflow evaluator's credentials (the
Secrets Manager secret ``EvaluatorCredentials`` of the MLflow stack, readable only by this ServiceAccount's Pod
Identity role) it evaluates the version (``llmp-evaluate``: the verdict, the alias and the weights digest, which
the MLflow server lets only the evaluator write, mlflow_image/registry_gate.py); the promotion Job (``llmft
promote``, llmft/promote.py) checks with MLflow, in the cluster, that the version passed and that the Deployment
serves its directory and digest (training/llm_platform/promotion_check.py), then applies the endpoint with this
identity. Teams have no verb in the platform namespace (their Role is namespaced to their own), so they can neither
run as it nor read its credentials. Why not a webhook that resolves the version at admission: it would put MLflow (and
its availability) in the path of every Deployment write, and the evaluator's credential in the API server's webhook.
"""

from __future__ import annotations

from collections.abc import Sequence

from cdk8s_plus_28 import k8s
from constructs import Construct

from config import TeamConfig
from k8s_charts import serving
from k8s_charts.mlflow_credentials import MlflowCredentials
from k8s_charts.values import MLFLOW_CONFIG_MAP, MlflowValues

PROMOTER_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"]


def promoter_rules() -> list[k8s.PolicyRule]:
    """What the promotion identity may do in a team namespace with a production tier: the serving objects llmft
    renders (llmft/serve_build.py), read the pods it waits for. Nothing else (no Secrets, jobs, RBAC)."""
    rule = k8s.PolicyRule
    return [
        rule(api_groups=["apps"], resources=["deployments"], verbs=PROMOTER_VERBS),
        rule(api_groups=["apps"], resources=["deployments/scale"], verbs=["get", "patch"]),
        rule(api_groups=[""], resources=["services"], verbs=PROMOTER_VERBS),
        rule(api_groups=["keda.sh"], resources=["scaledobjects"], verbs=PROMOTER_VERBS),
        rule(api_groups=[""], resources=["pods", "events"], verbs=["get", "list", "watch"]),
    ]


class ProductionPromotion(Construct):
    """Namespace and ServiceAccount of the promotion identity, and a Role (:func:`promoter_rules`) bound to it in
    every team namespace whose team may use a production tier (:data:`~k8s_charts.serving.PRODUCTION_TIERS`); no
    ClusterRole, as for everything in team namespaces.

    With MLflow's evaluator (``mlflow.evaluator_secret_arn``), the namespace also gets what the promotion Job's check
    (training/llm_platform/promotion_check.py) reads, as a team namespace has it for its own user: the ConfigMap
    ``mlflow`` (``MLFLOW_TRACKING_URI``) and the SecretProviderClass ``mlflow-credentials`` of the evaluator's
    secret, which the CSI driver reads with the pod's Pod Identity (only the promoter's role may,
    cdk_constructs/compute/promotion_identity.py).

    :param teams: the environment's teams. Required.
    :param labels: labels of every object. Required.
    :param mlflow: the tracking URI and the evaluator's secret. Default: none (no check credentials: the Job's
        check then fails, and nothing is applied).
    :param region: the secret's region. Default: none (required with ``mlflow``).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        teams: Sequence[TeamConfig],
        labels: dict[str, str],
        mlflow: MlflowValues | None = None,
        region: str | None = None,
    ):
        super().__init__(scope, construct_id)
        ns = serving.PROMOTION_NAMESPACE
        pss = {f"pod-security.kubernetes.io/{m}": "restricted" for m in ("enforce", "audit", "warn")}
        self.namespace = k8s.KubeNamespace(
            self, "Namespace", metadata=k8s.ObjectMeta(name=ns, labels={**labels, **pss})
        )
        self.service_account = k8s.KubeServiceAccount(
            self,
            "ServiceAccount",
            metadata=k8s.ObjectMeta(name=serving.PROMOTER_SERVICE_ACCOUNT, namespace=ns, labels=labels),
        )
        self.service_account.add_dependency(self.namespace)
        self._add_mlflow(mlflow, region=region, labels=labels)
        subject = k8s.Subject(kind="ServiceAccount", name=serving.PROMOTER_SERVICE_ACCOUNT, namespace=ns)
        self.roles: dict[str, k8s.KubeRole] = {}
        self.bindings: dict[str, k8s.KubeRoleBinding] = {}
        for team in teams:
            if not set(team.allowed_tiers) & set(serving.PRODUCTION_TIERS):
                continue
            meta = k8s.ObjectMeta(name=serving.PROMOTER_SERVICE_ACCOUNT, namespace=team.namespace, labels=labels)
            self.roles[team.name] = k8s.KubeRole(self, f"Role-{team.name}", metadata=meta, rules=promoter_rules())
            self.bindings[team.name] = k8s.KubeRoleBinding(
                self,
                f"Binding-{team.name}",
                metadata=meta,
                role_ref=k8s.RoleRef(
                    api_group="rbac.authorization.k8s.io", kind="Role", name=serving.PROMOTER_SERVICE_ACCOUNT
                ),
                subjects=[subject],
            )

    def _add_mlflow(self, mlflow: MlflowValues | None, *, region: str | None, labels: dict[str, str]) -> None:
        """ConfigMap ``mlflow`` and SecretProviderClass ``mlflow-credentials`` (the evaluator's) in the namespace."""
        self.mlflow = self.mlflow_credentials = None
        if mlflow is None or not mlflow.evaluator_secret_arn:
            return
        if not region:
            raise ValueError("ProductionPromotion: region is required with mlflow (the evaluator secret's region)")
        ns = serving.PROMOTION_NAMESPACE
        self.mlflow = k8s.KubeConfigMap(
            self,
            "Mlflow",
            metadata=k8s.ObjectMeta(name=MLFLOW_CONFIG_MAP, namespace=ns, labels=labels),
            data={"MLFLOW_TRACKING_URI": mlflow.tracking_uri},
        )
        self.mlflow_credentials = MlflowCredentials(
            self,
            "MlflowCredentials",
            namespace=ns,
            secret_arn=mlflow.evaluator_secret_arn,
            region=region,
            labels=labels,
        ).secret_provider_class
        for obj in (self.mlflow, self.mlflow_credentials):
            obj.add_dependency(self.namespace)
