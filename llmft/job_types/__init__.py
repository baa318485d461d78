"""The job types (``type:`` of a spec), one module each; importing this package registers them all, in the order
users see them listed (error messages, docs). The record and the registry are :mod:`llmft.job_types.base`;
``docs/extending.md`` "Add a job type" says how to add one (a module here and its import below)."""

# isort: off
from llmft.job_types import sft, evaluate, grpo, download_model, prepare_data, custom, benchmark, serve  # noqa: F401

# isort: on
from llmft.job_types.base import FieldContext, JobType, get, register, registered, unregister

__all__ = ["FieldContext", "JobType", "get", "register", "registered", "unregister"]
