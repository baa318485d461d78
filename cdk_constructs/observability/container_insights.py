"""Container Insights with enhanced observability: the Amazon CloudWatch Observability EKS add-on, pinned, with its
IAM through EKS Pod Identity, the log groups it writes to (created first, with retention and the platform key) and
an extra agent that scrapes Karpenter's and Kueue's Prometheus metrics, the served models' engines
(``serving_scrape_job``: the gauges and counters KEDA, the dashboard and the alarms read) and, with
``pipelines.enabled``, the Argo Workflows controller's phase counter (``argo_workflows_scrape_job``).

Facts this construct relies on (checked 2026-11-22):

- Add-on name ``amazon-cloudwatch-observability``; from v3.1.0 its IAM can come from EKS Pod Identity for service
  account ``cloudwatch-agent`` with ``CloudWatchAgentServerPolicy`` (CloudWatch User Guide, "Quick start with the
  Amazon CloudWatch Observability EKS add-on", Container-Insights-setup-EKS-addon.html).
- Fluent Bit writes to ``/aws/containerinsights/<cluster>/{application,dataplane,host}`` (chart
  aws-observability/helm-charts, tag amazon-cloudwatch-observability-6.4.0, values.yaml ``log_group_name``), the
  agent's enhanced metrics to ``/aws/containerinsights/<cluster>/performance`` and Prometheus EMF to
  ``/aws/containerinsights/<cluster>/prometheus``. Groups that exist are used as they are, so creating them here
  gives them a retention and a KMS key instead of never-expiring unencrypted groups.
- The chart's root ``tolerations`` (default ``[{operator: Exists}]``) apply to the agent, Fluent Bit, DCGM exporter
  and Neuron monitor DaemonSets; set explicitly here so every node kind (HyperPod with its health taints, Karpenter
  GPU pools tainted ``nvidia.com/gpu``, system nodes) runs them whatever the chart default becomes.
- Agent configuration lives in the ``agents[]`` entries only, never in the root ``agent.config``: the chart builds every
  AmazonCloudWatchAgent as ``mergeOverwrite (deepCopy $.Values.agent) <entry>`` (tag amazon-cloudwatch-observability-
  6.4.0, templates/linux/cloudwatch-agent-custom-resource.yaml l.68-69), a deep merge, so a root ``agent.config`` would
  be merged into the Prometheus scraper's config as well and make it a second Container Insights (and Kueue)
  collector on its system node. ``tests/test_observability.py`` renders that template with the real helm binary to
  prove the scraper's config has no ``kubernetes`` key.
- The ``cloudwatch-agent`` entry (the DaemonSet, ``containerInsights.targetAgent``) carries
  ``logs.metrics_collected.kubernetes``: ``enhanced_container_insights`` and ``accelerated_compute_metrics`` (NVIDIA
  DCGM, Neuron, EFA); the chart's ``cloudwatch-agent.modify-config`` adds ``cluster_name`` (_helpers.tpl l.233-242).
  Not ``kueue_container_insights``: its scraper selects Services labelled ``app.kubernetes.io/component=controller``,
  which Kueue's chart does not give its metrics Service (cdk_constructs/compute/kueue.py ``METRICS_PORT_NAME``); Kueue
  is scraped by the Prometheus agent below instead (job ``kueue``), with the metric names, namespace and dimension sets
  the built-in scraper would publish (``KUEUE_DECLARATIONS``), from the elected leader only. Leaving
  ``application_signals`` out of it and turning ``manager.applicationSignals.autoMonitor.monitorAllServices`` off
  keeps the operator from instrumenting training pods (Application Signals is billed per request and not needed).
- ``agents``: each entry is an AmazonCloudWatchAgent workload using ``agent``'s schema and defaults (values.yaml of the
  same tag); the operator mounts ``prometheus.config`` at ``/etc/prometheusconfig/prometheus.yaml``. The CloudWatch
  agent turns Prometheus counters into per-scrape deltas and drops histograms ("Prometheus metric type conversion by
  the CloudWatch agent"), which is why Kueue's admission-wait histogram is not collected.
- Kueue v0.19.2 labels every metric with ``replica_role`` (``leader``, ``follower`` or ``standalone``;
  pkg/metrics/metrics.go, pkg/util/roletracker/tracker.go) and both replicas serve them; only the leader's (or a
  single replica's) series are published, so a follower's gauges never double the counts. The scrape renames
  ``cluster_queue``/``status``/``reason``/``resource``/``flavor`` to the dimension names of the agent's own Kueue
  pipeline (receiver/awscontainerinsightskueuereceiver ``kueueDimensionsRelabelMap``) and keeps only the metrics that
  pipeline keeps (``kueueMetricAllowList``).
- Karpenter's node gauges (``karpenter_nodes_allocatable``, ``karpenter_nodes_total_pod_requests``) cover every node of
  the cluster, HyperPod nodes included (sigs.k8s.io/karpenter 6e7eab7a0f48 pkg/controllers/state/cluster.go
  l.393-418), one sample per node and resource per scrape, labelled with the node's ``instance_type`` (HyperPod:
  ``ml.*``) and, on Karpenter nodes only, ``capacity_type`` (pkg/controllers/metrics/node/controller.go l.246-302).
  Published without ``node_name``, several nodes' samples land in one CloudWatch metric: its ``Sum`` over a period is
  (GPUs x scrapes), so a count is ``Sum x SCRAPE_INTERVAL_SECONDS / PERIOD`` and a share is a ratio of two Sums.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from aws_cdk import (
    RemovalPolicy,
)
from aws_cdk import (
    aws_eks as eks_l1,
)
from aws_cdk import (
    aws_eks_v2 as eks,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_logs as logs,
)
from constructs import Construct, IDependable

from cdk_constructs.compute.argo_workflows import (
    ARGO_WORKFLOWS_NAMESPACE,
)
from cdk_constructs.compute.argo_workflows import (
    METRICS_PORT_NAME as ARGO_METRICS_PORT,
)
from cdk_constructs.compute.argo_workflows import (
    METRICS_SERVICE as ARGO_METRICS_SERVICE,
)
from cdk_constructs.compute.kueue import (
    KUEUE_NAMESPACE,
)
from cdk_constructs.compute.kueue import (
    METRICS_PORT_NAME as KUEUE_METRICS_PORT,
)
from cdk_constructs.compute.kueue import (
    METRICS_SERVICE as KUEUE_METRICS_SERVICE,
)
from cdk_constructs.governance.nag_findings import acknowledge, managed_policy
from cdk_constructs.observability.documented_metrics import PROMETHEUS
from k8s_charts import serving

ADDON_NAME = "amazon-cloudwatch-observability"
NAMESPACE = "amazon-cloudwatch"
SERVICE_ACCOUNT = "cloudwatch-agent"
AGENT_POLICY = "CloudWatchAgentServerPolicy"
LOG_GROUP_KINDS = ("application", "dataplane", "host", "performance", "prometheus")
CI_AGENT = "cloudwatch-agent"
PROMETHEUS_AGENT = "cloudwatch-agent-prometheus"
PROMETHEUS_AGENT_REQUESTS = {"cpu": "100m", "memory": "128Mi"}
"""The scraper only reads Karpenter's metrics endpoint once a minute; the chart's agent default (250m / 128Mi,
chart 6.4.0 values.yaml agent.resources, merged into every agents[] entry, limits 512Mi kept) is sized for the node
agent's Container Insights pipelines. It runs on the small system nodes (tests/test_node_shapes.py packs them)."""
PROMETHEUS_CONFIG_PATH = "/etc/prometheusconfig/prometheus.yaml"
PROMETHEUS_AGENT_HOST_NETWORK = False
"""The scraper runs pod-networked (the chart's ``agent.hostNetwork: true``, values.yaml of 6.4.0, is for the node
agent's host metrics; the entry's ``hostNetwork`` wins the deep merge, templates/linux/cloudwatch-agent-custom-
resource.yaml ``hostNetwork: {{ $agent.hostNetwork }}``, tests/test_serving_metrics.py renders it). Its scrapes then
come from a pod of namespace ``amazon-cloudwatch``, which the serving pods' NetworkPolicy admits by namespace
(k8s_charts/serving.py ``METRICS_AGENT_NAMESPACE``). With host networking they would come from the node's IP, which
the VPC CNI's network policy agent matches against ipBlock peers only, never a namespaceSelector. Everything it
scrapes (Karpenter, Kueue, Argo Workflows, serving pods) is a pod IP; its credentials come from the EKS Pod Identity
agent, reachable from pods (169.254.170.23)."""

