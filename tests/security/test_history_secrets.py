"""Issue 24: a credential in the subject of the commit that removed a name never reaches a
stale-doc note (check-docs, NEED_DOC, preview --json)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from tests.conftest import commit, make_repo, run_cli
from tests.security.fakesecrets import aws_key

_BASE = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=20)


def _repo_with_secret_subject(tmp_path, key):
    root = make_repo(tmp_path / "repo", {
        "src/auth.py": "def get_user(name):\n    return name\n",
        "docs/auth.md": "# Auth\n\nLoad users with `get_user()` from `src/auth.py`.\n",
    }, date=_BASE.isoformat())
    (root / "src/auth.py").write_text("def find_user(name):\n    return name\n")
    commit(root, f"rename get_user, rotate key {key} for the login service", date=(_BASE + timedelta(days=2)).isoformat())
    return root


def test_commit_subject_credentials_are_masked_in_every_note(tmp_path):
    key = aws_key()
    root = _repo_with_secret_subject(tmp_path, key)

    code, out, err = run_cli(root, "check-docs")
    assert code == 1 and "stale-ref" in out and "get_user" in out
    assert key not in out + err and key[:12] not in out + err
    assert "[REDACTED" in out  # the note still names the commit, with its subject masked

    code, out, err = run_cli(root, "check-docs", "--json")
    assert key not in out + err and key[:12] not in out + err

    code, out, err = run_cli(root, "signals", "--resolve", stdin="NEED_DOC: docs/auth.md\n")
    assert code == 0 and "get_user" in out
    assert key not in out + err and key[:12] not in out + err

    (root / "issue.md").write_text("# Auth get_user fails\n\nget_user in docs/auth.md is wrong\n")
    code, out, err = run_cli(root, "preview", str(root / "issue.md"), "--json", "--no-embed")
    assert code == 0
    data = json.loads(out)
    assert any(d["stale"] for d in data["docs"]), data["docs"]
    assert key not in out + err and key[:12] not in out + err
