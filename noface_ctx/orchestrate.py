"""`noface-ctx run`: a minimal orchestrator loop around any agent command.

For each ready issue (beads `bd ready --json`, `.beads/issues.jsonl` open issues without `bd`,
a folder of `.md` issues, or ids/paths given on the command line):

1. build the prompt (`build_prompt`);
2. run the agent command with the prompt on stdin and `NOFACE_ISSUE` / `NOFACE_TURN` in its
   environment; its stdout is plain text or Claude Code `stream-json` (only the assistant's text
   counts, as in `signals`);
3. `ISSUE_COMPLETE` on a line of its own ends the issue as complete, `BLOCKED: reason` as
   blocked; otherwise its `NEED_CODE:` / `NEED_DOC:` lines are answered (`resolve_requests`, the
   issue's manifest governing) and the next turn gets the prompt, every answer so far and a
   continuation note; a turn with neither gets a reminder of the protocol;
4. stop at `--max-turns` (outcome `turn_limit`) or when the agent fails (`agent_failed`).

Every turn appends one JSON line to the run log (`--log`, default `.noface/runs.jsonl`): issue,
turn, prompt hash and tokens, the docs and code the prompt served, the requests parsed, what each
answer served, and the outcome. Exit code 0 when every issue completed, 1 otherwise.
Only the standard library is imported at module load (the CLI builds its parser from here).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noface_ctx.errors import InputError, UsageError

if TYPE_CHECKING:
    from noface_ctx.agent_process import AgentResult

DEFAULT_LOG = ".noface/runs.jsonl"
DEFAULT_MAX_TURNS = 6
DEFAULT_TIMEOUT = 1800.0
_COMPLETE = re.compile(r"^\s*ISSUE_COMPLETE\s*$", re.M)
_BLOCKED = re.compile(r"^\s*BLOCKED:\s*(.+?)\s*$", re.M)

CONTINUE_NOTE = (
    "CONTINUE:\nThe context you requested is above. Carry on with the issue. Ask with NEED_CODE: / "
    "NEED_DOC: lines for anything else; output ISSUE_COMPLETE when finished, or BLOCKED: <reason>."
)
REMINDER_NOTE = (
    "CONTINUE:\nYour last turn neither finished (ISSUE_COMPLETE), reported a block (BLOCKED: <reason>) "
    "nor asked for context (NEED_CODE: / NEED_DOC:). Carry on with the issue and end with one of those."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("issues", nargs="*", metavar="ISSUE", help="issue ids or .md/.json files (default: ready issues)")
    p.add_argument("--agent", required=True, metavar="CMD",
                   help="agent command (shell-quoted string); gets the prompt on stdin, prints text or stream-json")
    p.add_argument("--issues-dir", metavar="DIR", help="take every .md issue in DIR instead of beads")
    p.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, metavar="N",
                   help=f"turns per issue before giving up (default {DEFAULT_MAX_TURNS})")
    p.add_argument("--budget", type=int, metavar="N", help="prompt token budget (default: [context] budget_tokens)")
    p.add_argument("--answer-budget", type=int, metavar="N", help="token budget per NEED_* answer")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"per agent turn (default {DEFAULT_TIMEOUT:.0f})")
    p.add_argument("--log", metavar="FILE", help=f"JSONL run log (default: <repo>/{DEFAULT_LOG})")
    p.add_argument("--no-embed", action="store_true", help="rank with BM25 only")


@dataclass
class IssueResult:
    issue: str
    outcome: str  # complete | blocked | turn_limit | agent_failed
    turns: int
    reason: str = ""
    records: list[dict[str, Any]] = field(default_factory=list)


def run_from_args(args: argparse.Namespace, config: Any) -> int:
    if args.max_turns < 1:
        raise UsageError(f"--max-turns must be at least 1, got {args.max_turns}")
    if args.budget is not None and args.budget <= 0:
        raise UsageError(f"--budget must be a positive number of tokens, got {args.budget}")
    agent = shlex.split(args.agent)
    if not agent:
        raise UsageError("--agent is empty")
    from noface_ctx.issue_sources import IDS_ONLY, TYPED, in_folder

    root = Path(config.root)
    # an issue id names an issue, never a file: only refs the user typed or files in --issues-dir are read
    files = TYPED if args.issues else in_folder(args.issues_dir, root) if args.issues_dir else IDS_ONLY
    refs = list(args.issues) or ready_issues(root, args.issues_dir)
    if not refs:
        print("noface-ctx run: no ready issues", file=sys.stderr)
        return 0
    log_path = _checked_log(Path(args.log) if args.log else root / DEFAULT_LOG, root, confine=not args.log)
    results = []
    for ref in refs:
        result = run_issue(ref, config, agent, max_turns=args.max_turns, budget=args.budget,
                           answer_budget=args.answer_budget, timeout=args.timeout, log_path=log_path,
                           embed=False if args.no_embed else None, files=files)
        results.append(result)
        detail = f": {result.reason}" if result.reason else ""
        print(f"{result.issue}: {result.outcome} after {result.turns} turn(s){detail}", file=sys.stderr)
    print(f"run log: {log_path}", file=sys.stderr)
    return 0 if all(r.outcome == "complete" for r in results) else 1


# --------------------------------------------------------------------------- issue sources


def ready_issues(root: Path, issues_dir: str | None = None) -> list[str]:
    """Issue refs to work on: `.md` files in `issues_dir`, else beads' ready issues."""
    if issues_dir:
        folder = Path(issues_dir)
        if not folder.is_absolute():
            folder = root / folder
        if not folder.is_dir():
            raise UsageError(f"--issues-dir {issues_dir}: not a directory")
        return [str(p) for p in sorted(folder.glob("*.md"))]
    bd = shutil.which("bd")
    if bd:
        try:
            out = subprocess.run([bd, "ready", "--json"], check=False, cwd=root, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InputError(f"bd ready --json failed: {exc}") from None
        if out.returncode == 0:
            from noface_ctx.bounded import loads_json

            data = loads_json(out.stdout or "[]", "bd ready --json")  # bounded: size and depth
            items = data if isinstance(data, list) else []
            return [str(i["id"]) for i in items if isinstance(i, dict) and i.get("id")]
    return _jsonl_ready(root)


def _jsonl_ready(root: Path) -> list[str]:
    """Without `bd`: open issues in `.beads/issues.jsonl`, by priority then id (the bounded
    reader `preview` uses: a bad line is skipped with a warning)."""
    from noface_ctx.issue.beads import jsonl_issues

    warnings: list[str] = []
    issues = jsonl_issues(root, warnings) or []
    for warning in warnings:
        print(f"noface-ctx run: {warning}", file=sys.stderr)
    found = []
    for item in issues:
        if item.get("id") and item.get("status", "open") in ("open", "ready"):
            prio = item.get("priority") if isinstance(item.get("priority"), int) else 9
            found.append((prio, str(item["id"])))
    return [i for _p, i in sorted(found)]


# --------------------------------------------------------------------------- the loop


def run_issue(ref: str, config: Any, agent: Sequence[str], *, max_turns: int = DEFAULT_MAX_TURNS,
              budget: int | None = None, answer_budget: int | None = None, timeout: float = DEFAULT_TIMEOUT,
              log_path: Path | None = None, embed: Any = None, files: Any = None) -> IssueResult:
    """Drive one issue to ISSUE_COMPLETE / BLOCKED / the turn limit; log one record per turn.
    `files` (`issue_sources.IssueFiles`, default: typed by the user) says whether `ref` may name a file."""
    from noface_ctx.issue_sources import TYPED, load_issue_ref
    from noface_ctx.pipeline import build_prompt
    from noface_ctx.signals.parse import parse_signals_detailed
    from noface_ctx.signals.respond import resolve_requests
    from noface_ctx.tokens import count_tokens

    root = Path(config.root)
    issue, issue_warnings = load_issue_ref(ref, config, files or TYPED)
    for warning in issue_warnings:
        print(f"noface-ctx run: {warning}", file=sys.stderr)
    prompt = build_prompt(issue, repo=root, config=config, budget=budget, embed=embed)
    served_docs = [d["path"] for d in prompt.docs if d.get("included")]
    served_code = [_code_label(c) for c in prompt.code]
    answers: list[str] = []
    note = ""
    result = IssueResult(issue.id, "turn_limit", 0)
    for turn in range(1, max_turns + 1):
        text = "\n\n".join([prompt.text, *answers, *([note] if note else [])])
        t0 = time.perf_counter()
        proc = _run_agent(agent, text, cwd=root, timeout=timeout, env={"NOFACE_ISSUE": issue.id, "NOFACE_TURN": str(turn)})
        record: dict[str, Any] = {
            "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "issue": issue.id,
            "turn": turn,
            "prompt_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "prompt_tokens": count_tokens(text),
            "docs": served_docs,  # what this turn's input served: the prompt's, then the answers'
            "code": served_code,
            "requests": [],
            "answers": [],
            "agent_exit": proc.returncode,
            **({"agent_output_dropped": proc.dropped} if proc.dropped else {}),
        }
        assistant = _assistant_text(proc.stdout)
        outcome, reason = _outcome(assistant)
        parsed = parse_signals_detailed(proc.stdout)
        record["requests"] = [r.signal for r in (*parsed.requests, *parsed.rejected)]
        if proc.returncode != 0 and not outcome:
            outcome, reason = "agent_failed", f"exit code {proc.returncode}: {_last_line(proc.stderr)}"
        if not outcome and (parsed.requests or parsed.rejected):
            answer = resolve_requests(parsed, repo=root, issue=issue, config=config, budget=answer_budget)
            record["answers"] = [{"request": i.request.signal, "outcome": i.outcome, "tokens": i.tokens,
                                  **({"reason": i.reason} if i.reason else {})} for i in answer.items]
            # what the next turn serves, in the same shape as turn 1's docs/code
            served_docs = [i.request.target for i in answer.items if i.outcome in ("served", "partial") and i.request.kind == "doc"]
            served_code = [i.request.target for i in answer.items if i.outcome in ("served", "partial") and i.request.kind == "code"]
            answers.append(answer.text)
            note, outcome = CONTINUE_NOTE, "answered"
        elif not outcome:
            served_docs, served_code = [], []
            note, outcome = REMINDER_NOTE, "no_signal"
        record["outcome"] = outcome
        if reason:
            record["reason"] = reason
        record["seconds"] = round(time.perf_counter() - t0, 3)
        result.records.append(record)
        result.turns = turn
        if log_path is not None:
            _append(log_path, record, root)
        if outcome in ("complete", "blocked", "agent_failed"):
            result.outcome, result.reason = outcome, reason
            return result
    result.reason = f"no ISSUE_COMPLETE within {max_turns} turn(s)"
    return result


def _run_agent(agent: Sequence[str], text: str, *, cwd: Path, timeout: float, env: dict[str, str]) -> AgentResult:
    from noface_ctx.agent_process import run_agent

    return run_agent(agent, text, cwd=cwd, timeout=timeout, env=env)


def _assistant_text(stdout: str) -> str:
    """The assistant's own words: text blocks of stream-json, or the plain text."""
    from noface_ctx.signals.parse import _texts

    _fmt, texts = _texts(stdout)
    return "\n".join(t for _n, t in texts)


def _outcome(text: str) -> tuple[str, str]:
    blocked = _BLOCKED.search(text)
    if _COMPLETE.search(text):
        return "complete", ""
    if blocked:
        return "blocked", blocked.group(1)
    return "", ""


def _code_label(row: Mapping[str, Any]) -> str:
    path, symbol = row.get("path", ""), row.get("symbol") or ""
    return f"{path}::{symbol}" if symbol else str(path)


def _last_line(text: str) -> str:
    lines = [ln for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1][:200] if lines else "(no stderr)"


def _checked_log(path: Path, root: Path, *, confine: bool) -> Path:
    """The run log's real path, checked before any agent runs (`write_gate`: no link inside the
    repository followed; the default log confined to the repository and the user cache)."""
    from noface_ctx import write_gate

    try:
        return write_gate.checked_file(path, root=root, confine=confine)
    except OSError as exc:
        raise UsageError(f"cannot write the run log: {exc.strerror or exc}", where=str(path)) from None


def _append(path: Path, record: dict[str, Any], root: Path | None = None) -> None:
    from noface_ctx import write_gate

    try:
        write_gate.append(path, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace"),
                          root=root)
    except OSError as exc:
        raise UsageError(f"cannot write the run log: {exc.strerror or exc}", where=str(path)) from None
