"""KEDA: the autoscaler of served models (llmft ``type: serve`` renders a ScaledObject per endpoint, issue 34), from
its Helm chart, with the operator's AWS identity through EKS Pod Identity.

Facts this construct relies on (checked 2026-11-26):

- Chart ``keda`` of https://kedacore.github.io/charts, version :data:`~config.charts.KEDA_CHART_VERSION` = app
  2.19.0 (kedacore/charts@v2.19.0 keda/Chart.yaml). Its CRDs (ScaledObject, ScaledJob, TriggerAuthentication, ...)
  are *templates* (keda/templates/crds/, ``crds.install: true``, values.yaml l.53), so Helm upgrades them with the
  release; the metrics API server registers the APIService ``v1beta1.external.metrics.k8s.io``
  (templates/metrics-server/apiservice.yaml), which the HPAs KEDA creates read. One such APIService may exist per
  cluster: nothing else of the platform registers one.
- Values used (values.yaml at the tag): ``nodeSelector`` (l.549, every component; the chart adds
  ``kubernetes.io/os: linux``), ``priorityClassName`` (l.578, every component), ``resources.{operator,
  metricServer,webhooks}`` (l.523; chart default 100m / 100Mi requests, 1 CPU / 1000Mi limits),
  ``serviceAccount.operator.name`` (l.327, default ``keda-operator``), ``prometheus.*.enabled`` (l.644, all false by
  default: nothing scrapes KEDA, written out so a chart default change shows in review), ``webhooks.enabled``
  (l.194, default true) off: the admission webhook only refuses ScaledObjects KEDA would reject anyway (a second
  one on the same Deployment, a bad formula), with ``failurePolicy: Ignore`` (l.240) it guarantees nothing, llmft
  names each ScaledObject after its Deployment and tests/test_serve.py validates what llmft renders against the CRD;
  its pod would not fit the prod system nodes next to the other controllers (tests/test_node_shapes.py).
- Who calls AWS: only the operator. The metrics API server asks the operator over gRPC (kedacore/keda@v2.19.0
  cmd/adapter/main.go ``metricsservice.NewGrpcClient``), the operator runs the scalers. With ``identityOwner:
  operator`` the aws-cloudwatch scaler uses the operator's default AWS credential chain
  (pkg/scalers/aws/aws_common.go ``GetAwsConfig``: ``PodIdentityOwner`` false -> ``config.LoadDefaultConfig``), whose
  container-credentials step (aws-sdk-go-v2/config v1.32.7, go.mod at the tag) reads what the EKS Pod Identity agent
  serves (AWS_CONTAINER_CREDENTIALS_FULL_URI): no ``podIdentity.aws.irsa`` value, no TriggerAuthentication.
- What the scaler calls: ``GetMetricData`` only (pkg/scalers/aws_cloudwatch_scaler.go: the client is a
  ``cloudwatch.GetMetricDataAPIClient``, ``GetCloudwatchMetrics`` calls ``GetMetricData``), hence
  :data:`SCALER_ACTIONS`. ``cloudwatch:GetMetricData`` has no resource type and no condition key (Service
  Authorization Reference, "Actions, resources, and condition keys for Amazon CloudWatch"): ``Resource: *`` is as
  tight as CloudWatch allows; ``cloudwatch:namespace`` applies to PutMetricData only.

Depends on: the cluster, the system nodes and the EKS Pod Identity agent add-on (the operator's credentials come
from it; its association exists before the release so the first operator pod gets them). Nothing depends on it at
deploy time: ScaledObjects are created by ``llmft submit``, after the platform is deployed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, AddOnSite, SystemPod, register, requests_of
from cdk_constructs.governance.nag_findings import acknowledge, wildcard_resources
from config.charts import KEDA_CHART_VERSION
from k8s_charts.priority_classes import CONTROLLER_PRIORITY_CLASS

KEDA_REPOSITORY = "https://kedacore.github.io/charts"
KEDA_CHART = "keda"
KEDA_RELEASE = "keda"
KEDA_NAMESPACE = "keda"
OPERATOR_SERVICE_ACCOUNT = "keda-operator"
"""The operator's ServiceAccount (chart value ``serviceAccount.operator.name``, its default written out): the
Pod Identity association names it."""
SCALER_ACTIONS = ("cloudwatch:GetMetricData",)
"""Every AWS action KEDA's aws-cloudwatch scaler calls at v2.19.0 (module docstring)."""
REQUESTS = {
    "operator": {"requests": {"cpu": "50m", "memory": "128Mi"}, "limits": {"memory": "512Mi"}},
    "metricServer": {"requests": {"cpu": "25m", "memory": "64Mi"}, "limits": {"memory": "512Mi"}},
}
"""Per running component (chart default: 100m / 100Mi requests, 1 CPU / 1000Mi limits each, values.yaml l.523).
The operator makes one GetMetricData call per trigger and polling interval (30 s) for a handful of endpoints; the API
server relays the HPA's reads. Helm merges these into the chart's maps, so its CPU limit of 1 stays (room to burst);
the memory limits replace its 1000Mi to bound a leak on the small system nodes (tests/test_node_shapes.py packs
them: with the default requests prod's two system nodes would not hold every controller). Checked by rendering the
chart at the tag with helm: both Deployments get these requests, ``system-cluster-critical`` and the system
nodeSelector; no webhook objects are rendered."""


