"""The sentences of the run loop and of trust: continuation and reminder notes, eviction lines,
the plan recital, the budget gate, and why a doc was halved, quarantined or decayed.

`_wording.py` holds the prompt's and the answers' sentences; this module the ones `noface-ctx
run`, the ledger's effects and `noface-ctx why` add around them. No logic beyond formatting.
"""

from __future__ import annotations

from collections.abc import Sequence

CONTINUE_NOTE = (
    "CONTINUE:\nThe context you requested is above. Carry on with the issue. Ask with NEED_CODE: / "
    "NEED_DOC: lines for anything else; output ISSUE_COMPLETE when finished, or BLOCKED: <reason>."
)
REMINDER_NOTE = (
    "CONTINUE:\nYour last turn neither finished (ISSUE_COMPLETE), reported a block (BLOCKED: <reason>) "
    "nor asked for context (NEED_CODE: / NEED_DOC:). Carry on with the issue and end with one of those."
)
PLAN_TITLE = "YOUR PLAN (latest, as you last wrote it):"
EVICTED_TITLE = "EARLIER ANSWERS LEFT OUT:"


def plan_instructions(plan_file: str) -> str:
    """What every turn tells the agent about keeping its plan."""
    return ("PLAN:\nKeep your plan current: write it as a `PLAN:` block in your reply (the lines after "
            f"`PLAN:` up to a blank line), or in the file {plan_file}. The latest plan is kept between turns "
            "and shown at the end of every turn.")


def plan_recital(plan: str) -> str:
    """The last section of every turn after the agent wrote a plan."""
    return f"{PLAN_TITLE}\n{plan}"


def evicted_line(turn: int, where: str, tokens: int, request: str) -> str:
    """What an answer evicted from the turn leaves: the line that restores it."""
    return f"- served in turn {turn}: {where} ({tokens} tokens); {request} to see it again"


def evicted_summary(n: int, tokens: int, budget: int) -> str:
    """How much this turn left out of earlier answers, and why."""
    return (f"{n} earlier answer item(s), {tokens} tokens, left out so this turn stays within its budget of "
            f"{budget} tokens (oldest first). Ask again with the line given to see one.")


def over_budget_reason(need: int, budget: int) -> str:
    """The budget gate: the fixed sections alone do not fit."""
    return (f"the fixed sections (issue, manifest, plan, required files) need {need} tokens, over the budget "
            f"of {budget}: turn not sent")


def verify_failed(command: str, code: int, last: str) -> str:
    return f"--verify `{command}` exited {code}: {last}"


def turn_limit(max_turns: int) -> str:
    return f"no ISSUE_COMPLETE within {max_turns} turn(s)"


# --------------------------------------------------------------------------- trust


def trust_command(path: str) -> str:
    """The command that lifts a quarantine."""
    return f"noface-ctx trust {path}"


def quarantine_reason(issues: Sequence[str], restore: str) -> str:
    shown = ", ".join(issues[:5]) + (f" (+{len(issues) - 5} more)" if len(issues) > 5 else "")
    return (f"quarantined: served in full to {len(issues)} issues that failed ({shown}); needs review, "
            f"then `{restore}` (or edit the doc) to restore it")


def halved_reason(issue: str, days: int, window: int) -> str:
    return f"weight halved: served in full to failed issue {issue} {days} day(s) ago (repository time; {window}-day window)"


def decay_reason(days: float, half_life: float, factor: float) -> str:
    return f"agent-written note {days:.0f} day(s) old: weight × {factor:.2f} (half-life {half_life:g} days)"
