"""`noface-ctx why ISSUE`, `noface-ctx outcome ISSUE ok|failed`, `noface-ctx trust DOC`.

`why` prints what an issue was served, turn by turn, from the ledger; `outcome` records an
external orchestrator's verdict on an issue; `trust` lifts a quarantine (failures recorded
before it no longer count against the doc). An issue id is only ever a key here, never a file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noface_ctx.errors import UsageError
from noface_ctx.trust.ledger import Ledger, ServedRow, blob_sha

if TYPE_CHECKING:
    from noface_ctx.config import Config

__all__ = ["add_outcome", "add_trust", "add_why", "outcome", "trust", "why"]

MAX_NOTE = 2000


def add_why(p: argparse.ArgumentParser) -> None:
    p.add_argument("issue", metavar="ISSUE", help="issue id as run, the MCP server or preview --record recorded it")
    p.add_argument("--json", action="store_true", help="the rows as JSON")


def add_outcome(p: argparse.ArgumentParser) -> None:
    p.add_argument("issue", metavar="ISSUE", help="issue id")
    p.add_argument("verdict", choices=("ok", "failed"), help="ok: the work was accepted; failed: it was not")
    p.add_argument("--note", default="", metavar="TEXT", help="why (kept in the ledger, shown by `why`)")


def add_trust(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc", metavar="DOC", help="repository-relative path of a quarantined doc")


def why(config: Config, issue: str, *, as_json: bool = False) -> int:
    ledger = Ledger.of(config)
    rows = ledger.served(issue)
    outcomes = ledger.outcomes(issue)
    if not rows and not outcomes:
        raise UsageError(f"the ledger has nothing for issue {issue!r} (`noface-ctx run`, the MCP server and "
                         "`preview --record` write to it)", where=str(ledger.path))
    if as_json:
        print(json.dumps({"issue": issue, "served": [_row_json(r) for r in rows],
                          "outcomes": [{"outcome": o.outcome, "failed": o.failed, "note": o.note, "source": o.source,
                                        "repo_time": o.repo_time, "time": o.wall_time} for o in outcomes]},
                         indent=2, ensure_ascii=False))
        return 0
    out = sys.stdout
    turn = None
    for r in rows:
        if r.turn != turn:
            turn = r.turn
            total = sum(x.tokens for x in rows if x.turn == turn)
            print(f"turn {turn} ({r.source}, {r.wall_time}): {total} tokens served", file=out)
        score = f" score {r.score:.2f}" if r.score is not None else ""
        print(f"  {r.via:<12} {r.kind:<4} {r.where}  blob {r.blob[:10] or '-'}  {r.tokens} tokens{score}"
              f"  {r.form or '-'}  — {r.reason}", file=out)
    for o in outcomes:
        note = f": {o.note}" if o.note else ""
        print(f"outcome: {o.outcome}{' (failed)' if o.failed and o.outcome != 'failed' else ''} "
              f"({o.source}, {o.wall_time}){note}", file=out)
    return 0


def outcome(config: Config, issue: str, verdict: str, note: str = "", *, source: str = "cli") -> str:
    """Record `issue`'s outcome (`ok` | `failed`); the line to print."""
    if not issue.strip() or len(issue) > 200 or "\n" in issue:
        raise UsageError("ISSUE must be one line of at most 200 characters")
    if verdict not in ("ok", "failed"):
        raise UsageError(f"outcome must be ok or failed, got {verdict!r}")
    if len(note) > MAX_NOTE:
        raise UsageError(f"--note is longer than {MAX_NOTE} characters")
    Ledger.of(config).record_outcome(issue, verdict, failed=verdict == "failed", note=note, source=source,
                                     root=config.root)
    return f"{issue}: outcome {verdict} recorded"


def trust(config: Config, doc: str) -> str:
    """Lift a quarantine on `doc` (a path inside the repository); the line to print."""
    from noface_ctx.trust.effects import weigh_docs

    root = Path(config.root).resolve()
    full = (root / doc).resolve() if not Path(doc).is_absolute() else Path(doc).resolve()
    if not full.is_relative_to(root):
        raise UsageError("not inside the repository", where=doc)
    if not full.is_file():
        raise UsageError("no such file", where=doc)
    rel = full.relative_to(root).as_posix()
    held = weigh_docs(config, [_doc_stub(rel)]).get(rel)
    Ledger.of(config).restore(rel, blob_sha(full.read_bytes()), root=root)
    if held is not None and held.quarantined:
        return f"{rel}: quarantine lifted; the {len(held.failures)} failure(s) before now no longer count"
    return f"{rel}: restored (it was not quarantined); failures before now no longer count"


def _doc_stub(path: str) -> Any:
    from noface_ctx.datatypes import Doc

    return Doc(path=path, slug=path, title=path, text="")


def _row_json(r: ServedRow) -> dict[str, Any]:
    return {"turn": r.turn, "source": r.source, "via": r.via, "kind": r.kind, "path": r.path, "ref": r.ref,
            "blob": r.blob, "lines": [r.start_line, r.end_line] if r.start_line else None, "tokens": r.tokens,
            "score": r.score, "form": r.form, "reason": r.reason, "time": r.wall_time}