SCRAPE_INTERVAL_SECONDS = 60
"""The scraper's ``scrape_interval``: every target is scraped once per minute, which the GPU-count math relies on."""
GPU_RESOURCE = "nvidia.com/gpu"
"""``resource_type`` value of NVIDIA GPUs in Karpenter's node gauges (``resourceNameToString``: lower case, ``-`` to
``_``; controller.go l.304-306)."""
HYPERPOD_INSTANCE_TYPE = r"ml\..+"
"""HyperPod nodes carry ``node.kubernetes.io/instance-type: ml.<type>`` (AWS's HyperPod Helm chart selects its
health-monitoring agent's nodes by these values, aws/sagemaker-hyperpod-cli
helm_chart/HyperPodHelmChart/charts/health-monitoring-agent);
Karpenter and system nodes carry EC2 names."""

SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"
KUEUE_JOB = "kueue"
KUEUE_METRICS = (
    "kueue_pending_workloads",
    "kueue_evicted_workloads_total",
    "kueue_admitted_active_workloads",
    "kueue_cluster_queue_resource_usage",
    "kueue_cluster_queue_nominal_quota",
)
"""What the agent's own Kueue scraper keeps (kueue_prometheus_scraper.go ``kueueMetricAllowList``)."""
KUEUE_LABELS = {
    "cluster_queue": "ClusterQueue",
    "flavor": "Flavor",
    "reason": "Reason",
    "resource": "Resource",
    "status": "Status",
}
"""Kueue label -> CloudWatch dimension (kueue_prometheus_scraper.go ``kueueDimensionsRelabelMap``)."""
KUEUE_PUBLISHING_ROLES = r"leader|standalone"

