"""Everything a job writes on the team's FSx tree is read-write for the team's group (Studio users of the team have
their own uid but the team's gid) and closed to others: every entry point sets the team umask first."""

from __future__ import annotations

import importlib
import os
import stat
import tomllib
from pathlib import Path

import pytest
import yaml
from llm_platform.paths import TEAM_UMASK
from tiny import medical_rows, write_jsonl

SCRIPTS = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]["scripts"]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_entry_point_sets_the_team_umask_first(script: str, tmp_path: Path) -> None:
    module, func = SCRIPTS[script].split(":")
    main = getattr(importlib.import_module(module), func)
    os.umask(0o022)  # the container default
    try:
        main(["--config", str(tmp_path / "missing.yaml")])  # fails at once: no config
    except (SystemExit, Exception):  # noqa: BLE001 - only the umask matters here
        pass
    assert os.umask(0o022) == TEAM_UMASK, script


def test_prepared_data_is_group_writable_and_closed_to_others(tmp_path: Path) -> None:
    from llm_platform import prepare_data
    from tiny import build_model

    rows = medical_rows(8)
    model = build_model(tmp_path / "model", [r["Question"] for r in rows])
    config = tmp_path / "prep.yaml"
    out = tmp_path / "team" / "datasets" / "medical"
    config.write_text(
        yaml.safe_dump(
            {
                "source": str(write_jsonl(tmp_path / "m.jsonl", rows)),
                "format": "sft-r1",
                "tokenizer_path": str(model),
                "output_dir": str(out),
                "test_size": 0.25,
            }
        )
    )
    os.umask(0o022)
    assert prepare_data.main(["--config", str(config)]) == 0
    created = [out, *out.rglob("*")]
    assert len(created) > 1
    for path in created:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o060 == 0o060 and mode & 0o007 == 0, (path, oct(mode))
