"""The platform's training package: one module per pipeline step, each a console script.

    llmp-download-model  Hugging Face model -> the team's FSx models/ directory (revision-pinned, resumable)
    llmp-prepare-data    dataset -> train/test splits on FSx (chat template / VeRL parquet)
    llmp-sft             LoRA / QLoRA fine-tuning with FSDP, resumable checkpoints, LoRA merge, MLflow
    llmp-evaluate        ROUGE of the fine-tuned vs the base model on the test split, MLflow
    llmp-grpo            VeRL GRPO (SGLang rollouts, GSM8K reward) with a validated configuration

Not a step: ``python -m llm_platform.fallback_controller``, the development fall-back controller the platform's
CronJob runs (standard library only; docs/queueing.md "Fallback when unschedulable").

Every step reads a YAML file (``--config``); see ``training/configs/`` for the reference files.
The modules the platform imports (:mod:`llm_platform.grpo_config`, :mod:`llm_platform.paths`,
:mod:`llm_platform.steps`, :mod:`llm_platform.engine_flags`, :mod:`llm_platform.weights_digest`,
:mod:`llm_platform.fallback_rules`) need only the
standard library (tests/test_layout.py checks it); the steps need the heavy stack (torch, transformers).
"""

__version__ = "0.1.0"
