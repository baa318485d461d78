"""`llmft promote EVAL_SPEC --evaluate`: the platform's gated evaluation of a team's model version, run in the cluster
as the platform (docs/serving.md "The production promotion path", step 3), for a platform admin to apply.

A team's own ``type: evaluate`` spec with a ``gate`` scores its version and logs the scores, but the verdict, the
alias ``evaluated`` and the weights digest are the evaluator's to write (the MLflow server refuses every team user,
mlflow_image/registry_gate.py). This renders the same evaluation as the platform's: llmft renders the spec exactly as
``llmft submit`` would (the same step file, image, GPUs, node affinity and tolerations) and this module moves that
PyTorchJob into the platform namespace :data:`~k8s_charts.serving.PROMOTION_NAMESPACE`, where

- it runs as ServiceAccount :data:`~k8s_charts.serving.PROMOTER_SERVICE_ACCOUNT`, whose Pod Identity role is the only
  one that reads the evaluator's secret (cdk_constructs/compute/promotion_identity.py): the namespace's ConfigMap
  ``mlflow`` and SecretProviderClass ``mlflow-credentials`` (k8s_charts/promotion.py) have the names a team
  namespace's have, so the step reads the evaluator's user where a team pod reads its own. No API token is mounted
  (``automountServiceAccountToken: false``): the step needs none, and the promoter's token writes production
  endpoints;
- it reads the team's FSx tree read-only (claim ``fsx-<team>``, k8s_charts/promotion.py ``team_claim_name``), and
  an init container first copies the weights under evaluation into a pod-private emptyDir that the step loads,
  scores and digests (:data:`JUDGED_DIR`): the pinned digest is that of the bytes judged, whatever the team writes
  to its tree meanwhile; predictions and caches go to the pod's ``/tmp`` emptyDir, so the evaluation changes
  nothing of the team's;
- Kueue admits it like every GPU job: its queue is the platform namespace's LocalQueue of the team's tier, in the
  team's ClusterQueue (k8s_charts/queues.py ``platform_local_queue_name``), so the team's quota pays for it; it is
  created suspended (what Kueue's webhook does anyway);
- no retries: ``backoffLimit: 0``, torchrun's ``maxRestarts: 0``, ``restartPolicy: Never`` (a verdict is recorded
  once; a failed run is read and re-run by an admin).

What the team wrote into the spec that would run in a pod holding the evaluator's credentials is refused: its own
``image``, ``env`` and ``secret_env`` (:func:`spec_problems`). What holds is not this command: teams have no verb in
the platform namespace (k8s_charts/promotion.py), and only the evaluator's user may record the verdict.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml
from llm_platform.evaluate import MIN_PRODUCTION_ROWS, PRODUCTION_GATE_FLOOR, PRODUCTION_GATE_PREFIX
from llm_platform.steps import JOB_ENV

from k8s_charts import serving
from k8s_charts.promotion import team_claim_name
from k8s_charts.queues import QUEUE_NAME_LABEL, evaluates_in_platform, platform_local_queue_name
from k8s_charts.team_storage import TEAM_MOUNT_PATH
from k8s_charts.values import FSX_CLAIM_NAME
from llmft.job_types.base import get as job_type

EVALUATE_STEP = "evaluate"
PREFIX = "evaluate-"
MAX_NAME = 63 - len(PREFIX) - len("-worker-0")
"""The PyTorchJob's pods are ``<job>-worker-<i>`` (the training operator's naming); a pod name is a DNS label."""
OUTPUT_DIR = "/tmp/evaluation"
"""Where the step writes predictions and scores: the pod's ``/tmp`` emptyDir (the team's tree is read-only here)."""
HF_HOME = "/tmp/hf-home"
"""The Hugging Face cache: the team's ``/fsx/hf-cache`` is read-only here."""
WEIGHTS_MOUNT = "/judged"
JUDGED_DIR = f"{WEIGHTS_MOUNT}/weights"
"""The pod's private copy of the weights under evaluation (an emptyDir): the step loads, scores and digests exactly
these bytes. The team can still write its tree through its own pods while the evaluation runs, so judging and
digesting the files in place would let it swap them between the load and the digest (judged A, pinned B); a
private copy makes the pinned digest that of the bytes judged, and the serving pod's check (step 5) then serves
the team's directory only if it still holds exactly those bytes."""
COPY_RESOURCES = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}}
JOB_TTL_SECONDS = 7 * 24 * 3600
"""A finished evaluation (and its log) stays a week for the audit trail."""
COMPONENT = "evaluation"


def evaluation_name(spec_name: str) -> str:
    """``evaluate-<spec name>``: one platform evaluation per spec name at a time."""
    if len(spec_name) > MAX_NAME:
        raise ValueError(
            f"name {spec_name!r}: the platform's evaluation evaluate-<name> names its pods "
            f"evaluate-<name>-worker-0, so the spec's name has at most {MAX_NAME} characters; shorten it"
        )
    return PREFIX + spec_name


