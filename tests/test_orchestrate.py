"""`noface-ctx run` with the scripted stand-in agent, end to end on a real git repository."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

from noface_ctx.cli import main

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "examples" / "stand_in_agent.py"

FILES = {
    ".noface.toml": '[project]\nname = "ledger"\n\n[context]\nembeddings = false\n',
    "src/ledger.py": (
        "class Ledger:\n    def __init__(self):\n        self.entries = []\n\n"
        "    def balance(self):\n        return sum(a for a, _m in self.entries)\n"
    ),
    "src/payroll.py": "def run_payroll(ledger):\n    return ledger.balance()\n",
    "docs/ledger-design.md": "# Ledger design\n\nThe `Ledger` sums entries in `balance`.\n\n## Rounding\n\nTwo decimals.\n",
    "issues/void.md": (
        "# Skip void entries in the balance\n\nThe balance should skip entries whose memo is 'void'.\n\n"
        "MANIFEST: primary=[src/ledger.py] read=[] forbidden=[src/payroll.py]\n"
    ),
}

TWO_TURNS = """I need the balance code and the rounding rule.
NEED_CODE: src/ledger.py::Ledger.balance
NEED_DOC: ledger-design#rounding
NEED_CODE: src/payroll.py
--- turn ---
EXPECT: return sum(a for a, _m in self.entries)
EXPECT: Two decimals.
Done: balance now skips void entries.
ISSUE_COMPLETE
"""


def _agent(transcript: Path, *flags: str) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, str(AGENT), str(transcript), *flags))


def _run(repo: Path, transcript_text: str, *args: str) -> tuple[int, list[dict]]:
    transcript = repo.parent / "transcript.txt"
    transcript.write_text(transcript_text)
    log = repo.parent / f"runs-{len(list(repo.parent.glob('runs-*.jsonl')))}.jsonl"
    code = main(["run", "--repo", str(repo), "--log", str(log), *args, "--agent", _agent(transcript, "--stream-json")])
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return code, records


def test_two_turn_issue_completes_and_logs_what_each_turn_served(repo_factory):
    repo = repo_factory(FILES)
    code, records = _run(repo, TWO_TURNS, "--issues-dir", str(repo / "issues"))
    assert code == 0
    assert [r["turn"] for r in records] == [1, 2]
    first, second = records
    assert first["issue"] == second["issue"] == "void"
    assert first["outcome"] == "answered" and second["outcome"] == "complete"
    # every served piece is `path:start-end`, in every turn
    assert "src/ledger.py:1-6" in first["code"] and first["docs"] == ["docs/ledger-design.md:1-7"]
    assert "src/payroll.py" not in [c.split(":")[0] for c in first["code"]]
    assert first["requests"] == ["NEED_CODE: src/ledger.py::Ledger.balance", "NEED_DOC: ledger-design#rounding",
                                 "NEED_CODE: src/payroll.py"]
    outcomes = {a["request"]: a["outcome"] for a in first["answers"]}
    assert outcomes == {"NEED_CODE: src/ledger.py::Ledger.balance": "served",
                        "NEED_DOC: ledger-design#rounding": "served",
                        "NEED_CODE: src/payroll.py": "refused"}
    # turn 2's input served the answers to turn 1's requests (the forbidden file was not among them)
    assert second["code"] == ["src/ledger.py:5-6"] and second["docs"] == ["docs/ledger-design.md:5-7"]
    assert first["prompt_sha256"] != second["prompt_sha256"] and len(first["prompt_sha256"]) == 64
    assert second["prompt_tokens"] > first["prompt_tokens"]


def test_blocked_turn_limit_and_agent_failure(repo_factory, tmp_path):
    repo = repo_factory(FILES)
    code, records = _run(repo, "Cannot reproduce.\nBLOCKED: the issue names no failing input\n", "issues/void.md")
    assert code == 1 and len(records) == 1
    assert records[0]["outcome"] == "blocked" and records[0]["reason"] == "the issue names no failing input"

    code, records = _run(repo, "Thinking about it.\n", "issues/void.md", "--max-turns", "2")
    # the last record carries the issue's outcome; each record says what its turn did
    assert code == 1 and [r["outcome"] for r in records] == ["no_signal", "turn_limit"]
    assert [r["turn_outcome"] for r in records] == ["no_signal", "no_signal"]
    assert records[-1]["reason"] == "no ISSUE_COMPLETE within 2 turn(s)"

    log = tmp_path / "fail.jsonl"
    agent = shlex.join([sys.executable, "-c", "import sys; sys.stderr.write('model unavailable\\n'); sys.exit(3)"])
    code = main(["run", "issues/void.md", "--repo", str(repo), "--log", str(log), "--agent", agent])
    record = json.loads(log.read_text())
    assert code == 1 and record["outcome"] == "agent_failed" and "model unavailable" in record["reason"]


def test_missing_agent_is_a_usage_error(repo_factory, capsys):
    repo = repo_factory(FILES)
    code = main(["run", "issues/void.md", "--repo", str(repo), "--agent", "no-such-agent-binary-xyz"])
    assert code == 2
    assert "command not found: no-such-agent-binary-xyz" in capsys.readouterr().err


def test_ready_beads_issues_are_taken_from_the_jsonl_without_bd(repo_factory):
    from noface_ctx._orchestrate import ready_issues

    beads = [
        {"id": "lg-2", "title": "b", "status": "open", "priority": 2},
        {"id": "lg-1", "title": "a", "status": "open", "priority": 1},
        {"id": "lg-3", "title": "c", "status": "closed", "priority": 0},
    ]
    repo = repo_factory({**FILES, ".beads/issues.jsonl": "\n".join(json.dumps(b) for b in beads) + "\n"})
    assert ready_issues(repo) == ["lg-1", "lg-2"]


def test_readme_demo_on_this_repository(tmp_path, this_repository_cache):
    """The README's demo command: the shipped example issue, two turns, ISSUE_COMPLETE."""
    import subprocess

    log = tmp_path / "demo-run.jsonl"
    agent = f"{shlex.quote(sys.executable)} examples/stand_in_agent.py examples/demo-transcript.txt --stream-json"
    proc = subprocess.run(
        [sys.executable, "-m", "noface_ctx", "run", "examples/request-log-rotation.md", "--agent", agent,
         "--log", str(log), "--no-embed"],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    first, second = [json.loads(line) for line in log.read_text().splitlines()]
    assert first["outcome"] == "answered" and second["outcome"] == "complete"
    assert {a["outcome"] for a in first["answers"]} == {"served"}
    assert [c.split(":")[0] for c in second["code"]] == ["noface_ctx/signals/_answer.py"]
    assert [d.split(":")[0] for d in second["docs"]] == ["docs/context-requests.md"]
    assert all(re.fullmatch(r"[^:]+:\d+-\d+", x) for r in (first, second) for x in (*r["code"], *r["docs"]))
    # the manifest's editable file is in the prompt
    assert "noface_ctx/signals/respond.py" in [c.split(":")[0] for c in first["code"]]
