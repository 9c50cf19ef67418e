"""The turn contract of `noface-ctx run` with a scripted agent on a real git repository: no turn
over budget, evictions announced and restorable, the plan recited last and kept across restarts,
the budget gate, `--verify`, duplicate requests, and the ledger's record of it all."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys

from noface_ctx.cli import main

FUNCS = "\n\n".join(
    f"def step_{n}(value):\n    \"\"\"Step {n} of the pipeline.\"\"\"\n" + "".join(
        f"    value = value * {k + 2} + {n} - {k}  # stage {k} adjusts the running value for step {n}\n"
        for k in range(12)) + "    return value\n"
    for n in range(30)
)
FILES = {
    ".noface.toml": "[context]\nembeddings = false\n",
    "src/steps.py": FUNCS,
    "docs/steps.md": "# Steps\n\nEach `step_N` adjusts the running value in twelve stages.\n",
    "issues/long.md": "# Make the steps overflow-safe\n\nEvery `step_N` in src/steps.py should clamp the value.\n",
}

AGENT = r'''
import json, os, pathlib, sys
turn = int(os.environ["NOFACE_TURN"])
text = sys.stdin.read()
dump = pathlib.Path(os.environ["DUMP"])
dump.mkdir(exist_ok=True)
(dump / f"{os.environ['NOFACE_ISSUE']}-{turn}.txt").write_text(text)
script = json.loads(pathlib.Path(os.environ["SCRIPT"]).read_text())
out = script[min(turn, len(script)) - 1]
if out.startswith("PLANFILE:"):
    pathlib.Path(os.environ["NOFACE_PLAN_FILE"]).write_text(out.split(":", 1)[1])
    out = "Plan written to the file.\nNEED_CODE: src/steps.py::step_1"
print(out)
'''


def _setup(repo_factory, tmp_path, monkeypatch, script: list[str]):
    repo = repo_factory(FILES)
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    (tmp_path / "script.json").write_text(json.dumps(script))
    monkeypatch.setenv("DUMP", str(tmp_path / "dump"))
    monkeypatch.setenv("SCRIPT", str(tmp_path / "script.json"))
    return repo, shlex.join([sys.executable, str(agent)])


def _run(repo, agent, tmp_path, *args: str) -> tuple[int, list[dict]]:
    log = tmp_path / f"run-{len(list(tmp_path.glob('run-*.jsonl')))}.jsonl"
    code = main(["run", "issues/long.md", "--repo", str(repo), "--log", str(log), "--agent", agent, *args])
    return code, [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _inputs(tmp_path, issue: str = "long") -> dict[int, str]:
    return {int(p.stem.rsplit("-", 1)[1]): p.read_text() for p in (tmp_path / "dump").glob(f"{issue}-*.txt")}


def test_long_run_stays_in_budget_announces_evictions_and_recites_the_plan(repo_factory, tmp_path, monkeypatch, capsys):
    script = [f"PLAN:\n1. read step {2 * t} and {2 * t + 1}\n2. clamp them (turn {t})\n\n"
              f"NEED_CODE: src/steps.py::step_{2 * t}\nNEED_CODE: src/steps.py::step_{2 * t + 1}" for t in range(1, 12)]
    script[3] += "\nNEED_CODE: src/steps.py::step_2"  # asked again: a duplicate request
    script.append("ISSUE_COMPLETE")
    repo, agent = _setup(repo_factory, tmp_path, monkeypatch, script)
    code, records = _run(repo, agent, tmp_path, "--budget", "2500", "--max-turns", "12")
    assert code == 0 and records[-1]["outcome"] == "complete" and len(records) == 12
    inputs = _inputs(tmp_path)
    assert all(r["input_tokens"] <= 2500 for r in records)
    assert sum(r["evicted_tokens"] for r in records) > 0
    assert records[3]["duplicate_requests"] == 1 and records[1]["duplicate_requests"] == 0
    for turn in range(2, 13):
        text = inputs[turn]
        plan = f"YOUR PLAN (latest, as you last wrote it):\n1. read step {2 * (turn - 1)} and {2 * turn - 1}\n2. clamp them (turn {turn - 1})"
        assert text.rstrip().endswith(plan), turn  # the plan is the last section
        assert records[turn - 1]["plan_tokens"] > 0
    # every eviction is announced with its line, and the line's request serves it again
    last = inputs[12]
    lines = re.findall(r"^- served in turn (\d+): (\S+) \((\d+) tokens\); (NEED_CODE: \S+) to see it again$", last, re.M)
    assert len(lines) >= 5 and f"{len(lines)} earlier answer item(s)" in last
    assert records[-1]["evicted_total"] == sum(int(t) for _turn, _w, t, _r in lines)
    turn, where, _tokens, request = lines[0]
    assert turn == "2" and where.startswith("src/steps.py:")
    (tmp_path / "again.txt").write_text(request + "\n")
    capsys.readouterr()
    main(["signals", str(tmp_path / "again.txt"), "--resolve", "--repo", str(repo)])
    assert "def step_2(value):" in capsys.readouterr().out
    # and the ledger holds every answer under the turn it was sent in
    main(["why", "long", "--repo", str(repo)])
    why = capsys.readouterr().out
    assert "turn 1 (run" in why and "turn 12 (run" in why and "outcome: complete" in why


def test_plan_survives_a_restart_and_may_live_in_the_plan_file(repo_factory, tmp_path, monkeypatch):
    repo, agent = _setup(repo_factory, tmp_path, monkeypatch, ["PLAN: fix step 3 first\n\nThinking."])
    code, records = _run(repo, agent, tmp_path, "--max-turns", "1")
    assert code == 1 and records[-1]["outcome"] == "turn_limit"
    (tmp_path / "script.json").write_text(json.dumps(["PLANFILE:1. clamp every step\n2. add a test", "ISSUE_COMPLETE"]))
    code, records = _run(repo, agent, tmp_path, "--max-turns", "3")
    assert code == 0
    first, second = _inputs(tmp_path)[1], _inputs(tmp_path)[2]
    assert first.rstrip().endswith("YOUR PLAN (latest, as you last wrote it):\nfix step 3 first")  # from the ledger
    assert "NOFACE_PLAN_FILE" not in first and "/plans/long-" in first  # the prompt names the plan file
    assert second.rstrip().endswith("1. clamp every step\n2. add a test")
    # a later PLAN: block wins, and the unchanged old plan file never brings the old plan back
    (tmp_path / "script.json").write_text(json.dumps(
        ["PLAN: third plan\n\nNEED_CODE: src/steps.py::step_1", "NEED_CODE: src/steps.py::step_2", "ISSUE_COMPLETE"]))
    shutil.rmtree(tmp_path / "dump")
    assert _run(repo, agent, tmp_path, "--max-turns", "3")[0] == 0
    assert _inputs(tmp_path)[3].rstrip().endswith("YOUR PLAN (latest, as you last wrote it):\nthird plan")


def test_budget_gate_and_verify(repo_factory, tmp_path, monkeypatch, capsys):
    repo, agent = _setup(repo_factory, tmp_path, monkeypatch, ["ISSUE_COMPLETE"])
    code, records = _run(repo, agent, tmp_path, "--budget", "120")
    assert code == 1 and len(records) == 1 and records[0]["outcome"] == "over_budget"
    assert records[0]["sent"] is False and "budget" in records[0]["reason"] and "\n" not in records[0]["reason"]
    assert not (tmp_path / "dump").exists()  # the agent never ran

    fail = shlex.join([sys.executable, "-c", "import sys; print('2 tests failed'); sys.exit(1)"])
    code, records = _run(repo, agent, tmp_path, "--verify", fail)
    assert code == 1 and records[-1]["outcome"] == "failed" and records[-1]["turn_outcome"] == "complete"
    assert records[-1]["verify"]["exit"] == 1 and "2 tests failed" in records[-1]["reason"]
    capsys.readouterr()
    main(["why", "long", "--repo", str(repo)])
    assert "outcome: failed (run" in capsys.readouterr().out

    ok = shlex.join([sys.executable, "-c", "import os; assert os.environ['NOFACE_ISSUE'] == 'long'"])
    code, records = _run(repo, agent, tmp_path, "--verify", ok)
    assert code == 0 and records[-1]["outcome"] == "complete" and records[-1]["verify"]["exit"] == 0
