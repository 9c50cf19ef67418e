"""`check-docs` and the hook: nothing unjudged in silence (issue 25, rule 7) and every doc a
commit makes stale named, whatever files it stages (rule 8)."""

from __future__ import annotations

import json

from conftest import commit, git

from noface_ctx.cli import main
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"

STREAM = "def stream_with_context(gen):\n    return gen\n"
DOCS = {  # as flask's docs name it: through the package, in a module context, by a role with `.` or `~`
    "docs/api.rst": "API\n===\n\n.. currentmodule:: pkg\n\n.. autofunction:: stream_with_context\n",
    "docs/templating.rst": "Templates\n=========\n\nStream with :func:`~pkg.stream_with_context`.\n",
    "docs/patterns/streaming.rst": ("Streaming\n=========\n\nKeep the request around::\n\n"
                                    "    return Response(stream_with_context(generate()))\n"),
    "docs/gevent.rst": "Gevent\n======\n\nWrap the generator in :func:`.stream_with_context` first.\n",
    "docs/other.md": "# Other\n\nNothing about streams.\n",
}


def test_the_hook_names_every_doc_a_staged_rename_makes_stale(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.helpers import stream_with_context\n", "pkg/helpers.py": STREAM,
                         "examples/app.py": "from pkg import stream_with_context\n",
                         "tests/test_stream.py": "from pkg import stream_with_context\n", **DOCS}, date=JAN)
    for rel in DOCS:  # the docs' last commit touches no code: the code that held the name is older
        (root / rel).write_text((root / rel).read_text() + "\n")
    commit(root, "docs: trailing lines")
    staged = ["pkg/__init__.py", "pkg/helpers.py", "examples/app.py", "tests/test_stream.py"]
    for rel in staged:  # renamed everywhere but the docs, as one change about to be committed
        (root / rel).write_text((root / rel).read_text().replace("stream_with_context", "stream_context"))
    git(root, "add", *staged)
    report = check_docs(staged, repo=root)
    got = {(f.path, f.line, f.severity) for f in report.findings}
    assert got == {("docs/api.rst", 6, "error"), ("docs/templating.rst", 4, "error"),
                   ("docs/patterns/streaming.rst", 6, "error"), ("docs/gevent.rst", 4, "error")}
    assert [f.message for f in report.findings if "uncommitted edits" not in f.message or "stream_context`?" not in f.message] == []
    assert report.exit_code == 1


def test_a_doc_over_the_size_limit_is_judged_and_a_record_given_says_why_it_is_not(repo_factory, capsys):
    big = "Reference\n=========\n\n" + "Plain prose about nothing in particular.\n" * 60 + "Use :func:`old_helper`.\n"
    root = repo_factory({".noface.toml": "[monowiki]\nmax_file_size_kb = 1\n", "pkg/__init__.py": "",
                         "pkg/util.py": "def old_helper():\n    pass\n", "docs/reference.rst": big,
                         "CHANGES.rst": "Changes\n=======\n\n- ``old_helper`` added\n"}, date=JAN)
    (root / "pkg/util.py").write_text("def new_helper():\n    pass\n")
    commit(root, "rename old_helper")
    report = check_docs(["docs/reference.rst", "CHANGES.rst"], repo=root)
    assert [(f.path, f.line, f.severity) for f in report.findings] == [("docs/reference.rst", 64, "error")]
    assert report.not_judged == (("CHANGES.rst", "a record (release notes, changelog, history): never judged"),)
    assert [d["path"] for d in report.docs] == ["docs/reference.rst"]
    assert main(["check-docs", "--repo", str(root), "--json", "docs/reference.rst", "CHANGES.rst"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["not_judged"] == [{"path": "CHANGES.rst", "reason": "a record (release notes, changelog, history): "
                                                                      "never judged"}]
    assert main(["check-docs", "--repo", str(root), "docs/missing.rst"]) == 2


def test_a_release_notes_file_is_a_record_however_its_name_is_spelled(repo_factory):
    notes = {"docs/reference/releasenotes.rst": "Release notes\n=============\n\n- :func:`old_helper` added\n",
             "docsv/reference/release-notes.md": "# Release notes\n\n- `old_helper()` added\n",
             "docs/ReleaseNotes.md": "# Release notes\n\n- `old_helper()` added\n",
             "doc/Release_Notes.rst": "Release notes\n=============\n\n- ``old_helper()`` added\n",
             "docs/whats-new.md": "# What's new\n\n- `old_helper()` added\n"}
    root = repo_factory({"pkg/__init__.py": "", "pkg/util.py": "def old_helper():\n    pass\n",
                         "docs/guide.md": "# Guide\n\nCall `old_helper()` first.\n", **notes}, date=JAN)
    (root / "pkg/util.py").write_text("def new_helper():\n    pass\n")
    commit(root, "rename old_helper")
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/guide.md", 3)]
    report = check_docs(list(notes), repo=root)
    assert report.findings == ()
    assert report.not_judged == tuple((p, "a record (release notes, changelog, history): never judged") for p in notes)
    assert check_docs(["docs/guide.md"], repo=root).exit_code == 1


def test_a_whole_repository_check_names_the_docs_the_file_gate_kept_out(repo_factory):
    """Rule 7: a doc the gate keeps out (the user's exclude, a vendored tree, a secret) is never
    read, but a whole-repository run lists it with the gate's reason; files that would be no doc
    (outside the doc globs) or that git ignores are not listed, and a run on named docs lists only those."""
    root = repo_factory({
        ".noface.toml": '[context]\nexclude = ["docs/internal/**"]\n',
        ".gitignore": "docs/_scratch/\n",
        "pkg/__init__.py": "def f():\n    return 1\n",
        "docs/guide.md": "# Guide\n\nCall `pkg.f()`.\n",
        "docs/internal/plan.md": "# Plan\n\nCall `pkg.gone()`.\n",
        "docs/vendor/theme/usage.md": "# Theme\n\nVendored.\n",
        "docs/keys.md": "# Keys\n\nAWS_KEY = 'AKIA" + "IOSFODNN7ABCDEFG'\n",
        "src/vendor/lib/README.md": "# Lib\n",
    })
    (root / "docs/_scratch").mkdir()
    (root / "docs/_scratch/notes.md").write_text("# Notes\n")
    report = check_docs(repo=root)
    listed = dict(report.not_judged)
    assert set(listed) == {"docs/internal/plan.md", "docs/vendor/theme/usage.md", "docs/keys.md"}
    assert listed["docs/internal/plan.md"] == "kept out by the file gate: matches [context] exclude"
    assert "vendor/" in listed["docs/vendor/theme/usage.md"] and "secret" in listed["docs/keys.md"]
    assert [d["path"] for d in report.docs] == ["docs/guide.md"] and not report.findings  # never read
    assert check_docs(["docs/guide.md"], repo=root).not_judged == ()
    out = json.loads(_run_json(root))
    assert {row["path"] for row in out["not_judged"]} == set(listed)


def _run_json(root) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["check-docs", "--json", "--repo", str(root)]) == 0
    return buf.getvalue()
