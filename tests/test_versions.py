"""The upstream versions table (config/versions.py) against every copy of a version that cannot read it: the vendored
CRDs' and upstream files' SOURCES.md rows, the vendored charts' Chart.yaml, the requirements files and the locks.
Moving one row of the table and forgetting a copy fails here, naming the copy; a vendored repository or folder the
table does not know fails too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from config.versions import UPSTREAM, Upstream

from .conftest import ROOT

CRD_SOURCES = ROOT / "k8s_charts" / "crds" / "SOURCES.md"
UPSTREAM_DIR = ROOT / "tests" / "upstream"


def sources_rows(path: Path) -> list[list[str]]:
    """The table rows of a SOURCES.md (cells stripped), without the header and separator."""
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in path.read_text().splitlines()
        if line.startswith("| ") and not line.startswith("|---")
    ]
    return rows[1:]


def crd_rows() -> list[tuple[str, str, str]]:
    """(file, repository, ref) of every vendored CRD."""
    return [(r[0], r[1], r[3]) for r in sources_rows(CRD_SOURCES)]


WITH_REPOSITORY = {name: u for name, u in UPSTREAM.items() if u.repository}


@pytest.mark.parametrize("name", sorted(WITH_REPOSITORY))
def test_every_vendored_crd_of_a_release_is_from_its_tag(name: str) -> None:
    upstream = WITH_REPOSITORY[name]
    rows = [r for r in crd_rows() if r[1] == upstream.repository]
    assert rows, f"{name}: no vendored CRD of {upstream.repository} in {CRD_SOURCES.relative_to(ROOT)}"
    stale = [f"{file} ({ref})" for file, _, ref in rows if not ref.startswith(f"{upstream.ref} (")]
    assert not stale, (
        f"{name} is {upstream.version} in config/versions.py (tag {upstream.ref}), but these vendored CRDs are "
        f"from another tag: {', '.join(stale)}; vendor the tag's files (k8s_charts/crds/SOURCES.md) and `make imports`"
    )


def test_every_vendored_crd_repository_is_a_release_of_the_table() -> None:
    known = {u.repository for u in UPSTREAM.values()}
    unknown = sorted({repo for _, repo, _ in crd_rows()} - known)
    assert not unknown, f"vendored CRDs of {unknown} have no row in config/versions.py UPSTREAM; add one"


@pytest.mark.parametrize("name", sorted(n for n, u in UPSTREAM.items() if u.vendored))
def test_every_vendored_chart_is_the_tables_chart_version(name: str) -> None:
    upstream = UPSTREAM[name]
    for folder in upstream.vendored:
        chart = yaml.safe_load((UPSTREAM_DIR / folder / "Chart.yaml").read_text())
        assert str(chart["version"]).removeprefix("v") == upstream.chart_version, (
            f"tests/upstream/{folder}/Chart.yaml is chart {chart['version']}, config/versions.py says "
            f"{upstream.chart_version}; vendor the new chart's files (tests/upstream/SOURCES.md)"
        )


def test_no_vendored_folder_names_another_release_of_a_table_entry() -> None:
    """A folder `<name>-<version>` under tests/upstream is a release of the table's `name`: only its pinned one."""
    pinned = {folder for u in UPSTREAM.values() for folder in u.vendored}
    stale = []
    for folder in sorted(p.name for p in UPSTREAM_DIR.iterdir() if p.is_dir()):
        match = re.fullmatch(r"(?P<name>[a-z-]+?)-v?(?P<version>\d+\.\d+\.\d+)", folder)
        if match and match["name"] in UPSTREAM and folder not in pinned:
            stale.append(folder)
    assert not stale, f"tests/upstream holds other releases than config/versions.py's: {stale}"


PINNED = [(name, file, package) for name, u in UPSTREAM.items() for file, package in u.pins]


@pytest.mark.parametrize(("name", "file", "package"), PINNED, ids=[f"{n}:{f}:{p}" for n, f, p in PINNED])
def test_every_requirements_file_and_lock_pins_the_tables_version(name: str, file: str, package: str) -> None:
    text = (ROOT / file).read_text()
    found = re.findall(rf"^{re.escape(package)}(?:\[[\w,-]+\])?==([^\s\\;]+)", text, re.M)
    assert found, f"{file} does not pin {package}"
    assert set(found) == {UPSTREAM[name].version}, (
        f"{file} pins {package}=={', '.join(sorted(set(found)))}, config/versions.py says {UPSTREAM[name].version}: "
        f"move them together (re-resolve the lock: `make images-lock`, training/requirements-test.lock)"
    )


def test_a_moved_row_is_caught_by_the_copies_it_leaves_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is not vacuous: Kueue moved in the table alone fails on its CRDs, its chart and nothing passes."""
    from config import versions

    moved = Upstream("0.99.0", repository="kubernetes-sigs/kueue", vendored=("kueue-0.19.2",))
    monkeypatch.setitem(versions.UPSTREAM, "kueue", moved)
    monkeypatch.setitem(WITH_REPOSITORY, "kueue", moved)
    with pytest.raises(AssertionError, match="from another tag"):
        test_every_vendored_crd_of_a_release_is_from_its_tag("kueue")
    with pytest.raises(AssertionError, match="Chart.yaml is chart"):
        test_every_vendored_chart_is_the_tables_chart_version("kueue")
