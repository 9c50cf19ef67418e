"""Cost of the gate's content rules: `find_secret` over every tracked text file of a repository,
and a cold / warm `scan_repo` with a throw-away cache (see docs/benchmarks.md, "Gate").

    python benchmarks/secret_scan.py --repo REPO [--runs 5]

Nothing is written into REPO: the scan cache goes to a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    repo = Path(args.repo).resolve()
    os.environ["NOFACE_CTX_CACHE_DIR"] = tempfile.mkdtemp(prefix="noface-secret-bench-")
    from noface_ctx.config import load_config
    from noface_ctx.files import gate as F
    from noface_ctx.files.content import ScanCache
    from noface_ctx.files.secrets import find_secret

    names = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True, check=True).stdout
    texts = []
    for name in names.decode("utf-8", "surrogateescape").split("\0"):
        try:
            texts.append((name, (repo / name).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    secret_times, flagged = [], 0
    for _ in range(args.runs):
        start = time.perf_counter()
        flagged = sum(1 for name, text in texts if find_secret(text, name))
        secret_times.append(time.perf_counter() - start)
    cold, warm = [], []
    for _ in range(args.runs):
        os.environ["NOFACE_CTX_CACHE_DIR"] = tempfile.mkdtemp(prefix="noface-secret-bench-")
        cfg = load_config(repo)
        F._RULES_MEMO.clear()  # private: a cold scan in a warm process, so only the scan's memos are emptied
        ScanCache._loaded.clear()  # private: (as above)
        start = time.perf_counter()
        F.scan_repo(cfg)
        cold.append(time.perf_counter() - start)
        F._RULES_MEMO.clear()  # private: the rules again, the scan cache kept (the warm case)
        start = time.perf_counter()
        F.scan_repo(cfg)
        warm.append(time.perf_counter() - start)
    print(f"{len(texts)} text files; flagged {flagged}")
    print(f"find_secret over all: median {statistics.median(secret_times):.3f} s (min {min(secret_times):.3f})")
    print(f"scan_repo cold: median {statistics.median(cold):.3f} s (min {min(cold):.3f})")
    print(f"scan_repo warm: median {statistics.median(warm):.3f} s (min {min(warm):.3f})")


if __name__ == "__main__":
    main()
