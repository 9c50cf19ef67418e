"""One doc's judgement: the value `assess_docs` answers, how its findings are worded, how it is
stored in `history.sqlite`, and the dates it is computed from."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any

from noface_ctx.datatypes import ChangedRef, Doc, MissingRef, Staleness, Verdict
from noface_ctx.freshness.references import Reference

if TYPE_CHECKING:
    from noface_ctx.freshness.history import Commit


@dataclass(frozen=True, slots=True)
class DocFreshness:
    """Everything `assess_docs` found about one doc; `check-docs` reports from this."""

    path: str
    slug: str
    staleness: Staleness
    files: frozenset[str] = frozenset()  # code files the doc is about (what the pre-commit hook matches)
    age_days: int | None = None  # to the repository's latest commit
    age_flagged: bool = False  # older than stale_after_days, and a symbol it names changed since


UNCOMMITTED = "uncommitted edits"  # what a finding names when the work tree's edits made it


def made_by_edits(d: DocFreshness) -> bool:
    """Whether the work tree's uncommitted edits made a finding of this doc (what a commit
    about to be made would make stale)."""
    st = d.staleness
    return any(m.commit == UNCOMMITTED for m in st.missing) or any(c.commit == UNCOMMITTED for c in st.changed)


def missing_ref(ref: Reference, lookup: str, suggestion: str | None, commit: str | None) -> MissingRef:
    """A removed name as reported: a member's suggestion keeps the rest of the dotted name, as the
    doc writes it when an autodoc-like target is written short (`:pyobject: Class.method` of an
    included file, `.. autofunction:: name` under a `currentmodule`: `Class.renamed`, not the module path)."""
    written = ref.ref.removesuffix("()")
    name = written if ref.source == "autodoc" and ref.name.endswith("." + written) and lookup in written.split(".") else ref.name
    if suggestion and "." not in suggestion and ref.kind == "method" and lookup != name and lookup in name.split("."):
        suggestion = ".".join(suggestion if p == lookup else p for p in name.split("."))
    elif suggestion and suggestion.endswith("." + lookup) and lookup in name.split(".")[:-1]:  # `pkg.Checker.check`'s class moved
        suggestion += name[name.index("." + lookup + ".") + len(lookup) + 1:] if "." + lookup + "." in name else ""
    return MissingRef(ref.ref, ref.line, suggestion, commit)


def missing_reason(m: MissingRef) -> str:
    """The reason line for a removed name (`check-docs` prints it as a `stale-ref`)."""
    last = (m.suggestion or "").rsplit(".", 1)[-1]
    moved = "/" in (m.suggestion or "") or (last != m.suggestion and last == m.ref.removesuffix("()").rsplit(".", 1)[-1])
    what = "moved to" if moved else "renamed to"
    hint = f" ({what} `{m.suggestion}`?)" if m.suggestion else ""
    where = f", removed in {m.commit}" if m.commit else ""
    if not m.proven:
        return f"references `{m.ref}`, which does not exist (no history here to tell whether it ever did)"
    if m.never:  # `never_defined`: wrong from the day it was written
        home = f" (defined in `{m.suggestion}`)" if m.suggestion else ""
        return f"references `{m.ref}`, which its module never defined: wrong since it was written in {m.commit}{home}"
    passed = _PASSED.fullmatch(m.ref)
    if passed:  # a keyword an example passes to a call (`sns.histplot(binwidth=...)`)
        return f"passes `{passed.group(2)}` to `{passed.group(1)}()`, and no code defines `{passed.group(2)}` any more{where}{hint}"
    return f"references `{m.ref}` which no longer exists{where}{hint}"


_PASSED = re.compile(r"([\w.]+)\((\w+)=\.\.\.\)")


def passed_keyword(ref: str) -> str | None:
    """The keyword a removed reference written with its callee passes (`binwidth` for
    `sns.histplot(binwidth=...)`), else None."""
    m = _PASSED.fullmatch(ref)
    return m.group(2) if m else None


def changed_reason(c: ChangedRef, updated: str | None) -> str:
    """The reason line for a changed definition (`check-docs` prints it as a `changed-ref`)."""
    since = f" since this doc was last updated ({updated})" if updated else ""
    if c.what.startswith("default "):  # "default NAME": a parameter's default the doc states by its old value
        return f"default of `{c.what.split()[1]}` of `{c.ref}` ({c.path}) changed in {c.commit}{since}"
    if c.what.startswith("default, stated as"):  # `default_history.OLD_DEFAULT`: changed before the doc's last commit
        return f"default of `{c.ref}` ({c.path}) changed in {c.commit}: this doc states its value before"
    if c.what == "accepted values":  # `setting_values.ACCEPTED`: a value the setting no longer takes
        return f"`{c.ref}`: not a value the setting accepts ({c.path}); it was taken out in {c.commit}"
    if c.what.startswith("deprecated path "):  # `deprecated_paths.DEPRECATED_PATH`: reached through a deprecation shim
        return (f"`{c.ref}` is a deprecated import path: the module's `__getattr__` ({c.path}) hands it out with a "
                f"deprecation warning since {c.commit}; it lives in `{c.what.split()[2]}`")
    if c.what.startswith("required "):  # `required_defaults`: a written default of a parameter the code requires
        return (f"writes a default for `{c.what.split()[1]}` of `{c.ref}`, which the code ({c.path}) requires: a call "
                f"without it raises TypeError; wrong since {c.commit}")
    if c.what.startswith("keyword "):  # "keyword NAME [NEW]": a keyword the doc passes, gone from the signature
        _, name, *new = c.what.split()
        hint = f" (renamed to `{new[0]}`?)" if new else ""
        return f"passes `{name}` to `{c.ref}`, which no longer takes it: signature ({c.path}) changed in {c.commit}{since}{hint}"
    if c.what.startswith("unaccepted keyword "):  # `keyword_contract`: a keyword the callee's signature does not take
        name = c.what.split()[2]
        return f"passes `{name}` to `{c.ref}()`, which takes no keyword `{name}` ({c.path}): wrong since {c.commit}"
    if c.what.startswith("unknown member "):  # `callback_members`: read on the object the repository hands a callback
        name = c.what.split()[2]
        return f"reads `{name}` on a `{c.ref}` (what the repository hands this callback), which has no `{name}` ({c.path}): wrong since {c.commit}"
    if c.what.startswith("unaccepted parameter "):  # `directive_keywords`: a parameter a signature states, not taken
        name = c.what.split()[2]
        return f"states parameter `{name}` of `{c.ref}()`, which takes no `{name}` ({c.path}): wrong since {c.commit}"
    return f"{c.what} of `{c.ref}` ({c.path}) changed in {c.commit}{since}"


def to_json(d: DocFreshness) -> dict[str, Any]:
    """A judgement as the JSON `history.sqlite` keeps (`from_json` reads it back)."""
    st = d.staleness
    return {
        "verdict": st.verdict, "reasons": list(st.reasons), "last_updated": st.last_updated,
        "missing": [[m.ref, m.line, m.suggestion, m.commit, m.proven, m.never] for m in st.missing],
        "changed": [[c.ref, c.line, c.path, c.commit, c.what] for c in st.changed],
        "references": list(st.references), "signatures": [list(x) for x in st.signatures],
        "files": sorted(d.files), "age": d.age_days, "age_flagged": d.age_flagged,
    }


def from_json(doc: Doc, v: Mapping[str, Any]) -> DocFreshness:
    """The judgement `to_json` stored for `doc`."""
    st = Staleness(
        verdict=v["verdict"], reasons=tuple(v["reasons"]),
        missing=tuple(MissingRef(*m) for m in v["missing"]), changed=tuple(ChangedRef(*c) for c in v["changed"]),
        last_updated=v["last_updated"], references=tuple(v["references"]),
        signatures=tuple((a, b) for a, b in v["signatures"]),
    )
    return DocFreshness(doc.path, doc.slug, st, frozenset(v["files"]), v["age"], v["age_flagged"])


def parse_date(value: object) -> float | None:
    """A frontmatter date as a unix time (a bare date counts as the end of that day, UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, 23, 59, 59, tzinfo=timezone.utc).timestamp()
    text = str(value).strip()
    try:
        if len(text) == 10:
            return parse_date(date.fromisoformat(text))
        return parse_date(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        return None


def iso_day(ts: float | None) -> str | None:
    """A unix time as its UTC day, `YYYY-MM-DD`."""
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc).date().isoformat()


