"""The benchmark harness's own pieces: materialising commits, gold spans, metrics, the baseline."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import git, make_repo

from benchmarks import metrics as M
from benchmarks.baseline import BaselineIndex
from benchmarks.materialise import materialise, tree_dir
from benchmarks.report import aggregate, render_markdown, update_doc
from benchmarks.retrieval import body_in_text, issue_dict

SOURCE = '''\
import os


class Widget:
    """A widget."""

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value

    def render(self):
        return "<w>"


def helper(x):
    return x + 1
'''


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, str]:
    """A bare mirror (loose objects) of a two-file repository, and its commit."""
    src = make_repo(tmp_path / "src", {"pkg/widget.py": SOURCE, "data/big.bin": "x" * 5000})
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-local", str(src), str(bare)], check=True)
    return bare, git(src, "rev-parse", "HEAD").strip()


def _loosen(bare: Path) -> None:
    """Turn packed objects into loose ones so a single blob can be deleted."""
    packs = list((bare / "objects" / "pack").glob("*.pack"))
    for pack in packs:
        moved = pack.with_suffix(".tmp")
        pack.rename(moved)
        pack.with_suffix(".idx").unlink()
        subprocess.run(["git", "--git-dir", str(bare), "unpack-objects", "-q"], stdin=moved.open("rb"), check=True)
        moved.unlink()


def test_materialise_extracts_once_and_reuses(mirror, tmp_path):
    bare, commit = mirror
    first = materialise(bare, "acme/widgets", commit, tmp_path / "work")
    assert not first.reused and first.missing == ()
    assert (first.root / "pkg/widget.py").read_text() == SOURCE
    assert first.root == tree_dir(tmp_path / "work", "acme/widgets", commit)
    assert not any(p.name.endswith(".complete.json") for p in first.root.rglob("*"))
    again = materialise(bare, "acme/widgets", commit, tmp_path / "work")
    assert again.reused and again.root == first.root


def test_materialise_redoes_a_tree_without_marker(mirror, tmp_path):
    bare, commit = mirror
    tree = materialise(bare, "acme/widgets", commit, tmp_path / "work")
    tree.root.with_name(tree.root.name + ".complete.json").unlink()
    (tree.root / "pkg/widget.py").write_text("truncated")
    redone = materialise(bare, "acme/widgets", commit, tmp_path / "work")
    assert not redone.reused
    assert (redone.root / "pkg/widget.py").read_text() == SOURCE


def test_materialise_leaves_out_missing_blobs(mirror, tmp_path):
    bare, commit = mirror
    _loosen(bare)
    sha = git(bare, "rev-parse", f"{commit}:data/big.bin").strip()
    (bare / "objects" / sha[:2] / sha[2:]).unlink()
    tree = materialise(bare, "acme/widgets", commit, tmp_path / "work")
    assert tree.missing == ("data/big.bin",)
    assert not (tree.root / "data/big.bin").exists()
    assert (tree.root / "pkg/widget.py").read_text() == SOURCE
    marker = json.loads(tree.root.with_name(tree.root.name + ".complete.json").read_text())
    assert marker["missing"] == ["data/big.bin"]


def test_gold_lists_accept_strings_and_lists():
    assert M.gold_list("['a.py', 'b.py']") == ["a.py", "b.py"]
    assert M.gold_list(["a.py"]) == ["a.py"]
    assert M.gold_list("") == []


def test_definitions_qualify_methods_and_keep_every_definition():
    defs = M.definitions(SOURCE.encode())
    assert defs["Widget"] == [M.Span(4, 16)]
    assert defs["Widget.render"] == [M.Span(15, 16)]
    assert defs["helper"] == [M.Span(19, 20)]
    assert [s.start for s in defs["Widget.size"]] == [8, 12]  # decorators excluded


def test_gold_span_picks_the_definition_the_patch_touches(tmp_path):
    (tmp_path / "w.py").write_text(SOURCE)
    patch = (
        "diff --git a/w.py b/w.py\n--- a/w.py\n+++ b/w.py\n"
        "@@ -12,3 +12,4 @@ class Widget:\n"
        "     def size(self, value):\n"
        "-        self._size = value\n"
        "+        self._size = int(value)\n"
        "+        self.dirty = True\n"
        " \n"
    )
    assert M.touched_old_lines(patch) == {"w.py": {13, 14}}
    spans = M.gold_function_spans(tmp_path, ["w.py:Widget.size", "w.py:nowhere"], patch)
    assert spans == {"w.py:Widget.size": M.Span(12, 13), "w.py:nowhere": None}


def test_recall_and_rank_metrics():
    spans = {"a.py:f": M.Span(10, 20), "a.py:g": M.Span(30, 40), "b.py:h": M.Span(1, 5)}
    included = {"a.py": [(5, 15), (16, 25), (30, 39)]}
    assert M.file_recall(["a.py", "b.py"], included) == (1, 2)
    assert M.function_recall(spans, included) == (1, 3)  # f via two adjacent ranges; g cut short
    assert M.rank_metrics(["b.py"], ["a.py", "c.py", "b.py"]) == {
        "acc@1": 0.0, "acc@3": 1.0, "acc@5": 1.0, "acc@10": 1.0, "mrr": pytest.approx(1 / 3)}
    both = M.rank_metrics(["a.py", "z.py"], ["a.py", "b.py"])
    assert both["mrr"] == 1.0 and both["acc@10"] == 0.0  # all gold files must be ranked
    assert M.ratio(0.5, 0.25) == 2.0 and M.ratio(0.5, 0.0) is None


def test_body_in_text_requires_every_line_in_order(tmp_path):
    (tmp_path / "w.py").write_text(SOURCE)
    span = M.Span(15, 16)
    assert body_in_text(tmp_path, "w.py:Widget.render", span, "x\n    def render(self):\n        return \"<w>\"\n")
    assert not body_in_text(tmp_path, "w.py:Widget.render", span, "def render(self): ...\n")


def test_baseline_ranks_and_packs_whole_files_under_budget(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/parser.py").write_text("def parse_header(raw):\n    return raw.split(':')\n")
    (tmp_path / "pkg/big.py").write_text("def parse_header_big():\n    pass\n" + "# filler words here\n" * 400)
    (tmp_path / "pkg/other.py").write_text("def unrelated():\n    return 1\n")
    (tmp_path / "README.md").write_text("parse header parse header")
    index = BaselineIndex.build(tmp_path)
    assert index.paths == ["pkg/big.py", "pkg/other.py", "pkg/parser.py"]
    ranked = index.rank("parse_header fails on empty raw header")
    assert [index.paths[i] for i in ranked] == ["pkg/parser.py", "pkg/big.py"]  # zero scores dropped
    files, used = index.pack(ranked, "parse_header fails", 300)
    assert files == ["pkg/parser.py"] and used <= 300  # big.py does not fit and is skipped
    files, used = index.pack(ranked, "parse_header fails", 10_000)
    assert files == ["pkg/parser.py", "pkg/big.py"] and used <= 10_000


def test_issue_dict_uses_problem_statement_only():
    row = {"instance_id": "x-1", "problem_statement": "\nTitle here\nBody line\n\nMore", "hints_text": "fix f()"}
    assert issue_dict(row) == {"id": "x-1", "title": "Title here", "description": "Body line\n\nMore"}


def _row(repo: str, found: int, rank: int | None) -> dict:
    budgets = {"13000": {"files": [found, 1], "funcs": [found, 2], "tokens": 12000, "warm_s": 0.2}}
    side = {**M.rank_metrics(["g.py"], ["x.py"] * ((rank or 99) - 1) + ["g.py"]), "budgets": budgets}
    return {"instance_id": f"{repo}-{found}", "repo": repo, "ours": {**side, "cold_s": 3.0},
            "baseline": {**side, "index_s": 1.0}}


def test_aggregate_pools_recall_and_doc_update_replaces_section(tmp_path):
    rows = [_row("a/a", 1, 1), _row("a/a", 0, 4), _row("b/b", 1, 2)]
    agg = aggregate(rows, [13000])
    e = agg["overall"]["budgets"]["13000"]
    assert e["ours"]["file_recall"] == pytest.approx(2 / 3)
    assert e["ours"]["function_recall"] == pytest.approx(2 / 6)
    assert e["ratio"]["file_recall"] == pytest.approx(1.0)
    assert agg["overall"]["ranking"]["ours"]["mrr"] == pytest.approx((1 + 1 / 4 + 1 / 2) / 3)
    assert agg["per_repo"]["a/a"]["budgets"]["13000"]["ours"]["file_recall"] == 0.5
    summary = {"aggregate": agg, "budgets": [13000], "rows_file": "r.jsonl", "command": "python x",
               "date": "2026-01-01", "embeddings": True, "model_load_s": 1.0, "peak_rss_mb": 100.0, "wall_s": 60}
    doc = tmp_path / "bench.md"
    doc.write_text("---\ntitle: B\n---\n\nIntro.\n")
    update_doc(doc, summary)
    update_doc(doc, {**summary, "command": "python y"})
    text = doc.read_text()
    assert text.startswith("---\ntitle: B\n---\n\nIntro.\n") and text.count("results:start") == 1
    assert "`python y`" in text and "`python x`" not in text
    assert "| 13,000 | 66.7 % |" in render_markdown(summary)


def test_distraction_counts_code_outside_gold_and_tokens_before_the_first_gold_block():
    text = ("ISSUE:\nfix pkg/a.py\n\nCODE CONTEXT:\npkg/noise.py:1-3\n```python\nx = 1\n```\n\n"
            "pkg/a.py:10-12  def f\n```python\ndef f(): ...\n```\n\nOMITTED CONTEXT:\nnone")
    rows = [{"path": "pkg/noise.py", "tokens": 30}, {"path": "pkg/a.py", "tokens": 10}]
    words = lambda s: len(s.split())  # noqa: E731  (a stand-in counter: whitespace words)
    d = M.distraction(text, rows, ["pkg/a.py"], words)
    # the issue names pkg/a.py too, but only a code block header counts
    assert d["code_tokens"] == 40 and d["outside_gold_tokens"] == 30
    assert d["tokens_before_gold"] == words(text[:text.index("pkg/a.py:10")])
    assert M.distraction(text, rows, ["pkg/other.py"], words)["tokens_before_gold"] is None
    summary = M.distraction_summary([d, M.distraction(text, rows[:1], ["pkg/zzz.py"], words)])
    assert summary["outside_gold_share"] == 60 / 70
    assert summary["median_tokens_before_gold"] == d["tokens_before_gold"]
    assert summary["rows_without_gold_code"] == 1 and summary["rows"] == 2


def test_compare_runs_finds_a_changed_prompt():
    from benchmarks.compare_runs import compare

    def row(sha, acc=1.0):
        return {"ours": {"acc@1": acc, "budgets": {"13000": {"prompt_sha": sha, "files": [1, 1]}}}}

    same = compare({"a": row("x"), "b": row("y")}, {"a": row("x"), "b": row("y"), "c": row("z")})
    assert same["differing"] == {} and same["prompts_compared"] == 2 and same["only_after"] == ["c"]
    changed = compare({"a": row("x")}, {"a": row("q", acc=0.0)})
    assert changed["differing"] == {"a": ["acc@1", "13000/prompt_sha"]}
