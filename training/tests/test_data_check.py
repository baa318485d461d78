"""llm_platform.data_check (issue 32): bad data is refused before the model loads, naming file, line and problem;
``llmp-sft --check`` reads the data; free space for a checkpoint is checked before the first step."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from llm_platform import data_check, sft
from llm_platform.data_check import DataError
from tiny import build_tokenizer

ROW = {
    "messages": [],
    "text": "<|user|> q <|end|> <|assistant|> a b c <|end|>",
    "prompt": "<|user|> q <|end|> <|assistant|>",
    "reference": "a",
}


def _jsonl(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_good_file_is_counted(tmp_path) -> None:
    _jsonl(tmp_path / "train.jsonl", json.dumps(ROW), "", json.dumps(ROW))
    assert data_check.check_file(tmp_path, "train").rows == 2  # a directory means <dir>/train.jsonl


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([json.dumps(ROW), '{"text": "x", "prompt": '], r"train.jsonl:2: not valid JSON \(Expecting value at column"),
        ([json.dumps({"text": "x"})], r"train.jsonl:1: missing column 'prompt' .* the row has: text"),
        ([json.dumps({"messages": []})], r"train.jsonl:1: missing columns 'text', 'prompt'"),
        (["[1, 2]"], r"train.jsonl:1: a row must be a JSON object, got list"),
        ([json.dumps({"text": "x", "prompt": 3})], r"train.jsonl:1: column 'prompt' must be a string"),
        ([json.dumps({"text": " ", "prompt": "p"})], r"train.jsonl:1: column 'text' is empty"),
        ([], r"train.jsonl: no rows \(the file is empty\)"),
        (["", "  "], r"train.jsonl: no rows"),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path, lines, message) -> None:
    path = _jsonl(tmp_path / "train.jsonl", *lines)
    with pytest.raises(DataError, match=message):
        data_check.check_file(path, "train")


def test_missing_file_and_non_utf8(tmp_path) -> None:
    with pytest.raises(DataError, match="no such file"):
        data_check.check_file(tmp_path / "nope.jsonl", "train")
    (tmp_path / "bin.jsonl").write_bytes(b'{"text": "\xff"}\n')
    with pytest.raises(DataError, match="not UTF-8"):
        data_check.check_file(tmp_path / "bin.jsonl", "train")


def test_data_cut_away_by_max_seq_length_is_refused(tmp_path) -> None:
    tokenizer = build_tokenizer([ROW["text"]], tmp_path / "tok")
    path = _jsonl(tmp_path / "train.jsonl", json.dumps(ROW), json.dumps(ROW))
    n_prompt = len(tokenizer(ROW["prompt"], add_special_tokens=False)["input_ids"])
    ok = data_check.check_file(path, "train", tokenizer=tokenizer, max_seq_length=n_prompt + 1)
    assert ok.usable == 2
    with pytest.raises(DataError, match=f"none of its 2 rows keeps an answer token within max_seq_length={n_prompt}"):
        data_check.check_file(path, "train", tokenizer=tokenizer, max_seq_length=n_prompt)


def test_sft_check_reads_the_data(tmp_path, capsys) -> None:
    """``llmp-sft --check``: a corrupt line fails the check (exit 1, file and line named), without a model."""
    data = _jsonl(tmp_path / "train.jsonl", json.dumps(ROW), "{oops")
    config = tmp_path / "sft.yaml"
    config.write_text(
        f"model_id: {tmp_path / 'no-model-here'}\ntrain_dataset_path: {data}\n"
        f"output_dir: {tmp_path / 'out'}\nuse_cpu: true\nreport_to: none\n"
    )
    assert sft.main(["--config", str(config), "--check"]) == 1
    assert f"{data}:2: not valid JSON" in capsys.readouterr().err
    _jsonl(data, json.dumps(ROW))
    assert sft.main(["--config", str(config), "--check"]) == 0


def test_checkpoint_space_is_checked_with_the_size_needed(tmp_path, monkeypatch) -> None:
    import torch

    model = torch.nn.Linear(1000, 1000)  # 1,001,000 trainable fp32 parameters
    model.bias.requires_grad_(False)
    sizes = data_check.check_checkpoint_space(tmp_path / "out", model, merged_dir=tmp_path / "merged")
    assert sizes["checkpoint_bytes"] == int(1_000_000 * (4 + 8) * data_check.SPACE_MARGIN)
    assert sizes["merged_bytes"] == int(1000 * 4 * data_check.SPACE_MARGIN)
    monkeypatch.setattr(data_check.shutil, "disk_usage", lambda p: SimpleNamespace(free=5 * 2**20))
    with pytest.raises(DataError, match=r"5 MiB free, a checkpoint needs 13 MiB"):
        data_check.check_checkpoint_space(tmp_path / "out", model)


def test_sft_check_on_a_machine_without_the_data_says_so(tmp_path, capsys) -> None:
    config = tmp_path / "sft.yaml"
    config.write_text(
        f"model_id: /fsx/models/m\ntrain_dataset_path: /fsx/datasets/none/train.jsonl\n"
        f"output_dir: {tmp_path / 'out'}\nuse_cpu: true\n"
    )
    assert sft.main(["--config", str(config), "--check"]) == 0
    assert "/fsx/datasets/none/train.jsonl is not reachable from here" in capsys.readouterr().err


# --- disk: every checkpoint the run keeps, and a failed write named by path and space -----------------------------


def test_checkpoints_to_write_counts_the_limit_plus_the_one_being_written(tmp_path) -> None:
    out = tmp_path / "out"
    assert data_check.checkpoints_to_write(out, save_total_limit=3, planned=None) == 4
    assert data_check.checkpoints_to_write(out, save_total_limit=3, planned=2) == 2  # a short run saves twice
    assert data_check.checkpoints_to_write(out, save_total_limit=None, planned=7) == 7  # no limit: every save
    for step in (10, 20):
        (out / f"checkpoint-{step}").mkdir(parents=True)
    assert data_check.checkpoints_to_write(out, save_total_limit=3, planned=None) == 2  # two already on disk
    assert data_check.checkpoints_to_write(out, save_total_limit=1, planned=None) == 1


def test_sft_keeps_a_bounded_number_of_checkpoints_by_default() -> None:
    script, args = sft.parse_config(
        {"model_id": "m", "train_dataset_path": "t.jsonl", "output_dir": "/tmp/x", "use_cpu": True}
    )
    assert args.save_total_limit == sft.DEFAULT_SAVE_TOTAL_LIMIT
    _, given = sft.parse_config(
        {
            "model_id": "m",
            "train_dataset_path": "t.jsonl",
            "output_dir": "/tmp/x",
            "use_cpu": True,
            "save_total_limit": 5,
        }
    )
    assert given.save_total_limit == 5


def test_space_check_counts_every_checkpoint_kept(tmp_path, monkeypatch) -> None:
    import torch

    model = torch.nn.Linear(1000, 1000)
    model.bias.requires_grad_(False)
    one = int(1_000_000 * 12 * data_check.SPACE_MARGIN)
    monkeypatch.setattr(data_check.shutil, "disk_usage", lambda p: SimpleNamespace(free=2 * one))
    data_check.check_checkpoint_space(tmp_path / "out", model, checkpoints=2)
    with pytest.raises(DataError, match=r"3 checkpoints of 13 MiB \(save_total_limit \+ the one being written\)"):
        data_check.check_checkpoint_space(tmp_path / "out", model, checkpoints=3)


@pytest.fixture
def small_disk(tmp_path):
    """A real 1 MiB file system (tmpfs), where this machine lets the tests mount one."""
    import subprocess

    where = tmp_path / "small"
    where.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True, timeout=10
        ).returncode
    ):
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    yield where
    subprocess.run(["umount", str(where)], capture_output=True, timeout=10)


def test_a_full_disk_write_is_named_by_path_and_space(small_disk) -> None:
    import torch

    try:
        torch.save({"w": torch.zeros(1 << 20)}, small_disk / "optimizer.pt")  # 4 MiB into 1 MiB: fails for real
    except (OSError, RuntimeError) as exc:
        failure = data_check.write_failure(exc, small_disk, 4 << 20)
    else:
        pytest.fail("torch.save of 4 MiB into a 1 MiB file system succeeded")
    assert failure is not None
    message = str(failure)
    assert str(small_disk) in message and "MiB free, a checkpoint needs 4 MiB" in message
    assert "lower save_total_limit" in message


def test_an_unrelated_error_is_not_called_a_full_disk(tmp_path) -> None:
    assert data_check.write_failure(RuntimeError("CUDA error: device-side assert"), tmp_path, 1) is None
    named = data_check.write_failure(RuntimeError("basic_ios::clear: iostream error"), tmp_path, 1)
    assert named is not None and str(tmp_path) in str(named)


def test_sft_check_refuses_a_missing_dataset_where_the_path_is_checkable(tmp_path, capsys, monkeypatch) -> None:
    """A path on this machine, or any path under `llmft run --local` ($LLMFT_LOCAL_FSX): missing is a fact."""
    config = tmp_path / "sft.yaml"
    config.write_text(
        f"model_id: {tmp_path / 'm'}\ntrain_dataset_path: {tmp_path / 'datasets/none/train.jsonl'}\n"
        f"output_dir: {tmp_path / 'out'}\nuse_cpu: true\n"
    )
    assert sft.main(["--config", str(config), "--check"]) == 1
    assert "datasets/none/train.jsonl: no such file" in capsys.readouterr().err
    if not Path("/fsx").exists():
        config.write_text(
            "model_id: /fsx/models/m\ntrain_dataset_path: /fsx/datasets/none/train.jsonl\n"
            f"output_dir: {tmp_path / 'out'}\nuse_cpu: true\n"
        )
        monkeypatch.setenv("LLMFT_LOCAL_FSX", str(tmp_path))
        assert sft.main(["--config", str(config), "--check"]) == 1
