"""`llmft`: submit a training job from a short YAML spec (render, preflight, submit, status, logs, cancel, list).

The spec (:mod:`llmft.spec`) is validated like the platform config; :mod:`llmft.build` turns it into manifests with
the k8s_charts builders (one source of truth for what a job looks like); :mod:`llmft.preflight` refuses what could
never run before anything is created; :mod:`llmft.cluster` talks to the cluster through `kubectl`.
"""

from llmft import job_types  # noqa: E402, F401 - registers every job type (llmft/job_types/), before any spec loads
