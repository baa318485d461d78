"""The repository stands alone: CI runs on a fresh clone with nothing beside it, so no test, tool or build step reads
a path outside the repository (the CRDs are vendored in k8s_charts/crds, upstream reference files in tests/upstream)."""

from __future__ import annotations

import re

from .conftest import ROOT

# The folder that sits beside the repository on the developers' machines (spelled in parts, so that this guard is not
# itself a reference to it).
BESIDE = "/".join(("..", "sha" + "red"))
# How code has reached outside the repository: the folder above the root, the folder beside it, an absolute
# workspace path.
OUTSIDE = re.compile(r"ROOT\.parent\b|" + re.escape(BESIDE) + r"|[\"']" + "sha" + r"red[\"'] / |/work/")


def test_no_test_or_tool_reads_outside_the_repository() -> None:
    files = [
        *ROOT.glob("tests/*.py"),
        *ROOT.glob("tools/**/*.py"),
        *ROOT.glob("config/*.py"),
        *ROOT.glob("k8s_charts/*.py"),
        *ROOT.glob("cdk_constructs/**/*.py"),
        *ROOT.glob("stacks/*.py"),
        *ROOT.glob("llmft/**/*.py"),
        *ROOT.glob("training/llm_platform/**/*.py"),
        *ROOT.glob("training/tests/*.py"),
        *ROOT.glob("mlflow_image/*.py"),
        ROOT / "app.py",
    ]
    found = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in files
        if p != ROOT / "tests" / "test_self_contained.py"
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == []


def test_the_makefile_builds_from_the_repository() -> None:
    """Only `make gitops` names a folder beside the repository: the user's GitOps checkout (GITOPS_REPO), which no
    build or test step needs."""
    lines = [line for line in (ROOT / "Makefile").read_text().splitlines() if not line.lstrip().startswith("#")]
    outside = [
        line
        for line in lines
        if "../" in line and not line.startswith("GITOPS_REPO ?=") and "cd training && ../" not in line
    ]
    assert outside == []


def test_docs_point_inside_the_repository() -> None:
    pages = [
        ROOT / "README.md",
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("charts/*/README.md"),
        ROOT / "k8s_charts" / "crds" / "SOURCES.md",
    ]
    assert [str(p.relative_to(ROOT)) for p in pages if BESIDE in p.read_text() or OUTSIDE.search(p.read_text())] == []
