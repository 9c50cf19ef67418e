"""How far outcomes and age let a doc be trusted: halved, quarantined, or decayed.

Read from the ledger (`noface_ctx.trust.ledger`), for the docs one prompt considers:

* **Failures.** A doc served *in full* to an issue whose latest outcome is a failure (`--verify`
  failed, or `noface-ctx outcome ISSUE failed`) has its weight halved for `WINDOW_DAYS` of
  repository time after that failure. Only failures of the doc's current content count: an
  edited doc (a new git blob) starts clean, and so does one restored with `noface-ctx trust`.
* **Quarantine.** A second failure within the window quarantines the doc (never included,
  listed as omitted with the command that restores it), unless the issues it was served to in
  that window mostly completed: a failure rate that random, unrelated failures would give is
  not evidence against a doc. Completed issues never raise a weight above 1: there is no
  popularity signal.
* **Decay.** A volatile doc (frontmatter `source: agent`, or under a `[context] notes_dirs`
  folder) loses weight with age at `[context] notes_half_life_days`, age being the repository's
  latest commit time minus the doc's last update. Design docs do not decay: freshness judges them.

Pure given the ledger's rows: no ranking, no numpy, so `check-docs` may use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from noface_ctx._wording_run import decay_reason, halved_reason, quarantine_reason, trust_command
from noface_ctx.trust.ledger import Ledger, OutcomeRow, blob_sha, repo_time

if TYPE_CHECKING:
    from noface_ctx.config import Config
    from noface_ctx.datatypes import Doc

__all__ = ["DAY", "FAILED_OUTCOMES", "OK_OUTCOMES", "WINDOW_DAYS", "DocTrust", "is_volatile", "weigh_docs"]

DAY = 86400
WINDOW_DAYS = 30  # of repository time: a failure halves a doc this long; a second one within it quarantines
HALVED = 0.5
FAILED_OUTCOMES = frozenset({"failed"})  # --verify failed, or reported failed
OK_OUTCOMES = frozenset({"complete", "ok"})  # a completed issue is evidence, never a boost


@dataclass(frozen=True, slots=True)
class DocTrust:
    """One doc's weight from outcomes and age (1.0 = untouched) and why."""

    path: str
    factor: float = 1.0
    quarantined: bool = False
    failures: tuple[str, ...] = ()  # issues served this content in full whose outcome failed
    reasons: tuple[str, ...] = ()
    restore: str = ""  # the command that lifts a quarantine

    @property
    def touched(self) -> bool:
        return self.quarantined or self.factor < 1.0

    def to_dict(self) -> dict[str, object]:
        return {"factor": round(self.factor, 4), "quarantined": self.quarantined,
                "failures": list(self.failures), "reasons": list(self.reasons),
                **({"restore": self.restore} if self.restore else {})}


def is_volatile(doc: Doc, notes_dirs: Iterable[str]) -> bool:
    """Docs agents write: frontmatter `source: agent`, or a file under a configured notes folder."""
    source = doc.frontmatter.get("source") if isinstance(doc.frontmatter, Mapping) else None
    if isinstance(source, str) and source.strip().casefold() == "agent":
        return True
    return any(doc.path.startswith(d.strip("/") + "/") for d in notes_dirs if d.strip("/"))


def weigh_docs(config: Config, docs: Iterable[Doc], updated: Mapping[str, str | None] | None = None,
               *, ledger: Ledger | None = None, now: int | None = None) -> dict[str, DocTrust]:
    """path -> `DocTrust` for the docs whose weight outcomes or age change (others are absent).

    `updated`: path -> the doc's last update (ISO date or time), for decay; `now`: the repository's
    time (HEAD's commit time) unless given."""
    docs = list(docs)
    if not docs:
        return {}
    root = Path(config.root)
    ledger = ledger if ledger is not None else Ledger.of(config)
    blobs = {d.path: _blob(root, d.path) for d in docs}
    serves = ledger.full_serves(blobs)
    volatile = {d.path for d in docs if is_volatile(d, config.context.notes_dirs)}
    if not serves and not volatile:
        return {}  # nothing to weigh: no `git` call, no ledger read beyond the served rows
    now = repo_time(root) if now is None else now
    outcomes = _latest_outcomes(ledger.outcomes()) if serves else {}
    restored = ledger.restores() if serves else {}
    out: dict[str, DocTrust] = {}
    for doc in docs:
        trust = _from_outcomes(doc.path, blobs[doc.path], serves.get(doc.path, []), outcomes,
                               restored.get(doc.path, 0), now)
        if doc.path in volatile:
            trust = _decayed(trust, (updated or {}).get(doc.path), now, config.context.notes_half_life_days)
        if trust.touched:
            out[doc.path] = trust
    return out


def _blob(root: Path, path: str) -> str:
    try:
        return blob_sha((root / path).read_bytes())
    except OSError:
        return ""


def _latest_outcomes(rows: Iterable[OutcomeRow]) -> dict[str, OutcomeRow]:
    latest: dict[str, OutcomeRow] = {}
    for row in rows:  # in id order: the last one per issue wins
        latest[row.issue] = row
    return latest


def _from_outcomes(path: str, blob: str, serves: list[tuple[str, str, int]], outcomes: Mapping[str, OutcomeRow],
                   restored_after: int, now: int) -> DocTrust:
    issues = dict.fromkeys(issue for issue, served_blob, _id in serves if blob and served_blob == blob)
    decided = [outcomes[i] for i in issues if i in outcomes and outcomes[i].id > restored_after]
    failed = sorted((o for o in decided if o.outcome in FAILED_OUTCOMES), key=lambda o: (o.repo_time, o.id))
    if not failed:
        return DocTrust(path)
    ok = [o for o in decided if o.outcome in OK_OUTCOMES]
    window = WINDOW_DAYS * DAY
    names = tuple(o.issue for o in failed)
    for first, second in pairwise(failed):
        if second.repo_time - first.repo_time > window:
            continue
        lo, hi = second.repo_time - window, second.repo_time
        fails = sum(1 for o in failed if lo <= o.repo_time <= hi)
        oks = sum(1 for o in ok if lo <= o.repo_time <= hi)
        if fails > oks:
            restore = trust_command(path)
            return DocTrust(path, 0.0, True, names, (quarantine_reason(names, restore),), restore)
    latest = failed[-1]
    if now - latest.repo_time < window:
        days = max(0, (now - latest.repo_time) // DAY)
        return DocTrust(path, HALVED, False, names, (halved_reason(latest.issue, days, WINDOW_DAYS),))
    return DocTrust(path, failures=names)


def _decayed(trust: DocTrust, updated: str | None, now: int, half_life: float) -> DocTrust:
    when = _epoch(updated)
    if when is None or now <= 0 or half_life <= 0:
        return trust
    days = max(0, (now - when) // DAY)  # whole days: a doc's last update is often a date only
    factor = 0.5 ** (days / half_life)
    if factor >= 0.999:
        return trust
    from dataclasses import replace

    return replace(trust, factor=trust.factor * factor, reasons=(*trust.reasons, decay_reason(days, half_life, factor)))


def _epoch(value: str | None) -> int | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp())
