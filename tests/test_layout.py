"""Layout guards: the package clash that breaks `import aws_cdk`, and the lambda/ asset folder."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def test_no_top_level_package_shadows_the_constructs_library() -> None:
    # A folder `constructs/` at the top level would win over the installed `constructs` library on sys.path and
    # `import aws_cdk` would fail with "No module named 'constructs._jsii'". Ours is called cdk_constructs/.
    assert not (ROOT / "constructs").exists() and not (ROOT / "constructs.py").exists(), \
        "rename the top-level constructs package: it shadows the constructs library (use cdk_constructs/)"


def test_constructs_resolves_to_the_library_from_the_project_root() -> None:
    code = "import constructs, aws_cdk; print(constructs.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "site-packages" in out


def test_lambda_folder_is_an_asset_not_a_package() -> None:
    lam = ROOT / "lambda"
    assert not (lam / "__init__.py").exists(), "lambda/ is an asset folder; `lambda` is a Python keyword anyway"


def test_a_constructs_folder_really_breaks_aws_cdk(tmp_path) -> None:
    """Why the guard above exists: reproduce the clash in a scratch directory."""
    (tmp_path / "constructs").mkdir()
    (tmp_path / "constructs" / "__init__.py").write_text("")
    proc = subprocess.run([sys.executable, "-c", "import aws_cdk"], cwd=tmp_path, capture_output=True, text=True,
                          check=False)
    assert proc.returncode != 0 and "constructs" in proc.stderr
