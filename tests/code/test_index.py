"""CodeIndex: on-disk, incremental, corrupt-proof, lock-protected; lookups and BM25."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import commit, scan, write_tree

from noface_ctx._lexical import tokenize
from noface_ctx.code.index import INDEX_NAME, CodeIndex
from noface_ctx.config import cache_dir, load_config
from noface_ctx.datatypes import Excluded, RepoFiles

FILES = {
    "app/models.py": textwrap.dedent(
        '''\
        """Models."""


        class User:
            """A person who logs in."""

            def get_user(self, uid):
                return self.store.fetch(uid)

            def save(self):
                return persist(self)


        def persist(obj):
            return obj
        '''
    ),
    "app/views.py": "from app.models import User\n\n\ndef show(uid):\n    return User().get_user(uid)\n",
    "web/api.ts": "export function fetchUser(id: string) { return http.get(id); }\n",
    "svc/main.go": "package svc\n\nfunc (s *Server) Run() error {\n\treturn nil\n}\n",
    "config/settings.cfg": "[main]\nname = demo\n",
    "docs/guide.md": "# Guide\n\nNot code.\n",
}


@pytest.fixture
def repo(repo_factory):
    return repo_factory(FILES)


def build(root: Path, **kw) -> CodeIndex:
    return CodeIndex.build(scan(root), load_config(root), **kw)


def test_build_indexes_definitions_across_languages(repo):
    index = build(repo)
    assert index.stats["files"] == 5  # the Markdown doc is not code
    assert index.stats["parsed"] == 5 and index.stats["reused"] == 0
    assert set(index.stats) >= {"files", "parsed", "reused", "chunks", "seconds"}
    symbols = [c.symbol for c in index.chunks_for("app/models.py") if c.symbol]
    assert symbols == ["User", "User.get_user", "User.save", "persist"]
    [method] = index.find_symbol("User.get_user")
    assert (method.path, method.start_line, method.end_line, method.kind) == ("app/models.py", 7, 8, "method")
    assert method.text == "    def get_user(self, uid):\n        return self.store.fetch(uid)"
    assert method.references == ("store", "fetch")
    assert [c.path for c in index.find_symbol("get_user")] == ["app/models.py"]
    assert [c.symbol for c in index.find_symbol("app/models.py::persist")] == ["persist"]
    assert index.find_symbol("other.py::persist") == []
    assert index.find_symbol("Server.Run")[0].path == "svc/main.go"
    assert index.has_symbol("fetchUser") and not index.has_symbol("get_users")
    names = index.symbol_names()
    assert {"User", "get_user", "User.get_user", "Server.Run", "Run", "fetchUser"} <= names
    windows = index.chunks_for("config/settings.cfg")
    assert [(c.kind, c.start_line, c.end_line) for c in windows] == [("window", 1, 2)]
    assert index.file_text("app/views.py").startswith("from app.models import User")
    assert index.chunks_for("docs/guide.md") == ()
    assert sum(1 for _ in index.all_chunks()) == len(index)


def test_index_lives_in_the_cache_dir(repo):
    build(repo)
    assert (cache_dir(load_config(repo)) / "code" / INDEX_NAME).is_file()


def test_callers_and_bm25(repo):
    index = build(repo)
    callers = {index.symbol(i) for i in index.callers_of("persist")}
    assert callers == {"User.save"}
    assert {index.symbol(i) for i in index.callers_of("User.get_user")} == {"show"}
    scores = index.bm25(tokenize("fetch by uid from the store"))
    best = max(range(len(index)), key=lambda i: scores[i])
    assert index.symbol(best) == "User.get_user"
    files = index.bm25(tokenize("persist the user"), level="file")
    assert index.paths()[int(files.argmax())] == "app/models.py"


def test_second_build_reuses_everything_and_one_edit_reparses_one_file(repo):
    build(repo)
    again = build(repo)
    assert (again.stats["parsed"], again.stats["reused"]) == (0, 5)
    (repo / "app/views.py").write_text("def show(uid):\n    return uid\n\n\ndef hide(uid):\n    return None\n")
    edited = build(repo)
    assert (edited.stats["parsed"], edited.stats["reused"]) == (1, 4)
    assert [c.symbol for c in edited.chunks_for("app/views.py")] == ["show", "hide"]
    assert edited.callers_of("User.get_user") == []
    scores = edited.bm25(["hide"])
    assert edited.symbol(int(scores.argmax())) == "hide"
    assert build(repo).stats["parsed"] == 0  # and the edit was saved


def test_touched_but_identical_file_is_not_reparsed(repo):
    build(repo)
    path = repo / "app/models.py"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    index = build(repo)
    assert index.stats["parsed"] == 0 and index.stats["reused"] == 5


def test_added_and_removed_files(repo):
    build(repo)
    (repo / "svc/main.go").unlink()
    write_tree(repo, {"lib/util.rb": "class Util\n  def run\n  end\nend\n"})
    commit(repo, "swap")
    index = build(repo)
    assert index.stats["parsed"] == 1
    assert "svc/main.go" not in index.paths() and not index.has_symbol("Server.Run")
    assert index.has_symbol("Util.run")


def test_corrupt_or_foreign_index_is_rebuilt(repo):
    build(repo)
    stored = cache_dir(load_config(repo)) / "code" / INDEX_NAME
    stored.write_bytes(b"\x80\x04 definitely not a pickle")
    index = build(repo)
    assert index.stats["parsed"] == 5 and "rebuilt" in index.stats["note"]
    assert index.has_symbol("User.get_user")
    stored.write_bytes(pickle.dumps({"version": -1, "files": {}}))
    index = build(repo)
    assert index.stats["parsed"] == 5 and "version" in index.stats["note"]
    stored.write_bytes(stored.read_bytes()[:100])  # truncated mid-write by something else
    assert build(repo).stats["parsed"] == 5
    assert build(repo).stats["parsed"] == 0


def test_progress_callback_reaches_total(repo):
    calls = []
    build(repo, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 5) and calls[-1] == (5, 5)
    assert all(d <= t for d, t in calls)


def test_unwritable_cache_still_builds_in_memory(repo, tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a directory should be")
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(blocked / "sub"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked / "sub"))
    index = build(repo)
    from noface_ctx.config import cache_warnings

    assert index.has_symbol("persist")  # built; only a temp dir for this process holds the cache
    assert any("running without a persistent cache" in w for w in cache_warnings())


_BUILD_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from conftest import scan
from noface_ctx.config import load_config
from noface_ctx.code.index import CodeIndex
root = Path({root!r})
index = CodeIndex.build(scan(root), load_config(root))
assert index.has_symbol("User.get_user"), index.stats
print(index.stats["chunks"])
"""