def spec_problems(spec: Any, team: Any) -> list[str]:
    """Why ``spec`` (of ``team``, None when unknown) is not a gated evaluation the platform runs as the evaluator;
    every problem at once, each naming the field, the value and the fix (preflight's own refusals come beside)."""
    kind = job_type(spec.type)
    if kind.step != EVALUATE_STEP:
        return [f"type: {spec.type!r}: --evaluate runs a `type: evaluate` spec with a gate; use one"]
    problems = []
    if not (getattr(spec, kind.settings_section) or {}).get("gate"):
        problems.append(
            f"{kind.settings_section}.gate: missing: the platform's evaluation records a verdict; add gate: "
            f"{{metric: <a score>, min: <number>}} with registered_model_name and registered_model_version"
        )
    if team is not None and not evaluates_in_platform(team):
        problems.append(
            f"team: {team.name!r} has no production tier ({', '.join(serving.PRODUCTION_TIERS)}), the only one "
            f"that needs the evaluator's verdict; its own evaluate job shows its scores"
        )
    problems += _production_gate_problems(getattr(spec, kind.settings_section) or {}, team)
    refused = {
        "image": (spec.image, "the platform evaluates with its own image for the type"),
        "env": (spec.env, "these would be set in a pod holding the evaluator's credentials"),
        "secret_env": (spec.secret_env, "the platform evaluation reads no team Secret"),
    }
    for field, (value, why) in refused.items():
        if value:
            problems.append(f"{field}: {value!r}: {why}; remove {field} from the spec for --evaluate")
    return problems


def _production_gate_problems(settings: dict[str, Any], team: Any) -> list[str]:
    """What the platform requires of a verdict that opens production, beside what the step checks of any gate: the
    team's own model, a ``delta/`` metric at or above :data:`PRODUCTION_GATE_FLOOR`, enough rows."""
    problems, gate = [], settings.get("gate")
    name = settings.get("registered_model_name")
    if team is not None and isinstance(name, str) and not name.startswith(f"{team.name}."):
        problems.append(
            f"settings.registered_model_name: {name!r} is not team {team.name!r}'s model: the evaluator may tag any "
            f"team's version, so the platform judges only the spec's own team's (<team>.<name>); use "
            f"{team.name}.<name>"
        )
    if isinstance(gate, dict):
        metric, minimum = gate.get("metric"), gate.get("min")
        if not (isinstance(metric, str) and metric.startswith(PRODUCTION_GATE_PREFIX)):
            problems.append(
                f"settings.gate.metric: {metric!r}: production judges the fine-tuned model against its base on the "
                f"same rows; use a {PRODUCTION_GATE_PREFIX}<score> metric (e.g. {PRODUCTION_GATE_PREFIX}rougeL)"
            )
        if isinstance(minimum, (int, float)) and not isinstance(minimum, bool) and minimum < PRODUCTION_GATE_FLOOR:
            problems.append(
                f"settings.gate.min: {minimum!r} is below the production floor {PRODUCTION_GATE_FLOOR} (a model worse "
                f"than its base); set min: {PRODUCTION_GATE_FLOOR} or more"
            )
    samples = settings.get("max_samples", MIN_PRODUCTION_ROWS)
    if samples is not None and (not isinstance(samples, int) or samples < MIN_PRODUCTION_ROWS):
        problems.append(
            f"settings.max_samples: {samples!r}: a production verdict judges at least {MIN_PRODUCTION_ROWS} rows; "
            f"set max_samples: {MIN_PRODUCTION_ROWS} or more (or null: the whole test set)"
        )
    return problems


def evaluation_manifests(plan: Any) -> list[dict[str, Any]]:
    """ConfigMap (the step file) and PyTorchJob of the platform's evaluation of ``plan`` (llmft's plan of a gated
    ``type: evaluate`` spec, as ``llmft submit`` renders it), in the platform namespace."""
    step_map, job = _parts(plan.manifests)
    name = evaluation_name(plan.spec.name)
    model_dir = str(yaml.safe_load(step_map["data"]["step.yaml"])["finetuned_model_path"])
    team, tier = plan.team, plan.tier.name
    labels = {
        "app.kubernetes.io/part-of": "llm-platform",
        "app.kubernetes.io/component": COMPONENT,
        "app.kubernetes.io/managed-by": "llmft",
        "platform/team": team.name,
        "platform/tier": tier,
        "platform/team-namespace": team.namespace,
    }
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{name}-step", "namespace": serving.PROMOTION_NAMESPACE, "labels": labels},
        "immutable": True,
        "data": {key: _platform_step(text) for key, text in step_map["data"].items()},
    }
    job = copy.deepcopy(job)
    job["metadata"] = {
        "name": name,
        "namespace": serving.PROMOTION_NAMESPACE,
        "labels": {**labels, QUEUE_NAME_LABEL: platform_local_queue_name(team.name, tier)},
    }
    spec = job["spec"]
    spec["runPolicy"] = {
        "backoffLimit": 0,
        "suspend": True,
        "cleanPodPolicy": "Running",
        "ttlSecondsAfterFinished": JOB_TTL_SECONDS,
    }
    if "elasticPolicy" in spec:
        spec["elasticPolicy"]["maxRestarts"] = 0
    for replica in spec["pytorchReplicaSpecs"].values():
        replica["restartPolicy"] = "Never"
        pod = replica["template"]["spec"]
        _as_platform(pod, team=team.name, job=name, config_map=f"{name}-step")
        _copy_weights_first(pod, model_dir)
    return [config_map, job]


