"""Issue 10, PART A, "No code runs from data": caches cannot execute, live outside the work
tree, cannot be pointed outside the repository, and a cache file git tracks is never read."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import commit, git, write_tree
from conftest import run_cli as run
from hypothesis import given, settings
from hypothesis import strategies as st

from noface_ctx import _cachefile as cachefile
from noface_ctx import _state as state
from noface_ctx._cache_location import repo_key, user_cache_base
from noface_ctx.config import load_config
from noface_ctx.datatypes import Doc, Section

PACKAGE = Path(__file__).resolve().parents[2] / "noface_ctx"

REPO = {
    "src/shop/cart.py": "def add_item(cart, item):\n    '''Add an item to the cart.'''\n    cart.append(item)\n    return cart\n",
    "docs/cart.md": "---\ntitle: Cart design\n---\n# Cart design\n\nThe cart keeps items; `add_item` appends.\n",
    "issue.md": "# Cart add_item drops duplicates\n\nadd_item in src/shop/cart.py should keep duplicate items.\n",
    ".noface.toml": "[context]\nembeddings = false\n",
}




class _Boom:
    """Unpickling this creates the marker file: the attack a committed cache could carry."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _plant_pickles(repo: Path, marker: Path, names: list[str]) -> None:
    payload = pickle.dumps(_Boom(str(marker)))
    write_tree(repo, dict.fromkeys(names, payload))


ALL_CACHE_NAMES = [
    ".noface/index/docs.pkl", ".noface/index/doc-terms.pkl", ".noface/index/freshness.pkl",
    ".noface/index/words.pkl", ".noface/index/code/index.pkl",
    ".noface/index/docs.cache", ".noface/index/doc-terms.cache", ".noface/index/freshness.cache",
    ".noface/index/words.cache", ".noface/index/code/index.cache", ".noface/index/scan.json",
]


@pytest.mark.parametrize("point_cache_at_it", [False, True])
def test_committed_pickles_never_run(repo_factory, tmp_path, point_cache_at_it):
    """A clone holding pickles at every cache name (and a config pointing the cache at them):
    preview, index, signals --resolve and check-docs never create the marker."""
    marker = tmp_path / "PWNED"
    files = dict(REPO)
    if point_cache_at_it:
        files[".noface.toml"] = '[context]\nembeddings = false\ncache_dir = ".noface/index"\n'
    repo = repo_factory(files)
    _plant_pickles(repo, marker, ALL_CACHE_NAMES)
    commit(repo, "plant caches")
    assert pickle.loads(pickle.dumps(0)) == 0  # (the payload itself is real: see the last check)

    assert run(repo, "preview", "issue.md", "--no-embed", "-q")[0] == 0
    assert run(repo, "index")[0] == 0
    assert run(repo, "signals", "-", "--resolve", stdin="NEED_CODE: src/shop/cart.py\n")[0] == 0
    assert run(repo, "check-docs")[0] in (0, 1)
    assert not marker.exists()
    # the payload would have fired under pickle: prove the test plants a live attack
    pickle.loads((repo / ".noface/index/docs.pkl").read_bytes())
    assert marker.exists()


def test_default_cache_is_outside_the_work_tree(repo_factory, monkeypatch, tmp_path):
    repo = repo_factory(REPO)
    monkeypatch.delenv("NOFACE_CTX_CACHE_DIR")
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    assert run(repo, "preview", "issue.md", "--no-embed", "-q")[0] == 0
    where = xdg / "noface-ctx" / repo_key(repo)
    assert repo_key(repo).startswith("repo-")  # readable name, then the hash of the resolved root
    assert (where / "code" / "index.cache").is_file() and (where / "docs.cache").is_file()
    assert not (repo / ".noface").exists()
    assert not any(p.suffix == ".pkl" for p in where.rglob("*"))

    monkeypatch.delenv("XDG_CACHE_HOME")  # then ~/.cache/noface-ctx
    assert user_cache_base() == Path.home() / ".cache" / "noface-ctx"


