"""The training-hang metric of one team (issue 44): a CloudWatch Logs metric filter on the cluster's application log
group counting the line a hung rank prints before it exits 142 (training/llm_platform/preemption.py ``hang_line``).

What the filter reads: Fluent Bit of the CloudWatch Observability add-on tails every container's log and writes one
JSON event per line to ``/aws/containerinsights/<cluster>/application``: the line in ``log`` (the ``cri`` / ``docker``
multiline parsers) and, from its ``kubernetes`` filter, ``kubernetes.namespace_name`` (chart
amazon-cloudwatch-observability 6.4.0 values.yaml, ``application-log.conf``; vendored in tests/upstream/). The
pattern is a JSON filter pattern, both terms string equality: the namespace exactly, and ``log`` starting with
:data:`llm_platform.preemption.HANG_MARKER` (a ``*`` wildcard "at, before, or after a search term", CloudWatch Logs
User Guide, "Filter and pattern syntax", "Matching JSON terms using metric filters"; aws-cdk-lib
``FilterPattern.stringValue``: "May use '*' as wildcard at start or end of string"). The worker processes write
straight to the container's stderr (torchrun without ``--tee``/``--redirects``, k8s_charts/pytorch_job.py), so the
line starts the event's ``log``.
"""

from __future__ import annotations

from aws_cdk import aws_logs as logs
from constructs import Construct
from llm_platform.preemption import HANG_MARKER

from cdk_constructs.observability.documented_metrics import TRAINING_HANGS, job_logs_namespace

NAMESPACE_FIELD = "$.kubernetes.namespace_name"
LOG_FIELD = "$.log"


def hang_filter_pattern(namespace: str) -> logs.IFilterPattern:
    """Events of team namespace ``namespace`` whose line starts with the hang marker."""
    return logs.FilterPattern.all(
        logs.FilterPattern.string_value(NAMESPACE_FIELD, "=", namespace),
        logs.FilterPattern.string_value(LOG_FIELD, "=", f"{HANG_MARKER}*"),
    )


def hang_metric_filter(
    scope: Construct, construct_id: str, *, log_group: logs.ILogGroup, cluster_name: str, namespace: str
) -> logs.MetricFilter:
    """The metric filter publishing 1 per hung rank of ``namespace`` to ``llmft/JobLogs/<cluster>``
    :data:`TRAINING_HANGS` with the dimension ``Namespace`` (a dimension value must be a field of the event: the
    namespace the pattern already fixes). No default value: no data when nothing hangs."""
    return logs.MetricFilter(
        scope,
        construct_id,
        log_group=log_group,
        filter_pattern=hang_filter_pattern(namespace),
        filter_name=f"{TRAINING_HANGS}-{namespace}",
        metric_namespace=job_logs_namespace(cluster_name),
        metric_name=TRAINING_HANGS,
        metric_value="1",
        dimensions={"Namespace": NAMESPACE_FIELD},
    )
