"""`llmp-prepare-data`: a dataset -> train/test splits on the team's FSx, ready for a training step.

Formats:

* ``sft-r1``: the medical reasoning set of the published walkthrough (FreedomIntelligence/medical-o1-reasoning-SFT,
  columns Question / Complex_CoT / Response) as chat conversations in DeepSeek-R1 prompt style: the user turn
  is the instruction + question, the assistant turn is ``<think>\\n{reasoning}\\n</think>\\n{answer}``. Written as
  JSONL with ``messages``, ``text`` (the whole conversation rendered with the model's chat template), ``prompt``
  (rendered up to the assistant's turn, what evaluation generates from) and ``reference`` (the answer).
* ``verl-gsm8k``: GSM8K (columns question / answer) in VeRL's RL parquet format: ``data_source`` =
  ``openai/gsm8k`` (VeRL's default reward dispatcher then scores with its GSM8K rule), ``prompt`` as chat
  messages, ``ability``, ``reward_model`` = {style: rule, ground_truth: the number after ``####``},
  ``extra_info``. Field names follow verl 0.9.1 ``examples/data_preprocess/gsm8k.py`` and
  ``verl/utils/dataset/rl_dataset.py``.

Sources: a built-in name (``medical-o1``, ``gsm8k``: Hugging Face datasets, read at the commit ``revision`` names --
a branch or no revision is refused unless ``allow_unpinned: true`` says so) or a local file
(``.jsonl``/``.json``/``.parquet``/``.csv``, with ``format``) with the same columns.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from llm_platform.paths import set_hf_home, share_with_team
from llm_platform.source_check import MAX_ROW_BYTES, checkable, source_problems
from llm_platform.steps import entry_point

# The instruction of the DeepSeek-R1 medical walkthrough (question, then the model thinks inside <think>).
R1_PROMPT = (
    "Below is an instruction that describes a task, paired with an input that provides further context. Write a "
    "response that appropriately completes the request. Before answering, think carefully about the question and "
    "create a step-by-step chain of thoughts to ensure a logical and accurate response.\n\n"
    "### Instruction:\nYou are a medical expert with advanced knowledge in clinical reasoning, diagnostics, and "
    "treatment planning. Please answer the following medical question.\n\n"
    "### Question:\n{question}"
)
R1_RESPONSE = "<think>\n{reasoning}\n</think>\n{answer}"
# VeRL's GSM8K example asks for the answer after "####", which its rule reward extracts.
GSM8K_INSTRUCTION = 'Let\'s think step by step and output the final answer after "####".'
GSM8K_DATA_SOURCE = "openai/gsm8k"
COMMIT_SHA = re.compile(r"^[0-9a-f]{40}$")

# Built-ins: Hugging Face dataset id, config, split names, format; the step file pins the commit (``revision``).
BUILTINS: dict[str, dict[str, Any]] = {
    "medical-o1": {
        "path": "FreedomIntelligence/medical-o1-reasoning-SFT",
        "name": "en",
        "format": "sft-r1",
        "splits": ("train",),
    },
    "gsm8k": {"path": "openai/gsm8k", "name": "main", "format": "verl-gsm8k", "splits": ("train", "test")},
}


# What each format writes into output_dir (the readers: llm_platform.sft reads *.jsonl, VeRL reads *.parquet).
FORMAT_FILES: dict[str, tuple[str, ...]] = {
    "sft-r1": ("train.jsonl", "test.jsonl"),
    "verl-gsm8k": ("train.parquet", "test.parquet"),
}


# The columns each format reads from its source (a local file must have them; checked where the file is readable).
FORMAT_COLUMNS: dict[str, tuple[str, ...]] = {
    "sft-r1": ("Question", "Complex_CoT", "Response"),
    "verl-gsm8k": ("question", "answer"),
}
SOURCE_BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}


def columns_problem(source: str, fmt: str) -> str | None:
    """Why the local file ``source`` cannot be read as ``fmt`` (its first record or header lacks the format's
    columns), or None (also when it cannot be read here: the step reads it)."""
    path, wanted = Path(source), FORMAT_COLUMNS.get(fmt, ())
    try:
        if path.suffix == ".jsonl":
            with path.open(encoding="utf-8") as f:
                first = next((line for line in f if line.strip()), "")
            have = set(json.loads(first)) if first else set()
        elif path.suffix == ".csv":
            with path.open(encoding="utf-8") as f:
                have = {c.strip() for c in f.readline().split(",")}
        else:
            return None
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    missing = [c for c in wanted if c not in have]
    if not missing:
        return None
    guess = next((f for f, cols in FORMAT_COLUMNS.items() if set(cols) <= have), None)
    return f"format {fmt!r} reads the columns {', '.join(wanted)}, but {path.name} has {', '.join(sorted(have))}" + (
        f"; it looks like format {guess!r}" if guess else "; convert the file or pick its format"
    )


def output_format(source: str, fmt: str | None) -> str | None:
    """The format a run writes: the configured one, else the built-in source's."""
    return fmt or BUILTINS.get(source, {}).get("format")


