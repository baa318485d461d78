"""`type: serve` -> a Kueue-gated SGLang Deployment behind a ClusterIP Service, and its KEDA ScaledObject
(issue 34). The facts shared with the platform (labels, port, metrics) are k8s_charts/serving.py's.

- **Deployment** ``<name>``: pods from :func:`k8s_charts.pods.job_pod_template` (the tier's PriorityClass, node
  affinity and tolerations, GPU requests = limits, the team's uid/gid and the `restricted` security context, the
  team's FSx claim, here read-only), running ``python3 -m sglang.launch_server`` in the platform's ``verl-sglang``
  image (the image of GRPO jobs, which has SGLang). Labels ``kueue.x-k8s.io/queue-name`` (the tier's LocalQueue, as
  for training jobs), ``llmft.io/component: serve`` and ``llmft.io/serve: <name>`` on the Deployment and its pod
  template: Kueue gates each pod until its quota admits it. ``replicas`` = ``serve.min_replicas`` (0 renders 0: the
  endpoint starts asleep; ``llmft port-forward`` wakes it). Probes on ``/health``: a startup probe that allows the
  model 30 minutes to load, then readiness and liveness. ``--tp N`` shards one engine over N GPUs and ``--dp-size M``
  (``--dp``) runs M data-parallel copies in one server (sgl-project/sglang docs/advanced_features/server_arguments.md,
  "Common launch commands").
- **Service** ``<name>``: ClusterIP, port 80 -> ``http`` (``http://<name>.<namespace>.svc``).
- **No NetworkPolicy**: a team namespace's NetworkPolicies are the platform's (the team Role has no verb on them;
  k8s_charts/team_isolation.py): ``allow-same-namespace`` admits the team's pods to the engine, and
  ``allow-serving-metrics`` admits the Container Insights Prometheus scraper (pod-networked, namespace
  ``amazon-cloudwatch``) to every ``llmft.io/component: serve`` pod on ``http`` only. Studio users reach the endpoint
  with ``kubectl port-forward``, which the API server and the kubelet carry into the pod (no network peer).
- **ScaledObject** ``<name>`` (keda.sh/v1alpha1, KEDA :data:`k8s_charts.serving.KEDA_VERSION`): min/max replicas from
  the spec; one ``aws-cloudwatch`` trigger per demand gauge (KEDA's CloudWatch scaler reads one metric per trigger,
  pkg/scalers/aws_cloudwatch_scaler.go at v2.19.0), combined by ``advanced.scalingModifiers`` (formula ``running +
  queued``, target ``serve.target_requests_per_replica`` as an AverageValue: the sum per replica); KEDA's own
  identity (``identityOwner: operator``, pkg/scalers/aws/aws_common.go at v2.19.0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import cdk8s
from cdk8s_plus_28 import k8s
from llm_platform.engine_flags import joined

from config import TeamConfig
from k8s_charts import serving
from k8s_charts.node_shapes import kinds_for
from k8s_charts.pods import (
    MLFLOW_CREDENTIALS_VOLUME,
    GpuNodeShape,
    PodSettings,
    job_pod_template,
    pod_template_json,
    scratch_chart,
    with_pod_templates,
)
from k8s_charts.values import PlatformValues

if TYPE_CHECKING:
    from llmft.registry import ResolvedModel
    from llmft.resolution import Resolution
    from llmft.spec import JobSpec

STARTUP_SECONDS = 30 * 60  # the longest a replica may take to load its model before it is restarted
MODEL_ANNOTATIONS = ("llmft.io/model", "llmft.io/model-version", "llmft.io/model-alias", serving.MODEL_DIR_ANNOTATION)
# KEDA's CloudWatch query: one-minute sums of the gauges over the last 3 minutes, the newest complete minute
# (metricEndTimeOffset skips the minute still being written). The agent scrapes once a minute, so a minute's Sum
# is the gauges of every replica added up.
CLOUDWATCH_QUERY = {
    "metricStat": "Sum",
    "metricStatPeriod": "60",
    "metricCollectionTime": "180",
    "metricEndTimeOffset": "60",
    "minMetricValue": "0",
}
TRIGGER_NAMES = {"sglang:num_running_reqs": "running", "sglang:num_queue_reqs": "queued"}


def engine_command(spec: JobSpec, *, model_dir: str, tp: int, gpus: int, digest: str | None = None) -> list[str]:
    """The engine's command line: the platform's flags, then the spec's ``engine_args``, every value joined to its
    flag (``--flag=value``, one token each: what the production admission rule checks token by token,
    k8s_charts/team_guardrails.py); with the evaluated weights' ``digest``, behind the digest check that execs the
    engine only for those weights."""
    check = ["python3", "-m", serving.DIGEST_CHECK_MODULE, f"--verify={model_dir}", f"--digest={digest}", "--"]
    command = [
        *(check if digest else []),
        "python3",
        "-m",
        "sglang.launch_server",
        f"--model-path={model_dir}",
        f"--tp-size={tp}",
        "--host=0.0.0.0",
        f"--port={serving.ENGINE_PORT}",
        "--enable-metrics",
        f"--served-model-name={spec.serve.model}",
    ]
    if gpus > tp:
        command.append(f"--dp-size={gpus // tp}")  # data-parallel engines of tp GPUs each (spec: tp divides gpus)
    return command + joined(list(spec.serve.engine_args))


def serve_labels(spec: JobSpec, queue: str | None) -> dict[str, str]:
    labels = {
        serving.COMPONENT_LABEL: serving.SERVE_COMPONENT,
        serving.SERVE_NAME_LABEL: spec.name,
        serving.TIER_LABEL: spec.tier,  # a production Service/ScaledObject is the promoter's (team_guardrails.py)
        "app.kubernetes.io/name": spec.name,
    }
    return {**labels, "kueue.x-k8s.io/queue-name": queue} if queue else labels


def _probe(path: str, *, period: int, failures: int) -> dict[str, Any]:
    return {
        "httpGet": {"path": path, "port": serving.ENGINE_PORT_NAME},
        "periodSeconds": period,
        "timeoutSeconds": 5,
        "failureThreshold": failures,
    }


def serving_pod_template(
    spec: JobSpec, *, team: TeamConfig, values: PlatformValues, r: Resolution, model: ResolvedModel, image: str
) -> dict[str, Any]:
    """The pod template of the engine (manifest form): :func:`job_pod_template`'s GPU pod with the engine's port and
    probes, the FSx tree read-only, and no MLflow credentials (the engine never talks to MLflow)."""
    kinds = kinds_for(values.node_kinds, tier=r.tier.name, instance_type=r.instance_type)
    shape = GpuNodeShape.of(
        r.instance_type,
        kinds=kinds,
        tier=r.tier.name,
        gpus=r.gpus_per_node,
        efa=False,
        cpu=spec.cpu,
        memory_gib=spec.memory_gib,
    ).only(r.allowed)
    typed = job_pod_template(
        job_name=spec.name,
        component=serving.SERVE_COMPONENT,
        team=team,
        tier=r.tier,
        priority_class=r.priority_class,
        values=values,
        shape=shape,
        zone=None,
        settings=PodSettings(
            container_name="engine",
            image=image,
            command=engine_command(spec, model_dir=model.model_dir, tp=r.tp, gpus=r.gpus_per_node, digest=model.digest),
            env=spec.env,
            ports=[(serving.ENGINE_PORT_NAME, serving.ENGINE_PORT)],
        ),
    )
    template = pod_template_json(typed)
    template["metadata"]["labels"].update(serve_labels(spec, r.queue))
    # not the training pods' annotations: their checkov reasons (no probes, no traffic) are not this pod's, and a
    # replica is replaceable (the Deployment recreates it), so Karpenter may move it (no do-not-disrupt)
    template["metadata"].pop("annotations", None)
    pod = template["spec"]
    pod["volumes"] = [v for v in pod["volumes"] if v["name"] != MLFLOW_CREDENTIALS_VOLUME]
    (container,) = pod["containers"]
    container.pop("envFrom", None)
    container["env"] = [e for e in container["env"] if not e["name"].startswith("MLFLOW_")]
    container["volumeMounts"] = [
        {**m, "readOnly": True} if m["name"] == "fsx" else m
        for m in container["volumeMounts"]
        if m["name"] != MLFLOW_CREDENTIALS_VOLUME
    ]
    for e, secret in spec.secret_env.items():
        container["env"].append({"name": e, "valueFrom": {"secretKeyRef": {"name": secret.secret, "key": secret.key}}})
    container["startupProbe"] = _probe(serving.HEALTH_PATH, period=10, failures=STARTUP_SECONDS // 10)
    container["readinessProbe"] = _probe(serving.HEALTH_PATH, period=10, failures=3)
    container["livenessProbe"] = _probe(serving.HEALTH_PATH, period=30, failures=3)
    return template


def _deployment(
    chart: cdk8s.Chart,
    spec: JobSpec,
    *,
    team: TeamConfig,
    r: Resolution,
    model: ResolvedModel,
    template: dict[str, Any],
) -> None:
    annotations = dict(
        zip(MODEL_ANNOTATIONS, (model.name, str(model.version), model.alias or "", model.model_dir), strict=True)
    )
    typed = k8s.KubeDeployment(
        scratch_chart(),
        "Deployment",
        metadata=k8s.ObjectMeta(
            name=spec.name,
            namespace=team.namespace,
            annotations=annotations,
            labels={**serve_labels(spec, r.queue), "platform/team": team.name, serving.TIER_LABEL: r.tier.name},
        ),
        spec=k8s.DeploymentSpec(
            replicas=spec.serve.min_replicas,
            selector=k8s.LabelSelector(match_labels={serving.SERVE_NAME_LABEL: spec.name}),
            template=k8s.PodTemplateSpec(),
        ),
    )
    # the typed class re-maps its whole spec on output, dropping the rendered template's quantities and named ports:
    # the template is joined to the rendered Deployment instead (k8s_charts.pods.with_pod_templates)
    with_pod_templates(chart, "Deployment", typed, {"/spec/template": template})


def _service(chart: cdk8s.Chart, spec: JobSpec, *, team: TeamConfig) -> None:
    selector = {serving.SERVE_NAME_LABEL: spec.name}
    labels = serve_labels(spec, None)
    k8s.KubeService(
        chart,
        "Service",
        metadata=k8s.ObjectMeta(name=spec.name, namespace=team.namespace, labels=labels),
        spec=k8s.ServiceSpec(
            type="ClusterIP",
            selector=selector,
            ports=[
                k8s.ServicePort(
                    name=serving.ENGINE_PORT_NAME,
                    port=serving.SERVICE_PORT,
                    protocol="TCP",
                    target_port=k8s.IntOrString.from_string(serving.ENGINE_PORT_NAME),
                )
            ],
        ),
    )


def scaled_object(chart: cdk8s.Chart, spec: JobSpec, *, team: TeamConfig, values: PlatformValues) -> None:
    """The KEDA ScaledObject of the Deployment (module docstring)."""
    from k8s_charts.imports.scaledobject.sh import keda

    dimensions = dict(zip(serving.METRIC_DIMENSIONS, (values.cluster_name, team.namespace, spec.name), strict=True))
    triggers = [
        keda.ScaledObjectSpecTriggers(
            type="aws-cloudwatch",
            name=TRIGGER_NAMES[metric],
            metric_type="AverageValue",
            metadata={
                "namespace": serving.METRICS_NAMESPACE,
                "metricName": metric,
                "dimensionName": ";".join(dimensions),
                "dimensionValue": ";".join(dimensions.values()),
                "targetMetricValue": str(spec.serve.target_requests_per_replica),
                "awsRegion": values.region,
                "identityOwner": "operator",
                **CLOUDWATCH_QUERY,
            },
        )
        for metric in serving.DEMAND_METRICS
    ]
    formula = " + ".join(TRIGGER_NAMES[m] for m in serving.DEMAND_METRICS)
    modifiers = keda.ScaledObjectSpecAdvancedScalingModifiers(
        formula=formula,
        target=str(spec.serve.target_requests_per_replica),
        activation_target="0",
        metric_type=keda.ScaledObjectSpecAdvancedScalingModifiersMetricType.AVERAGE_VALUE,
    )
    keda.ScaledObject(
        chart,
        "ScaledObject",
        metadata=cdk8s.ApiObjectMetadata(name=spec.name, namespace=team.namespace, labels=serve_labels(spec, None)),
        spec=keda.ScaledObjectSpec(
            scale_target_ref=keda.ScaledObjectSpecScaleTargetRef(
                name=spec.name, api_version="apps/v1", kind="Deployment"
            ),
            min_replica_count=spec.serve.min_replicas,
            max_replica_count=spec.serve.max_replicas,
            triggers=triggers,
            advanced=keda.ScaledObjectSpecAdvanced(scaling_modifiers=modifiers),
        ),
    )


def render(
    spec: JobSpec, *, team: TeamConfig, values: PlatformValues, r: Resolution, model: ResolvedModel, image: str
) -> list[dict[str, Any]]:
    """The four objects of a serve job (module docstring), in creation order: the Deployment first (the others are
    owned by it on the cluster, llmft.cluster.Cluster.create_serve)."""
    chart = cdk8s.Chart(cdk8s.App(), "llmft-serve", disable_resource_name_hashes=True)
    template = serving_pod_template(spec, team=team, values=values, r=r, model=model, image=image)
    _deployment(chart, spec, team=team, r=r, model=model, template=template)
    _service(chart, spec, team=team)
    scaled_object(chart, spec, team=team, values=values)
    out = chart.to_json()
    for manifest in out:
        manifest["metadata"].setdefault("labels", {})["app.kubernetes.io/managed-by"] = "llmft"
    return out
