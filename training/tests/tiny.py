"""The tiny model and sample rows of the tests: llm_platform.tiny_model (also `python -m llm_platform.tiny_model`,
the documented smoke-test recipe), from this checkout's training package."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's llm_platform, whatever is installed

from llm_platform.tiny_model import (  # noqa: F401
    CHAT_TEMPLATE,
    SPECIALS,
    build_model,
    build_tokenizer,
    corpus_of,
    gsm8k_rows,
    medical_rows,
    write_jsonl,
)
