"""The one BM25: `bm25s` builds it, its scores are computed here from the stored arrays (a
process reading a cached index never imports `bm25s`), equal to `bm25s`'s own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import bm25s
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noface_ctx import _cachefile as cachefile
from noface_ctx import _state as state
from noface_ctx._lexical import BM25

ROOT = Path(__file__).resolve().parents[1]
WORDS = st.sampled_from("cart item total price tax order user session login token page query".split())


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.lists(WORDS, max_size=12), min_size=1, max_size=15),
       query=st.lists(st.one_of(WORDS, st.just("absent")), max_size=6))
def test_scores_equal_bm25s_and_survive_a_cache_file(docs, query, tmp_path_factory):
    ours = BM25(docs)
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in d] for d in docs]
    known = [t for t in query if t in vocab]
    expected = np.zeros(len(docs), np.float32)  # no term at all (bm25s cannot index that): zeros
    if known:
        theirs = bm25s.BM25(k1=ours.k1, b=ours.b)
        theirs.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
        expected = np.asarray(theirs.get_scores(known), dtype=np.float32)
    assert np.array_equal(ours.scores(query), expected)  # the same float32 sums, repeated terms too
    path = tmp_path_factory.mktemp("bm25") / "bm25.cache"
    assert cachefile.save(path, 1, {"bm25": ours})
    state.clear_all()  # as a new process: read back from the file
    back = cachefile.load(path, 1)["bm25"]
    assert np.array_equal(back.scores(query), expected)


@pytest.mark.parametrize("damage", ["pointer past the data", "row out of range", "term out of range", "float pointers"])
def test_a_damaged_stored_index_is_refused(damage):
    state = BM25([["cart", "item"], ["tax"], ["cart"]]).to_state()
    scores = dict(state["scores"])
    if damage == "pointer past the data":
        scores["indptr"] = scores["indptr"] + 1
    elif damage == "row out of range":
        scores["indices"] = scores["indices"] + 10
    elif damage == "term out of range":
        state["vocab_dict"] = {**state["vocab_dict"], "cart": 99}
    else:
        scores["indptr"] = scores["indptr"].astype(np.float64)
    state["scores"] = scores
    with pytest.raises(ValueError):
        BM25.from_state(state)


def test_scoring_a_cached_index_does_not_import_bm25s(tmp_path):
    path = tmp_path / "bm25.cache"
    assert cachefile.save(path, 1, {"bm25": BM25([["cart", "item"], ["tax", "cart"]])})
    code = ("import sys\nfrom pathlib import Path\nfrom noface_ctx import _cachefile as cachefile\n"
            f"bm = cachefile.load(Path({str(path)!r}), 1)['bm25']\n"
            "print(min(bm.scores(['cart']).tolist()) > 0, 'bm25s' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == ["True", "False"]  # both docs score, and bm25s was never imported
