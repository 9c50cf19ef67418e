"""Every sentence the prompt shows the agent, in one place (answers to NEED_* requests:
`_wording_answers.py`; the run loop and trust: `_wording_run.py`).

Stages decide; this module words. Change the prompt's format here: the section titles and the
fixed prose (`_render.py` assembles them), the headers of doc and code blocks, the markers that
say what was left out and the request line that fetches it. Functions are pure string builders.
"""

from __future__ import annotations

# --------------------------------------------------------------------------- requests


def need_doc(slug: str, anchor: str = "") -> str:
    """The line that fetches a doc, or one of its sections."""
    return f"NEED_DOC: {slug}#{anchor}" if anchor else f"NEED_DOC: {slug}"


def need_code(path: str, symbol: str = "") -> str:
    """The line that fetches a whole file, or one definition in it."""
    return f"NEED_CODE: {path}::{symbol}" if symbol else f"NEED_CODE: {path}"


def need_code_range(path: str, start: int | str, end: int | str) -> str:
    """The line that fetches lines `start`-`end` of `path`."""
    return f"NEED_CODE: {path}:{start}-{end}"


# --------------------------------------------------------------------------- design docs

DOC_GAP = "[…]"  # between two sections shown that are not adjacent in the doc


def doc_title_line(title: str, slug: str, path: str, *, partial: bool = False) -> str:
    """`### Title  (slug: s, path: p)`: the first line of every doc block."""
    return f"### {title}  (slug: {slug}, path: {path}{'; relevant sections only' if partial else ''})"


def sections_left_out(left: int, total: int, names: list[str], more: int) -> str:
    """The marker under a doc shown in part; the NEED_DOC lines follow it."""
    listed = ", ".join(f'"{n}"' for n in names)
    tail = f" and {more} more" if more > 0 else ""
    return f"[{left} of {total} sections of this doc left out: {listed}{tail}. Request them with:]"


INTRODUCTION = "(introduction)"  # the name of a doc's text before its first heading


# --------------------------------------------------------------------------- code blocks


def excerpt_head(path: str, start: int, end: int, title: str = "") -> str:
    """`path:start-end  title`: the first line of a code excerpt."""
    return f"{path}:{start}-{end}" + (f"  {title}" if title else "")


def lines_omitted(first: int, last: int) -> str:
    """Where a member's body is elided inside a container."""
    return f"    ... (lines {first}-{last} omitted)"


def outline_head(path: str, total_lines: int | None) -> str:
    """The first line of a file outline (signatures only)."""
    size = f" ({total_lines} lines)" if total_lines else ""
    return f"# outline of {path}{size}: signatures only, bodies omitted"


OUTLINE_EMPTY = "# (no definitions found)"


# --------------------------------------------------------------------------- prompt frame

SECTION_SEP = "\n\n"  # between the prompt's sections
BLOCK_SEP = "\n\n"  # between the blocks of one section
DESIGN_TITLE = "DESIGN CONTEXT:"
CODE_TITLE = "CODE CONTEXT:"
OMITTED_TITLE = "OMITTED CONTEXT:"


def role_line(issue_id: str, project: str) -> str:
    """The prompt's first line."""
    return f"You are a senior software engineer working autonomously on issue {issue_id} in the {project} project."


def section(title: str, body: str) -> str:
    """A `TITLE:` line and its body."""
    return f"{title}\n{body}"


# --------------------------------------------------------------------------- issue

ISSUE_LABELS = {  # the issue's fields, by attribute, as labelled in the ISSUE section
    "description": "Description",
    "design": "Design",
    "acceptance_criteria": "Acceptance criteria",
    "notes": "Notes",
    "comments": "Comments",
}


def issue_title(issue_id: str, title: str, issue_type: str, labels: list[str]) -> str:
    """`ISSUE:`, the id and title, and the type and labels when known."""
    text = f"ISSUE:\n{issue_id}: {title}".rstrip()
    meta = [f"Type: {issue_type}"] if issue_type else []
    if labels:
        meta.append("Labels: " + ", ".join(labels))
    return text + ("\n" + " · ".join(meta) if meta else "")


def issue_comments(comments: list[str]) -> str:
    """The issue's comments as one field's text."""
    return "\n".join(f"- {c}" for c in comments)


def issue_field(label: str, text: str = "") -> str:
    """One labelled field of the ISSUE section (the label line alone when `text` is empty)."""
    return f"\n\n{label}:\n{text}"


