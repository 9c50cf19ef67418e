"""The provenance ledger, outcomes, failure-driven quarantine and decay, through the CLI on real
git repositories: `preview --record`, `outcome`, `why`, `trust`, `check-docs`, `signals --resolve`."""

from __future__ import annotations

import json

from conftest import commit, write_tree

from noface_ctx.cli import main
from noface_ctx.config import load_config
from noface_ctx.trust.effects import weigh_docs
from noface_ctx.trust.ledger import SCHEMA, Ledger, blob_sha

WRONG = (
    "# Session tokens\n\nA session token is refreshed by calling the refresh helper before it expires.\n"
    "Session tokens expire after one hour; refresh session tokens in the request hook.\n"
)
GOOD = "# Billing\n\nInvoices are rounded to two decimals and billed monthly.\n"
FILES = {
    ".noface.toml": "[context]\nembeddings = false\n",
    "src/session.py": "def refresh_token(token):\n    return token + '!'\n\n\ndef expire(token):\n    return None\n",
    "src/billing.py": "def invoice(total):\n    return round(total, 2)\n",
    "docs/session-tokens.md": WRONG,
    "docs/billing.md": GOOD,
}


def _issue(repo, n: int) -> str:
    path = repo.parent / f"issue-{n}.md"
    path.write_text(f"# Session tokens expire too early ({n})\n\nSession tokens expire before the refresh "
                    "hook runs; refresh session tokens earlier.\n")
    return str(path)