def written_paths(data: dict[str, Any]) -> list[str]:
    """The split files the step writes for the step file ``data`` (llm_platform.steps.Step.written): those of its
    format inside ``output_dir``, or the folder itself when the format is not known here."""
    fmt = output_format(str(data.get("source")), data.get("format"))
    output = data.get("output_dir")
    if not output:
        return []
    return [f"{output}/{name}" for name in FORMAT_FILES.get(fmt or "", ())] or [str(output)]


@dataclass
class PrepareConfig:
    output_dir: str
    source: str  # a built-in name or a local file path
    format: str | None = None  # sft-r1 | verl-gsm8k (built-ins know theirs)
    tokenizer_path: str | None = None  # the model's tokenizer for its chat template (sft-r1)
    revision: str | None = None  # the Hub commit (40 hex) of a built-in
    allow_unpinned: bool = False  # read a built-in at a branch (revision main, or none: the default branch)
    test_size: float = 0.1  # used when the source has no test split
    max_samples: int | None = None
    seed: int = 42
    max_row_bytes: int = MAX_ROW_BYTES  # a longer source row is refused, named by file:line
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.format not in (None, "sft-r1", "verl-gsm8k"):
            raise ValueError(f"format {self.format!r} is not one of sft-r1, verl-gsm8k")
        if not 0 < self.test_size < 1:
            raise ValueError(f"test_size {self.test_size} must be between 0 and 1")
        if self.source in BUILTINS and not self.allow_unpinned and not COMMIT_SHA.match(self.revision or ""):
            raise ValueError(
                f"revision {self.revision!r} is not a commit sha; a built-in dataset is read at a pinned "
                f"commit so every run prepares the same data: set revision to the 40-hex commit of "
                f"{BUILTINS[self.source]['path']} (Hub: Files and versions -> History), or set "
                f"allow_unpinned: true"
            )
        if self.source not in BUILTINS:
            suffix = Path(self.source).suffix
            if suffix not in SOURCE_BUILDERS:
                raise ValueError(
                    f"source {self.source!r} is neither a built-in dataset ({', '.join(BUILTINS)}) nor "
                    f"a .jsonl, .json, .parquet or .csv file"
                )
            if self.format is None:
                raise ValueError(
                    f"format: a local file source ({self.source}) needs its format, the columns it "
                    f"has: sft-r1 ({', '.join(FORMAT_COLUMNS['sft-r1'])}) or verl-gsm8k "
                    f"({', '.join(FORMAT_COLUMNS['verl-gsm8k'])})"
                )


def gsm8k_ground_truth(answer: str) -> str:
    """The final number of a GSM8K answer (after '####'), commas removed, as VeRL's reward compares it."""
    match = re.search(r"#### (\-?[0-9\.\,]+)", answer)
    if not match:
        raise ValueError(f"GSM8K answer has no '#### <number>': {answer[-80:]!r}")
    return match.group(1).replace(",", "")


def gsm8k_row(row: dict[str, Any], index: int, split: str) -> dict[str, Any]:
    return {
        "data_source": GSM8K_DATA_SOURCE,
        "prompt": [{"role": "user", "content": f"{row['question']} {GSM8K_INSTRUCTION}"}],
        "ability": "math",
        "reward_model": {"style": "rule", "ground_truth": gsm8k_ground_truth(row["answer"])},
        "extra_info": {"split": split, "index": index, "answer": row["answer"], "question": row["question"]},
    }


def r1_messages(row: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": R1_PROMPT.format(question=row["Question"].strip())},
        {
            "role": "assistant",
            "content": R1_RESPONSE.format(reasoning=row["Complex_CoT"].strip(), answer=row["Response"].strip()),
        },
    ]


def render(tokenizer, messages: list[dict[str, str]], *, generation_prompt: bool) -> str:
    """The model's chat template; a model without one gets the plain R1 layout (prompt, then the response)."""
    if tokenizer is not None and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt)
    prompt = messages[0]["content"] + "\n\n### Response:\n"
    return prompt if generation_prompt else prompt + messages[1]["content"]


def sft_row(row: dict[str, Any], tokenizer) -> dict[str, Any]:
    messages = r1_messages(row)
    return {
        "messages": messages,
        "text": render(tokenizer, messages, generation_prompt=False),
        "prompt": render(tokenizer, messages[:1], generation_prompt=True),
        "reference": messages[1]["content"],
    }


