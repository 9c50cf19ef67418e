"""Issue 24, the Medium "exit 3 from a repo file" and the two Low findings on the agent's output:
`run` reads `.beads/issues.jsonl` and `bd ready --json` with the bounded reader (`preview`'s),
skipping a bad line with a warning; the agent's stdout is streamed under a cap; the agent's exit
ends its turn even when a background child keeps stdout open. Each test fails on 0bb2697."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import make_repo

from noface_ctx.cli import main

FILES = {
    ".noface.toml": "[context]\nembeddings = false\n",
    "src/cart.py": "def add_item(cart, item):\n    cart.append(item)\n    return cart\n",
    "issue.md": "# add_item drops duplicates\n\nadd_item should keep duplicates.\n",
}
GOOD = json.dumps({"id": "c-1", "title": "add_item drops duplicates", "status": "open"})


def _script(tmp: Path, body: str) -> str:
    script = tmp / "agent.py"
    script.write_text("import os, subprocess, sys\nsys.stdin.read()\n" + body)
    return shlex.join([sys.executable, str(script)])


def _run(repo: Path, agent: str, *args: str) -> tuple[int, str, list[dict]]:
    log = repo.parent / "log.jsonl"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["run", "--repo", str(repo), "--log", str(log), "--agent", agent, *args])
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return code, err.getvalue(), records


COMPLETE = "print('ISSUE_COMPLETE')\n"


@pytest.mark.parametrize("bad", ["[" * 100_000, "{not json", "[1, 2]"])
def test_a_bad_issues_jsonl_line_is_skipped_with_a_warning(tmp_path, bad):
    repo = make_repo(tmp_path / "repo", {**FILES, ".beads/issues.jsonl": f"{bad}\n{GOOD}\n"})
    code, err, records = _run(repo, _script(tmp_path, COMPLETE))
    assert code == 0, err
    assert ".beads/issues.jsonl:1: skipped" in err
    assert [r["issue"] for r in records] == ["c-1"] and records[0]["outcome"] == "complete"


def test_bd_ready_output_nested_too_deep_is_exit_2(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo", FILES)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    bd = bin_dir / "bd"
    bd.write_text("#!/bin/sh\nprintf '%s' \"$(head -c 200000 /dev/zero | tr '\\0' '[')\"\n")
    bd.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    code, err, _records = _run(repo, _script(tmp_path, COMPLETE))
    assert code == 2 and "bd ready --json" in err and len(err.strip().splitlines()) == 1


def test_agent_output_is_capped_and_the_last_line_still_counts(tmp_path):
    """40 MB of output, over the 16 MB kept (`_agent_process.MAX_STDOUT_BYTES`): the rest is
    dropped and counted, and the ISSUE_COMPLETE at the very end is still seen."""
    repo = make_repo(tmp_path / "repo", FILES)
    filler = 40 * 1024 * 1024
    agent = _script(tmp_path, f"line = b'x' * 1023 + b'\\n'\nfor _ in range({filler // 1024}):\n"
                              "    sys.stdout.buffer.write(line)\n" + COMPLETE)
    code, err, records = _run(repo, agent, "issue.md")
    assert code == 0, err
    assert records[0]["outcome"] == "complete"
    assert records[0].get("agent_output_dropped", 0) >= filler - 16 * 1024 * 1024 - 2 * 1024 * 1024


def test_a_lingering_child_holding_stdout_does_not_hold_the_turn(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    pid_file = tmp_path / "child.pid"
    agent = _script(tmp_path, "print('Done.')\nprint('ISSUE_COMPLETE', flush=True)\n"
                              "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                              f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n")
    try:
        code, err, records = _run(repo, agent, "issue.md", "--timeout", "8")
    finally:
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert code == 0, err
    assert records[0]["outcome"] == "complete" and records[0]["agent_exit"] == 0
    assert records[0]["seconds"] < 8


def test_a_timed_out_agent_is_killed_with_its_children(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    pid_file = tmp_path / "child.pid"
    agent = _script(tmp_path, "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                              f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
                              "import time; time.sleep(60)\n")
    code, err, records = _run(repo, agent, "issue.md", "--timeout", "1")
    assert code == 1 and records[0]["outcome"] == "agent_failed" and "timed out" in records[0]["reason"]
    child = int(pid_file.read_text())
    try:
        os.kill(child, 0)
        alive = Path(f"/proc/{child}/stat").read_text().split()[2] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        alive = False
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive
