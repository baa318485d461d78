"""Save on eviction inside a GRPO run (issue 44, llm_platform.grpo_save): the mechanism read from the pinned VeRL's
source (the v1 trainer evaluates its save condition from the live configuration after every step, builds the
checkpoint callback with that configuration, and calls it after its resume marker), then run with VeRL's own save
condition on the shipped step's composed configuration and a temporary checkpoint folder."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from llm_platform import grpo, grpo_save, grpo_stop, preemption
from llm_platform.grpo_config import SAVE_CALLBACK, GrpoParameters

pytestmark = pytest.mark.e2e  # composes VeRL's configuration (docs/testing.md "Tiers")

VERL = Path(importlib.util.find_spec("verl").submodule_search_locations[0])
TRAINER = VERL / "trainer" / "ppo" / "v1" / "trainer_base.py"
CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def _function(path: Path, name: str, cls: str | None = None) -> ast.FunctionDef:
    tree = ast.parse(path.read_text())
    scopes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls] if cls else [tree]
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
    raise AssertionError(f"{path.relative_to(VERL.parent)}: no {cls + '.' if cls else ''}{name}")


def _calls(node: ast.AST, text: str) -> bool:
    return any(isinstance(n, ast.Call) and ast.unparse(n.func) == text for n in ast.walk(node))


def save_condition() -> ast.expr:
    """The test of the ``if`` inside ``fit``'s training loop whose body calls ``self._save_checkpoint()``."""
    fit = _function(TRAINER, "fit", "PPOTrainer")
    loops = [n for n in ast.walk(fit) if isinstance(n, ast.While)]
    found = [
        n.test
        for loop in loops
        for n in ast.walk(loop)
        if isinstance(n, ast.If) and any(_calls(s, "self._save_checkpoint") for s in n.body)
    ]
    assert len(found) == 1, [ast.unparse(t) for t in found]
    return found[0]


def verl_saves(config, step: int, *, last: bool = False) -> bool:
    """VeRL's own condition, evaluated as ``fit`` evaluates it at the end of ``step``."""
    trainer = SimpleNamespace(config=config, global_steps=step)
    code = compile(ast.Expression(save_condition()), str(TRAINER), "eval")
    return bool(eval(code, {"self": trainer, "is_last_step": last}))  # VeRL's own expression, from its source


@pytest.fixture(scope="module")
def shipped():
    params = GrpoParameters.from_mapping(yaml.safe_load((CONFIGS / "grpo.yaml").read_text()))
    return grpo.compose(params.overrides())


@pytest.fixture
def live(shipped, tmp_path: Path):
    """A copy of the shipped configuration, as the trainer holds it, checkpointing into ``tmp_path``."""
    from omegaconf import OmegaConf, open_dict

    config = OmegaConf.create(OmegaConf.to_container(shipped, resolve=True))
    with open_dict(config):
        config.trainer.default_local_dir = str(tmp_path)
    return config


# --- the mechanism, at the pinned version --------------------------------------------------------------------------


def test_fit_reads_save_freq_from_the_live_configuration_after_every_step() -> None:
    """The condition reads ``self.config.trainer.save_freq`` (not a copy taken before the loop), inside the loop,
    after the step: lowering it on the configuration object during a step makes that step end with a save."""
    test = ast.unparse(save_condition())
    assert "self.config.trainer.save_freq" in test and "self.global_steps %" in test
    fit = _function(TRAINER, "fit", "PPOTrainer")
    assert not any(isinstance(n, ast.Assign) and "save_freq" in ast.unparse(n) for n in ast.walk(fit))


def test_every_v1_trainer_runs_that_fit() -> None:
    """No trainer of the v1 package (sync, colocate- and separate-async) overrides ``fit`` or ``_save_checkpoint``
    (read from the source: importing them needs VeRL's GPU dependencies)."""
    defining = {
        (path.name, cls.name, fn.name)
        for path in sorted(TRAINER.parent.glob("*.py"))
        for cls in ast.walk(ast.parse(path.read_text()))
        if isinstance(cls, ast.ClassDef)
        for fn in cls.body
        if isinstance(fn, ast.FunctionDef) and fn.name in ("fit", "_save_checkpoint")
    }
    assert defining == {(TRAINER.name, "PPOTrainer", "fit"), (TRAINER.name, "PPOTrainer", "_save_checkpoint")}