def last_updated(doc: Doc, commit: Commit | None, editing: bool, head: Commit | None) -> float | None:
    """When a doc was last updated: frontmatter `updated`, else the later of `date` and its last
    commit; HEAD's time while it is edited (`commit`, `head`: `history.Commit` or None)."""
    updated = parse_date(doc.updated)
    if updated is None:
        if editing or commit is None:
            updated = float(head.time) if head is not None and editing else None
        else:
            known = [t for t in (parse_date(doc.date), float(commit.time)) if t is not None]
            updated = max(known)
    return updated if updated is not None else parse_date(doc.date)


def verdict(doc: Doc, missing: Sequence[MissingRef], changed: Sequence[ChangedRef], updated: float | None,
            latest: float | None, stale_after_days: int, references: Iterable[str],
            signatures: Iterable[tuple[str, str]], files: Iterable[str]) -> DocFreshness:
    """A doc's judgement from what was found: its verdict, reasons and age against `latest` (the
    repository's latest commit time, never the wall clock)."""
    age = int((latest - updated) // 86400) if latest is not None and updated is not None else None
    age_flagged = age is not None and age > stale_after_days and bool(changed)
    when = iso_day(updated)
    reasons = [missing_reason(m) for m in missing] + [changed_reason(c, when) for c in changed]
    if age_flagged:
        reasons.append(f"last updated {when}, {age} days before the latest commit "
                       f"(stale_after_days = {stale_after_days}), and code it names changed since")
    # a name no history shows existed may never have been a reference: not proof of staleness
    found: Verdict = "stale" if any(m.proven for m in missing) else "possibly stale" if missing or changed else "fresh"
    staleness = Staleness(verdict=found, reasons=tuple(reasons), missing=tuple(missing), changed=tuple(changed),
                          last_updated=when, references=tuple(references), signatures=tuple(signatures))
    return DocFreshness(doc.path, doc.slug, staleness, frozenset(files), age, age_flagged)
