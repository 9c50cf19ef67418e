"""One issue through `noface-ctx run`: turns within the budget, the plan, the outcome, the records.

Each turn's input is composed by `_turn_window.Window` (prompt, earlier answers that fit, the
lines that restore evicted ones, the continuation note, the plan last) and never exceeds the
budget: the prompt is built for the budget less the answers' share and a reserve for the plan,
and when the plan grows past that the prompt is rebuilt smaller; when the fixed sections alone
(issue, manifest, plan, required files) cannot fit, the turn is not sent and the issue ends
`over_budget`. The agent's plan (`_run_plan`) is stored in the ledger after every turn it changes.
What the prompt and each answer served, and the issue's outcome, go to the ledger
(`noface_ctx.trust`); one record per turn goes to the run log, the last one carrying the issue's
final outcome.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noface_ctx._wording_run import CONTINUE_NOTE, REMINDER_NOTE, turn_limit, verify_failed
from noface_ctx.errors import UsageError

if TYPE_CHECKING:
    from noface_ctx._agent_process import AgentResult
    from noface_ctx._issue_sources import IssueFiles
    from noface_ctx.config import Config
    from noface_ctx.datatypes import Prompt
    from noface_ctx.rank.embed import Embedder
    from noface_ctx.signals.values import Answer, ParseResult

__all__ = ["DEFAULT_MAX_TURNS", "DEFAULT_TIMEOUT", "ENDINGS", "IssueResult", "run_issue"]

DEFAULT_MAX_TURNS = 6
DEFAULT_TIMEOUT = 1800.0
ANSWER_SHARE = 0.25  # of the turn budget, for the answers of earlier turns (also each answer's budget)
ENDINGS = ("complete", "failed", "blocked", "agent_failed", "over_budget")
_COMPLETE = re.compile(r"^\s*ISSUE_COMPLETE\s*$", re.M)
_BLOCKED = re.compile(r"^\s*BLOCKED:\s*(.+?)\s*$", re.M)


def plan_reserve(budget: int) -> int:
    """Tokens kept free in every turn for the plan section, the note and eviction lines."""
    return max(300, budget // 16)


@dataclass
class IssueResult:
    issue: str
    outcome: str  # complete | failed | blocked | turn_limit | agent_failed | over_budget
    turns: int
    reason: str = ""
    records: list[dict[str, Any]] = field(default_factory=list)


def run_issue(ref: str, config: Config, agent: Sequence[str], *, max_turns: int = DEFAULT_MAX_TURNS,
              budget: int | None = None, answer_budget: int | None = None, timeout: float = DEFAULT_TIMEOUT,
              log_path: Path | None = None, embed: bool | Embedder | None = None, files: IssueFiles | None = None,
              verify: Sequence[str] | None = None) -> IssueResult:
    """Drive one issue to its outcome; log one record per turn. `files` (`_issue_sources.IssueFiles`,
    default: typed by the user) says whether `ref` may name a file."""
    from noface_ctx import _write_gate as write_gate
    from noface_ctx._issue_sources import TYPED, load_issue_ref
    from noface_ctx._run_plan import plan_file, read_plan_file
    from noface_ctx._turn_window import Window
    from noface_ctx.trust.ledger import Ledger

    root = Path(config.root)
    issue, issue_warnings = load_issue_ref(ref, config, files or TYPED)
    for warning in issue_warnings:
        print(f"noface-ctx run: {warning}", file=sys.stderr)
    total = budget if budget is not None else config.context.budget_tokens
    share = answer_budget if answer_budget is not None else max(100, int(total * ANSWER_SHARE))
    ledger = Ledger.of(config)
    state = _State(issue.id, ledger, ledger.last_turn(issue.id), ledger.plan(issue.id), plan_file(config, issue.id))
    state.file_text = read_plan_file(state.plan_path)
    write_gate.make_dirs(state.plan_path.parent, root=root, confine=True)  # the agent writes its plan file there
    result = IssueResult(issue.id, "turn_limit", 0)
    prompt_budget = total - plan_reserve(total) - (share if max_turns > 1 else 0)
    prompt = _build(issue, config, prompt_budget, embed)
    window = Window(total)
    note = ""
    if isinstance(prompt, str):  # the budget gate, before any turn
        why = f"{prompt} (the prompt's share of the turn budget of {total})"
        return _end(result, state, config, log_path, _gate_record(issue.id, 1, why), "over_budget", why)
    state.record_prompt(config, prompt, 1)
    served = _prompt_served(prompt, root)
    for turn in range(1, max_turns + 1):
        composed, prompt = _compose(window, prompt, note, state, issue, config, embed, total)
        if composed.over:
            return _end(result, state, config, log_path, _gate_record(issue.id, turn, composed.over, composed.tokens),
                        "over_budget", composed.over)
        record = _record(issue.id, turn, composed, state, served)
        t0 = time.perf_counter()
        proc = _run_agent(agent, composed.text, cwd=root, timeout=timeout,
                          env={"NOFACE_ISSUE": issue.id, "NOFACE_TURN": str(turn), "NOFACE_PLAN_FILE": str(state.plan_path)})
        record["agent_exit"] = proc.returncode
        if proc.dropped:
            record["agent_output_dropped"] = proc.dropped
        assistant = _assistant_text(proc.stdout)
        state.update_plan(assistant, turn)
        outcome, reason = _outcome(assistant)
        parsed = _parse(proc.stdout)
        record["requests"] = [r.signal for r in (*parsed.requests, *parsed.rejected)]
        record["duplicate_requests"] = state.duplicates(parsed)
        if proc.returncode != 0 and not outcome:
            outcome, reason = "agent_failed", f"exit code {proc.returncode}: {_last_line(proc.stderr)}"
        record["turn_outcome"] = outcome  # what the agent's turn said; --verify may overrule it below
        if outcome == "complete" and verify:
            outcome, reason, record["verify"] = _verify(verify, root, timeout, issue.id)
        served = {"docs": [], "code": []}
        if not outcome and (parsed.requests or parsed.rejected):
            answer = _answer(parsed, root, issue, config, share)
            record["answers"] = [_answer_row(i) for i in answer.items]
            state.remember(answer)
            if turn < max_turns:
                for held in window.add(turn + 1, answer):
                    served["code" if held.request.startswith("NEED_CODE") else "docs"].append(held.where)
                state.record_answer(config, answer, turn + 1)
            note, outcome = CONTINUE_NOTE, "answered"
        elif not outcome:
            note, outcome = REMINDER_NOTE, "no_signal"
        record["turn_outcome"] = record["turn_outcome"] or outcome
        record["seconds"] = round(time.perf_counter() - t0, 3)
        final = outcome if outcome in ENDINGS else "turn_limit" if turn == max_turns else ""
        result.turns = turn
        if final:
            reason = reason or (turn_limit(max_turns) if final == "turn_limit" else "")
            return _end(result, state, config, log_path, record, final, reason)
        record["outcome"] = outcome
        _log(result, log_path, record, Path(config.root))
    return result  # not reached: the last turn always ends the issue


@dataclass
class _State:
    """What one issue's turns share: the ledger, its turn offset, the plan, what was served."""

    issue: str
    ledger: Any  # trust.ledger.Ledger
    base: int  # turns the ledger already holds for this issue (an earlier run)
    plan: str | None
    plan_path: Path
    seen: set[str] = field(default_factory=set)
    file_text: str | None = None  # the plan file as last read: only a change to it is a new plan

    def record_prompt(self, config: Config, prompt: Prompt, turn: int) -> None:
        from noface_ctx.trust.record import record_prompt

        record_prompt(config, prompt, turn=self.base + turn, source="run")
        for row in prompt.code:
            self.seen.add(f"{row.get('path')}::{row.get('symbol')}" if row.get("symbol") else str(row.get("path")))
        for doc in prompt.docs:
            if doc.get("included"):
                self.seen.update((str(doc.get("slug")), str(doc.get("path"))))

    def record_answer(self, config: Config, answer: Answer, turn: int) -> None:
        from noface_ctx.trust.record import record_answer

        record_answer(config, self.issue, answer, turn=self.base + turn, source="run")

    def remember(self, answer: Answer) -> None:
        self.seen.update(i.request.target for i in answer.items if i.outcome in ("served", "partial"))

    def duplicates(self, parsed: ParseResult) -> int:
        return sum(1 for r in parsed.requests if r.target in self.seen)

    def update_plan(self, assistant: str, turn: int) -> None:
        """The plan the agent wrote this turn (a `PLAN:` block, else a changed plan file), stored."""
        from noface_ctx._run_plan import plan_from_output, read_plan_file

        in_file = read_plan_file(self.plan_path)
        changed = in_file if in_file != self.file_text else None  # an old file never overrides a newer plan
        self.file_text = in_file
        new = plan_from_output(assistant) or changed
        if new and new != self.plan:
            self.ledger.save_plan(self.issue, new, self.base + turn)  # re-read and compared: an error if not equal
            self.plan = new