_KUEUE_MATCH = {"source_labels": ["job", "replica_role"], "label_matcher": f"^{KUEUE_JOB};({KUEUE_PUBLISHING_ROLES})$"}
KUEUE_DECLARATIONS: tuple[dict[str, Any], ...] = (
    # the dimension sets of the agent's Kueue pipeline (amazon-cloudwatch-agent v1.300070.0
    # translator/translate/otel/exporter/awsemf/kueue.go, vendored golden translation in tests/upstream/)
    {
        **_KUEUE_MATCH,
        "metric_selectors": ["^kueue_pending_workloads$"],
        "dimensions": [
            ["ClusterName"],
            ["ClusterName", "ClusterQueue"],
            ["ClusterName", "ClusterQueue", "Status"],
            ["ClusterName", "Status"],
        ],
    },
    {
        **_KUEUE_MATCH,
        "metric_selectors": ["^kueue_evicted_workloads_total$"],
        "dimensions": [
            ["ClusterName"],
            ["ClusterName", "ClusterQueue"],
            ["ClusterName", "ClusterQueue", "Reason"],
            ["ClusterName", "Reason"],
        ],
    },
    {
        **_KUEUE_MATCH,
        "metric_selectors": ["^kueue_admitted_active_workloads$"],
        "dimensions": [["ClusterName"], ["ClusterName", "ClusterQueue"]],
    },
    {
        **_KUEUE_MATCH,
        "metric_selectors": ["^kueue_cluster_queue_resource_usage$", "^kueue_cluster_queue_nominal_quota$"],
        "dimensions": [
            ["ClusterName"],
            ["ClusterName", "ClusterQueue"],
            ["ClusterName", "ClusterQueue", "Resource"],
            ["ClusterName", "ClusterQueue", "Resource", "Flavor"],
            ["ClusterName", "ClusterQueue", "Flavor"],
        ],
    },
)


def kueue_scrape_job(cluster_name: str, namespace: str = KUEUE_NAMESPACE) -> dict[str, Any]:
    """Prometheus scrape config of Kueue's metrics endpoints: the metrics Service's endpoints (every replica), HTTPS
    with the pod's service-account token (Kueue authorizes ``get /metrics`` with a SubjectAccessReview); the
    controller's certificate is self-signed without cert-manager, as the agent's own Kueue scraper assumes
    (``InsecureSkipVerify: true`` there too)."""
    return {
        "job_name": KUEUE_JOB,
        "scheme": "https",
        "bearer_token_file": SERVICE_ACCOUNT_TOKEN,
        "tls_config": {"insecure_skip_verify": True},
        "kubernetes_sd_configs": [{"role": "endpoints", "namespaces": {"names": [namespace]}}],
        "relabel_configs": [
            {
                "source_labels": ["__meta_kubernetes_service_name", "__meta_kubernetes_endpoint_port_name"],
                "regex": f"{KUEUE_METRICS_SERVICE};{KUEUE_METRICS_PORT}",
                "action": "keep",
            },
            {"target_label": "ClusterName", "replacement": cluster_name},
        ],
        "metric_relabel_configs": [
            {"source_labels": ["__name__"], "regex": "|".join(f"^{m}$" for m in KUEUE_METRICS), "action": "keep"},
            *(
                {
                    "source_labels": [label],
                    "regex": "(.+)",
                    "target_label": dim,
                    "replacement": "${1}",
                    "action": "replace",
                }
                for label, dim in KUEUE_LABELS.items()
            ),
        ],
    }