def issue_truncated(missing: int, source: str, issue_id: str) -> str:
    """Where an issue field was cut: how much is missing and where the full issue is."""
    where = source or f"issue {issue_id}"
    return f"[issue text truncated: {missing} more tokens; the full issue is {where}]"


# --------------------------------------------------------------------------- manifest, commands

# The word that opens a manifest: a line or comment of an issue that starts with it declares the
# files (`issue/_manifest.py` reads it, the issue text and the ranking leave it out), and the
# prompt's MANIFEST section is headed by it.
MANIFEST_MARK = "MANIFEST:"


def is_manifest_text(text: str) -> bool:
    """True for a line or comment that is a manifest (it starts with `MANIFEST_MARK`)."""
    return text.lstrip().startswith(MANIFEST_MARK)


NO_MANIFEST = (
    f"{MANIFEST_MARK}\nNo manifest for this issue: edit only the files the issue needs; "
    "files excluded from context (secrets, generated files) stay untouched."
)
MANIFEST_ROLES = ("Editable", "Read-only", "Forbidden (never read or modify)")  # primary, read, forbidden


def manifest_head(source: str) -> str:
    """The MANIFEST section's first line."""
    return MANIFEST_MARK + (f" (from {source})" if source else "")


def manifest_row(role: str, entries: list[str]) -> str:
    """One role's files in the MANIFEST section."""
    return f"{role}: " + (", ".join(entries) if entries else "none")


NO_BUILD = "(none configured)"
NO_TEST = "(none configured; find the project's test runner)"


def detected_command(cmd: str, source: str) -> str:
    """A command found in the project's files rather than configured."""
    return f"{cmd} (detected from {source})"


def commands_section(build: str, test: str) -> str:
    """The COMMANDS section."""
    return f"COMMANDS:\n- build: {build}\n- test: {test}"


# --------------------------------------------------------------------------- workflow, constraints, requests

TESTS_FALLBACK = "the tests"  # the test command's name when none is known


def workflow_section(test: str, issue_id: str) -> str:
    """The WORKFLOW section: the steps and the two closing signals."""
    return (
        "WORKFLOW:\n"
        "1. Read the issue and the context above; request anything missing (see CONTEXT REQUESTS).\n"
        "2. Implement the change, following the existing code style; add tests for new behaviour.\n"
        f"3. Build and run `{test}`; fix every failure before going on.\n"
        "4. Review your diff for debugging leftovers and unrelated edits.\n"
        f"5. Commit with a message like `<type>: <summary> ({issue_id})`.\n"
        "When finished, output: ISSUE_COMPLETE\n"
        "If blocked and unable to proceed, output: BLOCKED: <reason>"
    )


CONSTRAINTS_TITLE = "CONSTRAINTS:"
ONLY_EDITABLE = "- Modify only the editable files in MANIFEST."
ONLY_NEEDED = "- Keep changes to the files this issue needs."
NOTHING_OUTSIDE = "- Never touch files outside the repository or unrelated to the issue."
CONSTRAINTS_ALWAYS = (
    "- Do not open or print secrets (.env files, keys, credentials); they are kept out of context on purpose.",
    "- Where a design doc and the current code disagree, trust the code.",
    "- Docs marked as possibly outdated are stale: check them against the code before relying on them.",
    "- Do not add dependencies without a clear reason.",
)


def never_forbidden(paths: list[str]) -> str:
    """The constraint naming the manifest's forbidden files."""
    return "- Never read, modify or delete a forbidden file: " + ", ".join(paths) + "."


REQUESTS_SECTION = (
    "CONTEXT REQUESTS:\n"
    "If you need code or a doc that is not shown, write a request on a line of its own; "
    "the answer comes back as a CONTEXT YOU REQUESTED block. The forms are "
    "`NEED_CODE: path`, `NEED_CODE: path:start-end` (1-based, inclusive) or `NEED_CODE: path::Class.method`, "
    "with paths relative to the repository root, and `NEED_DOC: slug` (or a doc path, or `slug#heading`). "
    "Requests for excluded or forbidden files are refused."
)


# --------------------------------------------------------------------------- context sections

