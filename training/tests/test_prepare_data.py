"""llmp-prepare-data on small local files with the built-ins' columns."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from llm_platform import prepare_data
from tiny import build_model, gsm8k_rows, medical_rows, write_jsonl


def corpus_of(rows):
    from llm_platform.prepare_data import R1_PROMPT, R1_RESPONSE

    return [
        R1_PROMPT.format(question=r["Question"])
        + " "
        + R1_RESPONSE.format(reasoning=r["Complex_CoT"], answer=r["Response"])
        for r in rows
    ]


def test_sft_r1_split_in_the_models_chat_template(tmp_path) -> None:
    rows = medical_rows(20)
    model = build_model(tmp_path / "model", corpus_of(rows))
    source = write_jsonl(tmp_path / "medical.jsonl", rows)
    config = tmp_path / "prep.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "source": str(source),
                "format": "sft-r1",
                "tokenizer_path": str(model),
                "output_dir": str(tmp_path / "out"),
                "test_size": 0.25,
            }
        )
    )
    assert prepare_data.main(["--config", str(config)]) == 0
    train = [json.loads(x) for x in (tmp_path / "out/train.jsonl").read_text().splitlines()]
    test = [json.loads(x) for x in (tmp_path / "out/test.jsonl").read_text().splitlines()]
    assert (len(train), len(test)) == (15, 5)
    questions = {r["Question"] for r in rows}
    seen = set()
    for row in train + test:
        user, assistant = row["messages"]
        question = user["content"].split("### Question:\n")[1]
        assert question in questions and question not in seen  # every row once, in exactly one split
        seen.add(question)
        source_row = next(r for r in rows if r["Question"] == question)
        # DeepSeek-R1 style: reasoning inside <think>, then the answer
        assert assistant["content"] == f"<think>\n{source_row['Complex_CoT']}\n</think>\n{source_row['Response']}"
        assert row["reference"] == assistant["content"]
        # rendered with the model's own chat template; the prompt is the text up to the assistant's turn
        assert row["text"] == f"<|user|> {user['content']} <|end|> <|assistant|> {assistant['content']} <|end|> "
        assert row["prompt"] == f"<|user|> {user['content']} <|end|> <|assistant|> "
    assert seen == questions


def test_gsm8k_in_verl_parquet_format_scores_with_verls_reward(tmp_path) -> None:
    from verl.utils.reward_score import default_compute_score

    source = write_jsonl(tmp_path / "gsm8k.jsonl", gsm8k_rows())
    cfg = prepare_data.PrepareConfig(
        source=str(source), format="verl-gsm8k", output_dir=str(tmp_path / "out"), test_size=0.2
    )
    written = prepare_data.prepare(cfg)
    train, test = pd.read_parquet(written["train"]), pd.read_parquet(written["test"])
    assert (len(train), len(test)) == (8, 2)
    row = train[train["extra_info"].map(lambda e: e["question"].startswith("Tom has 1200 "))].iloc[0]
    assert row["data_source"] == "openai/gsm8k" and row["ability"] == "math"
    assert row["reward_model"]["style"] == "rule"
    assert row["reward_model"]["ground_truth"] == "1234"  # '#### 1,234' without the comma
    assert list(row["prompt"])[0]["role"] == "user" and row["prompt"][0]["content"].endswith('after "####".')
    # VeRL's own reward for this data_source: right answer 1, wrong answer 0
    truth = row["reward_model"]["ground_truth"]
    assert default_compute_score(row["data_source"], "so 1200 + 34 = 1234\n#### 1234", truth) == 1.0
    assert default_compute_score(row["data_source"], "#### 1233", truth) == 0.0


@pytest.mark.parametrize(
    "data,message",
    [
        ({"format": "csv"}, "format 'csv' is not one of"),
        ({"test_size": 1.5}, "test_size 1.5 must be between 0 and 1"),
        ({"source": "nope.jsonl", "format": "sft-r1"}, "neither a built-in"),
        ({"source": "nope.jsonl"}, "a local file source .* needs its format"),
        ({"source": "nope.txt", "format": "sft-r1"}, "neither a built-in dataset .* nor a .jsonl"),
        ({"tokeniser": "x"}, "unknown setting"),
    ],
)
def test_bad_config(tmp_path, data, message) -> None:
    from llm_platform.config import from_mapping

    with pytest.raises((ValueError, FileNotFoundError), match=message):
        cfg = from_mapping(prepare_data.PrepareConfig, {"source": "gsm8k", "output_dir": str(tmp_path), **data})
        prepare_data.load_source(cfg)


def test_gsm8k_answer_without_final_number_is_refused() -> None:
    with pytest.raises(ValueError, match="no '#### <number>'"):
        prepare_data.gsm8k_ground_truth("it is 4")
