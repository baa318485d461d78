"""The architecture picture (docs/architecture.svg) is generated from the app and kept current: `make docs` writes
docs/architecture.dot from a prod synthesis (tools/architecture.py) and renders it with Graphviz; this test
regenerates the DOT from this session's prod synthesis and checks that the committed DOT and SVG are that picture."""

from __future__ import annotations

from tools.architecture import STAMP, dot, dot_digest

from .conftest import ROOT, Synth

DOT = ROOT / "docs" / "architecture.dot"
SVG = ROOT / "docs" / "architecture.svg"


def test_picture_is_generated_from_the_current_app(prod: Synth) -> None:
    text = dot(prod.outdir)
    assert DOT.is_file() and DOT.read_text() == text, "docs/architecture.dot is stale: run `make docs`"
    stamp = STAMP.search(SVG.read_text())
    assert stamp and stamp.group(1) == dot_digest(text), "docs/architecture.svg is stale: run `make docs`"


def test_picture_shows_every_stack_and_its_dependencies(prod: Synth) -> None:
    text = dot(prod.outdir)
    for stack in prod.stacks.values():
        assert f'"cluster_{stack.artifact_id}"' in text, stack.artifact_id
        for dep in stack.dependencies:
            assert f'lhead="cluster_{dep.artifact_id}"' in text, (stack.artifact_id, dep.artifact_id)
    from cdk_constructs.compute.addon import registered

    for addon in registered(prod.config):  # every chart from a repository (our own chart asset is not drawn)
        if addon.repository is not None:
            assert f"helm: {addon.chart}" in text, addon.name
