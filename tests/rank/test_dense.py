"""The dense first stage (`rank.dense`): after `noface-ctx index` stored every definition's vector,
a definition that shares no word with the issue can join BM25's pool; without stored vectors, or
for files changed since, ranking works as before and says what the dense stage did not cover."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import FakeEmbedder, commit, run_cli, write_tree

from noface_ctx.code.index import CodeIndex
from noface_ctx.config import cache_dir, load_config
from noface_ctx.datatypes import Issue
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.rank import code as rank_code_module
from noface_ctx.rank.code import rank_code
from noface_ctx.rank.dense import KEYS_NAME, nearest
from noface_ctx.rank.vector_store import CachedEmbedder
from noface_ctx.rank.vectors import embed_index


# 70 definitions BM25 likes better (they say "invoice" and "rounding"), and one it cannot find:
# it shares no word with the issue, only meaning ("bill" ~ "invoice", "cents" ~ "rounding")
def _filler(i: int) -> str:
    words = " ".join(f"column{j} header{j} layout{j}" for j in range(i % 7 + 3))
    twice = " invoice" * (i % 4)  # BM25 spread as in a real pool
    return f"def invoice_rounding_report_{i}(rows):\n    # invoice rounding{twice}, then {words}\n    return rows\n"


FILLER = {f"billing/report_{i}.py": _filler(i) for i in range(70)}
TARGET = "def tally_bill_cents(lines):\n    return sum(x.cents for x in lines)\n"
FILES = {**FILLER, "billing/tally.py": TARGET}
SYNONYMS = (("invoice", "bill"), ("rounding", "cents"), ("wrong", "tally"))
ISSUE = Issue(id="T-1", title="Invoice rounding is wrong", description="Invoice rounding is wrong")


def _rank(root, embedder):
    config = load_config(str(root))
    files = scan_repo(config)
    return rank_code(ISSUE, files, CodeIndex.build(files, config), config, embedder)


def _store(root, embedder):
    return CachedEmbedder(embedder, cache_dir(load_config(str(root))) / "code" / "embeddings")


def _index_vectors(root, store):
    config = load_config(str(root))
    files = scan_repo(config)
    return embed_index(store, CodeIndex.build(files, config), load_docs(config, files).docs)


def _refs(ranking):
    return [c.ref for c in ranking.candidates]


@pytest.fixture
def repo(repo_factory):
    return repo_factory(FILES)


def test_without_stored_vectors_the_pool_is_bm25s_and_a_note_says_so(repo):
    ranking = _rank(repo, FakeEmbedder(synonyms=SYNONYMS))
    assert "tally_bill_cents" not in _refs(ranking)[:rank_code_module.POOL_SIZE]
    assert any("dense retrieval over the whole code index skipped" in n for n in ranking.notes)


def test_stored_vectors_let_a_definition_without_a_shared_word_in(repo):
    embedder = FakeEmbedder(synonyms=SYNONYMS)
    store = _store(repo, embedder)
    stats = _index_vectors(repo, store)
    assert stats.embedded == 71 and (store.cache_dir / KEYS_NAME).exists()
    ranking = _rank(repo, store)
    refs = _refs(ranking)
    assert "tally_bill_cents" in refs
    cosine = {row["symbol"]: row["embedding"] for row in ranking.report}
    assert cosine["tally_bill_cents"] == max(cosine.values())  # pooled and re-ranked as the nearest of all
    assert not any("dense retrieval" in n for n in ranking.notes)  # every definition took part


def test_a_file_changed_since_index_takes_part_by_bm25_only(repo):
    embedder = FakeEmbedder(synonyms=SYNONYMS)
    store = _store(repo, embedder)
    _index_vectors(repo, store)
    write_tree(repo, {"billing/tally.py": TARGET + "\n\ndef tally_more(lines):\n    return len(lines)\n"})
    commit(repo, "more")
    ranking = _rank(repo, _store(repo, embedder))
    assert "tally_bill_cents" not in _refs(ranking)[:rank_code_module.POOL_SIZE]
    assert any("dense retrieval covered 70 of 72 definitions" in n for n in ranking.notes)


def test_nearest_scores_every_covered_definition_and_rejects_a_damaged_keys_file(repo):
    embedder = FakeEmbedder(synonyms=SYNONYMS)
    store = _store(repo, embedder)
    _index_vectors(repo, store)
    config = load_config(str(repo))
    index = CodeIndex.build(scan_repo(config), config)
    query = embedder.embed(["invoice rounding"])[0]
    stage = nearest(store, index, query)
    assert stage is not None and stage.covered == stage.total == len(index) == 71
    assert np.all(stage.cosine <= 1.0001)
    (store.cache_dir / KEYS_NAME).write_bytes(b"PK\x03\x04 not a zip")
    fresh = CodeIndex.build(scan_repo(config), config)
    assert nearest(store, fresh, query) is None  # damaged: waits for the next `index`
    with (store.cache_dir / KEYS_NAME).open("wb") as f:  # well formed, wrong types
        np.savez(f, version=np.array([1]), labels=np.array([1.5]), counts=np.array([71]), keys=np.zeros(71))
    assert nearest(store, CodeIndex.build(scan_repo(config), config), query) is None


def test_index_command_records_the_keys(repo, monkeypatch):
    monkeypatch.setattr("noface_ctx._pipeline.shared_embedder",
                        lambda cfg, **kw: (CachedEmbedder(FakeEmbedder(synonyms=SYNONYMS), cache_dir(cfg) / "embeddings"), ""))
    code, _out, err = run_cli(repo, "index")
    assert code == 0 and "71 embedded" in err
    assert (cache_dir(load_config(str(repo))) / "embeddings" / KEYS_NAME).exists()


@pytest.mark.embedding
def test_real_model_finds_a_paraphrase_bm25_does_not_pool(repo_factory):
    from noface_ctx.rank.embed import get_embedder

    status = get_embedder("paraphrase-minilm-l3-onnx")
    if status.embedder is None:
        pytest.skip(status.reason)
    filler = {f"net/retry_{i}.py": f"def retry_socket_timeout_{i}(sock):\n    # retry socket timeout {i}\n"
              f"    return sock.timeout and sock.retry\n" for i in range(70)}
    root = repo_factory({**filler, "net/backoff.py": "def wait_longer_after_each_failure(attempt):\n"
                                                      "    return min(60, 2 ** attempt)\n"})
    issue = Issue(id="T-2", title="Socket timeout retry", description="Socket timeout retry should use exponential backoff")
    store = _store(root, status.embedder)
    _index_vectors(root, store)
    config = load_config(str(root))
    files = scan_repo(config)
    ranking = rank_code(issue, files, CodeIndex.build(files, config), config, store)
    assert "wait_longer_after_each_failure" in _refs(ranking)


def test_definitions_only_the_dense_stage_found_never_reshuffle_bm25s_candidates():
    lexical = np.array([True, True, True, False])
    bm25 = np.log1p(np.array([5.0, 1.0, 3.0, 0.0]))
    z = rank_code_module._z(bm25, lexical, floor=True)  # private: the fusion's z-score on a made-up pool
    assert np.allclose(z[:3], rank_code_module.zscore(bm25[:3]))  # as if the dense stage had added nothing
    assert z[3] == z[:3].min()  # missing from BM25's list: its lowest, not an outlier far below
    cosine = np.array([0.2, 0.4, 0.3, 0.9])
    zc = rank_code_module._z(cosine, lexical)  # private: as above
    assert np.allclose(zc[:3], rank_code_module.zscore(cosine[:3])) and zc[3] > zc[:3].max()


def test_index_leaves_test_files_to_the_prompts_that_pool_them(repo_factory):
    root = repo_factory({**FILES, "tests/test_tally.py": "def test_tally_bill_cents():\n    assert tally_bill_cents([]) == 0\n"})
    embedder = FakeEmbedder(synonyms=SYNONYMS)
    store = _store(root, embedder)
    stats = _index_vectors(root, store)
    assert stats.embedded == 71  # not the test's definition
    config = load_config(str(root))
    index = CodeIndex.build(scan_repo(config), config)
    stage = nearest(store, index, embedder.embed(["invoice rounding"])[0])
    assert stage is not None and stage.covered == stage.total == 71 == len(index) - 1
    ranking = _rank(root, _store(root, embedder))
    assert not any("dense retrieval" in n for n in ranking.notes)  # everything `index` embeds took part