def load_source(cfg: PrepareConfig) -> tuple[dict[str, Any], str]:
    """Returns ({split: datasets.Dataset}, format)."""
    import datasets

    if cfg.source in BUILTINS:
        spec = BUILTINS[cfg.source]
        loaded = datasets.load_dataset(spec["path"], spec["name"], revision=cfg.revision)
        return {s: loaded[s] for s in spec["splits"]}, cfg.format or spec["format"]
    path = Path(cfg.source)
    if not path.is_file():
        raise FileNotFoundError(f"source {cfg.source!r} is neither a built-in ({', '.join(BUILTINS)}) nor a file")
    if cfg.format is None:
        raise ValueError("format is required for a local file source (sft-r1 or verl-gsm8k)")
    wrong = columns_problem(cfg.source, cfg.format)
    if wrong:
        raise ValueError(wrong)
    builder = SOURCE_BUILDERS.get(path.suffix)
    if builder is None:
        raise ValueError(f"source {path.name}: use a .jsonl, .json, .parquet or .csv file")
    return {"train": datasets.load_dataset(builder, data_files=str(path), split="train")}, cfg.format


def split(splits: dict[str, Any], cfg: PrepareConfig) -> tuple[Any, Any]:
    train = splits["train"]
    if cfg.max_samples:
        train = train.shuffle(seed=cfg.seed).select(range(min(cfg.max_samples, len(train))))
    if "test" in splits:
        test = splits["test"]
        if cfg.max_samples:
            test = test.select(range(min(max(1, int(cfg.max_samples * cfg.test_size)), len(test))))
        return train, test
    parts = train.train_test_split(test_size=cfg.test_size, seed=cfg.seed)
    return parts["train"], parts["test"]


def prepare(cfg: PrepareConfig) -> dict[str, Path]:
    set_hf_home()
    splits, fmt = load_source(cfg)
    train, test = split(splits, cfg)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    if fmt == "verl-gsm8k":
        import pandas as pd

        for name, ds in (("train", train), ("test", test)):
            rows = [gsm8k_row(r, i, name) for i, r in enumerate(ds)]
            path = out / f"{name}.parquet"
            written[name] = write_atomically(
                path, lambda tmp, rows=rows: pd.DataFrame(rows).to_parquet(tmp, index=False)
            )
    else:
        tokenizer = None
        if cfg.tokenizer_path:
            from transformers import AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(cfg.tokenizer_path)
        for name, ds in (("train", train), ("test", test)):
            written[name] = write_atomically(
                out / f"{name}.jsonl", lambda tmp, ds=ds: write_sft_rows(tmp, ds, tokenizer)
            )
    (out / "prepare-data.json").write_text(
        json.dumps({**asdict(cfg), "format": fmt, "rows": {"train": len(train), "test": len(test)}}, indent=2)
    )
    return written


def write_sft_rows(path: Path, rows, tokenizer) -> None:
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(sft_row(r, tokenizer), ensure_ascii=False) + "\n")


def write_atomically(path: Path, write) -> Path:
    """``write(tmp)`` then ``tmp`` renamed to ``path``: a reader never sees a half-written split, and a failure
    (a bad row, a full disk, a kill signal's exception) leaves no ``.tmp`` behind."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def configure(data: dict[str, Any]) -> PrepareConfig:
    """The step file as a PrepareConfig, and a local source file checked row by row against its format
    (llm_platform.source_check): every problem named at once, each by file and line. A source that is missing is
    refused where its path is checkable here, and said on stderr where it is not (``--check`` on a laptop of a
    path on /fsx): the job checks it again when it starts."""
    cfg = PrepareConfig(**data)
    if cfg.source in BUILTINS or not cfg.format:
        return cfg
    if not Path(cfg.source).exists() and not checkable(cfg.source):
        print(
            f"llmp-prepare-data: {cfg.source} is not reachable from here; its rows are checked when the job starts",
            file=sys.stderr,
        )
        return cfg
    wrong = columns_problem(cfg.source, cfg.format)
    problems = (
        [wrong]
        if wrong
        else source_problems(cfg.source, cfg.format, FORMAT_COLUMNS[cfg.format], max_row_bytes=cfg.max_row_bytes)
    )
    if problems:
        raise SourceError(problems)
    return cfg


class SourceError(ValueError):
    """The source's problems, one per line (the step's refusal prints them under the step file's name)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n  - ".join(problems))


def main(argv: list[str] | None = None) -> int:
    share_with_team()

    def run(cfg: PrepareConfig) -> int:
        for name, path in prepare(cfg).items():
            print(f"{name}: {path}")
        return 0

    return entry_point(
        "prepare-data",
        argv,
        build=configure,
        run=run,
        describe=lambda cfg: (
            f"would write {cfg.format or BUILTINS.get(cfg.source, {}).get('format')} "
            f"splits of {cfg.source} to {cfg.output_dir}"
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
