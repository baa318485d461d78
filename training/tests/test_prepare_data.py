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


# --- every source row checked: file:line, every problem at once, no .tmp left, a row length cap -----------------


def _step(tmp_path, source, fmt="sft-r1", **more) -> str:
    config = tmp_path / "prep.yaml"
    config.write_text(
        yaml.safe_dump({"source": str(source), "format": fmt, "output_dir": str(tmp_path / "out"), **more})
    )
    return str(config)


def _bad_medical_source(tmp_path):
    rows = medical_rows(12)
    lines = [json.dumps(r) for r in rows]
    lines[3] = '{"Question": "cut off'  # a truncated row
    lines[5] = json.dumps({k: v for k, v in rows[5].items() if k != "Response"})  # an incomplete row
    lines[7] = json.dumps({**rows[7], "Question": ""})  # an empty column
    source = tmp_path / "medical.jsonl"
    data = ("\n".join(lines) + "\n").encode()
    bad = json.dumps(rows[9]).encode()
    source.write_bytes(data.replace(bad, bad.replace(b"Case", b"Ca\xffse")))  # not UTF-8 on line 10
    return source


@pytest.mark.parametrize("check", [True, False])
def test_every_bad_source_row_is_named_by_file_and_line(tmp_path, capsys, check) -> None:
    source = _bad_medical_source(tmp_path)
    argv = ["--config", _step(tmp_path, source)] + (["--check"] if check else [])
    assert prepare_data.main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for line, words in [(4, "not valid JSON"), (6, "Response"), (8, "Question is empty"), (10, "not UTF-8")]:
        assert f"medical.jsonl:{line}: " in err and words in err.split(f"medical.jsonl:{line}: ")[1].splitlines()[0]
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())  # nothing written


def test_gsm8k_rows_without_a_final_number_are_named(tmp_path, capsys) -> None:
    rows = gsm8k_rows()
    rows[2] = {**rows[2], "answer": "it is 4"}
    source = write_jsonl(tmp_path / "gsm8k.jsonl", rows)
    assert prepare_data.main(["--config", _step(tmp_path, source, "verl-gsm8k"), "--check"]) == 1
    assert "gsm8k.jsonl:3: column answer has no '#### <number>'" in capsys.readouterr().err


def test_a_row_over_max_row_bytes_is_refused_with_the_fix(tmp_path, capsys) -> None:
    rows = medical_rows(4)
    rows[1] = {**rows[1], "Complex_CoT": "x" * 5000}
    source = write_jsonl(tmp_path / "medical.jsonl", rows)
    assert prepare_data.main(["--config", _step(tmp_path, source, max_row_bytes=4096), "--check"]) == 1
    err = capsys.readouterr().err
    assert "medical.jsonl:2: the row is longer than max_row_bytes=4096" in err and "raise max_row_bytes" in err
    assert prepare_data.main(["--config", _step(tmp_path, source, max_row_bytes=8192), "--check"]) == 0


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json"])
def test_other_source_kinds_are_row_checked_too(tmp_path, capsys, suffix) -> None:
    rows = medical_rows(6)
    rows[4] = {**rows[4], "Response": ""}
    source = tmp_path / f"medical{suffix}"
    frame = pd.DataFrame(rows)
    {".csv": lambda: frame.to_csv(source, index=False), ".parquet": lambda: frame.to_parquet(source, index=False)}.get(
        suffix, lambda: source.write_text(json.dumps(rows))
    )()
    assert prepare_data.main(["--config", _step(tmp_path, source), "--check"]) == 1
    err = capsys.readouterr().err
    assert "column Response is empty" in err and "Traceback" not in err


def test_a_missing_source_is_refused_where_its_path_is_checkable(tmp_path, capsys, monkeypatch) -> None:
    missing = tmp_path / "raw" / "absent.jsonl"
    assert prepare_data.main(["--config", _step(tmp_path, missing), "--check"]) == 1
    assert "no such file" in capsys.readouterr().err
    # a pod's /fsx path checked on a machine without /fsx: said, not refused (the job checks it when it starts)
    from pathlib import Path

    if not Path("/fsx").exists():
        monkeypatch.delenv("LLMFT_LOCAL_FSX", raising=False)
        assert prepare_data.main(["--config", _step(tmp_path, "/fsx/raw/absent.jsonl"), "--check"]) == 0
        assert "not reachable from here" in capsys.readouterr().err
        monkeypatch.setenv("LLMFT_LOCAL_FSX", str(tmp_path))  # llmft run --local: every path is checkable
        assert prepare_data.main(["--config", _step(tmp_path, "/fsx/raw/absent.jsonl"), "--check"]) == 1


def test_a_failed_write_leaves_no_tmp_and_no_split(tmp_path, monkeypatch) -> None:
    source = write_jsonl(tmp_path / "medical.jsonl", medical_rows(10))
    cfg = prepare_data.PrepareConfig(source=str(source), format="sft-r1", output_dir=str(tmp_path / "out"))
    calls = []

    def failing(row, tokenizer):
        calls.append(row)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return {"text": "x"}

    monkeypatch.setattr(prepare_data, "sft_row", failing)
    with pytest.raises(OSError, match="No space left"):
        prepare_data.prepare(cfg)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == []


def test_sft_data_check_refuses_a_row_over_the_cap_by_its_line(tmp_path) -> None:
    from llm_platform.data_check import DataError, read_rows

    data = tmp_path / "train.jsonl"
    data.write_text(
        json.dumps({"text": "a b", "prompt": "a"}) + "\n" + json.dumps({"text": "y" * 300, "prompt": "y"}) + "\n"
    )
    with pytest.raises(DataError, match=r"train.jsonl:2: the row is longer than 100 bytes"):
        read_rows(data, max_row_bytes=100)
    assert len(read_rows(data, max_row_bytes=1000)) == 2
