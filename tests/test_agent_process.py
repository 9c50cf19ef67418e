"""`_agent_process.run_agent`: one agent turn as a process, its output bounded and whole-lined."""

from __future__ import annotations

import sys

import pytest

from noface_ctx._agent_process import run_agent
from noface_ctx.errors import UsageError


def _py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_output_over_the_cap_keeps_whole_lines_and_counts_the_rest(tmp_path):
    agent = _py("import sys\nfor i in range(2000): print(f'line {i:05d}')\nprint('ISSUE_COMPLETE')")
    got = run_agent(agent, "prompt", cwd=tmp_path, timeout=30, env={}, max_stdout=1000, tail=500)
    lines = got.stdout.splitlines()
    assert got.returncode == 0 and lines[-1] == "ISSUE_COMPLETE"
    marker = next(i for i, ln in enumerate(lines) if ln.startswith("[noface-ctx:"))
    assert all(ln.startswith("line ") and len(ln) == 10 for ln in lines[:marker] + lines[marker + 1:-1])
    kept = sum(len(ln) + 1 for ln in lines if not ln.startswith("[noface-ctx:"))
    assert got.dropped == 2000 * 11 + len("ISSUE_COMPLETE\n") - kept
    assert f"{got.dropped} bytes of agent output not kept" in lines[marker]


def test_a_big_prompt_and_a_big_answer_do_not_deadlock(tmp_path):
    agent = _py("import sys\nsys.stdout.write('x' * 3_000_000)\ndata = sys.stdin.read()\nprint()\nprint(len(data))")
    got = run_agent(agent, "p" * 5_000_000, cwd=tmp_path, timeout=60, env={})
    assert got.returncode == 0 and got.stdout.splitlines()[-1] == "5000000" and got.dropped == 0


def test_the_environment_and_folder_reach_the_agent_and_stderr_is_kept(tmp_path):
    agent = _py("import os, sys\nprint(os.getcwd(), os.environ['NOFACE_TURN'])\nsys.stderr.write('oops\\n')\nsys.exit(3)")
    got = run_agent(agent, "", cwd=tmp_path, timeout=30, env={"NOFACE_TURN": "2"})
    assert got.returncode == 3 and got.stdout.split() == [str(tmp_path), "2"] and got.stderr == "oops\n"


def test_a_missing_agent_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="command not found"):
        run_agent([str(tmp_path / "no-such-agent")], "", cwd=tmp_path, timeout=5, env={})