ARGO_WORKFLOWS_JOB = "argo-workflows"
ARGO_WORKFLOWS_METRICS = ("argo_workflows_total_count",)
"""Argo Workflows v4.0.6 (argoproj/argo-workflows 277e9ce) docs/metrics.md ``total_count``: "A counter of workflows
that have entered each phase ... by namespace", attributes ``phase`` and ``namespace`` (workflow/metrics/
counter_workflow_phase.go ``ChangeWorkflowPhase``; phases Pending, Running, Succeeded, Failed, Error). Exposed as
``argo_workflows_total_count``: the Prometheus exporter is built with namespace ``argo_workflows`` and
``WithoutCounterSuffixes`` (util/telemetry/exporter_prometheus.go l.37-48). The agent turns the counter into per-scrape
deltas, so its ``Sum`` over a period is the number of workflows that entered the phase in that period. Not the
``gauge`` metric (workflows per phase now): it has no ``namespace`` attribute, so no per-team count."""
ARGO_WORKFLOWS_LABELS = {"namespace": "Namespace", "phase": "Phase"}
"""Argo label -> CloudWatch dimension; ``namespace`` is the Workflow's, i.e. the team's namespace (team namespaces
are named after the team, k8s_charts/team_namespaces.py)."""
ARGO_WORKFLOWS_DIMENSIONS = ("ClusterName", "Namespace", "Phase")
ARGO_WORKFLOWS_DECLARATIONS: tuple[dict[str, Any], ...] = (
    {
        "source_labels": ["job"],
        "label_matcher": f"^{ARGO_WORKFLOWS_JOB}$",
        "metric_selectors": [f"^{m}$" for m in ARGO_WORKFLOWS_METRICS],
        "dimensions": [list(ARGO_WORKFLOWS_DIMENSIONS)],
    },
)
"""EMF declarations added only with ``pipelines.enabled`` (the controller exists only then)."""


def argo_workflows_scrape_job(cluster_name: str, namespace: str = ARGO_WORKFLOWS_NAMESPACE) -> dict[str, Any]:
    """Prometheus scrape config of the Argo Workflows controller: the endpoints of its metrics Service
    (cdk_constructs/compute/argo_workflows.py ``METRICS_SERVICE``/``METRICS_PORT_NAME``, plain HTTP, ``secure:
    false``); only the leader serves non-empty metrics (docs/metrics.md), one replica runs. The allow-list keeps
    :data:`ARGO_WORKFLOWS_METRICS`; ``namespace``/``phase`` become the ``Namespace``/``Phase`` dimensions (no target
    label is named ``namespace``, so the metric's own label is never renamed ``exported_namespace``)."""
    return {
        "job_name": ARGO_WORKFLOWS_JOB,
        "scheme": "http",
        "kubernetes_sd_configs": [{"role": "endpoints", "namespaces": {"names": [namespace]}}],
        "relabel_configs": [
            {
                "source_labels": ["__meta_kubernetes_service_name", "__meta_kubernetes_endpoint_port_name"],
                "regex": f"{ARGO_METRICS_SERVICE};{ARGO_METRICS_PORT}",
                "action": "keep",
            },
            {"target_label": "ClusterName", "replacement": cluster_name},
        ],
        "metric_relabel_configs": [
            {
                "source_labels": ["__name__"],
                "regex": "|".join(f"^{m}$" for m in ARGO_WORKFLOWS_METRICS),
                "action": "keep",
            },
            *(
                {
                    "source_labels": [label],
                    "regex": "(.+)",
                    "target_label": dim,
                    "replacement": "${1}",
                    "action": "replace",
                }
                for label, dim in ARGO_WORKFLOWS_LABELS.items()
            ),
        ],
    }