def test_the_callback_gets_the_configuration_the_trainer_reads() -> None:
    """TaskRunnerV1.run hands its configuration to the trainer, whose __init__ keeps it as ``self.config`` and
    builds the callback from the same object; nothing in the trainer replaces ``self.config`` later."""
    run = ast.unparse(_function(VERL / "trainer" / "main_ppo.py", "run", "TaskRunnerV1"))
    assert "self.trainer = trainer_cls(config=config)" in run
    init = ast.unparse(_function(TRAINER, "__init__", "PPOTrainer"))
    assert "self.config = config" in init and "build_checkpoint_callback(config)" in init
    assigns = [n for n in ast.walk(ast.parse(TRAINER.read_text())) if isinstance(n, ast.Assign)]
    assert sum(ast.unparse(t) == "self.config" for n in assigns for t in n.targets) == 1
    build = ast.unparse(_function(VERL / "trainer" / "ppo" / "checkpoint_callback.py", "build_checkpoint_callback"))
    assert "config.trainer.get('checkpoint_callback_class'" in build and "callback_cls(config=config)" in build


def test_the_callback_is_called_after_verls_resume_marker() -> None:
    save = _function(TRAINER, "_save_checkpoint", "PPOTrainer")
    text = ast.unparse(save)
    marker = text.index("'latest_checkpointed_iteration.txt'")
    synchronous = text.index("async_save=False")
    assert marker < synchronous and text.rindex("self.checkpoint_callback.on_save(") < synchronous


def test_the_shipped_step_names_the_callback_and_verl_can_load_it(shipped) -> None:
    from verl.trainer.ppo.checkpoint_callback import CheckpointCallback
    from verl.utils.import_utils import load_class_from_fqn

    assert shipped.trainer.checkpoint_callback_class == SAVE_CALLBACK
    assert issubclass(load_class_from_fqn(SAVE_CALLBACK, "CheckpointCallback"), CheckpointCallback)


def test_the_planned_checkpoint_is_what_verl_saves_per_parameter(shipped) -> None:
    """fp32 weights and AdamW's two fp32 moments: the figure the grace period is sized from."""
    actor = shipped.actor_rollout_ref.actor
    dtype_bytes = {"fp32": 4, "bf16": 2}[actor.fsdp_config.model_dtype]
    moments = 2 if actor.optim.optimizer == "AdamW" and "optimizer" in actor.checkpoint.save_contents else 0
    assert "model" in actor.checkpoint.save_contents
    assert preemption.GRPO_CHECKPOINT_BYTES_PER_PARAM == dtype_bytes * (1 + moments)


# --- the run's half of the protocol, with VeRL's condition ------------------------------------------------------


def _requests(live, tmp_path: Path, lines: list[str]) -> grpo_save.SaveRequests:
    return grpo_save.SaveRequests(tmp_path, live, log=lines.append)


def test_a_request_makes_the_next_step_save_then_the_saved_marker_is_written(live, tmp_path: Path) -> None:
    freq = live.trainer.save_freq
    step = freq + 1  # a step the schedule would not save
    requests = _requests(live, tmp_path, lines := [])
    requests.poll()
    assert not verl_saves(live, step)
    grpo_stop.request_save(tmp_path)
    requests.poll()
    assert verl_saves(live, step) and lines
    assert not (tmp_path / grpo_stop.SAVED).exists()  # not before VeRL's save
    requests.saved(step, last=False)
    assert grpo_stop.saved_step(tmp_path) == step
    assert not (tmp_path / grpo_stop.REQUEST).exists() and live.trainer.save_freq == freq
    assert not verl_saves(live, step + 1)


def test_a_request_left_by_a_previous_attempt_does_not_force_a_save(live, tmp_path: Path) -> None:
    grpo_stop.request_save(tmp_path)
    grpo_stop.write_atomic(tmp_path / grpo_stop.SAVED, json.dumps({"step": 40}))
    requests = _requests(live, tmp_path, [])
    requests.poll()
    assert not verl_saves(live, live.trainer.save_freq + 1)
    assert not (tmp_path / grpo_stop.REQUEST).exists() and not (tmp_path / grpo_stop.SAVED).exists()


