"""Vectors as part of the index: `noface-ctx index` embeds every definition outside test files
and every doc section once, so that a prompt embeds only the issue itself. Test files hold most
definitions of a large repository (61 % of django's) and ranking demotes them unless the issue
is about tests; a prompt that pools some embeds them then (`details.embedded_now` counts them).

The texts are exactly what ranking embeds (`rank.code.chunk_embed_text`,
`rank.docs.section_embed_text`), stored in the same content-hash cache (`vector_store.CachedEmbedder`:
a `.npy` matrix read with `allow_pickle=False` and memory-mapped, plus a JSON key list). So the
store is incremental by construction: an unchanged definition keeps its vector, a changed or new
one is embedded, and vectors of texts that no longer exist are dropped. Work is saved every
`SAVE_EVERY` texts, so a run that is killed keeps what it finished and the next run resumes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noface_ctx.datatypes import Doc

if TYPE_CHECKING:
    from noface_ctx.code.index import CodeIndex
    from noface_ctx.rank.vector_store import CachedEmbedder

SAVE_EVERY = 2048  # texts embedded between two saves of the store
BATCH = 256  # texts per call to the model (progress is reported per call)


@dataclass(frozen=True, slots=True)
class VectorStats:
    """What one `embed_all` did."""

    texts: int  # definitions and sections in the repository now
    embedded: int  # of those, embedded in this run (the rest were stored already)
    dropped: int  # stored vectors of texts that no longer exist
    seconds: float


def index_texts(index: CodeIndex, docs: Sequence[Doc]) -> list[str]:
    """Every text `index` embeds: each definition outside test files (`dense.embedded_paths`),
    then each section of each doc."""
    from noface_ctx.rank.code import chunk_embed_text
    from noface_ctx.rank.dense import embedded_paths
    from noface_ctx.rank.docs import doc_sections, section_embed_text

    texts = [chunk_embed_text(index, i) for path in embedded_paths(index) for i in index.chunk_ids(path)]
    texts += [section_embed_text(doc, sec) for doc in docs for sec in doc_sections(doc)]
    return texts


def embed_index(store: CachedEmbedder, index: CodeIndex, docs: Sequence[Doc], *,
                progress: Callable[[int, int], None] | None = None, prune: bool = True) -> VectorStats:
    """`embed_all` over `index_texts`, then record which stored text each definition is, by file
    (`dense.save_chunk_keys`): what lets a prompt search the whole index densely. `prune=False`
    keeps the vectors of other texts (a store shared by several commits of one repository)."""
    from noface_ctx.rank.dense import embedded_paths, save_chunk_keys
    from noface_ctx.rank.vector_store import content_key

    texts = index_texts(index, docs)
    stats = embed_all(store, texts, progress=progress, prune=prune)
    n_code = sum(len(index.chunk_ids(p)) for p in embedded_paths(index))
    try:
        save_chunk_keys(store, index, [content_key(t) for t in texts[:n_code]])
    except OSError:
        pass  # not writable: prompts re-rank BM25's pool only, as without `index`
    return stats


def embed_all(store: CachedEmbedder, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None,
              prune: bool = True) -> VectorStats:
    """Embed the `texts` `store` (a `CachedEmbedder`) lacks, in batches, saving as it goes."""
    started = time.perf_counter()
    # longest first: a call's texts are then of about one length, so its batches carry little
    # padding, and the ETA only improves as the run goes on
    todo = sorted(store.missing(texts), key=len, reverse=True)
    dropped = store.keep_only(texts) if prune else 0
    done = since_save = 0
    if progress is not None:
        progress(0, len(todo))
    for start in range(0, len(todo), BATCH):
        batch = todo[start:start + BATCH]
        store.embed(batch)
        done += len(batch)
        since_save += len(batch)
        if since_save >= SAVE_EVERY:
            store.save()
            since_save = 0
        if progress is not None:
            progress(done, len(todo))
    store.save()
    return VectorStats(texts=len(set(texts)), embedded=done, dropped=dropped,
                       seconds=time.perf_counter() - started)