def _build(issue: Any, config: Config, budget: int, embed: Any) -> Prompt | str:
    """The prompt for `budget`, or the reason no prompt fits (the budget gate)."""
    from noface_ctx._pipeline import build_prompt

    try:
        return build_prompt(issue, repo=config.root, config=config, budget=budget, embed=embed)
    except UsageError as exc:
        if str(exc).startswith("budget "):
            return str(exc)
        raise


def _compose(window: Any, prompt: Prompt, note: str, state: _State, issue: Any, config: Config, embed: Any,
             total: int) -> tuple[Any, Prompt]:
    """The turn's input; when the plan has outgrown its reserve, the prompt rebuilt smaller (twice at most)."""
    from noface_ctx._run_plan import plan_section

    section = plan_section(state.plan_path, state.plan)
    composed = window.compose(prompt.text, note, section)
    for _ in range(2):
        if not composed.over:
            return composed, prompt
        smaller = prompt.tokens.get("total", 0) - (composed.tokens - total) - 16
        rebuilt = _build(issue, config, smaller, embed) if smaller > 0 else None
        if not isinstance(rebuilt, type(prompt)) or rebuilt.tokens.get("total", 0) >= prompt.tokens.get("total", 0):
            break
        prompt = rebuilt
        composed = window.compose(prompt.text, note, section)
    if composed.over:  # the prompt cannot shrink further: the newest answer goes too (announced)
        composed = window.compose(prompt.text, note, section, keep_newest=False)
    return composed, prompt


