"""What a served model looks like on the cluster: the facts llmft's renderer (the Deployment a ``type: serve`` job
spec becomes) and the platform (Kueue's integration, the guard rails, the metrics scrape, the autoscaler, the
dashboard and alarms) must agree on. One place for each of them.

The engine is SGLang (``sglang==0.5.21`` in images/verl-sglang/requirements.lock): ``python -m sglang.launch_server``
serves an OpenAI-compatible API (``/v1/chat/completions``, ``/v1/models``, ``/health``) on ``--port`` (default 30000,
``sglang/srt/server_args.py``) and, with ``--enable-metrics``, Prometheus metrics on ``/metrics`` of the same port
(``sglang/srt/metrics/collector.py``: gauges ``sglang:num_running_reqs`` and ``sglang:num_queue_reqs``).
"""

from __future__ import annotations

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