def helm_values(node_selector: Mapping[str, str]) -> dict[str, Any]:
    """Chart values (module docstring for each key)."""
    return {
        "crds": {"install": True},
        "nodeSelector": dict(node_selector),
        "priorityClassName": CONTROLLER_PRIORITY_CLASS,
        "resources": {k: dict(v) for k, v in REQUESTS.items()},
        "serviceAccount": {"operator": {"create": True, "name": OPERATOR_SERVICE_ACCOUNT}},
        "webhooks": {"enabled": False},
        "prometheus": {c: {"enabled": False} for c in ("metricServer", "operator", "webhooks")},
    }


def grant_read_metrics(grantee: iam.IGrantable) -> iam.Grant:
    """Let ``grantee`` read CloudWatch metric data the way the aws-cloudwatch scaler does (:data:`SCALER_ACTIONS` on
    ``*``: the action has no resource type)."""
    return iam.Grant.add_to_principal(grantee=grantee, actions=list(SCALER_ACTIONS), resource_arns=["*"])


def install(site: AddOnSite, addon: AddOn) -> Keda:
    """:class:`Keda` ``Keda`` on the system nodes: the autoscaler of served models (llmft ``type: serve`` creates their
    ScaledObjects at submit)."""
    keda = Keda(
        site.scope,
        "Keda",
        cluster=site.cluster,
        node_selector=site.node_selector,
        after=site.installed.after(addon),
        version=addon.version_in(site.config),
    )
    site.installed.add(addon, [keda.release])
    return keda


def system_pods(values: Mapping[str, Any]) -> list[SystemPod]:
    """The operator and the metrics API server, one replica each (kedacore/charts v2.19.0 values.yaml:
    ``operator.replicaCount`` and ``metricsServer.replicaCount`` 1); no admission webhook (``webhooks.enabled``
    false, module docstring)."""
    if values.get("webhooks", {}).get("enabled", True):
        raise ValueError("KEDA's admission webhook is on: count its pod (values.yaml webhooks.replicaCount)")
    return [SystemPod(f"keda-{c}", requests_of(values["resources"][c])) for c in ("operator", "metricServer")]


KEDA = register(
    AddOn(
        name="keda",
        chart=KEDA_CHART,
        release=KEDA_RELEASE,
        namespace=KEDA_NAMESPACE,
        repository=KEDA_REPOSITORY,
        version=KEDA_CHART_VERSION,
        values=lambda context: helm_values(context.node_selector),
        needs=(SYSTEM_NODES, "eks-pod-identity-agent"),
        provides_platform_crds=True,
        installer=install,
        system_pods=system_pods,
    )
)
"""KEDA with its CRDs (ScaledObject): after the system nodes and the Pod Identity agent (the operator's
credentials). No ``version_setting``: the operator and the ScaledObject CRD llmft renders against
(k8s_charts/serving.KEDA_VERSION) move together."""


class Keda(Construct):
    """Chart :data:`KEDA_CHART` in namespace :data:`KEDA_NAMESPACE` (CRDs, operator, metrics API server) and the
    operator's Pod Identity role.

    Attributes: ``release`` (the Helm release), ``role`` (the operator's role), ``pod_identity`` (its association),
    ``values`` (the chart values).

    :param cluster: the EKS cluster. Required.
    :param node_selector: nodeSelector of every KEDA pod (the system nodes). Default: any node.
    :param after: what comes first (system nodes, the EKS Pod Identity agent add-on). Default none.
    :param version: chart version. Default :data:`~config.charts.KEDA_CHART_VERSION`.
    """

    addons = (KEDA,)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        node_selector: Mapping[str, str] | None = None,
        after: Sequence[IDependable] = (),
        version: str = KEDA_CHART_VERSION,
    ) -> None:
        super().__init__(scope, construct_id)
        self.role = iam.Role(
            self,
            "OperatorRole",
            assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com").with_session_tags(),
            description="KEDA operator: reads the CloudWatch metrics ScaledObjects scale on (EKS Pod Identity)",
        )
        grant_read_metrics(self.role)
        acknowledge(
            self.role,
            "cloudwatch:GetMetricData supports no resource-level permissions and no condition "
            "keys (Service Authorization Reference for CloudWatch); it is read-only and the only "
            "action the aws-cloudwatch scaler calls.",
            *wildcard_resources("*"),
        )
        self.pod_identity = eks_l1.CfnPodIdentityAssociation(
            self,
            "PodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=KEDA_NAMESPACE,
            service_account=OPERATOR_SERVICE_ACCOUNT,
            role_arn=self.role.role_arn,
        )
        self.values = helm_values(node_selector or {})
        # the release of the declaration (chart, repository, namespace, 10-minute wait): its association first, so
        # the first operator pod gets credentials
        self.release = KEDA.helm_chart(
            self, "Release", cluster=cluster, version=version, values=self.values, after=[self.pod_identity, *after]
        )
