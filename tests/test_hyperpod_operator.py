"""Issue 44 item 5, HyperPodPyTorchJob on the HyperPod tier: checked at the operator's source and not rendered,
because the SageMaker HyperPod training operator documents support for none of the platform's pinned Kubernetes,
Kueue and PyTorch releases (config/versions.py ``HYPERPOD_TRAINING_OPERATOR``, docs/training.md
"HyperPodPyTorchJob"). llmft keeps rendering PyTorchJob on every tier. When the platform's pins and the operator's
documented support meet, the first test fails and names what to build."""

from __future__ import annotations

import pytest

from config.versions import HYPERPOD_TRAINING_OPERATOR, OperatorSupport, unsupported_by, version
from k8s_charts.validation import embedded_pod_templates
from llmft.spec import load_spec

from .conftest import ENVIRONMENTS, ROOT
from .test_llmft import CONFIGS, run

pytestmark = pytest.mark.unit

GPU_EXAMPLES = ("04-sft-medical.yaml", "05-evaluate.yaml")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_operator_supports_none_of_this_platforms_pins(env: str) -> None:
    gaps = unsupported_by(HYPERPOD_TRAINING_OPERATOR, CONFIGS[env].compute.kubernetes_version)
    assert gaps, (
        f"{env}: the HyperPod training operator now documents support for this platform's Kubernetes, Kueue and "
        f"PyTorch ({HYPERPOD_TRAINING_OPERATOR.source}): render HyperPodPyTorchJob for jobs placed on HyperPod "
        "nodes (issue 44 item 5), its CRD vendored from a cluster that runs the add-on"
    )


def test_a_gap_is_named_with_what_is_supported() -> None:
    gaps = unsupported_by(HYPERPOD_TRAINING_OPERATOR, "1.34")
    assert gaps[0] == f"Kubernetes 1.34 (supported: {', '.join(HYPERPOD_TRAINING_OPERATOR.kubernetes)})"
    assert f"Kueue {version('kueue')}" in " ".join(gaps) or version("kueue") in HYPERPOD_TRAINING_OPERATOR.kueue
    assert not unsupported_by(
        OperatorSupport(
            kubernetes=("1.34",),
            kueue=(version("kueue"),),
            torch=(version("torch"), version("torch")),
            source="",
            as_of="",
        ),
        "1.34",
    )


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("example", GPU_EXAMPLES)
def test_gpu_jobs_stay_pytorch_jobs_on_every_tier(env: str, example: str) -> None:
    result = run(load_spec(ROOT / "examples" / "jobs" / example), env)
    assert result.ok, result.report()
    kinds = {m["kind"] for m in result.plan.manifests if list(embedded_pod_templates(m))}
    assert "HyperPodPyTorchJob" not in kinds and kinds <= {"PyTorchJob"}, kinds
