"""The freshness pipeline's steps take explicit inputs (issue 29): git runs in `run_state`,
`open_history` and the steps that name it, never in a constructor; a judgement a batch stores
is reused by the next while nothing it depends on changed."""

from __future__ import annotations

from conftest import commit, scan

from noface_ctx import _git as git
from noface_ctx.config import load_config
from noface_ctx.docs.load import load_docs
from noface_ctx.freshness.assess import (
    judge_docs,
    judge_inputs,
    judgement_key,
    open_history,
    reuse_judgements,
    run_state,
)
from noface_ctx.freshness.edits import Edits

CODE = "def compute_total(a, b):\n    return a + b\n\n\ndef compute_mean(a):\n    return a\n"
DOC = "# Totals\n\nCall `compute_total(a, b)` or `compute_mean(a)`.\n"


def _inputs(root):
    config = load_config(str(root))
    repo_files = scan(root)
    docs = load_docs(config, repo_files).docs
    return docs, judge_inputs(docs, repo_files, None, config, run_state(repo_files))


def test_inputs_and_values_are_built_without_git(repo_factory, monkeypatch):
    root = repo_factory({"pkg/calc.py": CODE, "docs/totals.md": DOC})
    config = load_config(str(root))
    repo_files = scan(root)
    docs = load_docs(config, repo_files).docs
    state = run_state(repo_files)  # the one step that reads the run's git state

    def no_git(*args: object, **kwargs: object) -> None:
        raise AssertionError("git ran")

    monkeypatch.setattr(git, "run", no_git)
    monkeypatch.setattr(git, "head", no_git)
    inputs = judge_inputs(docs, repo_files, None, config, state)
    Edits(root, state.head or "HEAD", ["pkg/calc.py"])
    assert inputs.state.head == state.head and "docs/totals.md" in inputs.doc_paths


def test_a_stored_judgement_is_reused_until_a_word_it_uses_changes(repo_factory):
    root = repo_factory({"pkg/calc.py": CODE, "docs/totals.md": DOC})
    (root / "pkg/calc.py").write_text(CODE.split("\n\n\n")[0] + "\n")
    commit(root, "remove compute_mean")
    docs, inputs = _inputs(root)
    first = judge_docs(docs, inputs)["docs/totals.md"]
    assert first.staleness.verdict == "stale"
    history = open_history(inputs)
    assert history is not None
    keys = {d.path: judgement_key(d, inputs.stale_after_days) for d in docs}
    edits = Edits(root, inputs.state.head or "", inputs.state.dirty)
    reused, misses = reuse_judgements(docs, keys, history, inputs.state, edits, inputs.stale_after_days)
    assert misses == [] and reused["docs/totals.md"].staleness == first.staleness
    (root / "pkg/calc.py").write_text("def compute_total(a, b, c=0):\n    return a + b + c\n")
    docs, inputs = _inputs(root)
    edits = Edits(root, inputs.state.head or "", inputs.state.dirty)
    history = open_history(inputs)
    assert history is not None
    reused, misses = reuse_judgements(docs, keys, history, inputs.state, edits, inputs.stale_after_days)
    assert [d.path for d in misses] == ["docs/totals.md"]  # the edit touches `compute_total`
