"""Kueue: the job queueing controller (admission, quotas, gang admission), from its official OCI Helm chart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from cdk_constructs.compute.addon import SYSTEM_NODES, AddOn, AddOnSite, SystemPod, register, requests_of
from config.charts import KUEUE_CHART_VERSION
from config.queueing import KueueConfig
from k8s_charts.node_shapes import Resources
from k8s_charts.priority_classes import CONTROLLER_PRIORITY_CLASS
from k8s_charts.queues import TEAM_GPUS, kueue_managed_selector
from k8s_charts.tiers import GPU_RESOURCE

KUEUE_CHART = "oci://registry.k8s.io/kueue/charts/kueue"
"""The chart as published by the release (kubernetes-sigs/kueue v0.19.2, charts/kueue/README.md: "use the charts
pushed to oci://registry.k8s.io/kueue/charts/kueue"). aws_eks_v2's Helm handler pulls an OCI chart by the
`repository` value alone, so it is the full chart path."""
KUEUE_VERSION = KUEUE_CHART_VERSION  # default (config/charts.py; per environment: compute.charts.kueue)
"""Chart version = app v0.19.2 (charts/kueue/Chart.yaml at the tag); matches the CRDs in k8s_charts/crds/."""
KUEUE_IMAGE_REPOSITORY = "registry.k8s.io/kueue/kueue"


def kueue_image(version: str = KUEUE_VERSION) -> dict[str, str]:
    """The controller image of chart ``version``: the chart and the image move together (the release tags both with
    the same version: ``image.tag`` is what hack/helm-chart-package.sh writes into the released chart for promoted
    tags, ``v<chart version>``), so a per-environment ``compute.charts.kueue`` upgrades the controller too."""
    return {"repository": KUEUE_IMAGE_REPOSITORY, "tag": f"v{version.removeprefix('v')}", "pullPolicy": "IfNotPresent"}


KUEUE_IMAGE = kueue_image()
"""The default chart's image, pinned explicitly (:func:`kueue_image`)."""
KUEUE_NAMESPACE = "kueue-system"

KUEUE_RELEASE = "kueue"
METRICS_SERVICE = f"{KUEUE_RELEASE}-controller-manager-metrics-service"
"""Kueue's metrics Service as the chart names it (v0.19.2 charts/kueue/templates/manager/auth_proxy_service.yaml:
``<kueue.fullname>-controller-manager-metrics-service``; the fullname is the release name when it contains the chart
name, _helpers.tpl ``kueue.fullname``)."""
METRICS_PORT_NAME = "https"
"""Name of the Service port of the metrics endpoint (v0.19.2 values.yaml ``metricsService.ports``: ``https`` 8443;
the controller serves it with TLS and authn/authz, cmd/kueue/main.go ``SecureServing: true``,
``filters.WithAuthenticationAndAuthorization``).

How the metrics reach CloudWatch: the platform's own Prometheus scraper
(cdk_constructs/observability/container_insights.py, job ``kueue``) discovers this Service's endpoints by name and port
and scrapes them over HTTPS with its service-account token (the add-on's ``cloudwatch-agent`` ClusterRole grants ``get``
on the ``/metrics`` non-resource URL, chart amazon-cloudwatch-observability-6.4.0
templates/cloudwatch-agent-clusterrole.yaml). The agent's built-in Kueue scraper is not used: it selects Services
labelled ``app.kubernetes.io/component=controller`` (amazon-contributing/opentelemetry-collector-contrib
receiver/awscontainerinsightskueuereceiver kueue_prometheus_scraper.go ``kueueComponentLabelSelector``) while the chart
labels this Service ``app.kubernetes.io/component: metrics-service`` (_helpers.tpl ``kueue.metricsService.labels``) and
ignores the ``metricsService.labels`` value (the template never reads it). tests/test_kueue_metrics.py renders the chart
with helm and checks both."""
KUEUE_REQUESTS = {"cpu": "250m", "memory": "512Mi"}
"""What the scheduler reserves per replica on the system nodes (the chart's default is 500m / 512Mi, v0.19.2
charts/kueue/values.yaml; Helm merges this into it, so its limits of 2 CPU / 512Mi stay and the leader can burst).
Only the leader reconciles, the other replica serves webhooks, so two full default requests would reserve a CPU the
two small system nodes need for the other controllers (tests/test_node_shapes.py packs them all)."""

INTEGRATIONS = (
    "kubeflow.org/pytorchjob",
    "kubeflow.org/mpijob",
    "ray.io/rayjob",
    "ray.io/raycluster",
    "deployment",
    "pod",
)
"""Job kinds Kueue manages (gang admission of all their pods), plus llmft's serving Deployments (``type: serve``).

- ``deployment`` (kubernetes-sigs/kueue@v0.19.2 pkg/controller/jobs/deployment/deployment_controller.go: framework
  name ``deployment``, no group; site/content/en/docs/tasks/run/deployment.md "Run Deployment"): Kueue does not queue
  a Deployment as one Workload; its mutating webhook (deployment_webhook.go ``Default``) marks the pod template of a
  Deployment that has a ``kueue.x-k8s.io/queue-name`` label: it copies the queue-name label onto the template, adds
  ``kueue.x-k8s.io/managed: "true"`` and the annotation ``kueue.x-k8s.io/pod-suspending-parent: deployment``. Every
  pod the Deployment's ReplicaSet creates is then a plain pod of the ``pod`` integration: Kueue's pod webhook
  (pkg/controller/jobs/pod/pod_webhook.go ``Default``: ``suspendByParent``) adds the scheduling gate
  ``kueue.x-k8s.io/admission`` (pkg/controller/jobs/pod/constants/constants.go ``SchedulingGateName``), the pod
  becomes one Workload in the LocalQueue's ClusterQueue and the gate is removed when it is admitted; scaling out
  creates more gated pods, scaling in frees their quota. The validating webhook refuses a queue-name change while a
  replica is ready (``ValidateUpdate``).
- ``pod``: the Deployment integration enables it implicitly since v0.15 (``ImplicitlyEnabledFrameworkNames:
  ["pod"]``; deployment.md "Pod integration requirements"), but the chart sets ``failurePolicy: Fail`` on the pod
  webhooks only when ``pod`` is listed (charts/kueue/templates/webhook/manifests.yaml ``mpod.kb.io``: ``{{- if has
  "pod" $integrationsConfig.frameworks }}``), so it is listed: with Kueue down a pod is refused, not created without
  its gate (the guard rails refuse an ungated serving pod anyway, k8s_charts/team_guardrails.py). The chart gives
  every webhook the namespaceSelector ``managedJobsNamespaceSelector`` of this configuration, and for pod-based
  integrations the selector is a strong exemption (apis/config/v1beta2/configuration_types.go
  ``ManagedJobsNamespaceSelector``): no pod outside the team namespaces (kube-system, kueue-system, the operators,
  the system node pools) is ever gated or even sent to Kueue's pod webhook.

batch/job is not integrated: platform Jobs in team namespaces (llmft's CPU steps, Studio partition setup) and
RayJob submitters must not wait in a queue; the namespace ResourceQuota still caps their GPUs. They still pass
through Kueue's webhooks: a disabled integration is served by a no-op webhook (v0.19.2
pkg/controller/jobframework/setup.go) registered with failurePolicy Fail for the managed namespaces
(charts/kueue/templates/webhook/manifests.yaml, `mjob.kb.io`), so creating any Job or pod in a team namespace needs a
running Kueue replica: hence two replicas spread over nodes in prod (:data:`SPREAD_BY_NODE`).

The PyTorchJob integration (Kubeflow Trainer v1) is deprecated in Kueue v0.19 and due for removal "tentatively
v0.20" (v0.19.2 site/content/en/docs/tasks/run/kubeflow/pytorchjobs.md): bumping :data:`KUEUE_VERSION` past 0.19
needs the job builders moved to TrainJob or JobSet first (tests/test_kueue.py refuses the bump otherwise)."""
POD_SELECTOR = {"app.kubernetes.io/name": "kueue", "control-plane": "controller-manager"}
"""Labels of the controller pods (v0.19.2 charts/kueue/templates/_helpers.tpl `kueue.selectorLabels`; the chart
name is `kueue`, no nameOverride here)."""
SPREAD_BY_NODE = [
    {
        "maxSkew": 1,
        "topologyKey": "kubernetes.io/hostname",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": POD_SELECTOR},
    }
]
"""One replica per node while there are nodes for them: the chart sets no anti-affinity and its PodDisruptionBudget
does not spread, so both replicas could share the node being replaced (v0.19.2 charts/kueue/templates/manager/
manager.yaml takes only nodeSelector, tolerations and topologySpreadConstraints from values)."""


def manager_configuration(settings: KueueConfig) -> dict[str, Any]:
    """The controller's `Configuration` (config.kueue.x-k8s.io/v1beta2). Fields as in the chart's default
    `managerConfig.controllerManagerConfigYaml` (v0.19.2) plus:

    - `managedJobsNamespaceSelector`: team namespaces and the platform namespace only
      (k8s_charts/queues.py ``MANAGED_NAMESPACE_LABEL`` ``In`` ``true``/``platform``, k8s_charts/queues.py
      ``kueue_managed_selector``): the platform's gated evaluation (a PyTorchJob in ``llmft-platform``) is admitted
      by Kueue like a team's job, and Kueue v0.19 reconciles jobs only in selected namespaces; with the pod
      integration on, no pod elsewhere is gated (:data:`INTEGRATIONS`); the platform namespace's other pods name no
      queue and are left alone (``manageJobsWithoutQueueName: false``);
    - `manageJobsWithoutQueueName: false`: with the pod integration on, `true` would gate every pod of a team
      namespace whose owner Kueue does not manage - llmft's CPU-step batch Jobs, Argo Workflow pods - and queue it
      in no queue, forever (v0.19.2 pkg/controller/jobs/pod/pod_webhook.go ``Default``: ``suspend =
      QueueNameForObject(pod) != "" || w.manageJobsWithoutQueueName``). A job that names no queue is refused at
      admission instead: ValidatingAdmissionPolicy ``require-kueue-queue-name`` (k8s_charts/queueing.py) for the four
      job kinds, and the guard rails for serving Deployments and their pods (k8s_charts/team_guardrails.py);
    - `waitForPodsReady`: all-or-nothing admission; a job whose pods are not all ready by `timeout` is evicted and
      requeued with exponential backoff (Kueue task "Setup All-or-nothing with ready Pods");
    - `resources.quotaCheckStrategy: IgnoreUndeclared`: only GPUs are quota-managed, CPU/memory/EFA are ignored
      (Kueue task "Administer cluster quotas"), and `transformations` add one :data:`TEAM_GPUS` per GPU, the
      resource the team cap is written in (Kueue task "Share Quotas Across Resource Flavors").
    """
    requeue: dict[str, Any] = {"timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600}
    if settings.requeue_limit is not None:
        requeue["backoffLimitCount"] = settings.requeue_limit
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        # enableClusterQueueResources: kueue_cluster_queue_resource_usage / _nominal_quota exist only with it
        # (v0.19.2 cmd/kueue/main.go: WithResourceMetrics(cfg.Metrics.EnableClusterQueueResources)); the dashboard's
        # "GPUs admitted per queue" reads them.
        "metrics": {"bindAddress": ":8443", "enableClusterQueueResources": True},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "clientConnection": {"qps": 300, "burst": 500},
        "manageJobsWithoutQueueName": False,
        "managedJobsNamespaceSelector": kueue_managed_selector(),
        "waitForPodsReady": {
            "timeout": settings.pods_ready_timeout,
            "recoveryTimeout": settings.pods_ready_recovery_timeout,
            "blockAdmission": False,
            "requeuingStrategy": requeue,
        },
        "integrations": {"frameworks": list(INTEGRATIONS)},
        "resources": {
            "quotaCheckStrategy": "IgnoreUndeclared",
            "transformations": [{"input": GPU_RESOURCE, "strategy": "Retain", "outputs": {TEAM_GPUS: "1"}}],
        },
    }


def helm_values(
    settings: KueueConfig, node_selector: Mapping[str, str], version: str = KUEUE_VERSION
) -> dict[str, Any]:
    """Chart values: the controller (image of chart ``version``, requests, priority, replicas spread by node when
    more than one) on ``node_selector``, configured by :func:`manager_configuration`."""
    return {
        "controllerManager": {
            "replicas": settings.replicas,
            "nodeSelector": dict(node_selector),
            # v0.19.2 values.yaml `controllerManager.manager.priorityClassName`: above every team tier, so no
            # team pod can preempt the controller that admits every team's jobs (and serves their webhooks)
            "manager": {
                "image": kueue_image(version),
                "resources": {"requests": dict(KUEUE_REQUESTS)},
                "priorityClassName": CONTROLLER_PRIORITY_CLASS,
            },
            "podDisruptionBudget": {"enabled": settings.replicas > 1, "minAvailable": 1},
            **({"topologySpreadConstraints": SPREAD_BY_NODE} if settings.replicas > 1 else {}),
        },
        "managerConfig": {
            "controllerManagerConfigYaml": yaml.safe_dump(manager_configuration(settings), sort_keys=False)
        },
    }


CHART_REQUESTS = Resources(cpu_m=500, memory_mib=512)
"""kubernetes-sigs/kueue v0.19.2 charts/kueue/values.yaml:58-65, ``controllerManager.manager.resources.requests``:
what a replica requests when the values set none."""


def install(site: AddOnSite, addon: AddOn) -> Kueue:
    """:class:`Kueue` ``Kueue`` with the environment's ``compute.kueue`` settings, on the system nodes."""
    kueue = Kueue(
        site.scope,
        "Kueue",
        cluster=site.cluster,
        settings=site.config.compute.kueue,
        node_selector=site.node_selector,
        after=site.installed.after(addon),
        version=addon.version_in(site.config),
    )
    site.installed.add(addon, [kueue.release])
    return kueue


def system_pods(values: Mapping[str, Any]) -> list[SystemPod]:
    """The controller's replicas (:func:`helm_values`)."""
    manager = values["controllerManager"]
    requests = requests_of(manager["manager"].get("resources"), CHART_REQUESTS)
    return [SystemPod("kueue", requests, manager["replicas"])]


KUEUE = register(
    AddOn(
        name="kueue",
        chart="kueue",
        release=KUEUE_RELEASE,
        namespace=KUEUE_NAMESPACE,
        repository=KUEUE_CHART,
        version=KUEUE_CHART_VERSION,
        version_setting="kueue",
        values=lambda context: helm_values(
            context.config.compute.kueue, context.node_selector, KUEUE.version_in(context.config)
        ),
        # it integrates with the PyTorchJob and MPIJob (HyperPod's prerequisites) and RayJob/RayCluster kinds
        needs=(SYSTEM_NODES, "kuberay", "hyperpod-prerequisites"),
        provides_platform_crds=True,
        installer=install,
        system_pods=system_pods,
    )
)
"""Kueue with its CRDs and webhooks, after the operators whose kinds it manages (:data:`INTEGRATIONS`)."""


class Kueue(Construct):
    """Installs :data:`KUEUE` (chart ``version``, default :data:`KUEUE_VERSION`) in namespace ``kueue-system`` (the
    chart installs the CRDs and webhooks).

    Attribute ``release`` is the Helm release; charts with Kueue objects must depend on it.

    :param cluster: the EKS cluster.
    :param settings: controller settings (replicas, waitForPodsReady timeouts, requeue limit).
    :param node_selector: nodeSelector of the controller (the system nodes). Default: any node.
    :param after: constructs to install after (system nodes; the operators whose CRDs Kueue integrates with).
    :param version: chart version. Default :data:`KUEUE_VERSION`.
    """

    addons = (KUEUE,)

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        settings: KueueConfig,
        node_selector: Mapping[str, str] | None = None,
        after: Sequence[IDependable] = (),
        version: str = KUEUE_VERSION,
    ) -> None:
        super().__init__(scope, construct_id)
        self.namespace = KUEUE_NAMESPACE
        self.configuration = manager_configuration(settings)
        self.values: dict[str, Any] = helm_values(settings, node_selector or {}, version)
        self.release = KUEUE.helm_chart(
            self, "Release", cluster=cluster, version=version, values=self.values, after=after
        )