SERVING_JOB = "llmft-serve"
SERVING_GAUGES = (*serving.DEMAND_METRICS, serving.THROUGHPUT_METRIC)
SERVING_METRICS = (*SERVING_GAUGES, *serving.REQUEST_METRICS)
"""What the scrape keeps of an engine's ``/metrics`` (k8s_charts/serving.py names each; the latency histograms are
dropped by the agent anyway, see its module docstring)."""
SERVING_DECLARATIONS: tuple[dict[str, Any], ...] = (
    {
        "source_labels": ["job"],
        "label_matcher": f"^{SERVING_JOB}$",
        "metric_selectors": [f"^{m}$" for m in (*serving.DEMAND_METRICS, *serving.REQUEST_METRICS)],
        "dimensions": [list(serving.METRIC_DIMENSIONS), list(serving.NAMESPACE_DIMENSIONS)],
    },
    {
        "source_labels": ["job"],
        "label_matcher": f"^{SERVING_JOB}$",
        "metric_selectors": [f"^{serving.THROUGHPUT_METRIC}$"],
        "dimensions": [list(serving.METRIC_DIMENSIONS)],
    },
)
"""Per endpoint (``METRIC_DIMENSIONS``: what KEDA's triggers and the dashboard read) and, for the demand gauges and
request counters, per team namespace (``NAMESPACE_DIMENSIONS``: what the alarms read). Every replica's samples (and
every data-parallel engine's) of one endpoint land in the same metric: a minute's ``Sum`` is the endpoint's total."""


def _pod_label(label: str) -> str:
    """Prometheus' meta label of a pod label (non-alphanumerics become ``_``: kubernetes_sd_configs role pod)."""
    return "__meta_kubernetes_pod_label_" + re.sub(r"[^a-zA-Z0-9_]", "_", label)


def serving_scrape_job(cluster_name: str, namespaces: list[str]) -> dict[str, Any]:
    """Prometheus scrape config of the served models' engines (k8s_charts/serving.py): pods of the team
    ``namespaces`` labelled ``llmft.io/component=serve`` (the discovery's label selector and a ``keep``), their
    container port named ``http``, plain HTTP on ``/metrics``; the pod label ``llmft.io/serve`` becomes ``serve`` and
    the pod's namespace ``Namespace`` (no metric of SGLang has either label, so nothing is renamed ``exported_*``);
    the allow-list keeps :data:`SERVING_METRICS`."""
    return {
        "job_name": SERVING_JOB,
        "scheme": "http",
        "metrics_path": serving.METRICS_PATH,
        "kubernetes_sd_configs": [
            {
                "role": "pod",
                "namespaces": {"names": sorted(namespaces)},
                "selectors": [{"role": "pod", "label": f"{serving.COMPONENT_LABEL}={serving.SERVE_COMPONENT}"}],
            }
        ],
        "relabel_configs": [
            {
                "source_labels": [_pod_label(serving.COMPONENT_LABEL), "__meta_kubernetes_pod_container_port_name"],
                "regex": f"{serving.SERVE_COMPONENT};{serving.ENGINE_PORT_NAME}",
                "action": "keep",
            },
            {
                "source_labels": [_pod_label(serving.SERVE_NAME_LABEL)],
                "regex": "(.+)",
                "target_label": "serve",
                "replacement": "${1}",
                "action": "replace",
            },
            {
                "source_labels": ["__meta_kubernetes_namespace"],
                "regex": "(.+)",
                "target_label": "Namespace",
                "replacement": "${1}",
                "action": "replace",
            },
            {"target_label": "ClusterName", "replacement": cluster_name},
        ],
        "metric_relabel_configs": [
            {"source_labels": ["__name__"], "regex": "|".join(f"^{m}$" for m in SERVING_METRICS), "action": "keep"},
        ],
    }


