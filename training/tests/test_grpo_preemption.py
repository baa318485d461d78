"""What a GRPO job does on eviction (issue 44, docs/training.md "GRPO (VeRL) on SIGTERM"), read from the pinned VeRL's
installed source: the facts the platform's choices rest on (no save on demand, periodic checkpoints, an atomic
resume marker, the shipped configuration on that path). A VeRL upgrade that changes one of them fails here, so the
document and the grace period are revisited with it."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest
import yaml
from llm_platform import grpo
from llm_platform.grpo_config import GrpoParameters

pytestmark = pytest.mark.e2e  # composes VeRL's configuration (docs/testing.md "Tiers")

VERL = Path(importlib.util.find_spec("verl").submodule_search_locations[0])
CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def _function(path: Path, name: str, cls: str | None = None) -> str:
    """The source of function ``name`` (a method of ``cls``) in ``path``, without importing it (Ray, GPUs)."""
    text = path.read_text()
    tree = ast.parse(text)
    scopes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls] if cls else [tree]
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return ast.get_source_segment(text, node)
    raise AssertionError(f"{path.relative_to(VERL.parent)}: no {cls + '.' if cls else ''}{name}")


@pytest.fixture(scope="module")
def shipped():
    params = GrpoParameters.from_mapping(yaml.safe_load((CONFIGS / "grpo.yaml").read_text()))
    return grpo.compose(params.overrides())


def test_verl_has_no_sigterm_handler() -> None:
    """Nothing in VeRL reacts to SIGTERM: a signal cannot ask it for a checkpoint."""
    found = [str(p.relative_to(VERL)) for p in VERL.rglob("*.py") if re.search(r"\bSIGTERM\b", p.read_text())]
    assert found == [], found


def test_the_training_loop_runs_in_a_ray_actor_not_in_the_driver() -> None:
    source = _function(VERL / "trainer" / "main_ppo.py", "run_ppo")
    assert "ray.get(runner.run.remote(config))" in source


def test_the_shipped_job_runs_the_v1_trainer_resuming_from_its_own_checkpoints(shipped) -> None:
    assert shipped.trainer.use_v1 is True  # llmp-grpo then runs TaskRunnerV1 (grpo.run)
    assert shipped.trainer.resume_mode == "auto" and shipped.trainer.save_freq > 0
    assert not shipped.actor_rollout_ref.actor.checkpoint.get("async_save", False)  # the marker is written


def test_the_v1_trainer_saves_only_on_its_schedule() -> None:
    """Every save_freq steps and at the last step; no other trigger (no capacity-expiration check, unlike the legacy
    trainer's should_save_ckpt_esi)."""
    fit = _function(VERL / "trainer" / "ppo" / "v1" / "trainer_base.py", "fit")
    calls = [line.strip() for line in fit.splitlines() if "self._save_checkpoint()" in line]
    assert len(calls) == 1, calls
    assert "self.global_steps % self.config.trainer.save_freq == 0" in fit and "is_last_step" in fit
    assert "esi" not in fit.lower()


def test_the_resume_marker_is_written_after_the_checkpoint() -> None:
    """``latest_checkpointed_iteration.txt`` (what resume_mode=auto and llmp-grpo's merge read) comes after the
    actor shards and the data loader state: a save cut short by SIGKILL resumes from the previous one."""
    save = _function(VERL / "trainer" / "ppo" / "v1" / "trainer_base.py", "_save_checkpoint")
    actor, data = save.index("self.actor_rollout_wg.save_checkpoint("), save.index('"data.pt"')
    marker = save.index('"latest_checkpointed_iteration.txt"')
    assert actor < data < marker


def test_old_checkpoints_go_only_after_the_new_one_is_registered() -> None:
    """Before a save VeRL keeps max_ckpt_to_keep - 1 checkpoints (the newest, which the marker names, among them);
    the rest go once the new one is registered."""
    manager = VERL / "utils" / "checkpoint" / "checkpoint_manager.py"
    ensure = _function(manager, "ensure_checkpoint_capacity")
    assert "keep_start = len(self.previous_saved_paths) - max_ckpt_to_keep + 1" in ensure
    assert "self.previous_saved_paths.append(new_path)" in _function(manager, "register_checkpoint")
