"""The forms a doc takes in a prompt: the whole doc, its relevant sections, its best section;
each headed by the doc's title line and, for a stale doc, its note."""

from __future__ import annotations

from collections.abc import Sequence

from noface_ctx._wording import DOC_GAP, INTRODUCTION, doc_title_line, need_doc, sections_left_out
from noface_ctx.datatypes import Doc, Form, Staleness
from noface_ctx.docs.cache import count_tokens
from noface_ctx.docs.markup import strip_frontmatter

MAX_FORM_SECTIONS = 3  # sections in the "relevant sections" form
MAX_LISTED_OMISSIONS = 6  # left-out sections listed by name, with their NEED_DOC lines


def doc_header(doc: Doc, stale: Staleness | None = None, *, partial: bool = False) -> str:
    """`### Title  (slug: s, path: p)` and, for a stale doc, its note."""
    head = doc_title_line(doc.title, doc.slug, doc.path, partial=partial)
    if stale is not None and stale.stale:
        head += "\n" + stale.note()
    return head


def doc_forms(doc: Doc, best: Sequence[int], stale: Staleness | None = None) -> tuple[Form, ...]:
    """The whole doc, then its relevant sections, then its single best section (when smaller).

    `best` are section indexes, most relevant first. Each partial form ends with a marker naming
    the left-out sections and the `NEED_DOC: slug#anchor` lines that fetch them.
    """
    body = strip_frontmatter(doc.text).strip("\n")
    full = f"{doc_header(doc, stale)}\n\n{body}\n"
    whole = ((1, max(1, len(doc.text.splitlines()))),)
    forms = [Form("full", full, count_tokens(full), whole)]
    secs = doc.sections
    if len(secs) < 2 or not best:
        return tuple(forms)
    picks = list(best[:MAX_FORM_SECTIONS])
    intro = [0] if secs[0].level <= 1 and count_tokens(secs[0].text) <= 150 else []
    previous: list[int] = []
    for label, keep in (("sections", sorted(set(picks + intro))), ("section", [picks[0]])):
        if len(keep) >= len(secs) or keep == previous:
            continue
        text = _sections_text(doc, keep, stale)
        tokens = count_tokens(text)
        if tokens < forms[-1].tokens:
            forms.append(Form(label, text, tokens, tuple((secs[i].start_line, secs[i].end_line) for i in sorted(keep))))
            previous = keep
    return tuple(forms)


def _sections_text(doc: Doc, keep: Sequence[int], stale: Staleness | None) -> str:
    """Chosen sections in document order, `[…]` between gaps, then the omission marker."""
    secs = doc.sections
    parts = [doc_header(doc, stale, partial=True), ""]
    last = -1
    for i in sorted(keep):
        if i != last + 1:
            parts.append(f"{DOC_GAP}\n")
        parts.append(secs[i].text.strip("\n") + "\n")
        last = i
    left = [s for n, s in enumerate(secs) if n not in set(keep)]
    names = [s.heading or INTRODUCTION for s in left[:MAX_LISTED_OMISSIONS]]
    parts.append(sections_left_out(len(left), len(secs), names, len(left) - MAX_LISTED_OMISSIONS))
    requests = [need_doc(doc.slug, s.anchor) for s in left[:MAX_LISTED_OMISSIONS] if s.anchor]
    if len(requests) < len(left):
        requests.append(need_doc(doc.slug))
    parts.extend(dict.fromkeys(requests))
    return "\n".join(parts) + "\n"