def _record(issue: str, turn: int, composed: Any, state: _State, served: Mapping[str, list[str]]) -> dict[str, Any]:
    from noface_ctx._tokens import count_tokens
    from noface_ctx._wording_run import plan_recital

    return {
        "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "issue": issue,
        "turn": turn,
        "prompt_sha256": hashlib.sha256(composed.text.encode("utf-8")).hexdigest(),
        "prompt_tokens": composed.tokens,  # the input of this turn, all sections (kept name)
        "input_tokens": composed.tokens,
        "answers_tokens": composed.answers_tokens,
        "evicted_tokens": composed.evicted_now,
        "evicted_total": composed.evicted_total,
        "plan_tokens": count_tokens(plan_recital(state.plan)) if state.plan else 0,
        "docs": list(served.get("docs", [])),  # what this turn's input newly served: path:start-end
        "code": list(served.get("code", [])),
        "requests": [],
        "answers": [],
        "duplicate_requests": 0,
    }


def _gate_record(issue: str, turn: int, reason: str, tokens: int = 0) -> dict[str, Any]:
    return {"time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "issue": issue, "turn": turn,
            "sent": False, "input_tokens": tokens, "docs": [], "code": [], "requests": [], "answers": []}


def _end(result: IssueResult, state: _State, config: Config, log_path: Path | None, record: dict[str, Any],
         outcome: str, reason: str) -> IssueResult:
    """The last record carries the issue's outcome; the ledger keeps it (a failure weighs on its docs)."""
    record["outcome"] = outcome
    if reason:
        record["reason"] = reason
    result.outcome, result.reason = outcome, reason
    _log(result, log_path, record, Path(config.root))
    state.ledger.record_outcome(state.issue, outcome, failed=outcome == "failed", note=reason, source="run",
                                root=config.root)
    return result


