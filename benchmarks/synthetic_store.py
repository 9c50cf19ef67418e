"""A complete vector store for speed and memory measurements, without embedding anything.

    NOFACE_CTX_CACHE_DIR=C noface-ctx index --repo TREE --no-embed
    NOFACE_CTX_CACHE_DIR=C python benchmarks/synthetic_store.py --repo-dir TREE

Writes, where `noface-ctx index` would, a store holding every text ranking may embed (the real
content-hash keys of `rank.vectors.index_texts`) with random unit vectors. The cost and memory of
a prompt do not depend on the vectors' values, so a new issue on this store costs what it costs on
a real one (the issue itself is embedded by the real model); rankings are meaningless. Use a
private `NOFACE_CTX_CACHE_DIR`: it overwrites that cache's vectors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo-dir", required=True)
    args = p.parse_args()
    from noface_ctx._stages import shared_embedder  # private: the model and vector store every prompt uses
    from noface_ctx.code.index import CodeIndex
    from noface_ctx.config import load_config
    from noface_ctx.docs.load import load_docs
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.rank.vector_store import content_key
    from noface_ctx.rank.vectors import index_texts

    cfg = load_config(args.repo_dir)
    files = scan_repo(cfg)
    texts = index_texts(CodeIndex.build(files, cfg), load_docs(cfg, files).docs)
    store, why = shared_embedder(cfg)
    if store is None:
        print(f"no embedder: {why}", file=sys.stderr)
        return 1
    keys = list(dict.fromkeys(content_key(t) for t in texts))
    vectors = np.random.default_rng(0).standard_normal((len(keys), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.missing([])  # read what is there, then replace it
    store._rows, store._matrix, store._delta = {}, None, {}  # private: a store of made-up vectors, no model run
    store._new = dict(zip(keys, vectors, strict=True))  # private: as above
    store._dirty = True  # private: as above
    store.save()
    print(f"{len(keys)} random vectors written to {store.cache_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
