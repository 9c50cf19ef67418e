"""`noface-ctx run`: a minimal orchestrator loop around any agent command.

For each ready issue (beads `bd ready --json`, `.beads/issues.jsonl` open issues without `bd`,
a folder of `.md` issues, or ids/paths given on the command line):

`noface_ctx._issue_run.run_issue` drives it: the prompt, then turns of the agent command (prompt on
stdin; `NOFACE_ISSUE`, `NOFACE_TURN`, `NOFACE_PLAN_FILE` in its environment), `NEED_*` answers
within the turn contract (`_turn_window`: no turn over budget, evictions announced, the plan last),
until `ISSUE_COMPLETE` (checked by `--verify CMD` when given), `BLOCKED:`, the agent's failure,
`--max-turns`, or the budget gate. One JSON line per turn goes to the run log (`--log`, default
`.noface/runs.jsonl`), the last carrying the issue's outcome. Exit code 0 when every issue
completed, 1 otherwise.
Only the standard library is imported at module load (the CLI builds its parser from here).
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from noface_ctx.config import Config
from noface_ctx.errors import InputError, UsageError

DEFAULT_LOG = ".noface/runs.jsonl"
DEFAULT_MAX_TURNS = 6  # the same as `_issue_run.DEFAULT_MAX_TURNS` (not imported: the parser loads light)
DEFAULT_TIMEOUT = 1800.0


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
    p.add_argument("--verify", metavar="CMD",
                   help="the project's test command, run after ISSUE_COMPLETE: a non-zero exit is a failed outcome")


def run_from_args(args: argparse.Namespace, config: Config) -> int:
    if args.max_turns < 1:
        raise UsageError(f"--max-turns must be at least 1, got {args.max_turns}")
    if args.budget is not None and args.budget <= 0:
        raise UsageError(f"--budget must be a positive number of tokens, got {args.budget}")
    agent = shlex.split(args.agent)
    if not agent:
        raise UsageError("--agent is empty")
    from noface_ctx._issue_sources import IDS_ONLY, TYPED, in_folder
    from noface_ctx._user_paths import user_dir

    root = Path(config.root)
    # --issues-dir is read as typed (from the current directory), as `mcp --issues-dir` is
    issues_dir = str(user_dir(args.issues_dir, "--issues-dir")) if args.issues_dir else None
    # an issue id names an issue, never a file: only refs the user typed or files in --issues-dir are read
    files = TYPED if args.issues else in_folder(issues_dir, root) if issues_dir else IDS_ONLY
    refs = list(args.issues) or ready_issues(root, issues_dir)
    if not refs:
        print("noface-ctx run: no ready issues", file=sys.stderr)
        return 0
    verify = shlex.split(args.verify) if args.verify is not None else None
    if verify is not None and not verify:
        raise UsageError("--verify is empty")
    from noface_ctx._issue_run import run_issue

    log_path = _checked_log(Path(args.log) if args.log else root / DEFAULT_LOG, root, confine=not args.log)
    results = []
    for ref in refs:
        result = run_issue(ref, config, agent, max_turns=args.max_turns, budget=args.budget,
                           answer_budget=args.answer_budget, timeout=args.timeout, log_path=log_path,
                           embed=False if args.no_embed else None, files=files, verify=verify)
        results.append(result)
        detail = f": {result.reason}" if result.reason else ""
        print(f"{result.issue}: {result.outcome} after {result.turns} turn(s){detail}", file=sys.stderr)
    print(f"run log: {log_path}", file=sys.stderr)
    from noface_ctx.trust.ledger import Ledger

    print(f"ledger: {Ledger.of(config).path} (`noface-ctx why ISSUE` prints what each issue was served)", file=sys.stderr)
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
            from noface_ctx._bounded import loads_json

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


def _checked_log(path: Path, root: Path, *, confine: bool) -> Path:
    """The run log's real path, checked before any agent runs (`write_gate`: no link inside the
    repository followed; the default log confined to the repository and the user cache)."""
    from noface_ctx import _write_gate as write_gate
    try:
        return write_gate.checked_file(path, root=root, confine=confine)
    except OSError as exc:
        raise UsageError(f"cannot write the run log: {exc.strerror or exc}", where=str(path)) from None
