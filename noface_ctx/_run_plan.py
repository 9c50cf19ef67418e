"""The agent's plan in `noface-ctx run`: read from its output or its plan file, stored per issue.

The agent keeps a plan either as a `PLAN:` block in its reply (the text after `PLAN:` and the
lines that follow, up to a blank line or a protocol line) or in the plan file whose path every
turn gives it. The latest plan is stored in the ledger (`noface_ctx.trust.ledger`, which
re-reads and compares what it wrote: a plan that does not round-trip is an error), so it survives
a restart of `run`, and is recited as the last section of every later turn.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from noface_ctx._wording_run import plan_instructions, plan_recital

if TYPE_CHECKING:
    from noface_ctx.config import Config

__all__ = ["MAX_PLAN_BYTES", "plan_file", "plan_from_output", "plan_section", "read_plan_file"]

MAX_PLAN_BYTES = 64 * 1024  # a plan file larger than this is not a plan: refused, with an error
_PLAN = re.compile(r"^[ \t]*PLAN:[ \t]*(.*)$", re.M)
_PROTOCOL = re.compile(r"^\s*(NEED_CODE:|NEED_DOC:|ISSUE_COMPLETE\s*$|BLOCKED:)")


def plan_from_output(text: str) -> str | None:
    """The last `PLAN:` block of the agent's own words, or None."""
    found = list(_PLAN.finditer(text))
    if not found:
        return None
    last = found[-1]
    lines = [last.group(1)] if last.group(1).strip() else []
    for line in text[last.end():].split("\n")[1:]:
        if not line.strip() or _PROTOCOL.match(line):
            break
        lines.append(line.rstrip())
    plan = "\n".join(lines).strip("\n")
    return plan or None


def plan_file(config: Config, issue_id: str) -> Path:
    """Where the agent may keep its plan for `issue_id`: the user cache, never the work tree."""
    from noface_ctx.config import cache_dir

    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", issue_id)[:40] or "issue"
    digest = hashlib.sha1(issue_id.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return cache_dir(config) / "plans" / f"{safe}-{digest}.md"


def read_plan_file(path: Path) -> str | None:
    """The plan file's text (None when absent or empty); a file over `MAX_PLAN_BYTES` or not
    UTF-8 is a `UsageError` naming it."""
    from noface_ctx.errors import UsageError

    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_PLAN_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read the plan file: {exc.strerror or exc}", where=str(path)) from None
    if len(data) > MAX_PLAN_BYTES:
        raise UsageError(f"the plan file is over {MAX_PLAN_BYTES // 1024} KB", where=str(path))
    try:
        text = data.decode("utf-8").strip("\n")
    except UnicodeDecodeError:
        raise UsageError("the plan file is not UTF-8 text", where=str(path)) from None
    return text or None


def plan_section(path: Path, plan: str | None) -> str:
    """How to keep a plan, then the latest plan: the last section of a turn."""
    how = plan_instructions(str(path))
    return f"{how}\n\n{plan_recital(plan)}" if plan else how