def _log(result: IssueResult, log_path: Path | None, record: dict[str, Any], root: Path) -> None:
    result.records.append(record)
    if log_path is not None:
        _append(log_path, record, root)


def _prompt_served(prompt: Prompt, root: Path) -> dict[str, list[str]]:
    """The prompt's docs and code pieces, each `path:start-end` (a whole file: all its lines)."""
    docs = [f"{d.get('path')}:{a}-{b}" for d in prompt.docs if d.get("included") for a, b in (d.get("ranges") or [])]
    code = []
    for row in prompt.code:
        path = str(row.get("path", ""))
        spans = [tuple(r) for r in row.get("ranges", [])] or [(row.get("start_line") or 0, row.get("end_line") or 0)]
        for start, end in spans:
            if not start:
                start, end = 1, _line_count(root / path)
            code.append(f"{path}:{start}-{end}")
    return {"docs": list(dict.fromkeys(docs)), "code": list(dict.fromkeys(code))}


def _line_count(path: Path) -> int:
    try:
        with path.open("rb") as fh:
            return max(1, sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 16), b"")))
    except OSError:
        return 0


def _answer(parsed: ParseResult, root: Path, issue: Any, config: Config, budget: int) -> Answer:
    from noface_ctx.signals.respond import resolve_requests

    return resolve_requests(parsed, repo=root, issue=issue, config=config, budget=budget)


def _answer_row(item: Any) -> dict[str, Any]:
    return {"request": item.request.signal, "outcome": item.outcome, "tokens": item.tokens,
            **({"served": item.where} if item.path else {}), **({"reason": item.reason} if item.reason else {})}


def _verify(command: Sequence[str], root: Path, timeout: float, issue: str) -> tuple[str, str, dict[str, Any]]:
    """Run the project's test command after ISSUE_COMPLETE: non-zero exit = failed."""
    shown = shlex.join(command)
    try:
        proc = subprocess.run(list(command), cwd=root, capture_output=True, text=True, errors="replace",
                              timeout=timeout, env={**os.environ, "NOFACE_ISSUE": issue}, check=False)
    except FileNotFoundError:
        raise UsageError(f"--verify: command not found: {command[0]}") from None
    except subprocess.TimeoutExpired:
        return "failed", verify_failed(shown, 124, f"timed out after {timeout:.0f}s"), {"command": shown, "exit": 124}
    info = {"command": shown, "exit": proc.returncode}
    if proc.returncode != 0:
        return "failed", verify_failed(shown, proc.returncode, _last_line(proc.stdout + "\n" + proc.stderr)), info
    return "complete", "", info


def _parse(stdout: str) -> ParseResult:
    from noface_ctx.signals.parse import parse_signals_detailed

    return parse_signals_detailed(stdout)


def _run_agent(agent: Sequence[str], text: str, *, cwd: Path, timeout: float, env: dict[str, str]) -> AgentResult:
    from noface_ctx._agent_process import run_agent

    return run_agent(agent, text, cwd=cwd, timeout=timeout, env=env)


def _assistant_text(stdout: str) -> str:
    """The assistant's own words: text blocks of stream-json, or the plain text."""
    from noface_ctx.signals.parse import agent_texts

    _fmt, texts = agent_texts(stdout)
    return "\n".join(t for _n, t in texts)


def _outcome(text: str) -> tuple[str, str]:
    blocked = _BLOCKED.search(text)
    if _COMPLETE.search(text):
        return "complete", ""
    if blocked:
        return "blocked", blocked.group(1)
    return "", ""


def _last_line(text: str) -> str:
    lines = [ln for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1][:200] if lines else "(no output)"


def _append(path: Path, record: dict[str, Any], root: Path) -> None:
    from noface_ctx import _write_gate as write_gate
    try:
        write_gate.append(path, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace"),
                          root=root)
    except OSError as exc:
        raise UsageError(f"cannot write the run log: {exc.strerror or exc}", where=str(path)) from None
