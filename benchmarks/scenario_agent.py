"""The scripted stand-in agent (and its `--verify` command) of `benchmarks/scenarios.py`.

As an agent (`noface-ctx run --agent "python benchmarks/scenario_agent.py"`): reads the turn's
input on stdin, keeps a copy (`$SCENARIO_DIR/inputs/ISSUE-TURN.txt`), notes whether the input
holds `$SCENARIO_POISON` (the path of the poisoned doc: the agent trusts any doc it is served, so
an input holding it makes the work wrong), and prints turn N of `$SCENARIO_DIR/script.json`
(`{"ISSUE": [turn 1, turn 2, ...], "*": [...]}`; the last entry repeats).

As `--verify` (the project's test command): exits 1 when the issue's work used the poisoned doc
or the issue is listed in `$SCENARIO_DIR/fail.json` (failures unrelated to any doc), else 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    root = Path(os.environ["SCENARIO_DIR"])
    issue = os.environ.get("NOFACE_ISSUE", "")
    verdicts = root / "verdicts"
    if sys.argv[1:] == ["--verify"]:
        failing = set(json.loads((root / "fail.json").read_text())) if (root / "fail.json").exists() else set()
        bad = (verdicts / issue).exists() and (verdicts / issue).read_text() == "bad"
        print("tests failed: the change relies on an API that no longer exists" if bad else
              "tests failed (unrelated)" if issue in failing else "tests passed")
        return 1 if bad or issue in failing else 0
    turn = int(os.environ.get("NOFACE_TURN", "1"))
    text = sys.stdin.read()
    (root / "inputs").mkdir(parents=True, exist_ok=True)
    (root / "inputs" / f"{issue}-{turn}.txt").write_text(text)
    poison = os.environ.get("SCENARIO_POISON", "")
    verdicts.mkdir(parents=True, exist_ok=True)
    if turn == 1 or (poison and poison in text):
        (verdicts / issue).write_text("bad" if poison and poison in text else "good")
    script = json.loads((root / "script.json").read_text())
    turns = script.get(issue) or script["*"]
    print(turns[min(turn, len(turns)) - 1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
