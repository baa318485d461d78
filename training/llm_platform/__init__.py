"""The platform's training package: one module per pipeline step, each a console script.

    llmp-download-model  Hugging Face model -> the team's FSx models/ directory (revision-pinned, resumable)
    llmp-prepare-data    dataset -> train/test splits on FSx (chat template / VeRL parquet)
    llmp-sft             LoRA / QLoRA fine-tuning with FSDP, resumable checkpoints, LoRA merge, MLflow
    llmp-evaluate        ROUGE of the fine-tuned vs the base model on the test split, MLflow
    llmp-grpo            VeRL GRPO (SGLang rollouts, GSM8K reward) with a validated configuration

Every step reads a YAML file (``--config``); see ``training/configs/`` for the reference files.
Only :mod:`llm_platform.grpo_config` and :mod:`llm_platform.paths` are importable without the heavy stack
(torch, transformers): the Kubernetes job builders use them.
"""

__version__ = "0.1.0"