def _preview(repo, n: int, capsys, *extra: str) -> dict:
    capsys.readouterr()
    assert main(["preview", _issue(repo, n), "--repo", str(repo), "--json", "--no-embed", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _row(data: dict, path: str) -> dict:
    return next(d for d in data["docs"] if d["path"] == path)


def test_failures_halve_then_quarantine_and_trust_restores(repo_factory, capsys):
    repo = repo_factory(FILES)
    clean = _row(_preview(repo, 0, capsys), "docs/session-tokens.md")
    assert clean["included"] and clean["form"] == "full" and "trust" not in clean
    # a preview without --record is not real work: nothing is counted
    assert main(["outcome", "issue-0", "failed", "--repo", str(repo)]) == 0
    assert "trust" not in _row(_preview(repo, 0, capsys), "docs/session-tokens.md")

    _preview(repo, 1, capsys, "--record")
    assert main(["outcome", "issue-1", "failed", "--repo", str(repo), "--note", "tests failed"]) == 0
    halved = _row(_preview(repo, 2, capsys, "--record"), "docs/session-tokens.md")
    assert halved["trust"]["factor"] == 0.5 and not halved["trust"]["quarantined"]
    assert halved["trust"]["failures"] == ["issue-1"]
    assert "weight halved" in halved["reason"]
    assert halved["relevance"] <= clean["relevance"] / 2 + 1e-4

    assert main(["outcome", "issue-2", "failed", "--repo", str(repo)]) == 0
    data = _preview(repo, 3, capsys)
    row = _row(data, "docs/session-tokens.md")
    assert row["trust"]["quarantined"] and not row["included"]
    assert row["trust"]["restore"] == "noface-ctx trust docs/session-tokens.md"
    assert "## Session tokens" not in data["prompt"] and "# Session tokens\n\nA session" not in data["prompt"]
    listed = [o for o in data["omitted"] if o["path"] == "docs/session-tokens.md"]
    assert listed and "quarantined" in listed[0]["reason"]
    assert "noface-ctx trust docs/session-tokens.md" in data["prompt"]

    # the explain table says so too
    capsys.readouterr()
    main(["preview", _issue(repo, 3), "--repo", str(repo), "--no-embed"])
    assert "quarantined" in capsys.readouterr().err

    # check-docs names it for review (a warning: the hook does not fail on outcomes)
    assert main(["check-docs", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "docs/session-tokens.md:1: needs-review: warning: quarantined" in out

    # an agent asking for it is refused with the same reason
    (repo.parent / "ask.txt").write_text("NEED_DOC: session-tokens\n")
    main(["signals", str(repo.parent / "ask.txt"), "--resolve", "--json", "--repo", str(repo)])
    item = json.loads(capsys.readouterr().out)["items"][0]
    assert item["outcome"] == "refused" and "quarantined" in item["reason"]

    assert main(["trust", "docs/session-tokens.md", "--repo", str(repo)]) == 0
    assert "quarantine lifted" in capsys.readouterr().out
    back = _row(_preview(repo, 4, capsys), "docs/session-tokens.md")
    assert back["included"] and "trust" not in back


def test_an_edited_doc_starts_clean_and_successes_never_boost(repo_factory, capsys):
    repo = repo_factory(FILES)
    for n in (1, 2):
        _preview(repo, n, capsys, "--record")
        main(["outcome", f"issue-{n}", "failed", "--repo", str(repo)])
    assert _row(_preview(repo, 3, capsys), "docs/session-tokens.md")["trust"]["quarantined"]
    write_tree(repo, {"docs/session-tokens.md": WRONG + "\nRefresh with `refresh_token(token)` now.\n"})
    commit(repo, "fix the session doc")
    edited = _row(_preview(repo, 3, capsys), "docs/session-tokens.md")
    assert edited["included"] and "trust" not in edited

    before = _row(_preview(repo, 5, capsys), "docs/session-tokens.md")
    for n in range(10, 16):  # completed issues served the doc: no popularity signal
        _preview(repo, n, capsys, "--record")
        main(["outcome", f"issue-{n}", "ok", "--repo", str(repo)])
    after = _row(_preview(repo, 5, capsys), "docs/session-tokens.md")
    assert (after["score"], after["relevance"]) == (before["score"], before["relevance"])
    assert "trust" not in after


def test_unrelated_failures_among_successes_do_not_quarantine(repo_factory, capsys):
    repo = repo_factory(FILES)
    for n in range(1, 7):
        _preview(repo, n, capsys, "--record")
        main(["outcome", f"issue-{n}", "failed" if n in (3, 6) else "ok", "--repo", str(repo)])
    row = _row(_preview(repo, 7, capsys), "docs/session-tokens.md")
    assert row["included"] and row["trust"]["factor"] == 0.5 and not row["trust"]["quarantined"]


def test_failures_age_out_in_repository_time(repo_factory, capsys):
    repo = repo_factory(FILES, date="2026-01-01T12:00:00Z")
    _preview(repo, 1, capsys, "--record")
    main(["outcome", "issue-1", "failed", "--repo", str(repo)])
    assert _row(_preview(repo, 2, capsys), "docs/session-tokens.md")["trust"]["factor"] == 0.5
    write_tree(repo, {"src/other.py": "X = 1\n"})
    commit(repo, "later work", date="2026-02-15T12:00:00Z")  # 45 days later by the repository's clock
    assert "trust" not in _row(_preview(repo, 2, capsys), "docs/session-tokens.md")


def test_agent_notes_decay_with_repository_age(repo_factory, capsys):
    note = "---\nsource: agent\n---\n# Session token notes\n\nRefresh session tokens early; they expire.\n"
    repo = repo_factory({**FILES, "docs/notes/tokens.md": note, "notes/x.md": "# x\n"}, date="2026-01-01T12:00:00Z")
    fresh = _row(_preview(repo, 1, capsys), "docs/notes/tokens.md")
    assert "trust" not in fresh, fresh["trust"]
    write_tree(repo, {"src/other.py": "X = 1\n"})
    commit(repo, "four weeks later", date="2026-01-29T12:00:00Z")
    old = _row(_preview(repo, 1, capsys), "docs/notes/tokens.md")
    assert abs(old["trust"]["factor"] - 0.25) < 0.01  # two half-lives of 14 days
    assert "agent-written note 28 day(s) old" in old["trust"]["reasons"][0]
    design = _row(_preview(repo, 1, capsys), "docs/session-tokens.md")
    assert "trust" not in design  # design docs never decay


def test_why_prints_turns_and_the_ledger_is_versioned(repo_factory, capsys):
    repo = repo_factory(FILES)
    _preview(repo, 1, capsys, "--record")
    main(["outcome", "issue-1", "failed", "--repo", str(repo), "--note", "red CI"])
    capsys.readouterr()
    assert main(["why", "issue-1", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    blob = blob_sha((repo / "docs/session-tokens.md").read_bytes())
    assert "turn 1 (preview" in out and "docs/session-tokens.md:1-4" in out and blob[:10] in out
    assert "outcome: failed" in out and "red CI" in out
    assert main(["why", "nobody", "--repo", str(repo)]) == 2
    ledger = Ledger.of(load_config(repo))
    import sqlite3

    db = sqlite3.connect(ledger.path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA
    db.execute(f"PRAGMA user_version = {SCHEMA + 1}")
    db.commit()
    db.close()
    capsys.readouterr()
    assert main(["why", "issue-1", "--repo", str(repo)]) == 2
    assert "newer than this noface-ctx reads" in capsys.readouterr().err


def test_bad_outcome_input_is_one_line(repo_factory, capsys):
    repo = repo_factory(FILES)
    assert main(["outcome", "x", "maybe", "--repo", str(repo)]) == 2
    assert main(["trust", "docs/nope.md", "--repo", str(repo)]) == 2
    assert main(["trust", "../outside.md", "--repo", str(repo)]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "not inside the repository" in err and "Traceback" not in err
    assert weigh_docs(load_config(repo), []) == {}


def test_the_ledger_is_bounded_oldest_rows_first(repo_factory, monkeypatch):
    from noface_ctx.trust import ledger as ledger_module
    from noface_ctx.trust.ledger import ServedRow

    repo = repo_factory(FILES)
    monkeypatch.setattr(ledger_module, "MAX_SERVED_ROWS", 40)
    monkeypatch.setattr(ledger_module, "_PRUNE_EVERY", 10)  # private: prune often, on a small ledger
    ledger = Ledger.of(load_config(repo))
    for turn in range(1, 11):
        ledger.record_served("old" if turn <= 5 else "new", turn, "run",
                            [ServedRow("code", "src/billing.py", start_line=n, end_line=n) for n in range(1, 11)],
                            root=repo)
    assert ledger.served("old") == [] and len(ledger.served("new")) == 40  # the oldest went first
    assert ledger.served("new")[0].turn == 7


def test_run_with_verify_quarantines_the_doc_its_failed_issues_read(repo_factory, tmp_path, capsys):
    import shlex
    import sys

    repo = repo_factory(FILES)
    agent = shlex.join([sys.executable, "-c", "print('ISSUE_COMPLETE')"])
    fail = shlex.join([sys.executable, "-c", "raise SystemExit(1)"])
    for n in (1, 2):
        code = main(["run", _issue(repo, n), "--repo", str(repo), "--log", str(tmp_path / "runs.jsonl"),
                     "--agent", agent, "--verify", fail, "--no-embed"])
        assert code == 1
    records = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert [r["outcome"] for r in records] == ["failed", "failed"]
    row = _row(_preview(repo, 3, capsys), "docs/session-tokens.md")
    assert row["trust"]["quarantined"] and row["trust"]["failures"] == ["issue-1", "issue-2"]