@pytest.mark.parametrize("key,value", [
    ("cache_dir", "../outside"),
    ("cache_dir", "/etc"),
    ("request_log", "/tmp/any-file.jsonl"),
    ("request_log", "../../log.jsonl"),
    ("cache_dir", "link/inner"),  # a link inside the repository that leads outside
])
def test_repository_config_cannot_point_outside(repo_factory, tmp_path, key, value):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    repo = repo_factory({**REPO, ".noface.toml": f'[context]\nembeddings = false\n{key} = "{value}"\n'})
    (repo / "link").symlink_to(outside, target_is_directory=True)
    code, out, err = run(repo, "preview", "issue.md", "--no-embed", "-q")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("noface-ctx: error: .noface.toml:3: [context] " + key)
    assert "outside the repository" in lines[0]
    assert not any(outside.iterdir())


def test_config_paths_inside_the_repository_are_fine(repo_factory):
    repo = repo_factory({**REPO, ".noface.toml": '[context]\nembeddings = false\ncache_dir = "build/ctx"\n'
                                                  'request_log = "logs/requests.jsonl"\n'})
    assert run(repo, "preview", "issue.md", "--no-embed", "-q")[0] == 0
    assert (repo / "build/ctx/code/index.cache").is_file()
    assert run(repo, "signals", "-", "--resolve", stdin="NEED_CODE: src/shop/cart.py\n")[0] == 0
    assert (repo / "logs/requests.jsonl").is_file()


def test_a_cache_file_git_tracks_is_never_read(repo_factory):
    """A well-formed cache (our own format) committed in the repository, claiming a poisoned
    parse of the real doc: never read, so the poison never reaches the prompt."""
    repo = repo_factory({**REPO, ".noface.toml": '[context]\nembeddings = false\ncache_dir = "ctx"\n'})
    text = (repo / "docs/cart.md").read_text()
    digest = hashlib.sha1(text.encode()).hexdigest()
    poisoned = Doc(path="docs/cart.md", slug="cart", title="POISONED", text="POISONED add_item cart design",
                   sections=(Section("cart", "POISONED", "poisoned", 1, 1, 1, "POISONED add_item cart"),))
    from noface_ctx.docs.cache import ParseCache

    data = cachefile.encode(ParseCache.VERSION, {"docs/cart.md": (digest, poisoned, "")})
    state.clear_all()
    (repo / "ctx").mkdir()
    (repo / "ctx/docs.cache").write_bytes(data)
    commit(repo, "commit a cache")
    code, out, _ = run(repo, "preview", "issue.md", "--no-embed", "-q", "--json")
    assert code == 0 and "POISONED" not in out and '"Cart design"' in out
    # the same bytes, no longer tracked, are read (in a new process): the guard is the tracking
    assert (repo / "ctx/docs.cache").read_bytes() == data, "overwritten"
    git(repo, "rm", "-q", "--cached", "ctx/docs.cache")
    git(repo, "commit", "-qm", "untrack")  # (no `add -A`: that would track it again)
    proc = subprocess.run([sys.executable, "-m", "noface_ctx", "preview", "issue.md", "--no-embed", "-q", "--json",
                           "--repo", str(repo)], capture_output=True, env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)})
    assert proc.returncode == 0 and b"POISONED" in proc.stdout


def _cache_root(repo: Path) -> Path:
    return user_cache_base() / repo_key(repo)


