"""`type: serve` (issue 34): a registered model version behind an SGLang endpoint, a Kueue-gated Deployment +
Service + KEDA ScaledObject rendered by :mod:`llmft.serve_build`; no step file. Its rules are the spec's `serve:`
section's (:meth:`llmft.spec.JobSpec._serve_problems`), run for every spec so that a `serve:` section on another type
is refused too."""

from __future__ import annotations

from llmft import memory_check
from llmft.job_types.base import JobType, register

SERVE = register(
    JobType(
        name="serve",
        summary="a registered model version behind an SGLang endpoint: Deployment (Kueue-gated), Service, KEDA "
        "ScaledObject",
        workload="deployment",
        gpus=True,
        image="verl-sglang",  # the image with SGLang
        memory=memory_check.serve,
    )
)