# EMF declarations of the Prometheus agent: they ARE the dimensions these metrics are published with
# (documented_metrics.py lists the same sets). Metric names from Karpenter v1.14.1 metrics.md, labels from the core's
# node metrics controller (documented_metrics.py has the lines). ``source_labels`` values are joined with ";" before
# ``label_matcher`` is applied (awsemfexporter label_matchers; the agent's translator passes them through:
# amazon-cloudwatch-agent v1.300070.0 translator/translate/otel/exporter/awsemf/prometheus.go l.117-129).
PROMETHEUS_DECLARATIONS: tuple[dict[str, Any], ...] = (
    {
        "source_labels": ["job"],
        "label_matcher": "^karpenter$",
        "dimensions": [["ClusterName", "nodepool"]],
        "metric_selectors": ["^karpenter_nodeclaims_created_total$", "^karpenter_nodeclaims_terminated_total$"],
    },
    {
        "source_labels": ["job"],
        "label_matcher": "^karpenter$",
        "dimensions": [["ClusterName", "message_type"]],
        "metric_selectors": ["^karpenter_interruption_received_messages_total$"],
    },
    {
        "source_labels": ["job"],
        "label_matcher": "^karpenter$",
        "dimensions": [["ClusterName"]],
        "metric_selectors": ["^controller_runtime_reconcile_errors_total$"],
    },
    # HyperPod GPU nodes: GPUs and GPUs requested by pods, per HyperPod instance type (ReservedGpusIdle)
    {
        "source_labels": ["job", "resource_type", "instance_type"],
        "label_matcher": f"^karpenter;{re.escape(GPU_RESOURCE)};{HYPERPOD_INSTANCE_TYPE}$",
        "dimensions": [["ClusterName", "instance_type", "resource_type"]],
        "metric_selectors": ["^karpenter_nodes_allocatable$", "^karpenter_nodes_total_pod_requests$"],
    },
    # Karpenter GPU nodes (only they have capacity_type): GPUs per instance type and capacity type (burst spend)
    {
        "source_labels": ["job", "resource_type", "capacity_type"],
        "label_matcher": f"^karpenter;{re.escape(GPU_RESOURCE)};.+$",
        "dimensions": [["ClusterName", "capacity_type", "instance_type", "resource_type"]],
        "metric_selectors": ["^karpenter_nodes_allocatable$"],
    },
    *KUEUE_DECLARATIONS,
    *SERVING_DECLARATIONS,
)


def log_group_name(cluster_name: str, kind: str) -> str:
    return f"/aws/containerinsights/{cluster_name}/{kind}"


