"""Cost section: the GPU spend budget the config check enforces (prices: config/data/prices.yaml, config/pricing.py)."""

from __future__ import annotations

from pydantic import Field

from ._base import ConfigModel
from .pricing import Pricer, priced_regions

__all__ = ["CostConfig", "burst_per_hour", "priced_regions"]


class CostConfig(ConfigModel):
    """Spend guard rails checked before synthesis."""

    max_burst_usd_per_hour: float | None = Field(
        None,
        gt=0,
        description="Most the environment may spend per hour on GPUs when every Karpenter GPU pool runs "
        "at its GPU limit, plus the HyperPod instance groups (on-demand list prices; spot "
        "never exceeds them). Instance types without a price (config/data/prices.yaml) are "
        "named in a synth warning and left out of the check. None: no budget check.",
    )


def burst_per_hour(
    region: str, pools: list[tuple[str, tuple[str, ...], int]], groups: list[tuple[str, str, int]]
) -> tuple[float, list[str], list[str]]:
    """Maximum GPU spend per hour. ``pools``: (name, instance types, GPU limit); ``groups``: (name, ml.* type,
    count). Returns (total of what is priced, per-item lines, instance types without a price)."""
    pricer = Pricer.of(region)
    total, lines, missing = 0.0, [], []
    for name, types, limit in pools:
        per_gpu = {}
        for t in types:
            price = pricer.usd_per_gpu_hour(t)
            if price is None:
                missing.append(t)
            else:
                per_gpu[t] = price
        if per_gpu:
            worst = max(per_gpu, key=per_gpu.__getitem__)
            total += limit * per_gpu[worst]
            lines.append(f"{name}: {limit} GPUs x ${per_gpu[worst]:.2f} ({worst}) = ${limit * per_gpu[worst]:,.2f}/h")
    for name, itype, count in groups:
        entry = pricer.instance(itype)
        if entry is None:
            missing.append(itype)
            continue
        total += count * entry["usd"]
        lines.append(f"{name}: {count} x {itype} ${entry['usd']:.2f} = ${count * entry['usd']:,.2f}/h")
    return total, lines, sorted(set(missing))
