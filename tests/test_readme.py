"""The README and docs/ stay true: the config reference is the generated one, the README shows the commands CI runs,
is short, every relative link (file and anchor) resolves, and every file the architecture map names exists."""

from __future__ import annotations

import re
from pathlib import Path

from config.__main__ import END, START, reference

from .conftest import DOCS, ROOT

PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file."""
    text = _FENCE.sub("", path.read_text())
    out = set()
    for heading in re.findall(r"^#+ (.+?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def test_config_reference_is_current() -> None:
    text = (DOCS / "configuration.md").read_text()
    section = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert section == reference().strip(), "docs/configuration.md is stale: run `make docs` and commit"


def test_readme_and_ci_agree_on_the_test_command() -> None:
    assert "make test" in (ROOT / "README.md").read_text()
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make synth" in (ROOT / "README.md").read_text()


def test_readme_is_what_a_newcomer_needs_first() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert "docs/architecture.svg" in text
    linked = {Path(m).name for m in re.findall(r"\]\(docs/([\w.-]+\.md)", text)}
    assert linked == {p.name for p in DOCS.glob("*.md")}, "every docs/ page is in the README's index"


def test_every_relative_link_and_anchor_resolves() -> None:
    broken = []
    for page in PAGES:
        for target in _LINK.findall(_CODE.sub("", _FENCE.sub("", page.read_text()))):
            if re.match(r"^[a-z]+://|^mailto:", target):
                continue
            file_part, _, anchor = target.partition("#")
            path = (page.parent / file_part).resolve() if file_part else page
            if not path.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_file_the_architecture_map_names_exists() -> None:
    """The map's "file" column: every backticked repository path (a file or folder of this repository) exists."""
    text = (DOCS / "architecture.md").read_text()
    roots = (
        "app.py",
        "stacks/",
        "cdk_constructs/",
        "k8s_charts/",
        "config/",
        "llmft/",
        "training/",
        "tools/",
        "images/",
        "charts/",
        "lifecycle_scripts/",
        "studio_lifecycle/",
        "mlflow_image/",
        "tests/",
        "examples/",
    )
    missing = []
    named = 0
    for path in re.findall(r"`([\w./<>-]+)`", text):
        if not path.startswith(roots) or "<" in path or "*" in path:
            continue
        named += 1
        clean = path.split("::")[0].rstrip(".,")
        if not (ROOT / clean).exists():
            missing.append(path)
    assert named > 30 and not missing, missing
