"""docs/cost.md's cost table, written from the pinned totals (tests/baselines/cost.json) by `make snapshots`.

The figures in the docs are never edited by hand: the baseline writer (tests/test_cost.py::test_pinned_totals with
``UPDATE_BASELINE=1``) rewrites the block between :data:`BEGIN` and :data:`END` with :func:`table`, and
tests/test_cost.py checks the block is exactly what the baseline and the configured budgets give.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

BEGIN = "<!-- cost table: written by `make snapshots` from tests/baselines/cost.json; never edit by hand -->"
END = "<!-- end of the cost table -->"
HEADER = (
    "| environment | idle $/month (no GPUs, no Studio apps) | max GPU spend $/hour | CPU job pool $/hour at its "
    "limit | observability $/month (of it `<Env>-Observability`) |\n|---|---|---|---|---|"
)
PRICE_FILE = "config/data/prices.yaml"


def _budget(budget: float | None) -> str:
    return f" (budget {budget:g})" if budget is not None else " (no budget)"


def row(env: str, figures: dict[str, Any], budget: float | None) -> str:
    """One environment's row: its pinned totals, or, in a region the price table lacks, that it is unpriced."""
    if "unpriced_region" in figures:
        pools = ", ".join(figures.get("unpriced_gpu_pools") or []) or "none"
        return (
            f"| {env} | unpriced: {figures['unpriced_region']} is not in {PRICE_FILE} | unpriced (GPU pools: "
            f"{pools}){_budget(budget)} | unpriced | unpriced |"
        )
    return (
        f"| {env} | {figures['idle_monthly_usd']:,.2f} | {figures['max_burst_usd_per_hour']:,.2f}{_budget(budget)} "
        f"| {figures['cpu_pools_usd_per_hour_at_limit']:,.2f} | {figures['observability_monthly_usd']:,.2f} "
        f"({figures['observability_stack_monthly_usd']:,.2f}) |"
    )


def table(pinned: dict[str, dict[str, Any]], budgets: dict[str, float | None]) -> str:
    """The whole block (markers included) for every pinned environment, in name order."""
    rows = [row(env, pinned[env], budgets.get(env)) for env in sorted(pinned)]
    return "\n".join([BEGIN, HEADER, *rows, END])


def block_of(text: str) -> str | None:
    """The cost table block in ``text`` (markers included), or None when the markers are missing."""
    match = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, flags=re.S)
    return match[0] if match else None


def write(path: Path, pinned: dict[str, dict[str, Any]], budgets: dict[str, float | None]) -> None:
    """Replace the block in ``path`` with :func:`table`; a page without the markers is an error naming them."""
    text = path.read_text()
    if block_of(text) is None:
        raise ValueError(f"{path} has no cost table block: add the lines {BEGIN!r} and {END!r} where it belongs")
    path.write_text(text.replace(block_of(text), table(pinned, budgets)))
