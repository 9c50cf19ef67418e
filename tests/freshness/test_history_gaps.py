"""A history pass that stops part-way is said, not taken for the end of history (issue 25, rule
7): a clone lacking a blob that rename detection reads (a partial clone offline) or an object
`git log` needs. The commits after the stop are read without rename detection when they can be,
and every run says the index is incomplete, on stderr and in `--json`; so it does when `git
grep` could not read a version of a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import commit, git, make_repo

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"

LEDGER = "def reconcile(entries, prices):\n    return [e for e in entries if e in prices]\n"
PRICES = "".join(f"item{i},{i * 3}\n" for i in range(60))


def _drop(root: Path, oid: str) -> None:
    """Delete a loose object, as a partial clone that never fetched it lacks it."""
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()


def _inventory(root: Path) -> dict[str, str]:
    """January: the ledger, a price list and a guide naming `reconcile`; February: the price list
    renamed with an edit (rename detection reads both versions); March: `reconcile` renamed
    `settle` in the code, the guide left as it was."""
    make_repo(root, {"stock/__init__.py": "", "stock/ledger.py": LEDGER, "data/prices.csv": PRICES,
                     "docs/guide.md": "# Guide\n\nMatch entries with `stock.ledger.reconcile()`.\n"}, date=JAN)
    shas = {"jan": git(root, "rev-parse", "HEAD").strip(), "old_prices": git(root, "rev-parse", "HEAD:data/prices.csv").strip()}
    git(root, "mv", "data/prices.csv", "data/tariffs.csv")
    (root / "data/tariffs.csv").write_text(PRICES + "item60,180\n")
    commit(root, "prices become tariffs", date=FEB)
    shas["feb_tree"] = git(root, "rev-parse", "HEAD^{tree}").strip()
    (root / "stock/ledger.py").write_text(LEDGER.replace("reconcile", "settle"))
    commit(root, "reconcile is now settle", date=MAR)
    shas["mar"] = git(root, "rev-parse", "HEAD").strip()
    return shas


def test_a_missing_blob_stops_rename_detection_and_the_run_says_so(tmp_path):
    shas = _inventory(tmp_path / "repo")
    root = tmp_path / "repo"
    _drop(root, shas["old_prices"])
    report = check_docs(repo=root)
    # the commit after the stop was read: the removal is blamed on March's commit, with its new name
    assert [(f.path, f.code) for f in report.findings] == [("docs/guide.md", "stale-ref")]
    assert shas["mar"][:10] in report.findings[0].message and "settle" in report.findings[0].message
    warning, unread = [w for w in report.warnings if w.startswith("history incomplete")]
    assert f"stopped after {shas['jan'][:10]}" in warning and shas["old_prices"] in warning
    assert "renames there not followed" in warning
    assert "git grep could not read 1 object(s)" in unread and shas["old_prices"][:10] in unread  # searched at January
    assert check_docs(repo=root).warnings == report.warnings  # a warm run says it again

    # a new process, reading the index the run kept: stderr and --json
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-m", "noface_ctx", "check-docs", "--json", "--repo", str(root)],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 1
    assert [w for w in json.loads(run.stdout)["warnings"] if w.startswith("history incomplete")] == [warning, unread]
    assert [ln for ln in run.stderr.splitlines() if "history incomplete" in ln] == [
        f"noface-ctx: warning: {warning}", f"noface-ctx: warning: {unread}"]


def test_an_object_even_a_plain_pass_cannot_read_leaves_the_rest_unindexed_and_says_so(tmp_path):
    shas = _inventory(tmp_path / "repo")
    root = tmp_path / "repo"
    _drop(root, shas["feb_tree"])  # February's tree: no diff of that commit can be made
    report = check_docs(repo=root)
    warning = next(w for w in report.warnings if w.startswith("history incomplete"))
    assert f"stopped after {shas['jan'][:10]}" in warning and "not indexed" in warning


def test_a_complete_history_says_nothing(tmp_path):
    _inventory(tmp_path / "repo")
    report = check_docs(repo=tmp_path / "repo")
    assert not [w for w in report.warnings if "history" in w]
    assert [(f.path, f.code) for f in report.findings] == [("docs/guide.md", "stale-ref")]


def test_a_version_git_grep_cannot_read_is_said_on_every_run(tmp_path):
    # a plain edit (no rename: `git log` reads no blob) of a file whose old version is missing:
    # whether the doc's name was defined at its commit cannot be told
    root = make_repo(tmp_path / "repo", {"stock/__init__.py": "", "stock/ledger.py": LEDGER,
                                         "docs/guide.md": "# Guide\n\nMatch with `stock.ledger.reconcile()`.\n"}, date=JAN)
    old = git(root, "rev-parse", "HEAD:stock/ledger.py").strip()
    (root / "stock/ledger.py").write_text(LEDGER.replace("reconcile", "settle"))
    commit(root, "reconcile is now settle", date=FEB)
    _drop(root, old)
    report = check_docs(repo=root)
    [warning] = [w for w in report.warnings if w.startswith("history incomplete")]
    assert "git grep could not read 1 object(s)" in warning and old[:10] in warning
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-m", "noface_ctx", "check-docs", "--json", "--repo", str(root)],
                         capture_output=True, text=True, env=env)  # a new process reusing the judgement: said again
    assert [w for w in json.loads(run.stdout)["warnings"] if w.startswith("history incomplete")] == [warning]