class ContainerInsights(Construct):
    """The CloudWatch Observability add-on on ``cluster``.

    Attributes: ``addon`` (``CfnAddon``), ``role`` (Pod Identity role of ``amazon-cloudwatch/cloudwatch-agent``),
    ``pod_identity`` (its association),
    ``log_groups`` (kind -> ``logs.LogGroup``), ``configuration`` (the add-on configuration as a dict).

    :param cluster: the EKS cluster.
    :param cluster_name: its name (plain string: log group names and the agents' ``ClusterName`` dimension).
    :param addon_version: pinned add-on version, e.g. ``v6.4.0-eksbuild.1``. Required.
    :param log_retention: retention of the container log groups. Required.
    :param encryption_key: KMS key of the log groups; its policy must admit CloudWatch Logs. Required.
    :param prometheus_node_selector: nodeSelector of the Prometheus scraper (a Deployment). Default: any node.
    :param karpenter_namespace: namespace of the ``karpenter`` Service to scrape. Default ``kube-system``.
    :param argo_workflows: scrape the Argo Workflows controller (``pipelines.enabled``). Default False.
    :param serving_namespaces: team namespaces whose served models are scraped (:func:`serving_scrape_job`).
        Default: none (no serving job).
    :param after: constructs the add-on waits for (system nodes, the Pod Identity agent).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        cluster_name: str,
        addon_version: str,
        log_retention: logs.RetentionDays,
        encryption_key: kms.IKey,
        prometheus_node_selector: Mapping[str, str] | None = None,
        karpenter_namespace: str = "kube-system",
        argo_workflows: bool = False,
        serving_namespaces: tuple[str, ...] = (),
        after: tuple[IDependable, ...] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        self.log_groups: dict[str, logs.LogGroup] = {
            kind: logs.LogGroup(
                self,
                f"{kind.title()}Logs",
                log_group_name=log_group_name(cluster_name, kind),
                retention=log_retention,
                encryption_key=encryption_key,
                removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
            )
            for kind in LOG_GROUP_KINDS
        }
        self.role = iam.Role(
            self,
            "AgentRole",
            assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com").with_session_tags(),
            description=f"{cluster_name}: CloudWatch agent and Fluent Bit (EKS Pod Identity)",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(AGENT_POLICY)],
        )
        acknowledge(
            self.role,
            "The CloudWatch Observability add-on documents CloudWatchAgentServerPolicy as the "
            "permissions of its cloudwatch-agent service account; AWS keeps it in step with the "
            "agent's API calls.",
            managed_policy(AGENT_POLICY),
        )
        self.configuration = self._configuration(
            cluster_name, dict(prometheus_node_selector or {}), karpenter_namespace, argo_workflows, serving_namespaces
        )
        # A Pod Identity association of its own (rather than the add-on's PodIdentityAssociations property), so the
        # role's trust gets the session-tag conditions of cdk_constructs/governance/trust_conditions.py like every Pod
        # Identity role of the platform; it exists before the add-on's pods start.
        self.pod_identity = eks_l1.CfnPodIdentityAssociation(
            self,
            "PodIdentity",
            cluster_name=cluster.cluster_name,
            namespace=NAMESPACE,
            service_account=SERVICE_ACCOUNT,
            role_arn=self.role.role_arn,
        )
        self.addon = eks_l1.CfnAddon(
            self,
            "Addon",
            cluster_name=cluster.cluster_name,
            addon_name=ADDON_NAME,
            addon_version=addon_version,
            resolve_conflicts="OVERWRITE",
            preserve_on_delete=False,
            configuration_values=json.dumps(self.configuration, sort_keys=True),
        )
        self.addon.node.add_dependency(self.pod_identity, *self.log_groups.values(), *after)

    @staticmethod
    def _configuration(
        cluster_name: str,
        node_selector: dict[str, str],
        karpenter_namespace: str,
        argo_workflows: bool = False,
        serving_namespaces: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        # Container Insights settings go to the cloudwatch-agent entry only (see the module docstring: a root
        # agent.config would be deep-merged into every entry, the Prometheus scraper's included)
        ci_agent_config = {
            "logs": {
                "metrics_collected": {
                    "kubernetes": {"enhanced_container_insights": True, "accelerated_compute_metrics": True}
                }
            }
        }
        prometheus_agent_config = {
            "logs": {
                "metrics_collected": {
                    "prometheus": {
                        "cluster_name": cluster_name,
                        "log_group_name": log_group_name(cluster_name, "prometheus"),
                        "prometheus_config_path": PROMETHEUS_CONFIG_PATH,
                        "emf_processor": {
                            "metric_declaration_dedup": True,
                            "metric_namespace": PROMETHEUS,
                            "metric_declaration": [
                                *PROMETHEUS_DECLARATIONS,
                                *(ARGO_WORKFLOWS_DECLARATIONS if argo_workflows else ()),
                            ],
                        },
                    }
                }
            }
        }
        scrape = {
            "global": {"scrape_interval": f"{SCRAPE_INTERVAL_SECONDS}s", "scrape_timeout": "10s"},
            "scrape_configs": [
                {
                    "job_name": "karpenter",
                    "kubernetes_sd_configs": [{"role": "endpoints", "namespaces": {"names": [karpenter_namespace]}}],
                    "relabel_configs": [
                        {
                            "source_labels": ["__meta_kubernetes_service_name", "__meta_kubernetes_endpoint_port_name"],
                            "regex": "karpenter;http-metrics",
                            "action": "keep",
                        },
                        {"target_label": "ClusterName", "replacement": cluster_name},
                    ],
                },
                kueue_scrape_job(cluster_name),
                *([argo_workflows_scrape_job(cluster_name)] if argo_workflows else []),
                *([serving_scrape_job(cluster_name, list(serving_namespaces))] if serving_namespaces else []),
            ],
        }
        return {
            "tolerations": [{"operator": "Exists"}],
            "containerLogs": {"enabled": True},
            "manager": {"applicationSignals": {"autoMonitor": {"monitorAllServices": False}}},
            "agents": [
                {"name": CI_AGENT, "config": ci_agent_config},
                {
                    "name": PROMETHEUS_AGENT,
                    "mode": "deployment",
                    "replicas": 1,
                    "config": prometheus_agent_config,
                    "prometheus": {"config": scrape},
                    "nodeSelector": node_selector,
                    "hostNetwork": PROMETHEUS_AGENT_HOST_NETWORK,
                    "resources": {"requests": dict(PROMETHEUS_AGENT_REQUESTS)},
                },
            ],
        }
