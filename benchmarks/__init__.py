"""Retrieval and speed benchmarks for noface_ctx on SWE-bench Lite rows (see docs/benchmarks.md)."""
