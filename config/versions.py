"""Every upstream version the platform pins, in one table: the Helm charts the Compute stack installs, the releases
whose files are vendored (k8s_charts/crds/SOURCES.md, tests/upstream/SOURCES.md), the MLflow server and its clients,
and the images' key Python pins. Code reads its versions from here (config/charts.py, k8s_charts.serving); every
copy that cannot read it (a vendored file's row, a lock file, a requirements file, a vendored chart's Chart.yaml) is
checked against it by tests/test_versions.py, so moving one row and forgetting a copy fails there with the copy named.

To move a release: change its row here, replace the vendored files with the new tag's bytes (their SOURCES.md rows:
size, SHA-256, tag), re-resolve the locks that pin it (`make images-lock`, training/requirements-test.lock), then
`make imports` and `make snapshots`; `tests/test_versions.py` names whatever still carries the old release.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Upstream:
    """One upstream release.

    - ``version``: the release (the application's; ``chart`` when its Helm chart is versioned apart).
    - ``repository``/``tag``: where the vendored files come from (GitHub ``owner/name``; tag default ``v<version>``):
      every SOURCES.md row of that repository must name the tag.
    - ``vendored``: folders under tests/upstream/ holding this release's chart (their Chart.yaml ``version`` must be
      the chart version).
    - ``pins``: ``(file, package)``: the file pins ``package==<version>`` (requirements files and locks).
    """

    version: str
    chart: str | None = None
    repository: str | None = None
    tag: str | None = None
    vendored: tuple[str, ...] = ()
    pins: tuple[tuple[str, str], ...] = ()

    @property
    def chart_version(self) -> str:
        return self.chart or self.version

    @property
    def ref(self) -> str:
        return self.tag or f"v{self.version}"


_TRAINING_LOCK = "training/requirements-test.lock"
_SFT_LOCK = "images/sft/requirements.lock"
_VERL_LOCK = "images/verl-sglang/requirements.lock"

UPSTREAM: dict[str, Upstream] = {
    # Cluster add-ons (charts) and their vendored CRDs
    "karpenter": Upstream("1.14.1", repository="aws/karpenter-provider-aws"),
    "kueue": Upstream("0.19.2", repository="kubernetes-sigs/kueue", vendored=("kueue-0.19.2",)),
    "kuberay": Upstream("1.7.0", repository="ray-project/kuberay"),
    "keda": Upstream("2.19.0", repository="kedacore/keda", vendored=("keda-2.19.0",)),
    "argo-cd": Upstream("3.4.4", chart="10.1.1", repository="argoproj/argo-cd"),
    "argo-workflows": Upstream(
        "4.0.6", chart="1.0.18", repository="argoproj/argo-workflows", vendored=("argo-workflows-1.0.18",)
    ),
    # the AWS provider's chart; its Chart.lock pins the driver chart, whose CRD is vendored
    "secrets-store-provider-aws": Upstream("3.1.1"),
    "secrets-store-csi-driver": Upstream("1.6.0", repository="kubernetes-sigs/secrets-store-csi-driver"),
    "nvidia-device-plugin": Upstream("0.17.1"),
    "efa-device-plugin": Upstream("0.5.20"),
    "amazon-cloudwatch-observability": Upstream(
        "6.4.0", tag="amazon-cloudwatch-observability-6.4.0", vendored=("amazon-cloudwatch-observability-6.4.0",)
    ),
    # Job operators whose CRDs llmft renders against (installed by the HyperPod prerequisites chart)
    "training-operator": Upstream("1.9.4", repository="kubeflow/trainer"),
    "mpi-operator": Upstream("0.8.0", repository="kubeflow/mpi-operator"),
    # MLflow: the server (mlflow_image), its clients (llmft in Studio, the training steps in the images and tests)
    "mlflow": Upstream(
        "3.17.2",
        pins=(
            ("mlflow_image/requirements.txt", "mlflow"),
            ("requirements-cli.txt", "mlflow-skinny"),
            (_TRAINING_LOCK, "mlflow-skinny"),
            (_SFT_LOCK, "mlflow"),
            (_SFT_LOCK, "mlflow-skinny"),
            (_VERL_LOCK, "mlflow"),
            (_VERL_LOCK, "mlflow-skinny"),
        ),
    ),
    # The images' key Python pins, which the training tests run with too
    "torch": Upstream("2.13.0", pins=((_TRAINING_LOCK, "torch"), (_SFT_LOCK, "torch"), (_VERL_LOCK, "torch"))),
    "transformers": Upstream(
        "5.10.4", pins=((_TRAINING_LOCK, "transformers"), (_SFT_LOCK, "transformers"), (_VERL_LOCK, "transformers"))
    ),
    "peft": Upstream("0.21.2", pins=((_TRAINING_LOCK, "peft"), (_SFT_LOCK, "peft"), (_VERL_LOCK, "peft"))),
    "sglang": Upstream("0.5.21", pins=((_TRAINING_LOCK, "sglang"), (_VERL_LOCK, "sglang"))),
    "verl": Upstream("0.9.1", pins=((_TRAINING_LOCK, "verl"), (_VERL_LOCK, "verl"))),
}


def version(name: str) -> str:
    """The pinned release of ``name`` (a key of :data:`UPSTREAM`)."""
    return UPSTREAM[name].version


def chart_version(name: str) -> str:
    """The Helm chart version of ``name``."""
    return UPSTREAM[name].chart_version


@dataclass(frozen=True)
class OperatorSupport:
    """What an operator the platform does not install documents it supports, and where it says so: the platform
    renders for it only once its own pins fall inside (:func:`unsupported_by`)."""

    kubernetes: tuple[str, ...]
    kueue: tuple[str, ...]
    torch: tuple[str, str]  # inclusive range
    source: str
    as_of: str


HYPERPOD_TRAINING_OPERATOR = OperatorSupport(
    kubernetes=("1.28", "1.29", "1.30", "1.31", "1.32", "1.33"),
    kueue=("0.12.2", "0.12.3"),
    torch=("2.4.0", "2.7.1"),
    source="https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-operator.html "
    '"Supported versions" (Kubernetes versions, recommended Kueue versions, PyTorch; read in its docs.amazonaws.cn '
    "copy, sagemaker/latest/dg/sagemaker-eks-operator.md)",
    as_of="2026-11-28",
)
"""The SageMaker HyperPod training operator (the EKS add-on that runs ``HyperPodPyTorchJob``; its CRD is published
in no public repository, only served by a cluster that runs the add-on). docs/training.md "HyperPodPyTorchJob"."""


def _release(v: str) -> tuple[int, ...]:
    return tuple(int(part) for part in v.split(".")[:3])


def unsupported_by(support: OperatorSupport, kubernetes_version: str) -> list[str]:
    """Each of the platform's pins (an environment's Kubernetes minor, Kueue, the images' torch) the operator does not
    document as supported, as '<what> <pinned> (supported: ...)'; empty: it may run here."""
    gaps = []
    if kubernetes_version not in support.kubernetes:
        gaps.append(f"Kubernetes {kubernetes_version} (supported: {', '.join(support.kubernetes)})")
    if version("kueue") not in support.kueue:
        gaps.append(f"Kueue {version('kueue')} (supported: {', '.join(support.kueue)})")
    low, high = support.torch
    if not _release(low) <= _release(version("torch")) <= _release(high):
        gaps.append(f"PyTorch {version('torch')} (supported: {low} to {high})")
    return gaps
