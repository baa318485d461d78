"""Issue 44 item 6, fallback when unschedulable: what Kueue v0.19.2 gives a development job and what it does not
(docs/queueing.md "Fallback when unschedulable").

Kueue falls back to the tier's next flavor at once when the reserved flavor has no room without preemption
(``flavorFungibility.whenCanPreempt: TryNextFlavor``, k8s_charts/queueing.py), but only to the flavors the job's own
pods may use: Kueue skips a flavor whose nodeLabels the pods' required node affinity excludes (v0.19.2
pkg/scheduler/flavorassigner ``flavorSelector``). So llmft must not pin a development job to its reserved capacity
when a burst flavor of its tier can hold it: checked here on the jobs llmft renders, for every environment."""

from __future__ import annotations

import pytest

from config.queueing import TIER_CAPACITY_ORDER, capacities, tier_capacities
from k8s_charts.queues import flavor_node_labels
from k8s_charts.validation import embedded_pod_templates
from llmft.spec import load_spec

from .conftest import ENVIRONMENTS, ROOT
from .test_kueue import flavor_fits, gpus
from .test_llmft import CONFIGS, run

pytestmark = pytest.mark.unit

TIER = "development"


def _gpu_pod_spec(job: dict) -> dict:
    (spec,) = [t["spec"] for _, t in embedded_pod_templates(job) if gpus(t["spec"])]
    return spec


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_development_job_may_fall_back_to_every_burst_flavor_that_holds_it(env: str) -> None:
    assert TIER_CAPACITY_ORDER[TIER][0] == "reserved" and len(TIER_CAPACITY_ORDER[TIER]) > 1
    config = CONFIGS[env]
    result = run(load_spec(ROOT / "examples/jobs/04-sft-medical.yaml"), env)
    assert result.ok and result.plan.spec.tier == TIER, result.report()
    job = result.plan.manifests[-1]
    spec = _gpu_pod_spec(job)
    total = sum(
        int(r.get("replicas", 1)) * gpus(r["template"]["spec"])
        for r in job["spec"]["pytorchReplicaSpecs"].values()
        if gpus(r["template"]["spec"])
    )
    order = tier_capacities(TIER, capacities(config.compute, config.kubernetes))
    flavors = {c.name: {"spec": {"nodeLabels": flavor_node_labels(c)}} for c in order}
    open_to = [c for c in order if flavor_fits(spec, flavors[c.name])]
    assert open_to, f"{env}: the job matches no flavor of its tier"
    # the GPU type the job was planned for (the memory check is per card): a burst flavor of that card that is big
    # enough must stay open to it, after the reserved ones in the tier's order
    card = {c.gpu_type for c in open_to}
    burst = [c for c in order if c.kind != "reserved" and c.gpu_type in card and c.gpus >= total]
    assert [c for c in burst if c not in open_to] == [], f"{env}: pinned away from its burst flavors {burst}"
    kinds = [c.kind for c in open_to]
    assert kinds == sorted(kinds, key=TIER_CAPACITY_ORDER[TIER].index)  # reserved first: Kueue tries in this order
