"""Vectors as part of the index: every definition and doc section embedded once, incrementally,
resumably; a prompt built after `noface-ctx index` embeds only the issue."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import FakeEmbedder, commit, write_tree

from noface_ctx.code.index import CodeIndex
from noface_ctx.config import load_config
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.rank import vectors as vectors
from noface_ctx.rank.vector_store import CachedEmbedder

FILES = {
    ".noface.toml": '[monowiki]\nvault = "docs"\n',
    "docs/cache.md": "---\ntitle: Cache\n---\n# Cache\n\nThe cache keeps rows.\n\n## Eviction\n\nOld rows go first.\n",
    "src/cache.py": "class Cache:\n    def get(self, key):\n        return self.rows[key]\n\n    def put(self, key, value):\n        self.rows[key] = value\n",
    "src/util.py": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
}


def _texts(repo):
    cfg = load_config(repo)
    files = scan_repo(cfg)
    return vectors.index_texts(CodeIndex.build(files, cfg), load_docs(cfg, files).docs)


def test_every_definition_and_section_is_embedded_once(repo_factory, tmp_path):
    repo = repo_factory(FILES)
    texts = _texts(repo)
    assert any(t.startswith("src/cache.py Cache.put\n") for t in texts)
    assert any(t.startswith("Cache: Eviction\n") for t in texts)
    inner = FakeEmbedder()
    first = vectors.embed_all(CachedEmbedder(inner, tmp_path / "vec"), texts)
    assert first.embedded == first.texts == len(set(texts)) and first.dropped == 0
    again = vectors.embed_all(CachedEmbedder(inner, tmp_path / "vec"), texts)  # a new process: read from disk
    assert again.embedded == 0
    # stored as plain arrays: readable with allow_pickle=False, one row per text
    (npy,) = (tmp_path / "vec").glob("*.npy")
    assert np.load(npy, allow_pickle=False).shape == (len(set(texts)), inner.dim)


def test_add_change_delete_embed_only_what_changed(repo_factory, tmp_path):
    repo = repo_factory(FILES)
    store_dir = tmp_path / "vec"
    vectors.embed_all(CachedEmbedder(FakeEmbedder(), store_dir), _texts(repo))
    write_tree(repo, {"src/util.py": "def slugify(text):\n    return text.strip().lower()\n",
                      "src/new.py": "def added():\n    return 1\n"})
    (repo / "src" / "cache.py").unlink()
    commit(repo, "add, change, delete")
    inner = FakeEmbedder()
    stats = vectors.embed_all(CachedEmbedder(inner, store_dir), _texts(repo))
    assert stats.embedded == 2 == inner.texts_embedded  # the changed slugify and the new `added`
    assert stats.dropped == 4  # the old slugify, and Cache, Cache.get, Cache.put of the deleted file
    later = FakeEmbedder()
    assert vectors.embed_all(CachedEmbedder(later, store_dir), _texts(repo)).embedded == 0


class _Dies(FakeEmbedder):
    """Fails on its third call, like a run killed half way."""

    def embed(self, texts):
        if self.calls == 2:
            raise KeyboardInterrupt
        return super().embed(texts)


def test_a_killed_run_keeps_its_finished_batches(repo_factory, tmp_path, monkeypatch):
    repo = repo_factory(FILES)
    texts = _texts(repo)
    monkeypatch.setattr(vectors, "BATCH", 2)
    monkeypatch.setattr(vectors, "SAVE_EVERY", 2)
    with pytest.raises(KeyboardInterrupt):
        vectors.embed_all(CachedEmbedder(_Dies(), tmp_path / "vec"), texts)
    resumed = FakeEmbedder()
    stats = vectors.embed_all(CachedEmbedder(resumed, tmp_path / "vec"), texts)
    assert stats.embedded == len(set(texts)) - 4  # two batches of two were saved before the kill
    assert resumed.texts_embedded == stats.embedded


def test_a_few_new_vectors_go_to_the_side_file_not_the_matrix(tmp_path, monkeypatch):
    from noface_ctx.rank import vector_store as embed

    texts = [f"def f{i}(): return {i}" for i in range(20)]
    first = CachedEmbedder(FakeEmbedder(), tmp_path / "vec")
    expected = first.embed(texts)
    first.save()
    (npy,) = (tmp_path / "vec").glob("*.npy")
    before = npy.stat()
    second = CachedEmbedder(FakeEmbedder(), tmp_path / "vec")  # a prompt that embeds only its issue
    issue = second.embed(["the issue text"])
    second.save()
    assert npy.stat().st_ino == before.st_ino and npy.stat().st_mtime_ns == before.st_mtime_ns
    assert list((tmp_path / "vec").glob("*.delta.npz"))
    inner = FakeEmbedder()
    third = CachedEmbedder(inner, tmp_path / "vec")  # a new process reads matrix and side file
    assert np.array_equal(third.embed([*texts, "the issue text"]), np.vstack([expected, issue]))
    assert inner.texts_embedded == 0 and len(third) == 21
    # past DELTA_MAX, or after a drop, the matrix is rewritten and the side file emptied
    monkeypatch.setattr(embed, "DELTA_MAX", 2)
    third.embed(["two", "more texts"])
    third.save()
    assert not list((tmp_path / "vec").glob("*.delta.npz"))
    assert np.load(npy, allow_pickle=False).shape == (23, FakeEmbedder().dim)
    fourth = CachedEmbedder(FakeEmbedder(), tmp_path / "vec")
    assert fourth.keep_only(texts[:5]) == 18
    fourth.save()
    assert np.array_equal(np.load(npy, allow_pickle=False), expected[:5])
    assert CachedEmbedder(FakeEmbedder(), tmp_path / "vec").missing(texts) == texts[5:]


def test_a_corrupt_side_file_is_ignored(tmp_path):
    store = CachedEmbedder(FakeEmbedder(), tmp_path / "vec")
    store.embed(["kept in the matrix"])
    store.save()
    store.embed(["kept in the side file"])
    store.save()
    (delta,) = (tmp_path / "vec").glob("*.delta.npz")
    delta.write_bytes(b"not a zip")
    again = CachedEmbedder(FakeEmbedder(), tmp_path / "vec")
    assert again.missing(["kept in the matrix", "kept in the side file"]) == ["kept in the side file"]


def test_threads_embedding_and_saving_at_once_get_their_own_vectors(tmp_path, monkeypatch):
    import threading

    from noface_ctx.rank import vector_store as embed

    monkeypatch.setattr(embed, "DELTA_MAX", 3)  # saves alternate between side file and matrix
    store = CachedEmbedder(FakeEmbedder(), tmp_path / "vec")
    reference = FakeEmbedder()
    errors: list[str] = []

    def work(n: int) -> None:
        for i in range(15):
            texts = [f"thread {n} text {i}", f"shared text {i % 4}"]
            if not np.array_equal(store.embed(texts), reference.embed(texts)):
                errors.append(f"{n}/{i}")
            store.save()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(CachedEmbedder(FakeEmbedder(), tmp_path / "vec")) == 4 * 15 + 4


@pytest.mark.embedding
def test_after_index_a_prompt_embeds_only_the_issue(repo_factory):
    repo = repo_factory({**FILES, "issue.md": "# Cache eviction drops new rows\n\nPut should evict the oldest row.\n"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "noface_ctx", *args], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=300)

    before = json.loads(run("preview", "issue.md", "-q", "--json").stdout)
    assert before["details"]["embedded_now"] > 4
    assert any("noface-ctx index" in w for w in before["warnings"])
    write_tree(repo, {"issue.md": "# Slugs keep spaces\n\nslugify should turn spaces into dashes.\n"})
    out = run("index")
    assert out.returncode == 0 and "vectors:" in out.stderr, out.stderr
    after = json.loads(run("preview", "issue.md", "-q", "--json").stdout)
    assert after["details"]["embedding_used"]["code"] is True
    assert after["details"]["embedded_now"] <= 4  # the new issue itself (docs and code queries)
    assert not any("noface-ctx index" in w for w in after["warnings"])
    skipped = run("index", "--no-embed")
    assert skipped.returncode == 0 and "vectors:" not in skipped.stderr


@pytest.mark.parametrize("asked", [3, 90])  # a few rows (gathered) or most of the matrix (one pass)
def test_similarities_equal_the_dot_products_of_stored_and_new_vectors(tmp_path, asked):
    inner = FakeEmbedder()
    texts = [f"text number {i} about topic{i % 7}" for i in range(100)]
    store = CachedEmbedder(inner, tmp_path / "vec")
    vectors.embed_all(store, texts)  # saved: read back memory-mapped below
    later = CachedEmbedder(inner, tmp_path / "vec")
    later.embed(["a text embedded just now"])  # not saved: held in memory
    query = inner.embed(["topic3 text"])[0]
    asked_texts = [*texts[:asked], "a text embedded just now", "never embedded"]
    from noface_ctx.rank.vector_store import content_key

    cosine, known = later.similarities([content_key(t) for t in asked_texts], query)
    expected = inner.embed(asked_texts[:-1]) @ query
    assert known.tolist() == [True] * (asked + 1) + [False]
    assert np.allclose(cosine[:-1], expected, atol=1e-6) and cosine[-1] == 0.0
