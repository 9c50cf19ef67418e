"""Issue complexity → K, the number of design docs an issue deserves."""

from __future__ import annotations

import pytest

from noface_ctx.datatypes import Issue, Manifest, ManifestEntry
from noface_ctx.rank.complexity import assess_complexity

PATHS = [
    "noface_ctx/config.py",
    "noface_ctx/signals.py",
    "noface_ctx/_pipeline.py",
    "noface_ctx/_budget.py",
    "noface_ctx/_render.py",
    "tests/test_signals.py",
    "docs/architecture.md",
    "README.md",
    "web/src/app.ts",
]
SYMBOLS = ["load_config", "resolve_requests", "Config.with_context", "select", "render_prompt", "run"]


def manifest(*primary: str, read: tuple[str, ...] = ()) -> Manifest:
    return Manifest(tuple(ManifestEntry(p) for p in primary), tuple(ManifestEntry(p) for p in read))


TINY = Issue(
    "t-1",
    "Fix typo in README",
    "The README says 'recieve'.",
    issue_type="chore",
    manifest=manifest("README.md"),
)

CROSS = Issue(
    "t-2",
    "Thread a cancellation token through every stage of the pipeline",
    (
        "Long previews cannot be interrupted. Add a cancellation token that `build_prompt` creates and that "
        "every stage checks: `load_config`, `scan_repo`, `CodeIndex.build`, `rank_docs`, `rank_code`, `select` "
        "and `render_prompt`. This is a cross-cutting change across noface_ctx/_pipeline.py, "
        "noface_ctx/_budget.py, noface_ctx/_render.py, web/src/app.ts and the CLI; the signals path "
        "(`resolve_requests` in noface_ctx/signals.py) must honour it too. Refactor the stage helpers so the "
        "token is passed consistently instead of being read from a global, and document the protocol in "
        "docs/architecture.md. " * 2
    ),
    issue_type="feature",
    manifest=manifest(
        "noface_ctx/_pipeline.py", "noface_ctx/_budget.py", "noface_ctx/_render.py", "noface_ctx/signals.py",
        "noface_ctx/config.py", "web/src/app.ts", "docs/architecture.md", read=("tests/test_signals.py",),
    ),
)


def test_tiny_local_change_gets_few_docs():
    c = assess_complexity(TINY, known_paths=PATHS, known_symbols=SYMBOLS, max_docs=5)
    assert c.k <= 2 and c.score < 0.3
    text = "\n".join(c.reasons)
    assert "manifest: one primary file (local change) (-0.05)" in text
    assert "local-change words: typo" in text
    assert "issue type chore (-0.10)" in text
    assert "short issue" in text
    assert c.reasons[-1].startswith(f"score {c.score:.2f}") and c.reasons[-1].endswith(f"K = {c.k} of max 5")


def test_cross_cutting_feature_gets_the_cap():
    c = assess_complexity(CROSS, known_paths=PATHS, known_symbols=SYMBOLS, max_docs=5)
    assert c.k == 5 and c.score >= 0.85
    text = "\n".join(c.reasons)
    assert "manifest: 7 primary file(s) (+0.25)" in text
    assert "cross-cutting words:" in text and "across" in text and "refactor" in text
    assert "issue type feature (+0.15)" in text
    assert "medium-length issue (182 words) (+0.10)" in text
    assert "directories" in text


def test_named_files_and_symbols_are_counted():
    issue = Issue(
        "t-3",
        "Config reload",
        "Call `load_config` from noface_ctx/signals.py and `resolve_requests`, and re-run select() "
        "and render_prompt; see signals.py, _budget.py and README.md. Also run the tests.",
    )
    c = assess_complexity(issue, known_paths=PATHS, known_symbols=SYMBOLS, max_docs=5)
    text = "\n".join(c.reasons)
    # `signals.py` is the same file as noface_ctx/signals.py: counted once
    assert "names 3 files (noface_ctx/signals.py, noface_ctx/_budget.py, README.md)" in text
    assert "names 4 symbols (load_config, resolve_requests, select, render_prompt)" in text  # not plain "run"


def test_without_known_names_code_looking_tokens_count():
    issue = Issue("t-4", "x", "Touches src/a/b.py, lib/c.rs and pkg/d.go; calls `parse_thing`, makeWidget() and Foo.bar.")
    c = assess_complexity(issue, max_docs=5)
    text = "\n".join(c.reasons)
    assert "names 3 files (src/a/b.py, lib/c.rs, pkg/d.go)" in text
    assert "names 3 symbols (parse_thing, makeWidget, bar)" in text
    assert "touches 3 directories" in text


def test_more_scope_means_more_docs():
    small = assess_complexity(Issue("a", "Tweak", "Adjust the retry count in the scheduler loop."), max_docs=5)
    wider = assess_complexity(
        Issue("b", "Tweak", "Adjust the retry count across every module of the scheduler subsystem.", issue_type="feature"),
        max_docs=5,
    )
    assert wider.score > small.score and wider.k >= small.k


@pytest.mark.parametrize("max_docs", [0, 1, 3, 10])
def test_k_stays_within_the_cap(max_docs):
    for issue in (TINY, CROSS):
        c = assess_complexity(issue, known_paths=PATHS, max_docs=max_docs)
        assert 0 <= c.k <= max_docs
    assert assess_complexity(CROSS, known_paths=PATHS, max_docs=max_docs).k == max_docs


def test_directory_entries_weigh_more_and_report_is_json_safe():
    import json

    issue = Issue("t-5", "Rework the index", "Rework it.", manifest=manifest("noface_ctx/", "tests/"))
    c = assess_complexity(issue, max_docs=5)
    assert "manifest: 6 primary file(s) (+0.15)" in c.reasons
    data = json.loads(json.dumps(c.to_dict()))
    assert data["k"] == c.k and data["reasons"] == list(c.reasons)


def test_long_issue_counts():
    c = assess_complexity(Issue("t-6", "Design", "word " * 400), max_docs=5)
    assert "long issue (401 words) (+0.20)" in c.reasons


def test_code_plus_its_tests_is_not_cross_cutting():
    issue = Issue(
        "t-7", "Rotate the log", "Rotate `.noface/requests.jsonl` in noface_ctx/signals.py.",
        manifest=manifest("noface_ctx/signals.py", "tests/test_signals.py"),
    )
    c = assess_complexity(issue, known_paths=PATHS, max_docs=5)
    assert not any("directories" in r for r in c.reasons)
