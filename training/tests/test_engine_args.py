"""llm_platform.engine_args: a serve spec's engine_args parsed by SGLang's own parser (sglang 0.5.21 of the lock)."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from llm_platform.engine_args import check_engine_args


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


def test_an_unknown_flag_gets_sglangs_own_message() -> None:
    problems = check_engine_args("sglang", ["--no-such-flag"])
    assert problems == ["engine_args: sglang refuses them: unrecognized arguments: --no-such-flag"]


def test_a_value_of_the_wrong_type_is_refused() -> None:
    problems = check_engine_args("sglang", ["--mem-fraction-static", "abc"])
    assert problems == ["engine_args: sglang refuses them: argument --mem-fraction-static: invalid float value: 'abc'"]


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--model-path", "/fsx/other"], "--model-path/--model"),
        (["--model=/fsx/other"], "--model-path/--model"),
        (["--port", "8000"], "--port"),
        (["--host", "0.0.0.0"], "--host"),
        (["--tp-size", "2"], "--tp-size/--tensor-parallel-size"),
        (["--tp", "2"], "--tp-size/--tensor-parallel-size"),  # argparse's prefix matching, as SGLang parses it
        (["--served-model-name", "x"], "--served-model-name"),
        (["--enable-metrics"], "--enable-metrics"),
    ],
)
def test_flags_the_platform_sets_are_refused_by_name(args, shown) -> None:
    problems = check_engine_args("sglang", ["--context-length", "4096", *args])
    assert len(problems) == 1 and problems[0].startswith(f"engine_args: {shown} is set by the platform"), problems


def test_platform_flags_are_named_even_beside_a_parse_error() -> None:
    problems = check_engine_args("sglang", ["--port", "8000", "--no-such-flag"])
    assert problems[0].startswith("engine_args: --port is set by the platform") and "--no-such-flag" in problems[1]


def test_help_and_other_engines_and_shapes() -> None:
    assert "unrecognized arguments: --help" in check_engine_args("sglang", ["--help"])[0]
    assert check_engine_args("vllm", []) == ["engine: 'vllm' is not an engine of the platform; use one of sglang"]
    assert "must be a list of strings" in check_engine_args("sglang", ["--context-length", 4096])[0]
