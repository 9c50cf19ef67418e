"""Every sentence the prompt and the answers show the agent, in one place.

Stages decide; this module words. Change the prompt's format here: the section titles and the
fixed prose (`render.py` assembles them), the headers of doc and code blocks, the markers that
say what was left out and the request line that fetches it. Functions are pure string builders.
"""

from __future__ import annotations

# --------------------------------------------------------------------------- requests


def need_doc(slug: str, anchor: str = "") -> str:
    """The line that fetches a doc, or one of its sections."""
    return f"NEED_DOC: {slug}#{anchor}" if anchor else f"NEED_DOC: {slug}"


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
