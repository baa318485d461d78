"""llm_platform.engine_flags: a serve spec's engine_args by allowlist (issue 40), checked without SGLang; the
allowlist itself checked against the pinned SGLang's parser (sglang 0.5.21, sglang/srt/server_args.py)."""

from __future__ import annotations

import argparse

import pytest
from llm_platform import engine_flags as ef
from llm_platform.engine_args import PLATFORM_FLAGS, sglang_parser

MODEL = "/fsx/checkpoints/medical-sft/merged"


@pytest.fixture(scope="module")
def actions() -> dict[str, argparse.Action]:
    return {o: a for a in sglang_parser()._actions for o in a.option_strings}


def test_every_allowed_flag_is_sglangs_with_the_same_kind_of_value(actions) -> None:
    for flag, rule in ef.ALLOWED.items():
        action = actions.get(flag)
        assert action is not None, f"{flag} is not a flag of the pinned SGLang"
        assert (rule.kind == "switch") == (action.nargs == 0), flag
        if rule.kind == "choice":
            assert action.choices is None or set(rule.choices) <= set(action.choices), (flag, action.choices)
        if rule.kind in ("int", "float"):
            assert action.type is not None and action.type.__name__ in ("int", "float", "human_readable_int"), flag


def test_every_spelling_of_a_platform_flag_is_the_platforms(actions) -> None:
    platform_dests = set(PLATFORM_FLAGS) | {"dp_size"}
    spellings = {o for o, a in actions.items() if a.dest in platform_dests}
    assert spellings <= set(ef.PLATFORM)
    assert set(ef.PLATFORM) - {"--tp", "--dp"} <= set(actions)  # --tp/--dp: prefixes SGLang's argparse expands
    assert set(ef.REFUSED) <= set(actions), "each refusal names a real SGLang flag"
    assert not set(ef.ALLOWED) & (set(ef.PLATFORM) | set(ef.REFUSED))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--model-pa", "/fsx/other"],
            "--model-pa is not an engine flag the platform allows (did you mean --model-path?",
        ),
        (["--mem-frac", "0.9"], "did you mean --mem-fraction-static?"),
        (["--load-format", "dummy"], "--load-format 'dummy' is not one of auto, safetensors"),
        (["--load-format=dummy"], "--load-format 'dummy' is not one of auto, safetensors"),
        (["--lora-paths", "a=/fsx/x"], "--lora-paths is refused: the serve spec declares no adapters"),
        (["--trust-remote-code"], "--trust-remote-code is refused: it runs Python from the model's repository"),
        (["--tokenizer-path", "Qwen/Qwen2.5-7B"], "--tokenizer-path 'Qwen/Qwen2.5-7B' must be an absolute path inside"),
        (["--chat-template", "/fsx/other/t.jinja"], f"must be an absolute path inside {MODEL}"),
        (["--chat-template", f"{MODEL}/../../x.jinja"], "must be an absolute path inside"),
        (["--context-length", "4096", "--context-length", "8192"], "--context-length is given twice"),
        (["4096"], "'4096' is not a flag"),
        (["--enable-torch-compile=1"], "--enable-torch-compile is a switch and takes no value"),
        (["--context-length"], "--context-length needs a value"),
        (["--context-length", "0"], "--context-length '0' is outside 1..None"),
        (["--mem-fraction-static", "nan"], "is not a finite number"),
        (["--reasoning-parser", "$(id)"], "is not a parser name"),
        (["--tp=2"], "--tp is set by the platform"),
    ],
)
def test_attacks_are_refused_naming_flag_value_and_fix(args, expected) -> None:
    problems = ef.flag_problems(args, model_dir=MODEL)
    assert any(expected in p for p in problems), problems
    assert all(p.startswith("engine_args: ") for p in problems)


def test_good_flags_pass_with_paths_inside_the_version() -> None:
    args = [
        "--context-length", "4096", "--mem-fraction-static=0.85", "--enable-torch-compile",
        "--chat-template", f"{MODEL}/chat_template.jinja", "--tokenizer-path", f"{MODEL}/tok",
        "--chunked-prefill-size", "-1", "--load-format", "safetensors",
    ]  # fmt: skip
    assert ef.flag_problems(args, model_dir=MODEL) == []
    assert ef.flag_problems(args) == []  # before the version is resolved: absolute, normalized paths


def test_every_problem_at_once() -> None:
    problems = ef.flag_problems(["--trust-remote-code", "--model-pa", "/x", "--load-format", "dummy"])
    assert len(problems) == 3, problems  # the remote code, the prefix (with its value), the dummy weights


def test_joined_tokens_are_what_the_admission_patterns_take() -> None:
    """The renderer joins values to flags (llmft/serve_build.py); the production admission rule checks each token
    with these patterns (k8s_charts/team_guardrails.py): a good spec's tokens all match, none of the attacks do."""
    import re

    patterns = ef.admission_patterns()
    regexes = [re.compile(patterns[k]) for k in ("int", "float", "name")]

    def taken(token: str) -> bool:
        return token in patterns["exact"] or any(r.match(token) for r in regexes)

    good = ["--context-length", "4096", "--mem-fraction-static", "0.85", "--enable-torch-compile", "--dtype", "auto"]
    assert ef.flag_problems(good) == [] and all(taken(t) for t in ef.joined(good))
    for bad in ("--load-format=dummy", "--model-pa=/x", "--trust-remote-code", "--lora-paths=a", "--context-length=x"):
        assert not taken(bad), bad
    assert all("\\" not in str(v) for v in patterns.values()), "CEL string literals: no backslash escapes"