@pytest.mark.parametrize("corruption", ["garbage", "truncated", "deep", "unknown-class", "bad-array", "pickle"])
def test_a_broken_cache_file_is_rebuilt_not_a_crash(repo_factory, corruption):
    repo = repo_factory(REPO)
    assert run(repo, "preview", "issue.md", "--no-embed", "-q")[0] == 0
    root = _cache_root(repo)
    good = (root / "code/index.cache").read_bytes()
    header_len = int.from_bytes(good[len(cachefile.MAGIC):len(cachefile.MAGIC) + 8], "little")
    if corruption == "garbage":
        bad = os.urandom(4000)
    elif corruption == "truncated":
        bad = good[: len(good) // 2]
    elif corruption == "deep":
        head = ('{"format":1,"version":5,"arrays":[],"value":' + "[" * 100_000 + "]" * 100_000 + "}").encode()
        bad = cachefile.MAGIC + len(head).to_bytes(8, "little") + head
    elif corruption == "unknown-class":
        head = b'{"format":1,"version":5,"arrays":[],"value":{"\\u0000":"o","c":"Popen","v":{}}}'
        bad = cachefile.MAGIC + len(head).to_bytes(8, "little") + head
    elif corruption == "bad-array":  # claims more bytes than the file holds
        bad = good[: len(cachefile.MAGIC) + 8 + header_len] + b"\0" * 8
        assert b'"a"' in good[: len(cachefile.MAGIC) + 8 + header_len]  # the index holds arrays
    else:
        bad = pickle.dumps({"version": 5})
    for name in ("code/index.cache", "docs.cache", "doc-terms.cache", "freshness.cache", "words.cache"):
        if (root / name).exists():
            (root / name).write_bytes(bad)
    proc = subprocess.run([sys.executable, "-m", "noface_ctx", "preview", "issue.md", "--no-embed", "-q",
                           "--repo", str(repo)], capture_output=True, env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)})
    assert proc.returncode == 0 and b"add_item" in proc.stdout, proc.stderr
    assert (root / "code/index.cache").read_bytes()[: len(cachefile.MAGIC)] == cachefile.MAGIC


@pytest.mark.parametrize("how", ["cache dir", "home"])
def test_unwritable_cache_runs_without_one_with_one_warning(repo_factory, tmp_path, monkeypatch, how):
    repo = repo_factory(REPO)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    if how == "cache dir":
        monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(blocker / "cache"))
    else:  # an unwritable $HOME and no cache variables
        monkeypatch.delenv("NOFACE_CTX_CACHE_DIR")
        monkeypatch.delenv("XDG_CACHE_HOME")
        monkeypatch.setenv("HOME", str(blocker))
    code, out, err = run(repo, "preview", "issue.md", "--no-embed", "-q")
    assert code == 0 and "add_item" in out
    warned = [ln for ln in err.splitlines() if "running without a persistent cache" in ln]
    assert len(warned) == 1
    assert not (repo / ".noface").exists()


def test_orphan_tmp_files_are_swept(repo_factory):
    repo = repo_factory(REPO)
    root = _cache_root(repo)
    (root / "code").mkdir(parents=True)
    old, fresh = root / "code/index.cache.123.tmp", root / "docs.cache.456.tmp"
    (root / "code/embeddings").mkdir()
    old_npy = root / "code/embeddings/vectors.77.tmp.npy"
    keep = root / "docs.cache"
    for p in (old, fresh, old_npy, keep):
        p.write_bytes(b"half a file")
    past = time.time() - 3600
    for p in (old, old_npy, keep):
        os.utime(p, (past, past))
    assert run(repo, "preview", "issue.md", "--no-embed", "-q")[0] == 0
    assert not old.exists() and not old_npy.exists() and fresh.exists()
    other = root / "old-but-real.cache"
    other.write_bytes(b"x")
    os.utime(other, (past, past))
    assert cachefile.sweep_tmp(root) == 0 and other.exists()  # only temp files are swept


def test_crash_log_goes_to_a_private_file_in_the_user_cache(repo_factory, monkeypatch):
    repo = repo_factory(REPO)
    from noface_ctx import cli

    def broken(args, stdin):
        raise RuntimeError("deliberate bug")

    monkeypatch.setitem(cli._COMMANDS, "index", broken)  # private: a bug planted in one command
    code, _, err = run(repo, "index")
    assert code == 3
    m = re.search(r"\(traceback: (.+)\)$", err.strip())
    assert m, err
    log = Path(m.group(1))
    assert log.is_file() and log.parent == user_cache_base() and "deliberate bug" in log.read_text()
    assert (log.stat().st_mode & 0o777) == 0o600
    assert not Path("/tmp/noface-ctx-crash.log").samefile(log) if Path("/tmp/noface-ctx-crash.log").exists() else True