def test_the_heartbeat_moves_and_stops_after_the_last_step(live, tmp_path: Path) -> None:
    requests = _requests(live, tmp_path, [])
    beats = []
    for _ in range(3):
        requests.poll()
        beats.append(grpo_stop.read(tmp_path / grpo_stop.ALIVE))
    assert len(set(beats)) == 3
    requests.saved(99, last=True)
    requests.poll()
    assert not (tmp_path / grpo_stop.ALIVE).exists()


def test_a_first_attempt_beats_before_verl_created_the_folder(live, tmp_path: Path) -> None:
    folder = tmp_path / "not-yet"
    grpo_save.SaveRequests(folder, live, log=[].append).poll()
    assert grpo_stop.read(folder / grpo_stop.ALIVE) == "1"


def test_the_hook_and_the_run_together(live, tmp_path: Path) -> None:
    """The preStop hook on a fake clock; between its polls the run beats, and a step ends with VeRL's condition."""
    requests = _requests(live, tmp_path, [])
    requests.poll()
    state = {"step": live.trainer.save_freq + 1}

    def run(now: float) -> None:
        requests.poll()
        if verl_saves(live, state["step"]):
            requests.saved(state["step"], last=False)
        state["step"] += 1

    clock = SimpleNamespace(now=0.0)

    def sleep(seconds: float) -> None:
        clock.now += seconds
        run(clock.now)

    outcome = grpo_stop.wait_for_save(tmp_path, 600, clock=lambda: clock.now, sleep=sleep)
    assert outcome == "saved" and grpo_stop.saved_step(tmp_path) == live.trainer.save_freq + 1


def test_the_callback_thread_beats_and_stops_after_the_last_save(live, tmp_path: Path) -> None:
    callback = grpo_save.SaveOnEviction(config=live)
    try:
        assert callback.requests.folder == tmp_path
        callback.on_save(SimpleNamespace(total_training_steps=5), global_step=5, checkpoint_dir=str(tmp_path))
        callback.thread.join(timeout=30)
        assert not callback.thread.is_alive()
        assert not (tmp_path / grpo_stop.ALIVE).exists()
    finally:
        callback.stopped.set()


def _until(condition, seconds: float = 60.0) -> bool:
    """Wait (bounded) for ``condition``; its value."""
    pause = threading.Event()
    for _ in range(int(seconds / 0.05)):
        if condition():
            return True
        pause.wait(0.05)
    return condition()


def test_the_hook_process_returns_once_the_running_callback_saved(live, tmp_path: Path) -> None:
    """Both halves as they run: the hook in a process of its own (as the pod's preStop), the callback's own thread,
    and a stand-in for ``fit``'s loop that evaluates VeRL's condition after every step and, when it is true, writes
    VeRL's marker and calls ``on_save`` as ``_save_checkpoint`` does."""
    freq = live.trainer.save_freq
    callback = grpo_save.SaveOnEviction(config=live)
    stop, saves = threading.Event(), []

    def fit() -> None:
        step = 0
        while not stop.wait(0.05):
            step += 1
            if verl_saves(live, step):
                (tmp_path / "latest_checkpointed_iteration.txt").write_text(str(step))
                saves.append(step)
                callback.on_save(SimpleNamespace(total_training_steps=10**9), global_step=step, checkpoint_dir="")

    loop = threading.Thread(target=fit, daemon=True)
    loop.start()
    try:
        assert _until(lambda: (tmp_path / grpo_stop.ALIVE).exists())
        argv = ["-m", grpo_stop.MODULE, "--checkpoint-dir", str(tmp_path), "--budget-seconds", "120"]
        hook = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=180, check=False)
        assert hook.returncode == 0 and hook.stdout.startswith(f"{grpo_stop.LOG_PREFIX}: saved"), hook
        assert grpo_stop.saved_step(tmp_path) in saves
        assert not (tmp_path / grpo_stop.REQUEST).exists() and live.trainer.save_freq == freq
    finally:
        stop.set()
        callback.stopped.set()
        loop.join(timeout=30)
        callback.thread.join(timeout=30)
