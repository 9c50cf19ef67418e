"""Wording of the code context's newer blocks: class outlines that fold members, one-line
pointers to code not shown, and the tests shown beside the code (see `wording` for the rest)."""

from __future__ import annotations

from collections.abc import Sequence


def test_reason(seeds: list[str], named_after: str, issue_words: Sequence[str] = ()) -> str:
    """Why a test is offered beside the code (the explain table and the JSON carry it)."""
    parts = []
    if seeds:
        parts.append("uses " + ", ".join(f"`{s}`" for s in seeds[:3]) + (" ..." if len(seeds) > 3 else ""))
    if issue_words:
        parts.append("named with the issue's words " + ", ".join(issue_words))
    if named_after:
        parts.append(f"its file goes with {named_after}")
    return "test beside the code: " + "; ".join(parts or ["matches the issue"])


def test_pointer(path: str, seeds: list[str], named_after: str, shown: list[str],
                 others: list[tuple[str, int, int]], request: str) -> str:
    """The line pointing at a test file: what it tests, which tests are shown, the other relevant
    ones with their lines, and the line fetching one."""
    what = ", ".join(f"`{s}`" for s in seeds[:4]) if seeds else "this code"
    head = f"{path} — tests of {what}" + (f" (goes with {named_after})" if named_after else "")
    parts = [head]
    if shown:
        parts.append("shown below: " + ", ".join(shown))
    if others:
        parts.append(("other relevant tests: " if shown else "relevant tests: ")
                     + ", ".join(f"{name} ({start}-{end})" for name, start, end in others))
    return "; ".join(parts) + f"\n  {request}"


def runner_up_test_pointer(path: str, seeds: list[str], named_after: str, start: int, end: int, request: str) -> str:
    """The line pointing at a weaker test file: its one relevant test (the one `request` fetches), with its lines."""
    what = ", ".join(f"`{s}`" for s in seeds[:2]) + (" ..." if len(seeds) > 2 else "") if seeds else "this code"
    return f"{path}:{start}-{end} — a test of {what}" + (f" (goes with {named_after})" if named_after else "") + f"; {request}"


def code_pointer(path: str, start: int, end: int, signature: str, request: str) -> str:
    """One line pointing at a ranked definition not shown (a deeper page of candidates)."""
    return f"{path}:{start}-{end}  {signature} — not shown; {request}"


def outline_docstring(paragraph: str) -> str:
    """A class outline's line holding the first paragraph of the class docstring."""
    return f'"""{paragraph}"""'


def folded_members(n: int, names: list[str], request: str) -> str:
    """The line under a class outline folding the `n` members it does not list."""
    more = ", ..." if n > len(names) else ""
    return (f"{n} more member{'' if n == 1 else 's'} not listed ({', '.join(names)}{more}); fetch one by name, "
            f"e.g. {request}")


BRIEF_TITLE = " — signature only"  # appended to the title of a definition shown as its signature and docstring


def body_not_shown(first: int, last: int, request: str) -> str:
    """The line ending a definition shown as its signature and docstring only."""
    return f"... (body, lines {first}-{last}, not shown: the issue matches this file weakly; {request})"
