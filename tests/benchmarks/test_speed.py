"""benchmarks/speed.py reports every stage, cold and warm, and leaves the caller's cache setting alone."""

from __future__ import annotations

import os

from conftest import login_repo


def test_stage_benchmark_reports_every_stage_cold_and_warm(tmp_path):
    from benchmarks.speed import measure, parse_args, render

    root = login_repo(tmp_path / "repo")
    before = os.environ["NOFACE_CTX_CACHE_DIR"]
    # `python benchmarks/speed.py --repo-dir DIR --stages` measures BM25 only unless --embed is given
    assert parse_args(["--repo-dir", str(root), "--stages"]).embed is False
    assert parse_args(["--repo-dir", str(root), "--stages", "--embed"]).embed is True
    assert parse_args(["--repo-dir", str(root)]).embed is True
    result = measure(root, budget=4000, runs=2, embed=False, profile=5)
    assert {"files", "docs", "index", "freshness", "ranking", "budget"} <= set(result["cold_stages_ms"])
    assert set(result["warm_stages_ms"]) == set(result["cold_stages_ms"]) and len(result["warm_s"]) == 2
    table = render(result, stages=True)
    assert "| freshness |" in table and "| **sum** |" in table and "cumulative" in table
    assert "| freshness |" in render(result) and "peak RSS" in render(result)
    assert os.environ["NOFACE_CTX_CACHE_DIR"] == before  # the temp cache is gone, the caller's is back
