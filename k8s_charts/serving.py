"""What a served model looks like on the cluster: the facts llmft's renderer (the Deployment a ``type: serve`` job
spec becomes) and the platform (Kueue's integration, the guard rails, the metrics scrape, the autoscaler, the
dashboard and alarms) must agree on. One place for each of them.

The engine is SGLang (``sglang==0.5.21`` in images/verl-sglang/requirements.lock): ``python -m sglang.launch_server``
serves an OpenAI-compatible API (``/v1/chat/completions``, ``/v1/models``, ``/health``) on ``--port`` (default 30000,
``sglang/srt/server_args.py``) and, with ``--enable-metrics``, Prometheus metrics on ``/metrics`` of the same port
(sglang 0.5.21 wheel, ``sglang/srt/observability/metrics_collector.py``: ``SchedulerMetricsCollector`` gauges
``sglang:num_running_reqs``, ``sglang:num_queue_reqs``, ``sglang:gen_throughput``; ``TokenizerMetricsCollector``
counters ``sglang:num_requests_total``, ``sglang:num_aborted_requests_total`` and histograms
``sglang:e2e_request_latency_seconds``, ``sglang:time_to_first_token_seconds``, ...).

What reaches CloudWatch (cdk_constructs/observability/container_insights.py ``serving_scrape_job``): the agent keeps
gauges as they are, turns counters into per-scrape deltas and drops histograms whole, ``_sum``/``_count`` included
(aws/amazon-cloudwatch-agent@v1.300070.0 plugins/inputs/prometheus/metrics_filter.go ``Filter``: only Gauge, Counter
and Summary pass; the type is looked up by the name before relabelling, metrics_type_handler.go ``Handle``, so a
rename cannot smuggle a histogram through). SGLang exports no latency as a gauge or summary, so the platform's latency
signal is the queue (:data:`DEMAND_METRICS`' ``sglang:num_queue_reqs``: requests waiting for a slot, the part of the
latency capacity decides) and the error signal :data:`ABORTED_REQUESTS_METRIC`. Only the scheduler of attention-TP
rank 0 writes the scheduler gauges (``SchedulerMetricsCollector.init_new``: ``is_stats_logging_rank``), one series per
data-parallel engine (label ``dp_rank``): their sum is the replica's load.
"""

from __future__ import annotations

from config.versions import version

ENGINES = ("sglang",)
"""Engines a serve spec may name."""

COMPONENT_LABEL = "llmft.io/component"
SERVE_COMPONENT = "serve"
"""Every serving pod (and its Deployment, Service, NetworkPolicy) carries ``llmft.io/component: serve``: the metrics
scrape selects pods by it, the guard rails admit GPU pods of this shape only."""

SERVE_NAME_LABEL = "llmft.io/serve"
"""The serve job's name (the spec's ``name``) on the Deployment, its pod template, Service and NetworkPolicy; the
metrics carry it as the ``serve`` dimension."""

ENGINE_PORT = 30000
ENGINE_PORT_NAME = "http"
"""The engine's container port (SGLang's default ``--port``), named ``http``: API and ``/metrics`` both."""

SERVICE_PORT = 80
"""The ClusterIP Service's port (-> ``http``): ``http://<name>.<team namespace>.svc/v1/chat/completions``."""

METRICS_PATH = "/metrics"
HEALTH_PATH = "/health"

DEMAND_METRICS = ("sglang:num_running_reqs", "sglang:num_queue_reqs")
"""The engine's own demand gauges (requests being decoded, requests waiting): the autoscaler follows their sum per
replica."""

METRICS_NAMESPACE = "ContainerInsights/Prometheus"
"""CloudWatch namespace the Container Insights Prometheus agent publishes scraped metrics to."""

METRIC_DIMENSIONS = ("ClusterName", "Namespace", "serve")
"""The dimension set every serving metric is published with (the agent's EMF declaration; ``serve`` is the value of
:data:`SERVE_NAME_LABEL`)."""

THROUGHPUT_METRIC = "sglang:gen_throughput"
"""Gauge: the engine's generation throughput (tokens/s), per data-parallel engine (dashboard only)."""
FINISHED_REQUESTS_METRIC = "sglang:num_requests_total"
"""Counter: requests the engine finished (``observe_one_finished_request``); CloudWatch gets per-scrape deltas, so a
period's ``Sum`` is the requests finished in it."""
ABORTED_REQUESTS_METRIC = "sglang:num_aborted_requests_total"
"""Counter: requests aborted (``TokenizerManager.abort_request``: the client went away or cancelled, a timeout, an
abort through the API); a period's ``Sum`` is the aborts in it. SGLang counts no HTTP errors: this is the engine's
only failure counter."""
REQUEST_METRICS = (FINISHED_REQUESTS_METRIC, ABORTED_REQUESTS_METRIC)
NAMESPACE_DIMENSIONS = ("ClusterName", "Namespace")
"""The second dimension set of :data:`DEMAND_METRICS` and :data:`REQUEST_METRICS`: all endpoints of a team namespace
together. Alarms read it: "You can't create an alarm based on the SEARCH expression" (CloudWatch User Guide, "Using
search expressions in graphs", using-search-expressions.html) and ``serve`` names are not known at synth time, team
namespaces are."""

