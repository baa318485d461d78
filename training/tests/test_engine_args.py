"""llm_platform.engine_args: a serve spec's engine_args parsed by SGLang's own parser (sglang 0.5.21 of the lock)."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from llm_platform.engine_args import check_engine_args
from llm_platform.engine_flags import PLATFORM


def test_the_pinned_sglang_parses() -> None:
    assert version("sglang") == "0.5.21"  # images/verl-sglang/requirements.lock's engine


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--mem-fraction-static", "0.85", "--context-length", "4096"],
        ["--mem-fraction-static=0.9", "--chunked-prefill-size", "8192", "--enable-torch-compile"],
    ],
)
def test_good_flags_pass(args) -> None:
    assert check_engine_args("sglang", args) == []


def test_an_unknown_flag_is_refused_by_the_allowlist_before_sglang() -> None:
    problems = check_engine_args("sglang", ["--no-such-flag"])
    assert problems[0].startswith("engine_args: --no-such-flag is not an engine flag the platform allows"), problems


def test_a_value_of_the_wrong_type_is_refused() -> None:
    problems = check_engine_args("sglang", ["--mem-fraction-static", "abc"])
    assert problems == ["engine_args: --mem-fraction-static 'abc' is not a number"]


def test_what_the_allowlist_takes_sglangs_parser_still_checks(monkeypatch) -> None:
    """The allowlist is the platform's; SGLang's own parser still runs after it where SGLang is installed."""
    from llm_platform import engine_flags

    monkeypatch.setitem(engine_flags.ALLOWED, "--mem-fraction-static", engine_flags.Rule("name"))
    problems = check_engine_args("sglang", ["--mem-fraction-static", "abc"])
    assert problems == ["engine_args: sglang refuses them: argument --mem-fraction-static: invalid float value: 'abc'"]


@pytest.mark.parametrize(
    "args",
    [
        ["--model-path", "/fsx/other"],
        ["--model=/fsx/other"],
        ["--port", "8000"],
        ["--host", "0.0.0.0"],
        ["--tp-size", "2"],
        ["--tensor-parallel-size", "2"],
        ["--tp", "2"],
        ["--served-model-name", "x"],
        ["--enable-metrics"],
    ],
)
def test_flags_the_platform_sets_are_refused_by_name(args) -> None:
    problems = check_engine_args("sglang", ["--context-length", "4096", *args])
    flag = args[0].split("=")[0]
    assert problems == [f"engine_args: {flag} is set by the platform ({PLATFORM[flag]}); remove it"], problems


def test_platform_flags_are_named_beside_unknown_ones() -> None:
    problems = check_engine_args("sglang", ["--port", "8000", "--no-such-flag"])
    assert problems[0].startswith("engine_args: --port is set by the platform") and "--no-such-flag" in problems[1]


def test_help_and_other_engines_and_shapes() -> None:
    assert "--help is not an engine flag the platform allows" in check_engine_args("sglang", ["--help"])[0]
    assert check_engine_args("vllm", []) == ["engine: 'vllm' is not an engine of the platform; use one of sglang"]
    assert "must be a list of strings" in check_engine_args("sglang", ["--context-length", 4096])[0]
