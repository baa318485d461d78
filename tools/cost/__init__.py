"""Cost report: `python -m tools.cost --env dev [--json]` (or `make cost ENV=dev`)."""

from .report import Report, build_report, load_prices, render, templates_from_assembly

__all__ = ["Report", "build_report", "load_prices", "render", "templates_from_assembly"]
