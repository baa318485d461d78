"""Developer tools: cost report (`python -m tools.cost`) and benchmark (`python -m tools.bench`)."""
