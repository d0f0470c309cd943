"""Benchmarks of mcp-codegen, run as named scenarios: ``python -m bench NAME [options]`` (bench/README.md)."""
