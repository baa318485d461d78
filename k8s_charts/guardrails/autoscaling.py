"""The autoscaling policy (``llmft-team-autoscaling``, k8s_charts/team_guardrails.py): KEDA ScaledObjects scale only
their own serving Deployment within the cap, reading only the endpoint's own metric; the scale subresource likewise."""

from __future__ import annotations

from k8s_charts import serving
from k8s_charts.guardrails.common import CLUSTER_NAME_LABEL, MAX_SERVE_REPLICAS, REGION_LABEL, _cel_list, _label

CLOUDWATCH_TRIGGER_KEYS = (
    "namespace",
    "metricName",
    "dimensionName",
    "dimensionValue",
    "targetMetricValue",
    "activationTargetMetricValue",
    "minMetricValue",
    "ignoreNullValues",
    "metricCollectionTime",
    "metricStat",
    "metricUnit",
    "metricStatPeriod",
    "metricEndTimeOffset",
    "awsRegion",
    "identityOwner",
)
"""Trigger metadata a team's ``aws-cloudwatch`` trigger may set (kedacore/keda@v2.19.0
pkg/scalers/aws_cloudwatch_scaler.go ``awsCloudwatchMetadata``). Left out on purpose: ``expression`` (a CloudWatch
Metrics Insights query over any metric of the account), ``awsAccountId`` (another account's metrics through
cross-account observability), ``awsEndpoint`` (KEDA's signed requests sent elsewhere) and the static-credential keys
(``awsAccessKeyID``, ``awsAccessKeyIDFromEnv``, ``awsSecretAccessKeyFromEnv``, pkg/scalers/aws/aws_common.go)."""


_SO = "object.spec"


_TARGET = f"{_SO}.scaleTargetRef"


_PAUSED = f"object.metadata.annotations['{serving.KEDA_PAUSED_REPLICAS}']"


