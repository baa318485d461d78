"""Prices: the one price table (``config/data/prices.yaml``) and its reader.

Prices are advisory data. The app reads them for the GPU budget check (``cost.max_burst_usd_per_hour``) and the
burst-spend alarm and dashboard; ``make cost`` (tools/cost/) prints the full report from them. A region or an
instance type without a price never stops synthesis: :class:`Pricer` answers ``None`` (or raises
:class:`MissingPrice` for a table lookup) and every caller names what it could not price.
"""

from __future__ import annotations

import copy
import fnmatch
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

PRICES_FILE = Path(__file__).parent / "data" / "prices.yaml"
PRICES_WHERE = "config/data/prices.yaml"


class MissingPrice(LookupError):
    """A price the table does not have (a region, or one item of a region); ``str()`` names it."""


@lru_cache(maxsize=4)
def _read(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def load_prices(path: Path = PRICES_FILE) -> dict[str, Any]:
    """The price table (a fresh copy: callers may change it)."""
    return copy.deepcopy(_read(path))


def priced_regions(prices: dict[str, Any] | None = None) -> tuple[str, ...]:
    """Regions the price table has prices for."""
    return tuple(sorted((prices or _read(PRICES_FILE))["regions"]))


class Pricer:
    """Prices of one region. A region without prices gives an empty table: every lookup is missing."""

    def __init__(self, prices: dict[str, Any], region: str) -> None:
        self.data = prices
        self.region_name = region
        self.priced_region = region in prices["regions"]
        self.region: dict[str, Any] = prices["regions"].get(region, {})
        self.hours = prices["hours_per_month"]
        self.assume = prices["assumptions"]

    @classmethod
    def of(cls, region: str) -> Pricer:
        """The shipped price table's prices of ``region`` (read once per process)."""
        return cls(_read(PRICES_FILE), region)

    def _entry(self, table: str, key: str) -> dict[str, Any]:
        entry = self.region.get(table, {}).get(key)
        if entry is None:
            where = (
                f"region {self.region_name!r}"
                if self.priced_region
                else f"region {self.region_name!r} (not in {PRICES_WHERE})"
            )
            raise MissingPrice(f"{table}.{key} of {where}")
        return entry

    def hourly(self, key: str) -> float:
        return self._entry("hourly", key)["usd"]

    def monthly(self, key: str) -> float:
        return self._entry("monthly", key)["usd"]

    def per_million(self, key: str) -> float:
        return self._entry("per_million", key)["usd"]

    def table(self, name: str) -> dict[str, Any]:
        """One table of the region (``{}`` when the region has none)."""
        return self.region.get(name, {})

    def instance(self, instance_type: str) -> dict[str, Any] | None:
        """``{"usd": .., "gpus": ..}`` of an EC2 or HyperPod (``ml.*``) instance type, or None when unpriced."""
        table = "sagemaker_instance_hour" if instance_type.startswith("ml.") else "ec2_instance_hour"
        return self.table(table).get(instance_type)

    def usd_per_gpu_hour(self, instance_type: str) -> float | None:
        """On-demand USD per GPU-hour of a GPU instance type, or None when unpriced (or not a GPU type)."""
        entry = self.instance(instance_type)
        return entry["usd"] / entry["gpus"] if entry and entry["gpus"] else None

    def classify(self, type_: str) -> str:
        if type_ in self.data["free_types"]:
            return "free"
        if any(fnmatch.fnmatch(type_, pattern) for pattern in self.data["usage_types"]):
            return "usage"
        return "other"

    def missing_note(self, what: str) -> str:
        """Why ``what`` has no price, for messages: the region is missing, or only the item."""
        if not self.priced_region:
            return (
                f"{what}: {PRICES_WHERE} has no prices for region {self.region_name!r} (priced: "
                f"{', '.join(priced_regions(self.data))}); add the region with sources and dates"
            )
        return f"{what}: no price in {PRICES_WHERE} for {self.region_name}; add it with its source and date"
