"""Vectors of one code tree's embedder, saved for comparison with another tree's.

    PYTHONPATH=OLD_TREE python benchmarks/embed_parity.py --texts TEXTS.json --out old.npy
    PYTHONPATH=NEW_TREE python benchmarks/embed_parity.py --texts TEXTS.json --out new.npy --compare old.npy

TEXTS.json is a JSON list of strings (e.g. the `--out` file of `benchmarks/embedder.py`). `--n`
random texts (fixed seed) are embedded in one call by the default ONNX embedder; `--compare`
prints the largest absolute difference and the smallest cosine against an earlier run. A change
to batching that leaves every vector bit-identical cannot move any ranking.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import numpy as np


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--texts", required=True)
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--out", required=True)
    p.add_argument("--compare")
    args = p.parse_args()
    import noface_ctx
    from noface_ctx.rank.embed import OnnxEmbedder

    texts = list(dict.fromkeys(json.load(open(args.texts))))
    random.Random(1).shuffle(texts)
    texts = texts[: args.n]
    t = time.process_time()
    vectors = OnnxEmbedder().embed(texts)
    print(f"{noface_ctx.__file__}: {len(texts)} texts in {time.process_time() - t:.1f} CPU-s")
    np.save(args.out, vectors, allow_pickle=False)
    if args.compare:
        old = np.load(args.compare, allow_pickle=False)
        print(f"max |difference| {np.abs(old - vectors).max():.3g}, min cosine {(old * vectors).sum(1).min():.7f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
