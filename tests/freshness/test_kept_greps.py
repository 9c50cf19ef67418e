"""`git grep` answers kept across runs and commits (`grep_plan.Search`) give the findings a run
from an empty cache gives, after every commit; a pre-commit run and a full run agree on the docs
they both judge (the searches of a doc's earlier versions depend on the doc's history only)."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"
APR = "2025-04-01T12:00:00+00:00"
MAY = "2025-05-01T12:00:00+00:00"

CODING = "class UnsignedIntegerCoder:\n    pass\n\n\nclass BooleanCoder:\n    pass\n\n\ndef decode(value):\n    return value\n"
GUIDE = ("Backends\n========\n\nDecode with :class:`~pkg.coding.UnsignedIntegerCoder`, :class:`~pkg.coding.BooleanCoder`\n"
         "or :func:`~pkg.coding.decode`.\n")


def _findings(root, monkeypatch, cache, paths=()):
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(cache))
    return sorted(f.line_text() for f in check_docs(paths, repo=root).findings)


def test_kept_answers_give_a_cold_runs_findings_after_every_commit(repo_factory, monkeypatch, tmp_path):
    root = repo_factory({"pkg/__init__.py": "", "pkg/coding.py": CODING, "pkg/other.py": "x = 1\n",
                         "docs/backend.rst": GUIDE, "docs/decode.rst": "Decode\n======\n\nCall :func:`pkg.coding.decode`.\n"},
                        date=JAN)
    warm = tmp_path / "warm"
    steps = 0

    def agree():
        nonlocal steps
        steps += 1
        got = _findings(root, monkeypatch, warm)
        assert got == _findings(root, monkeypatch, tmp_path / f"cold{steps}")
        return got

    assert agree() == []
    (root / "pkg/coding.py").write_text(CODING.replace("class UnsignedIntegerCoder:\n    pass\n\n\n", ""))
    commit(root, "remove UnsignedIntegerCoder", date=FEB)
    assert [line.split(":")[0] for line in agree()] == ["docs/backend.rst"]
    (root / "docs/backend.rst").write_text(GUIDE.replace("Backends", "Storage backends").replace("========", "================"))
    commit(root, "docs: the guide reworded (the reference stays)", date=MAR)
    laundered = agree()
    assert len(laundered) == 1 and "UnsignedIntegerCoder" in laundered[0]
    (root / "pkg/other.py").write_text("x = 2\n")  # a commit touching an unrelated file keeps every answer
    commit(root, "unrelated", date=APR)
    assert agree() == laundered
    (root / "pkg/coding.py").write_text(CODING.replace("class UnsignedIntegerCoder:\n    pass\n\n\n", "").replace(
        "def decode(value)", "def decode_value(value)"))  # one touching the file defining a name the docs use
    commit(root, "rename decode", date=MAY)
    both = agree()
    assert {line.split(":")[0] for line in both} == {"docs/backend.rst", "docs/decode.rst"}

    # a pre-commit run (the staged file's docs, and those its edits make stale) names what a full run does
    (root / "pkg/coding.py").write_text((root / "pkg/coding.py").read_text().replace("BooleanCoder", "BoolCoder"))
    git(root, "add", "pkg/coding.py")
    hook = _findings(root, monkeypatch, warm, ["pkg/coding.py"])
    full = _findings(root, monkeypatch, tmp_path / "cold-full")
    assert hook == full and any("BooleanCoder" in line for line in hook)
