"""Words at commits read in a worker process (`words_process.WordsProcess`): the worker's answers
are `VersionWords`' and `git grep`'s on a real repository, a worker that cannot be forked or
dies is made up for here, the worker holds none of the caller's pipes open and ends with its
reader, and a whole `check-docs` run gives the same findings with the worker as without."""

from __future__ import annotations

import gc
import multiprocessing
import os
import select
import signal
from datetime import datetime, timedelta, timezone

import pytest
from conftest import commit, git

from noface_ctx import _git as gitrun
from noface_ctx import _process
from noface_ctx.freshness import grep_plan, words_process
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.version_words import VersionWords
from noface_ctx.freshness.words_process import WordsProcess

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forking is POSIX only")
EXCLUDES = ("*.md",)


def _repo(repo_factory):
    root = repo_factory({"a.py": "def alpha():\n    pass\n", "b.py": "beta = alpha\n", "c.md": "alpha\n",
                         "pkg/d.py": "gamma = 'a-b'\n"})
    (root / "a.py").write_text("def alpha_v():\n    beta = 2\n")
    commit(root, "rename")
    return root, git(root, "rev-list", "--reverse", "HEAD").split()


def _asks(shas):
    return [(shas[0], {"alpha", "beta", "a-b"}, ["a.py", "b.py", "c.md", "pkg"]),
            (shas[1], {"alpha", "alpha_v", "gamma"}, ["a.py", "b.py", "pkg/d.py"]), (shas[1], {"beta"}, None)]


def _workers() -> set[int]:
    return {p.pid for p in multiprocessing.active_children() if p.pid is not None}


def test_the_worker_answers_as_git_grep_does_and_notes_what_it_could_not_read(repo_factory, monkeypatch):
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)  # other tests' idle threads aside
    root, shas = _repo(repo_factory)
    want = [gitrun.grep_words(root, [sha], words, exclude=EXCLUDES, paths=paths) for sha, words, paths in _asks(shas)]
    reader = WordsProcess(root)
    reader.start()
    assert reader.forked
    assert reader.grep_many(_asks(shas), EXCLUDES) == want == VersionWords(root).grep_many(_asks(shas), EXCLUDES)
    assert want[0] == {"alpha": {"a.py", "b.py"}, "beta": {"b.py"}, "a-b": {"pkg/d.py"}}
    reader.close()  # its `git cat-file` ends; the worker answers the next search
    assert reader.grep_many(_asks(shas)[1:2], EXCLUDES) == want[1:2] and reader.forked
    oid = git(root, "rev-parse", "HEAD:b.py").strip()
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()  # as a partial clone lacks it
    gitrun.unread(root)
    fresh = WordsProcess(root)  # (the first kept what it read)
    fresh.start()
    assert fresh.grep_many([("HEAD", {"beta"}, ["a.py", "b.py"])]) == [{"beta": {"a.py"}}] and fresh.forked
    assert gitrun.unread(root) == {oid}  # noted here, as `git grep` notes it


def test_a_worker_not_forked_or_gone_is_made_up_for_here(repo_factory, monkeypatch):
    root, shas = _repo(repo_factory)
    want = VersionWords(root).grep_many(_asks(shas), EXCLUDES)
    monkeypatch.setattr(_process.threading, "active_count", lambda: 2)  # another thread runs: no fork
    alone = WordsProcess(root)
    alone.start()
    assert not alone.forked and alone.grep_many(_asks(shas), EXCLUDES) == want
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)
    before = _workers()
    reader = WordsProcess(root)
    reader.start()
    pids = _workers() - before
    assert len(pids) == words_process.WORKERS
    os.kill(min(pids), signal.SIGKILL)  # one of them
    assert reader.grep_many(_asks(shas), EXCLUDES) == want
    assert not reader.forked  # answered here from now on
    reader.start()  # started once a run: not forked again
    assert not reader.forked


def test_the_worker_holds_no_pipe_of_the_caller_and_ends_with_its_reader(repo_factory, monkeypatch):
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)
    root, shas = _repo(repo_factory)
    read_end, write_end = os.pipe()  # as the stdin of a `git cat-file` the caller later ends
    before = _workers()
    reader = WordsProcess(root)
    reader.start()
    pids = _workers() - before
    assert len(pids) == words_process.WORKERS
    os.close(write_end)
    poll = select.poll()  # (not `select.select`: a long test run's descriptors pass 1024)
    poll.register(read_end, select.POLLIN)
    assert poll.poll(5000) and os.read(read_end, 1) == b""  # the end of input, though the worker runs
    os.close(read_end)
    assert reader.grep_many(_asks(shas)[:1], EXCLUDES)[0]["beta"] == {"b.py"}
    del reader
    gc.collect()
    assert not pids & _workers()  # ended with their reader


_BASE = datetime.now(timezone.utc).replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=30)
NAMES = ["get_user", "logout", "render_page", "send_mail", "parse_date"]


def test_check_docs_finds_the_same_with_the_worker_as_without(repo_factory, tmp_path, monkeypatch):
    code = "".join(f"def {n}(x):\n    return x\n\n\n" for n in NAMES)
    docs = {f"docs/{n}.md": f"# {n}\n\nCall `{n}()` from `src/lib.py`.\n" for n in NAMES}
    root = repo_factory({"src/lib.py": code, "src/app.py": "import os\n", **docs},
                        date=_BASE.isoformat())
    for day, name in enumerate(NAMES[:4], 1):  # renamed, or gone, each in a commit of its own
        lib = root / "src/lib.py"
        new = f"def {name}_v2(x):\n" if day % 2 else ""
        lib.write_text(lib.read_text().replace(f"def {name}(x):\n    return x\n", new + ("    return x\n" if new else "")))
        commit(root, f"change {name}", date=(_BASE + timedelta(days=day)).isoformat())
    monkeypatch.setattr(grep_plan, "BLOBS_FROM", 0)  # every search's files read as blobs
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)
    forked: list[bool] = []
    real = words_process.start_server
    monkeypatch.setattr(words_process, "start_server", lambda *a: (forked.append(bool(got := real(*a))), got)[1])
    reports = []
    for name in ("worker", "here"):
        monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / name))
        reports.append(check_docs(repo=root).to_dict())
        reports[-1].pop("seconds")
        monkeypatch.setattr(words_process, "start_server", lambda *a: None)
    assert forked == [True] * words_process.WORKERS  # the first run's searches were read in the workers
    assert reports[0] == reports[1]
    stale = {f["path"] for f in reports[0]["findings"] if f["code"] == "stale-ref"}
    assert stale == {f"docs/{n}.md" for n in NAMES[:4]}
