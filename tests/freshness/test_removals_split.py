"""Removals read in two processes (`removals_split`): a first run's unresolved names split between a
forked worker and the run itself give the findings one process gives, on a real repository
whose functions were renamed, moved and removed at different commits."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

from conftest import commit

from noface_ctx.freshness import removals_split as removals
from noface_ctx.freshness.check import check_docs

_BASE = datetime.now(timezone.utc).replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=30)
NAMES = ["get_user", "logout", "slug", "render_page", "send_mail", "parse_date", "load_config"]


def _repo(repo_factory):
    code = "".join(f"def {n}(x):\n    return x\n\n\n" for n in NAMES)
    docs = {f"docs/{n}.md": f"# {n}\n\nCall `{n}()` from `src/lib.py`.\n" for n in NAMES}
    root = repo_factory({"src/lib.py": code, "src/app.py": "import os\n", **docs},
                        date=_BASE.isoformat())
    for day, name in enumerate(NAMES[:5], 1):  # renamed, or gone, each in a commit of its own
        lib = root / "src/lib.py"
        new = f"def {name}_v2(x):\n" if day % 2 else ""
        lib.write_text(lib.read_text().replace(f"def {name}(x):\n    return x\n", new + ("    return x\n" if new else "")))
        commit(root, f"change {name}", date=(_BASE + timedelta(days=day)).isoformat())
    return root


def _report(root, cache, monkeypatch):
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(cache))
    found = check_docs(repo=root).to_dict()
    found.pop("seconds")
    return found


def test_removals_read_in_a_forked_worker_are_those_read_in_one_process(repo_factory, tmp_path, monkeypatch):
    root = _repo(repo_factory)
    forks: list[tuple[int, object]] = []  # (threads running when asked, what `in_forks` gave)
    real = removals.in_forks
    monkeypatch.setattr(removals, "in_forks", lambda *calls: (
        forks.append((threading.active_count(), got := real(*calls))), got)[1])
    monkeypatch.setattr(removals, "FORK_AFTER", 2)
    two = _report(root, tmp_path / "two", monkeypatch)
    monkeypatch.setattr(removals, "FORK_AFTER", 10**9)
    one = _report(root, tmp_path / "one", monkeypatch)
    assert two == one
    stale = {f["path"] for f in one["findings"] if f["code"] == "stale-ref"}
    assert stale == {f"docs/{n}.md" for n in NAMES[:5]}
    assert len(forks) == 1  # asked once, by the run with many docs
    if forks[0][0] == 1:  # no other thread ran: the worker was forked (else all were read here)
        assert forks[0][1] is not None