def _scaled_object_rules() -> list[dict[str, str]]:
    """Rules for KEDA ScaledObjects (keda.sh/v1alpha1, kedacore/keda@v2.19.0 apis/keda/v1alpha1/scaledobject_types.go).
    KEDA reads the triggers with its own IAM role (``identityOwner: operator``, pkg/scalers/aws/aws_common.go
    ``GetAwsAuthorization``), so what a trigger may query is decided here, not by the team's role."""
    so = "object.kind != 'ScaledObject' || "
    dims = ";".join(serving.METRIC_DIMENSIONS)
    ns_labels = "namespaceObject.metadata.labels"
    own = f"{ns_labels}['{CLUSTER_NAME_LABEL}'] + ';' + namespaceObject.metadata.name + ';' + object.metadata.name"
    here = f"has({ns_labels}) && '{CLUSTER_NAME_LABEL}' in {ns_labels} && '{REGION_LABEL}' in {ns_labels}"
    return [
        # stops: scaling anything but the serve Deployment of the same name (a StatefulSet, a job with a /scale
        # subresource, another endpoint)
        {
            "expression": so + f"({_TARGET}.name == object.metadata.name && "
            f"(!has({_TARGET}.kind) || {_TARGET}.kind == 'Deployment') && "
            f"(!has({_TARGET}.apiVersion) || {_TARGET}.apiVersion == 'apps/v1') && "
            f"{_label('object.metadata', serving.COMPONENT_LABEL)} == '{serving.SERVE_COMPONENT}' && "
            f"{_label('object.metadata', serving.SERVE_NAME_LABEL)} == object.metadata.name)",
            "message": f"a ScaledObject in a team namespace scales the serving Deployment of its own name "
            f"(scaleTargetRef apps/v1 Deployment <name>) and is labelled {serving.COMPONENT_LABEL}: "
            f"{serving.SERVE_COMPONENT}, {serving.SERVE_NAME_LABEL}: <name>; `llmft submit` renders it so",
        },
        # stops: KEDA's default of 100 replicas, a fallback or a pin above the cap
        {
            "expression": so + f"(has({_SO}.maxReplicaCount) && {_SO}.maxReplicaCount <= {MAX_SERVE_REPLICAS} && "
            f"(!has({_SO}.minReplicaCount) || {_SO}.minReplicaCount <= {_SO}.maxReplicaCount) && "
            f"(!has({_SO}.fallback) || {_SO}.fallback.replicas <= {_SO}.maxReplicaCount) && "
            f"(!has(object.metadata.annotations) || "
            f"!('{serving.KEDA_PAUSED_REPLICAS}' in object.metadata.annotations) || "
            f"({_PAUSED}.matches('^[0-9]{{1,3}}$') && int({_PAUSED}) <= {_SO}.maxReplicaCount)))",
            "message": f"a ScaledObject sets maxReplicaCount (at most {MAX_SERVE_REPLICAS}); minReplicaCount, "
            f"fallback.replicas and the {serving.KEDA_PAUSED_REPLICAS} annotation stay at or below it",
        },
        # stops: other scalers and TriggerAuthentications (a ClusterTriggerAuthentication is the platform's)
        {
            "expression": so + f"{_SO}.triggers.all(t, t.type == 'aws-cloudwatch' && !has(t.authenticationRef) && "
            f"has(t.metadata) && t.metadata.all(k, k in {_cel_list(CLOUDWATCH_TRIGGER_KEYS)}) && "
            f"'identityOwner' in t.metadata && t.metadata['identityOwner'] == 'operator')",
            "message": f"ScaledObject triggers in team namespaces are aws-cloudwatch triggers with identityOwner: "
            f"operator, no authenticationRef, and only the metadata keys {', '.join(CLOUDWATCH_TRIGGER_KEYS)}",
        },
        # stops: reading another namespace's (another team's) metrics with KEDA's role
        {
            "expression": so + f"{_SO}.triggers.all(t, 'namespace' in t.metadata && "
            f"t.metadata['namespace'] == '{serving.METRICS_NAMESPACE}' && 'metricName' in t.metadata && "
            f"t.metadata['metricName'] in {_cel_list(serving.DEMAND_METRICS)} && "
            f"'dimensionName' in t.metadata && t.metadata['dimensionName'] == '{dims}' && "
            f"'dimensionValue' in t.metadata && {here} && t.metadata['dimensionValue'] == {own} && "
            f"'awsRegion' in t.metadata && t.metadata['awsRegion'] == {ns_labels}['{REGION_LABEL}'])",
            "message": f"a ScaledObject reads only its own endpoint's demand in this cluster and region: namespace "
            f"{serving.METRICS_NAMESPACE}, metricName one of {', '.join(serving.DEMAND_METRICS)}, dimensionName "
            f"{dims}, dimensionValue <this cluster>;<this namespace>;<the ScaledObject's name>, awsRegion <this "
            f"region> (the namespace's labels {CLUSTER_NAME_LABEL} and {REGION_LABEL})",
        },
        # stops: an ownerReference Kueue or the garbage collector would follow somewhere else
        {
            "expression": so + "(!has(object.metadata.ownerReferences) || object.metadata.ownerReferences.all(o, "
            f"o.apiVersion == 'apps/v1' && o.kind == 'Deployment' && o.name == {_TARGET}.name))",
            "message": "a ScaledObject may be owned only by the Deployment it scales",
        },
    ]


def _scale_rules() -> list[dict[str, str]]:
    """The scale subresource of Deployments (autoscaling/v1 Scale; what `kubectl scale`, KEDA and the HPA write)."""
    return [
        {
            # stops: `kubectl scale --replicas=1000` past the ScaledObject's cap
            "expression": f"object.kind != 'Scale' || !has(object.spec.replicas) || "
            f"object.spec.replicas <= {MAX_SERVE_REPLICAS}",
            "message": f"a serving Deployment runs at most {MAX_SERVE_REPLICAS} replicas",
        }
    ]
