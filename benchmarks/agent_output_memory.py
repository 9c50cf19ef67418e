"""Peak memory of `noface-ctx run` when the agent prints a lot (issue 24: 300 MB took 1 GB).

Builds a small git repository in a temp folder, runs `python -m noface_ctx run issue.md` once
with a stand-in agent that prints `--mb` megabytes of stream-json assistant events and then
one saying `ISSUE_COMPLETE`, and prints the `run` process's peak RSS (the largest waited-for descendant,
`getrusage(RUSAGE_CHILDREN)`: the agent itself only streams), its wall time and the outcome.

    PYTHONPATH=. python benchmarks/agent_output_memory.py --mb 300
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = """import sys
line = ('{"type":"assistant","message":{"content":[{"type":"text","text":"' + 'x' * 900 + '"}]}}\\n').encode()
for _ in range(int(sys.argv[1]) * 1024 * 1024 // len(line)):
    sys.stdout.buffer.write(line)
sys.stdout.buffer.write(b'{"type":"assistant","message":{"content":[{"type":"text","text":"ISSUE_COMPLETE"}]}}\\n')
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=300, help="megabytes the agent prints (default 300)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        repo = tmp / "repo"
        (repo / "src").mkdir(parents=True)
        (repo / "src" / "cart.py").write_text("def add_item(cart, item):\n    cart.append(item)\n")
        (repo / "issue.md").write_text("# add_item drops duplicates\n\nadd_item should keep them.\n")
        (repo / ".noface.toml").write_text("[context]\nembeddings = false\n")
        for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"]):
            subprocess.run(["git", "-C", str(repo), *cmd], check=True)
        (tmp / "agent.py").write_text(AGENT)
        agent = shlex.join([sys.executable, str(tmp / "agent.py"), str(args.mb)])
        env = {**os.environ, "NOFACE_CTX_CACHE_DIR": str(tmp / "cache")}
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "noface_ctx", "run", "issue.md", "--repo", str(repo),
                               "--log", str(tmp / "log.jsonl"), "--agent", agent], env=env,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        log = tmp / "log.jsonl"
        record = json.loads(log.read_text().splitlines()[-1]) if log.exists() else {}
    print(f"agent output {args.mb} MB: exit {proc.returncode}, outcome {record.get('outcome')}, "
          f"peak RSS {peak_mb:.0f} MB, {seconds:.1f} s, dropped {record.get('agent_output_dropped', 0)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