def _parts(manifests: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the step ConfigMap, the PyTorchJob) of llmft's manifests of an evaluate spec."""
    kinds = {m["kind"]: m for m in manifests}
    if set(kinds) != {"ConfigMap", "PyTorchJob"} or len(manifests) != 2:
        raise ValueError(
            f"llmft rendered {', '.join(m['kind'] for m in manifests)} for this spec, not a step ConfigMap and a "
            f"PyTorchJob: --evaluate runs a GPU `type: evaluate` spec"
        )
    return kinds["ConfigMap"], kinds["PyTorchJob"]


def platform_step(step: dict[str, Any]) -> dict[str, Any]:
    """The team's step file as the platform's evaluation runs it: its output in the pod's emptyDir and the weights
    judged from the pod's private copy (:data:`JUDGED_DIR`), and ``production: true``: the step records a verdict only
    if its gate and the rows it judged meet the production floor (``llm_platform.evaluate.production_problems``,
    which this command's :func:`spec_problems` only announces early); nothing else changes."""
    return {**step, "output_dir": OUTPUT_DIR, "finetuned_model_path": JUDGED_DIR, "production": True}


def _platform_step(text: str) -> str:
    """:func:`platform_step` of a step file's text."""
    return yaml.safe_dump(platform_step(yaml.safe_load(text)), sort_keys=False)


def _copy_weights_first(pod: dict[str, Any], model_dir: str) -> None:
    """An init container (it completes before the step starts: kubernetes.io "Init Containers") copying the team's
    ``model_dir`` from the read-only mount into the pod's emptyDir :data:`WEIGHTS_MOUNT`, links kept as links (the
    digest refuses them, llm_platform/weights_digest.py, as the serving pod's check does)."""
    (step,) = pod["containers"]
    pod["volumes"].append({"name": "judged", "emptyDir": {}})
    mount = {"name": "judged", "mountPath": WEIGHTS_MOUNT}
    step["volumeMounts"].append({**mount, "readOnly": True})
    fsx = [m for m in step["volumeMounts"] if m["mountPath"] == TEAM_MOUNT_PATH]
    pod.setdefault("initContainers", []).append(
        {
            "name": "copy-weights",
            "image": step["image"],
            "imagePullPolicy": step.get("imagePullPolicy", "IfNotPresent"),
            "command": ["cp", "-R", "-P", "--", model_dir, JUDGED_DIR],
            "resources": COPY_RESOURCES,
            "securityContext": step["securityContext"],
            "volumeMounts": [*fsx, mount],
        }
    )


def _as_platform(pod: dict[str, Any], *, team: str, job: str, config_map: str) -> None:
    """The team's pod spec as the platform's: the promoter's ServiceAccount without an API token, the team's tree
    read-only through the platform namespace's claim, the platform's step file, caches and outputs in ``/tmp``."""
    pod["serviceAccountName"] = serving.PROMOTER_SERVICE_ACCOUNT
    pod["automountServiceAccountToken"] = False
    fsx = set()
    for volume in pod["volumes"]:
        claim = volume.get("persistentVolumeClaim")
        if claim is not None:
            if claim["claimName"] != FSX_CLAIM_NAME:
                raise ValueError(f"the pod mounts claim {claim['claimName']!r}; llmft renders only {FSX_CLAIM_NAME}")
            volume["persistentVolumeClaim"] = {"claimName": team_claim_name(team), "readOnly": True}
            fsx.add(volume["name"])
        if "configMap" in volume and volume["name"] == "step-config":
            volume["configMap"] = {"name": config_map}
    overrides = {"HF_HOME": HF_HOME, JOB_ENV: job}
    for container in [*pod.get("initContainers", []), *pod["containers"]]:
        for mount in container.get("volumeMounts", []):
            if mount["name"] in fsx:
                mount["readOnly"] = True
        env = [e for e in container.get("env", []) if e["name"] not in overrides]
        container["env"] = env + [{"name": k, "value": v} for k, v in overrides.items()]