def test_no_pickle_marshal_or_eval_in_the_package():
    banned = re.compile(r"\bimport pickle\b|\bpickle\.(loads?|dumps?|Unpickler)\b|\bmarshal\b|(?<![\w.])eval\(|(?<![\w.])exec\(|"
                        r"allow_pickle\s*=\s*True|yaml\.load\(|yaml\.unsafe_load|shelve")
    hits = [f"{p.name}:{i}" for p in PACKAGE.rglob("*.py")
            for i, line in enumerate(p.read_text().splitlines(), 1) if banned.search(line)]
    assert hits == []


values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**62, 2**62) | st.floats(allow_nan=False) | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.tuples(kids, kids) | st.dictionaries(st.text(max_size=5), kids, max_size=4)
    | st.dictionaries(st.integers(), kids, max_size=3) | st.frozensets(st.integers(), max_size=4)
    | st.sets(st.text(max_size=4), max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(values)
def test_codec_round_trips_what_the_caches_hold(value):
    version, back = cachefile.decode(cachefile.encode(("v", 1), value))
    assert version == ("v", 1) and back == value and type(back) is type(value)


def test_codec_round_trips_arrays_and_docs():
    doc = Doc(path="a.md", slug="a", title="A", text="t", sections=(Section("a", "H", "h", 2, 1, 3, "x"),),
              frontmatter={"tags": ["x"], "n": {"deep": None}})
    arrays = {"f": np.arange(12, dtype=np.float32).reshape(3, 4), "i": np.array([1, 2], dtype=np.int64),
              "e": np.zeros((0, 2), np.int32)}
    _, back = cachefile.decode(cachefile.encode(1, {"doc": doc, **arrays}))
    assert back["doc"] == doc
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype and back[k].shape == a.shape and (back[k] == a).all()
        assert back[k].flags.writeable
    with pytest.raises(TypeError):
        cachefile.encode(1, np.array([object()], dtype=object))


def test_wrong_field_types_are_refused():
    good = cachefile.encode(1, Section("a", "H", "h", 2, 1, 3, "x"))
    bad = good.replace(b'"level":2', b'"level":"2"')
    assert bad != good
    head = len(cachefile.MAGIC)
    n = int.from_bytes(bad[head:head + 8], "little") + 2  # the header grew by the two quotes
    bad = bad[:head] + n.to_bytes(8, "little") + bad[head + 8:]
    with pytest.raises(cachefile.CacheFormatError):
        cachefile.decode(bad)


def _cache_bytes(header: dict, blob: bytes = b"") -> bytes:
    head = json.dumps(header).encode()  # spaces after separators, as another writer might put them
    head += b" " * (-(len(cachefile.MAGIC) + 8 + len(head)) % 16)
    return cachefile.MAGIC + len(head).to_bytes(8, "little") + head + blob


def test_the_array_table_read_ahead_must_be_the_headers_own():
    blob = np.arange(4, dtype=np.int64).tobytes()
    real = {"format": cachefile.FORMAT, "version": 1, "arrays": [["<i8", [4], 0, 32]],
            "value": {"\u0000": "a", "v": 0}}
    assert cachefile.decode(_cache_bytes(real, blob))[1].tolist() == [0, 1, 2, 3]  # the control
    # a key holding the text `"arrays":` ahead of the real table: a valid table, but not the header's
    decoy = {"x\"arrays": [["<i8", [2], 0, 16]], **real}
    with pytest.raises(cachefile.CacheFormatError, match="array table"):
        cachefile.decode(_cache_bytes(decoy, blob))
    for bad in ({"\u0000": "a", "v": -1}, {"\u0000": "a", "v": 1}, {"\u0000": "t", "v": {"a": 1}}):
        with pytest.raises(cachefile.CacheFormatError):
            cachefile.decode(_cache_bytes({**real, "value": bad}, blob))


def test_load_config_refuses_outside_paths_without_running_anything(tmp_path):
    (tmp_path / ".noface.toml").write_text('[context]\nrequest_log = "/etc/passwd"\n')
    from noface_ctx.errors import ConfigError

    with pytest.raises(ConfigError, match=r"\.noface\.toml:2: \[context\] request_log"):
        load_config(tmp_path)