NO_DOCS = "none selected: no doc passed the relevance bar"
NO_CODE = "none selected: no code passed the relevance bar"
NO_DOCS_IN_REPO = "none selected: the repository has no design docs"
NO_DOCS_FIT = "none selected: the relevant docs did not fit the budget (see OMITTED CONTEXT)"
NO_DOCS_NEEDED = "none selected: this issue looks local enough to need no design doc (K=0)"
NO_CODE_IN_REPO = "none selected: the repository has no source files"
NO_CODE_FIT = "none selected: the relevant code did not fit the budget (see OMITTED CONTEXT)"
OMITTED_INTRO = "Relevant but left out to stay within the token budget; fetch any of it with the line under it."
NOTHING_OMITTED = "none: nothing relevant was left out"
UNLISTED = "... and {n} more item{s} left out and not listed here (weaker matches, or over the list's cap or budget share)."
UNLISTED_RESERVE = UNLISTED.format(n=99999, s="s")  # its cost is part of the frame, so it always fits
FLOOR_NOTE = ("[Code stops where the evidence gets weak: {n} weaker match{es}, ranked below the code and pointers above, "
              "{verb} neither shown nor listed under OMITTED CONTEXT; nothing more relevant was left out silently.]")
WEAK_NOT_POINTED = "weak evidence: not pointed to (over the pointer cap)"


def unlisted(n: int) -> str:
    """The OMITTED CONTEXT line counting relevant items not listed."""
    return UNLISTED.format(n=n, s="" if n == 1 else "s")


def floor_note(below: int) -> str:
    """The line closing CODE CONTEXT when `below` ranked code items fell under the relevance floor."""
    if below <= 0:
        return ""
    return FLOOR_NOTE.format(n=below, es="" if below == 1 else "es", verb="is" if below == 1 else "are")


def clash_block(clashes: list[str]) -> str:
    """The block opening DESIGN CONTEXT when the docs shown disagree."""
    return "Conflicts between these docs (prefer the current code):\n" + "\n".join(f"- {c}" for c in clashes)


# --------------------------------------------------------------------------- omitted items

REQUIRED_REASON = "manifest file"  # the start of a manifest item's reason for being left out
RELEVANT_REASON = "relevant"
NOT_LISTED_CAP = " (not listed: over the omitted-items cap or its share of the budget)"
NOT_LISTED_LOW = " (not listed: low score)"


def item_label(path: str, ref: str) -> str:
    """`path (ref)`, or the path alone."""
    return f"{path} ({ref})" if ref else path


def omitted_entry(kind: str, path: str, ref: str, reason: str, request: str) -> str:
    """The OMITTED CONTEXT entry for one item (two lines: what and why, then the request)."""
    return f"- {kind} {item_label(path, ref if ref != path else '')} — {reason}\n  {request}"


def beyond_k(k: int) -> str:
    """Why a relevant doc past the doc limit is omitted."""
    return f"relevant, beyond K={k} for this issue"


def already_shown(label: str) -> str:
    """Why an item already contained in a chosen one is skipped."""
    return f"already shown in {label}"


def would_repeat(label: str) -> str:
    """Why an item overlapping a chosen one is skipped."""
    return f"would repeat {label}"


def needs_tokens(what: str, smallest: int, room: int, pool: str) -> str:
    """Why an item too big for the room left is omitted."""
    return f"{what}, but needs {smallest} tokens ({room} left for {pool})"


# --------------------------------------------------------------------------- code forms

MODULE_LEVEL = "(module level)"  # the title of a chunk outside any definition
FIRST_LINES = " — first lines only"  # appended to the title of a definition cut to its head
OUTLINE_BODIES = " — outline, bodies omitted"  # appended to the title of a class outline


def chunk_title(kind: str, symbol: str, parent: str = "") -> str:
    """`kind symbol`, with the enclosing definition when there is one."""
    return f"{kind} {symbol}" + (f"  (in {parent})" if parent else "")


def head_cut(path: str, first: int, last: int) -> str:
    """The line ending a definition cut to its head."""
    return f"... (lines {first}-{last} omitted; {need_code_range(path, first, last)})"


def whole_file_head(path: str, lines: int) -> str:
    """The first line of a whole file."""
    return f"{path}  (whole file, {lines} lines)"


def file_outline_head(path: str) -> str:
    """The first line of a manifest file's outline."""
    return f"{path}  (outline — bodies omitted; ask with {need_code_range(path, 'start', 'end')})"


def manifest_range_title(role: str) -> str:
    """The title of a line range the manifest names."""
    return f"manifest {role} range"