def test_two_processes_building_at_once_leave_a_good_index(repo):
    many = {f"pkg/mod{i}.py": f"def func_{i}(x):\n    return helper_{i}(x) + {i}\n" for i in range(60)}
    write_tree(repo, many)
    commit(repo, "more")
    script = _BUILD_SCRIPT.format(tests=str(Path(__file__).resolve().parents[1]), root=str(repo))
    env = {**os.environ, "NOFACE_CTX_NO_POOL": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1].decode()[-800:] for o in outs]
    assert outs[0][0] == outs[1][0]
    index = build(repo)
    assert index.stats["parsed"] == 0 and index.has_symbol("func_59")


def test_source_files_excluded_only_for_size_are_still_indexed(repo):
    files = scan(repo)
    big = next(f for f in files.files if f.path == "app/models.py")
    sized_out = RepoFiles(
        files.root,
        tuple(f for f in files.files if f is not big and f.path != "config/settings.cfg"),
        (Excluded("app/models.py", "over max_file_size_kb", "size"), Excluded("config/settings.cfg", "x", "size")),
        True,
    )
    index = CodeIndex.build(sized_out, load_config(repo))
    assert index.has_symbol("User.get_user")  # served definition by definition, never whole
    assert "config/settings.cfg" not in index.paths()  # no grammar: nothing to serve it by
    secret = RepoFiles(files.root, sized_out.files, (Excluded("app/models.py", "secret", "secret"),), True)
    assert not CodeIndex.build(secret, load_config(repo)).has_symbol("User.get_user")
