"""Turning decisions into prompt text, in noface's style. Makes no decisions of its own.

The prompt is a role line followed by ALL-CAPS `LABEL:` sections: ISSUE, MANIFEST, COMMANDS,
DESIGN CONTEXT, CODE CONTEXT, OMITTED CONTEXT, WORKFLOW, CONSTRAINTS, CONTEXT REQUESTS.
Everything but the three context sections is "fixed": it is rendered first so the packer
knows how much room is left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from noface_ctx.budget import omitted_line
from noface_ctx.datatypes import Issue, Manifest, Omitted, Prompt, Selection
from noface_ctx.tokens import count_tokens, truncate_to_tokens

SECTION_SEP = "\n\n"
BLOCK_SEP = "\n\n"
ISSUE_SHARE = 0.4  # the issue text may take at most this share of the budget
_MIN_PART = 24  # below this many tokens a cut issue field is dropped rather than cut

NO_DOCS = "none selected: no doc passed the relevance bar"
NO_CODE = "none selected: no code passed the relevance bar"
OMITTED_INTRO = "Relevant but left out to stay within the token budget; fetch any of it with the line under it."
NOTHING_OMITTED = "none: nothing relevant was left out"
UNLISTED = "... and {n} more relevant item{s} not listed here (over the list's cap or budget share)."
UNLISTED_RESERVE = UNLISTED.format(n=99999, s="s")  # its cost is part of the frame, so it always fits
FLOOR_NOTE = ("[Code stops at the relevance floor: {n} weaker match{es} ranked below it {verb} neither shown nor "
              "listed under OMITTED CONTEXT; nothing more relevant was left out silently.]")


def floor_note(below: int) -> str:
    """The line closing CODE CONTEXT when `below` ranked code items fell under the relevance floor."""
    if below <= 0:
        return ""
    return FLOOR_NOTE.format(n=below, es="" if below == 1 else "es", verb="is" if below == 1 else "are")


@dataclass(frozen=True, slots=True)
class Fixed:
    """The sections around the context: `head` comes before DESIGN CONTEXT, `tail` after OMITTED."""

    head: str  # role line, ISSUE, MANIFEST, COMMANDS
    tail: str  # WORKFLOW, CONSTRAINTS, CONTEXT REQUESTS
    issue_tokens: int  # the ISSUE section as rendered
    issue_cut: int  # tokens of issue text left out (0 = the whole issue is shown)


# --------------------------------------------------------------------------- fixed sections


def fixed_sections(
    config: Any,
    issue: Issue,
    *,
    budget: int,
    manifest: Manifest | None = None,
    issue_limit: int | None = None,
) -> Fixed:
    """Render everything except DESIGN / CODE / OMITTED CONTEXT.

    The issue text is cut at line boundaries, with a marker saying how much is missing and
    where the rest is, when it needs more than `issue_limit` tokens (default 40 % of `budget`).
    """
    manifest = manifest if manifest is not None else issue.manifest
    limit = int(budget * ISSUE_SHARE) if issue_limit is None else issue_limit
    issue_text, cut = _issue_section(issue, limit)
    project = getattr(config, "name", "") or "this"
    role = f"You are a senior software engineer working autonomously on issue {issue.id} in the {project} project."
    head = SECTION_SEP.join([role, issue_text, _manifest_section(manifest), _commands_section(config)])
    tail = SECTION_SEP.join([_workflow_section(config, issue), _constraints_section(manifest), _requests_section()])
    return Fixed(head=head, tail=tail, issue_tokens=count_tokens(issue_text), issue_cut=cut)


def _issue_parts(issue: Issue) -> list[tuple[str, str]]:
    comments = [c.strip() for c in issue.comments if c.strip() and not c.lstrip().startswith("MANIFEST:")]
    parts = [
        ("Description", issue.description.strip()),
        ("Design", issue.design.strip()),
        ("Acceptance criteria", issue.acceptance_criteria.strip()),
        ("Notes", issue.notes.strip()),
        ("Comments", "\n".join(f"- {c}" for c in comments)),
    ]
    return [(label, text) for label, text in parts if text]


# Which fields keep their text first when the issue must be cut.
_KEEP_ORDER = ("Acceptance criteria", "Description", "Design", "Notes", "Comments")


def _issue_section(issue: Issue, limit: int) -> tuple[str, int]:
    """The ISSUE section within `limit` tokens (title and field labels always kept)."""
    title = f"ISSUE:\n{issue.id}: {issue.title}".rstrip()
    meta = [f"Type: {issue.issue_type}"] if issue.issue_type else []
    if issue.labels:
        meta.append("Labels: " + ", ".join(issue.labels))
    if meta:
        title += "\n" + " · ".join(meta)
    parts = _issue_parts(issue)
    whole = _join_issue(title, [(label, text) for label, text in parts])
    if count_tokens(whole) <= limit:
        return whole, 0
    room = limit - count_tokens(title) - sum(count_tokens(f"\n\n{label}:\n") for label, _ in parts)
    kept: dict[str, str] = {}
    cut_total = 0
    for label in _KEEP_ORDER:
        text = dict(parts).get(label)
        if text is None:
            continue
        size = count_tokens(text)
        if size <= room:
            kept[label] = text
            room -= size + 1
            continue
        marker_room = count_tokens(_marker(size, issue)) + 2
        prefix = _cut(text, room - marker_room) if room - marker_room >= _MIN_PART else ""
        missing = size - count_tokens(prefix)
        cut_total += missing
        kept[label] = (prefix.rstrip("\n") + "\n" if prefix.strip() else "") + _marker(missing, issue)
        room -= count_tokens(kept[label]) + 1
    return _join_issue(title, [(label, kept[label]) for label, _ in parts]), cut_total


def _cut(text: str, limit: int) -> str:
    """The longest prefix within `limit` tokens ending at a line break, else at a space."""
    prefix = truncate_to_tokens(text, limit)
    if prefix.strip() or limit <= 0:
        return prefix
    lo, hi = 0, len(text)  # one huge line: binary-search the longest prefix that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    space = text.rfind(" ", 0, lo)
    return text[:space] if space > 0 else ""


def _marker(missing: int, issue: Issue) -> str:
    where = issue.source or f"issue {issue.id}"
    return f"[issue text truncated: {missing} more tokens; the full issue is {where}]"


def _join_issue(title: str, parts: Sequence[tuple[str, str]]) -> str:
    return title + "".join(f"\n\n{label}:\n{text}" for label, text in parts)


def _manifest_section(manifest: Manifest | None) -> str:
    if manifest is None or manifest.empty:
        return (
            "MANIFEST:\nNo manifest for this issue: edit only the files the issue needs; "
            "files excluded from context (secrets, generated files) stay untouched."
        )
    lines = ["MANIFEST:" + (f" (from {manifest.source})" if manifest.source else "")]
    for title, entries in (
        ("Editable", manifest.primary),
        ("Read-only", manifest.read),
        ("Forbidden (never read or modify)", manifest.forbidden),
    ):
        lines.append(f"{title}: " + (", ".join(str(e) for e in entries) if entries else "none"))
    return "\n".join(lines)


def _commands_section(config: Any) -> str:
    from noface_ctx.commands import project_commands

    cmds = project_commands(config)

    def shown(cmd: str, source: str, none: str) -> str:
        if not cmd:
            return none
        return cmd if source == ".noface.toml [project]" else f"{cmd} (detected from {source})"

    build = shown(cmds.build, cmds.build_source, "(none configured)")
    test = shown(cmds.test, cmds.test_source, "(none configured; find the project's test runner)")
    return f"COMMANDS:\n- build: {build}\n- test: {test}"


def _workflow_section(config: Any, issue: Issue) -> str:
    from noface_ctx.commands import project_commands

    test = project_commands(config).test or "the tests"
    return (
        "WORKFLOW:\n"
        "1. Read the issue and the context above; request anything missing (see CONTEXT REQUESTS).\n"
        "2. Implement the change, following the existing code style; add tests for new behaviour.\n"
        f"3. Build and run `{test}`; fix every failure before going on.\n"
        "4. Review your diff for debugging leftovers and unrelated edits.\n"
        f"5. Commit with a message like `<type>: <summary> ({issue.id})`.\n"
        "When finished, output: ISSUE_COMPLETE\n"
        "If blocked and unable to proceed, output: BLOCKED: <reason>"
    )


def _constraints_section(manifest: Manifest | None) -> str:
    lines = ["CONSTRAINTS:"]
    if manifest is not None and manifest.primary:
        lines.append("- Modify only the editable files in MANIFEST.")
    else:
        lines.append("- Keep changes to the files this issue needs.")
    if manifest is not None and manifest.forbidden:
        lines.append("- Never read, modify or delete a forbidden file: " + ", ".join(str(e) for e in manifest.forbidden) + ".")
    else:
        lines.append("- Never touch files outside the repository or unrelated to the issue.")
    lines += [
        "- Do not open or print secrets (.env files, keys, credentials); they are kept out of context on purpose.",
        "- Where a design doc and the current code disagree, trust the code.",
        "- Docs marked as possibly outdated are stale: check them against the code before relying on them.",
        "- Do not add dependencies without a clear reason.",
    ]
    return "\n".join(lines)


def _requests_section() -> str:
    return (
        "CONTEXT REQUESTS:\n"
        "If you need code or a doc that is not shown, write a request on a line of its own; "
        "the answer comes back as a CONTEXT YOU REQUESTED block. The forms are "
        "`NEED_CODE: path`, `NEED_CODE: path:start-end` (1-based, inclusive) or `NEED_CODE: path::Class.method`, "
        "with paths relative to the repository root, and `NEED_DOC: slug` (or a doc path, or `slug#heading`). "
        "Requests for excluded or forbidden files are refused."
    )


# --------------------------------------------------------------------------- whole prompt


def render_prompt(
    fixed: Fixed,
    selection: Selection | None,
    *,
    clashes: Sequence[str] = (),
    no_docs: str = NO_DOCS,
    no_code: str = NO_CODE,
    code_note: str = "",
) -> str:
    """Join the fixed sections with the chosen forms' texts; `selection=None` renders the empty frame.
    `code_note` (see `floor_note`) closes CODE CONTEXT when given."""
    docs = [c.form.text.strip("\n") for c in selection.docs] if selection else []
    code = [c.form.text.strip("\n") for c in selection.code] if selection else []
    omitted = selection.omitted if selection else ()
    design_body = BLOCK_SEP.join(([_clash_block(clashes)] if clashes and docs else []) + docs) or no_docs
    code_body = BLOCK_SEP.join(code) or no_code
    if code_note:
        code_body += BLOCK_SEP + code_note
    sections = [
        fixed.head,
        f"DESIGN CONTEXT:\n{design_body}",
        f"CODE CONTEXT:\n{code_body}",
        _omitted_section(omitted, selection.unlisted if selection else 0),
        fixed.tail,
    ]
    return SECTION_SEP.join(sections) + "\n"


def _clash_block(clashes: Sequence[str]) -> str:
    return "Conflicts between these docs (prefer the current code):\n" + "\n".join(f"- {c}" for c in clashes)


def _omitted_section(omitted: Sequence[Omitted], unlisted: int = 0) -> str:
    """The listed omissions, and how many relevant ones were not even listed (never silent)."""
    if not omitted and not unlisted:
        return f"OMITTED CONTEXT:\n{NOTHING_OMITTED}"
    lines = [omitted_line(o) for o in omitted]
    if unlisted:
        lines.append(UNLISTED.format(n=unlisted, s="" if unlisted == 1 else "s"))
    return f"OMITTED CONTEXT:\n{OMITTED_INTRO}\n" + "\n".join(lines)


def frame_tokens(fixed: Fixed, *, no_docs: str = NO_DOCS, no_code: str = NO_CODE, code_note: str = "") -> int:
    """Tokens the packer can never use: the prompt with nothing selected, plus the OMITTED intro."""
    empty = render_prompt(fixed, None, no_docs=no_docs, no_code=no_code, code_note=code_note)
    return count_tokens(empty) + count_tokens(OMITTED_INTRO) + 1 + count_tokens(UNLISTED_RESERVE) + 1


# --------------------------------------------------------------------------- explain table


def explain_rows(prompt: Prompt) -> dict[str, list[dict[str, Any]]]:
    """Rows for the CLI's explain table: every ranked doc, every included or omitted code item."""
    docs = [
        {
            "item": f"{row.get('slug', '')} ({row.get('path', '')})",
            "score": float(row.get("score") or 0.0),
            "tokens": int(row.get("tokens") or 0),
            "stale": bool(row.get("stale")),
            "included": bool(row.get("included")),
            "why": str(row.get("reason", "")),
        }
        for row in prompt.docs
    ]
    code = [_code_row(row) for row in prompt.code]
    code += [
        {"item": f"{o.path} {o.ref}".strip(), "score": o.score, "tokens": 0, "stale": False,
         "included": False, "why": f"{o.reason} → {o.request}"}
        for o in prompt.omitted if o.kind == "code"
    ]
    return {"docs": docs, "code": code}


def _code_row(row: Mapping[str, Any]) -> dict[str, Any]:
    span = f"{row.get('path', '')}:{row.get('start_line', 0)}-{row.get('end_line', 0)}"
    return {
        "item": f"{span} {row.get('symbol') or ''}".strip(),
        "score": float(row.get("score") or 0.0),
        "tokens": int(row.get("tokens") or 0),
        "stale": False,
        "included": True,
        "why": f"{row.get('form', '')}: {row.get('reason', '')}".strip(": "),
    }
