"""Turning decisions into prompt text, in noface's style. Makes no decisions of its own.

The prompt is a role line followed by ALL-CAPS `LABEL:` sections: ISSUE, MANIFEST, COMMANDS,
DESIGN CONTEXT, CODE CONTEXT, OMITTED CONTEXT, WORKFLOW, CONSTRAINTS, CONTEXT REQUESTS.
Everything but the three context sections is "fixed": it is rendered first so the packer
knows how much room is left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noface_ctx import _wording as w
from noface_ctx._budget import omitted_line
from noface_ctx._tokens import count_tokens, truncate_to_tokens
from noface_ctx._wording import (
    BLOCK_SEP,
    FLOOR_NOTE,
    NO_CODE,
    NO_DOCS,
    NOTHING_OMITTED,
    OMITTED_INTRO,
    SECTION_SEP,
    UNLISTED,
    UNLISTED_RESERVE,
    floor_note,
)
from noface_ctx.config import Config
from noface_ctx.datatypes import Issue, Manifest, ManifestEntry, Omitted, Selection

__all__ = [  # the words are re-exported for callers that import them from here
    "BLOCK_SEP",
    "FLOOR_NOTE",
    "NOTHING_OMITTED",
    "NO_CODE",
    "NO_DOCS",
    "OMITTED_INTRO",
    "SECTION_SEP",
    "UNLISTED",
    "UNLISTED_RESERVE",
    "Fixed",
    "fixed_sections",
    "floor_note",
    "frame_tokens",
    "render_prompt",
]

ISSUE_SHARE = 0.4  # the issue text may take at most this share of the budget
_MIN_PART = 24  # below this many tokens a cut issue field is dropped rather than cut


@dataclass(frozen=True, slots=True)
class Fixed:
    """The sections around the context: `head` comes before DESIGN CONTEXT, `tail` after OMITTED."""

    head: str  # role line, ISSUE, MANIFEST, COMMANDS
    tail: str  # WORKFLOW, CONSTRAINTS, CONTEXT REQUESTS
    issue_tokens: int  # the ISSUE section as rendered
    issue_cut: int  # tokens of issue text left out (0 = the whole issue is shown)


# --------------------------------------------------------------------------- fixed sections


def _mask(text: str) -> str:
    from noface_ctx.files.secrets import redact_secrets

    return redact_secrets(text)[0]


def _masked_fields(issue: Issue) -> Issue:
    """The issue as the prompt shows it: its id, type and labels masked for credentials like its
    text (`issue.load` masks the text; the id stays as read for lookups and logs)."""
    from dataclasses import replace

    shown = (_mask(issue.id), _mask(issue.issue_type), tuple(_mask(label) for label in issue.labels))
    if shown == (issue.id, issue.issue_type, issue.labels):
        return issue
    return replace(issue, id=shown[0], issue_type=shown[1], labels=shown[2])


def _masked_manifest(manifest: Manifest | None) -> Manifest | None:
    """The manifest as the prompt lists it, each entry masked for credentials; the gate has
    already applied the real entries."""
    if manifest is None:
        return None
    from dataclasses import replace

    def entries(group: tuple[ManifestEntry, ...]) -> tuple[ManifestEntry, ...]:
        return tuple(replace(e, path=_mask(e.path)) if _mask(e.path) != e.path else e for e in group)

    return replace(manifest, primary=entries(manifest.primary), read=entries(manifest.read),
                   forbidden=entries(manifest.forbidden))


def fixed_sections(
    config: Config,
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
    manifest = _masked_manifest(manifest if manifest is not None else issue.manifest)
    issue = _masked_fields(issue)
    limit = int(budget * ISSUE_SHARE) if issue_limit is None else issue_limit
    issue_text, cut = _issue_section(issue, limit)
    project = getattr(config, "name", "") or "this"
    role = w.role_line(issue.id, project)
    head = SECTION_SEP.join([role, issue_text, _manifest_section(manifest), _commands_section(config)])
    tail = SECTION_SEP.join([_workflow_section(config, issue), _constraints_section(manifest), _requests_section()])
    return Fixed(head=head, tail=tail, issue_tokens=count_tokens(issue_text), issue_cut=cut)


def _issue_parts(issue: Issue) -> list[tuple[str, str]]:
    comments = [c.strip() for c in issue.comments if c.strip() and not w.is_manifest_text(c)]
    label = w.ISSUE_LABELS
    parts = [
        (label["description"], issue.description.strip()),
        (label["design"], issue.design.strip()),
        (label["acceptance_criteria"], issue.acceptance_criteria.strip()),
        (label["notes"], issue.notes.strip()),
        (label["comments"], w.issue_comments(comments)),
    ]
    return [(label, text) for label, text in parts if text]


# Which fields keep their text first when the issue must be cut.
_KEEP_ORDER = tuple(w.ISSUE_LABELS[k] for k in ("acceptance_criteria", "description", "design", "notes", "comments"))


def _issue_section(issue: Issue, limit: int) -> tuple[str, int]:
    """The ISSUE section within `limit` tokens (title and field labels always kept)."""
    title = w.issue_title(issue.id, issue.title, issue.issue_type, list(issue.labels))
    parts = _issue_parts(issue)
    whole = _join_issue(title, [(label, text) for label, text in parts])
    if count_tokens(whole) <= limit:
        return whole, 0
    room = limit - count_tokens(title) - sum(count_tokens(w.issue_field(label)) for label, _ in parts)
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
    return w.issue_truncated(missing, issue.source, issue.id)


def _join_issue(title: str, parts: Sequence[tuple[str, str]]) -> str:
    return title + "".join(w.issue_field(label, text) for label, text in parts)


def _manifest_section(manifest: Manifest | None) -> str:
    if manifest is None or manifest.empty:
        return w.NO_MANIFEST
    lines = [w.manifest_head(manifest.source)]
    for title, entries in zip(w.MANIFEST_ROLES, (manifest.primary, manifest.read, manifest.forbidden), strict=True):
        lines.append(w.manifest_row(title, [str(e) for e in entries]))
    return "\n".join(lines)


def _commands_section(config: Config) -> str:
    from noface_ctx._commands import project_commands

    cmds = project_commands(config)

    def shown(cmd: str, source: str, none: str) -> str:
        if not cmd:
            return none
        return cmd if source == ".noface.toml [project]" else w.detected_command(cmd, source)

    build = shown(cmds.build, cmds.build_source, w.NO_BUILD)
    test = shown(cmds.test, cmds.test_source, w.NO_TEST)
    return w.commands_section(build, test)


def _workflow_section(config: Config, issue: Issue) -> str:
    from noface_ctx._commands import project_commands

    test = project_commands(config).test or w.TESTS_FALLBACK
    return w.workflow_section(test, issue.id)


def _constraints_section(manifest: Manifest | None) -> str:
    lines = [w.CONSTRAINTS_TITLE]
    if manifest is not None and manifest.primary:
        lines.append(w.ONLY_EDITABLE)
    else:
        lines.append(w.ONLY_NEEDED)
    if manifest is not None and manifest.forbidden:
        lines.append(w.never_forbidden([str(e) for e in manifest.forbidden]))
    else:
        lines.append(w.NOTHING_OUTSIDE)
    lines += w.CONSTRAINTS_ALWAYS
    return "\n".join(lines)


def _requests_section() -> str:
    return w.REQUESTS_SECTION


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
        w.section(w.DESIGN_TITLE, design_body),
        w.section(w.CODE_TITLE, code_body),
        _omitted_section(omitted, selection.unlisted if selection else 0),
        fixed.tail,
    ]
    return SECTION_SEP.join(sections) + "\n"


def _clash_block(clashes: Sequence[str]) -> str:
    return w.clash_block(list(clashes))


def _omitted_section(omitted: Sequence[Omitted], unlisted: int = 0) -> str:
    """The listed omissions, and how many relevant ones were not even listed (never silent)."""
    if not omitted and not unlisted:
        return w.section(w.OMITTED_TITLE, NOTHING_OMITTED)
    lines = [omitted_line(o) for o in omitted]
    if unlisted:
        lines.append(w.unlisted(unlisted))
    return w.section(w.OMITTED_TITLE, OMITTED_INTRO + "\n" + "\n".join(lines))


def frame_tokens(fixed: Fixed, *, no_docs: str = NO_DOCS, no_code: str = NO_CODE, code_note: str = "") -> int:
    """Tokens the packer can never use: the prompt with nothing selected, plus the OMITTED intro."""
    empty = render_prompt(fixed, None, no_docs=no_docs, no_code=no_code, code_note=code_note)
    return count_tokens(empty) + count_tokens(OMITTED_INTRO) + 1 + count_tokens(UNLISTED_RESERVE) + 1


# --------------------------------------------------------------------------- explain table