# ---- added for llmft's `type: serve` (issue 34) -------------------------------------------------------------------

KEDA_VERSION = version("keda")
"""KEDA release whose ScaledObject CRD is vendored (k8s_charts/crds/keda.sh_scaledobjects.yaml, kedacore/keda tag
v2.19.0) and whose Helm chart the platform installs: the newest release whose supported window is Kubernetes 1.32 -
1.34 (KEDA's compatibility matrix, keda.sh docs "Operate > Cluster")."""

EVALUATION_TAG = "llmft.evaluation"
EVALUATION_PASSED = "passed"
EVALUATED_ALIAS = "evaluated"
"""The evaluate step tags the registered model version it scored ``llmft.evaluation`` = ``passed`` (or another value)
and moves the alias ``evaluated`` to the last version that passed. Only versions tagged ``passed`` are served in the
production tier (llmft/registry.py)."""

EVALUATION_DIGEST_TAG = "llmft.evaluation.digest"
"""The content digest of the weights the evaluator judged (training/llm_platform/weights_digest.py): production
serves a version only with it, and the serving pod verifies the directory against it before the engine loads."""
DIGEST_CHECK_MODULE = "llm_platform.weights_digest"
"""``python3 -m`` this module ``--verify DIR --digest D -- <engine command>``: checks, then execs the engine."""

MODEL_DIR_TAG = "llmft.model_dir"
"""A model version's copy of its weights on the team's FSx, as a team pod sees it (under ``/fsx``, Hugging Face
layout: what ``--model-path`` loads). Versions registered by the training package carry an MLflow reference as their
``source`` (``models:/<id>``: the weights are in MLflow's artifact store); this tag names the directory they were
registered from, which the serving pods mount read-only."""

PROMOTION_NAMESPACE = "llmft-platform"
PROMOTER_SERVICE_ACCOUNT = "llmft-promoter"
PROMOTER = f"system:serviceaccount:{PROMOTION_NAMESPACE}:{PROMOTER_SERVICE_ACCOUNT}"
"""The platform's promotion identity (issue 40): the only requester (besides the platform's controllers) that may
create or change a production-tier serving Deployment in a team namespace (k8s_charts/team_guardrails.py). The
promotion Job runs as it in the platform namespace, with the MLflow evaluator's credentials, which no team pod
holds: it evaluates, pins the weights' digest, and renders and applies the endpoint (docs/serving.md "The
production promotion path"). Teams have no verb in that namespace."""
TIER_LABEL = "platform/tier"
"""The tier of a serving endpoint's Deployment, Service and ScaledObject (llmft/serve_build.py): on a Service or
ScaledObject of a production tier it makes the object the promotion identity's (k8s_charts/team_guardrails.py
``PRODUCTION_POLICY``); a Deployment's tier is its queue-name label."""
MODEL_DIR_ANNOTATION = "llmft.io/model-dir"
"""The served directory on a serving Deployment (llmft/serve_build.py MODEL_ANNOTATIONS): the production admission
rule keeps engine paths inside it."""

DEFAULT_TARGET_REQUESTS = 8
"""Default ``serve.target_requests_per_replica``: running + queued requests per replica the autoscaler aims at."""

PRODUCTION_TIERS = ("production",)
"""Tiers whose endpoints never scale to zero (``min_replicas: 0`` is refused) and serve only versions that passed
evaluation (:data:`EVALUATION_TAG`). The one home of that rule: config/kubernetes.py TIERS has a tier named
``production`` (the highest priority class, HyperPod reserved nodes only, k8s_charts/tiers.py)."""

METRICS_AGENT_NAMESPACE = "amazon-cloudwatch"
"""Namespace of the Container Insights Prometheus agent (the CloudWatch observability add-on's): the only pods outside
the team's namespace that reach the engine port, for ``/metrics``. The platform runs that agent pod-networked
(cdk_constructs/observability/container_insights.py ``PROMETHEUS_AGENT_HOST_NETWORK``), so its scrapes come from a pod
of this namespace and a NetworkPolicy peer ``namespaceSelector`` on ``kubernetes.io/metadata.name`` matches them."""


KEDA_PAUSED_REPLICAS = "autoscaling.keda.sh/paused-replicas"
"""ScaledObject annotation that holds its target at that many replicas and stops autoscaling until removed
(kedacore/keda v2.19.0 apis/keda/v1alpha1/scaledobject_types.go ``PausedReplicasAnnotation``). ``llmft port-forward``
sets it to 1 while it holds a woken endpoint: without it KEDA scales a replica that no trigger made active back to zero
at its next poll (pkg/scaling/executor/scale_scaledobjects.go ``scaleToZeroOrIdle``: the cooldown counts from the last
active time)."""


def endpoint_url(name: str, namespace: str) -> str:
    """The in-cluster URL of a served model: its ClusterIP Service (:data:`SERVICE_PORT`)."""
    return f"http://{name}.{namespace}.svc"
