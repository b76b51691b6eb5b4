"""Benchmarks: scripts that measure and print figures for docs/benchmarks.md (``python -m bench.<name>``)."""
