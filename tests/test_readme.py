"""The README stays true: its config reference is the generated one, and it shows the commands CI runs."""

from __future__ import annotations

from config.__main__ import END, START, reference

from .conftest import ROOT


def test_config_reference_in_readme_is_current() -> None:
    text = (ROOT / "README.md").read_text()
    section = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert section == reference().strip(), "README config reference is stale: run `make docs` and commit"


def test_readme_and_ci_agree_on_the_test_command() -> None:
    assert "make test" in (ROOT / "README.md").read_text()
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make synth" in (ROOT / "README.md").read_text()
