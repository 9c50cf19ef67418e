"""Rendering answers to context requests, packing them under a token budget, and logging them.

A `CodePiece` or `DocPiece` knows how to shrink itself (whole → outline or leading sections →
a cut with the exact request for the rest); `assemble` shares the budget between pieces and
lists every refusal. Nothing is ever cut without a marker saying how to get the rest.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from noface_ctx import _write_gate as write_gate
from noface_ctx._tokens import count_tokens, truncate_to_tokens
from noface_ctx._wording import need_code_range, need_doc
from noface_ctx._wording_answers import (
    CAPPED,
    NOT_SERVED,
    WHOLE_FILE,
    answer_code_head,
    answer_doc_head,
    answer_outline_head,
    ask_alone,
    ask_for_part,
    bodies_omitted,
    cut_marker,
    cut_reason,
    line_too_long,
    more_sections,
    not_listed,
    not_served_line,
    outline_cut,
    outline_reason,
    sections_left,
    too_big_for_answer,
)
from noface_ctx.config import Config
from noface_ctx.datatypes import CodeChunk, Doc, Section
from noface_ctx.signals.values import AnswerItem, Outcome, Request

_SEP = "\n\n"


@dataclass(frozen=True, slots=True)
class Fit:
    """One rendering of a piece that fits its room."""

    text: str
    tokens: int
    outcome: Outcome
    reason: str = ""
    next: str = ""


@dataclass(slots=True)
class Draft:
    """A request after lookup: either something to serve (`piece`) or a final outcome."""

    request: Request
    outcome: Outcome = "served"
    reason: str = ""
    suggestions: tuple[str, ...] = ()
    piece: Any = None  # CodePiece | DocPiece


# --------------------------------------------------------------------------- pieces


def _fence(text: str) -> str:
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _fenced(body: str, tag: str) -> str:
    fence = _fence(body)
    return f"{fence}{tag}\n{body}\n{fence}"


@dataclass(slots=True)
class CodePiece:
    """Lines of one file to serve: the requested span, or the whole file with an outline fallback."""

    request: Request
    path: str
    lines: list[str]
    start: int
    end: int
    what: str  # "method Foo.bar", "lines 10-20", "whole file"
    tag: str = ""
    defs: tuple[CodeChunk, ...] = ()  # whole-file requests: definitions for the outline, by line
    capped: bool = False  # a whole size-excluded file: never served whole, only outline or a part
    note: str = ""
    _full: int | None = None

    def _block(self, start: int, end: int, tail: str = "") -> str:
        head = answer_code_head(self.request.signal, self.path, start, end, self.what)
        if self.note:
            head += f"\n{self.note}"
        body = "\n".join(self.lines[start - 1 : end])
        return f"{head}\n{_fenced(body, self.tag)}" + (f"\n{tail}" if tail else "")

    def full_tokens(self) -> int:
        if self._full is None:
            if self.capped:  # never served whole: an estimate is enough to order the pieces
                self._full = sum(len(line) + 1 for line in self.lines) // 3
            else:
                self._full = count_tokens(self._block(self.start, self.end))
        return self._full

    def fit(self, room: int) -> Fit | None:
        whole = self.what == WHOLE_FILE
        if not self.capped and self.full_tokens() <= room:
            return Fit(self._block(self.start, self.end), self.full_tokens(), "served")
        if whole and self.defs:
            fit = self._outline_fit(room)
            if fit:
                return fit
        return self._prefix_fit(room)

    def _why(self) -> str:
        if self.capped:
            return CAPPED
        return too_big_for_answer(self.what, self.full_tokens())

    def _outline_text(self, k: int) -> str:
        """The outline of the first `k` definitions, and how to ask for what it leaves out."""
        from noface_ctx.code.excerpts import outline

        n = len(self.lines)
        shown = self.defs[:k]
        head = answer_outline_head(self.request.signal, self.path, n, self._why())
        body = _fenced(outline(shown, path=self.path, total_lines=n), "")
        if k < len(self.defs):
            rest = self.defs[k].start_line
            tail = outline_cut(k, len(self.defs), need_code_range(self.path, rest, n))
        else:
            tail = bodies_omitted(self.path)
        return f"{head}\n{body}\n{tail}"

    def _outline_fit(self, room: int) -> Fit | None:
        lo, hi, best = 1, len(self.defs), None
        while lo <= hi:
            mid = (lo + hi) // 2
            if count_tokens(self._outline_text(mid)) <= room:
                best, lo = mid, mid + 1
            else:
                hi = mid - 1
        if best is None:
            return None
        text = self._outline_text(best)
        if best < len(self.defs):
            nxt = need_code_range(self.path, self.defs[best].start_line, len(self.lines))
        else:
            first = self.defs[0]
            nxt = need_code_range(self.path, first.start_line, first.end_line)
        reason = outline_reason(best, len(self.defs), self._why())
        return Fit(text, count_tokens(text), "partial", reason, nxt)

    def _largest_prefix(self, room: int) -> int | None:
        """The last line `k` such that lines start..k fit in `room` tokens (binary search)."""
        lo, hi, best = self.start, self.end, None
        while lo <= hi:
            mid = (lo + hi) // 2
            if count_tokens(self._block(self.start, mid, self._rest(mid))) <= room:
                best, lo = mid, mid + 1
            else:
                hi = mid - 1
        return best

    def _rest(self, last: int) -> str:
        return cut_marker(last, need_code_range(self.path, last + 1, self.end))

    def _prefix_fit(self, room: int) -> Fit | None:
        last = self._largest_prefix(room)
        if last is None:
            return None
        if last >= self.end:
            text = self._block(self.start, self.end)
            return Fit(text, count_tokens(text), "partial" if self.capped else "served", self._why() if self.capped else "")
        text = self._block(self.start, last, self._rest(last))
        nxt = need_code_range(self.path, last + 1, self.end)
        return Fit(text, count_tokens(text), "partial", cut_reason(last, self._why()), nxt)


@dataclass(slots=True)
class DocPiece:
    """A doc or one of its sections (file lines `sections[0].start_line`..), with its staleness note."""

    request: Request
    doc: Doc
    sections: tuple[Section, ...]  # what was asked for, in file order
    note: str = ""
    what: str = "whole doc"
    _lines: list[str] | None = None
    _full: int | None = None

    def _head(self) -> str:
        head = answer_doc_head(self.request.signal, self.doc.path, self.what, self.doc.title or self.doc.slug)
        return head + (f"\n{self.note}" if self.note else "")

    def _text(self, first: int, last: int) -> str:
        if self._lines is None:
            self._lines = self.doc.text.splitlines()
        return "\n".join(self._lines[first - 1 : last]).strip("\n")

    def full_tokens(self) -> int:
        if self._full is None:
            self._full = count_tokens(self._block(self.sections[-1].end_line))
        return self._full

    def _block(self, last: int, tail: str = "") -> str:
        body = self._text(self.sections[0].start_line, last)
        return f"{self._head()}\n{body}" + (f"\n{tail}" if tail else "")

    def fit(self, room: int) -> Fit | None:
        if self.full_tokens() <= room:
            return Fit(self._block(self.sections[-1].end_line), self.full_tokens(), "served")
        total = len(self.sections)
        for k in range(total - 1, 0, -1):  # leading sections whole, the rest by anchor
            rest = [s for s in self.sections[k:] if s.anchor]
            if not rest:
                continue
            asks = [need_doc(self.doc.slug, s.anchor) for s in rest[:12]]
            text = self._block(self.sections[k - 1].end_line, more_sections(asks, len(rest) - 12))
            tokens = count_tokens(text)
            if tokens <= room:
                nxt = need_doc(self.doc.slug, rest[0].anchor)
                return Fit(text, tokens, "partial", sections_left(total - k, total), nxt)
        return self._cut(room)

    def _cut(self, room: int) -> Fit | None:
        """The first lines that fit, cut on a line boundary, with the line range of the rest."""
        first, last = self.sections[0].start_line, self.sections[-1].end_line
        lo, hi, best = first, last - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            if count_tokens(self._block(mid, self._rest(mid, last))) <= room:
                best, lo = mid, mid + 1
            else:
                hi = mid - 1
        if best is None or not self._text(first, best).strip():
            return None
        text = self._block(best, self._rest(best, last))
        return Fit(text, count_tokens(text), "partial", cut_reason(best), self._next(best, last))

    def _next(self, cut: int, last: int) -> str:
        return "" if os.path.isabs(self.doc.path) else need_code_range(self.doc.path, cut + 1, last)

    def _rest(self, cut: int, last: int) -> str:
        return cut_marker(cut, self._next(cut, last))


# --------------------------------------------------------------------------- packing


def _problem_line(draft: Draft) -> str:
    return not_served_line(draft.request.signal, draft.outcome, draft.reason, list(draft.suggestions))


def assemble(drafts: Sequence[Draft], budget: int, *, header: str, footer: str = "") -> tuple[str, list[AnswerItem]]:
    """The answer text (≤ `budget` tokens) and one item per draft, in request order. `footer`
    (a line on requests not looked up at all) ends the NOT SERVED list.

    Pieces share the room max-min fairly (smallest first, leftovers flow on); a piece whose
    smallest form does not fit is listed as refused for budget with the line to ask again.
    A draft's refusal for budget and the tokens of each refusal line are worked out once.
    """
    if not drafts and not footer:
        return "", []
    overflow: set[int] = set()
    memo = _Memo(budget)
    while True:
        text, items, failed = _render(drafts, budget, overflow, header, footer, memo)
        if not failed and count_tokens(text) <= budget:
            return text, items
        if failed:
            overflow |= failed
            continue
        served = [i for i, d in enumerate(drafts) if d.piece is not None and i not in overflow]
        if not served:
            return _squeeze(text, items, budget), items
        overflow.add(max(served, key=lambda i: items[i].tokens))


def _over_budget(draft: Draft, budget: int) -> Draft:
    alone = draft.piece is not None and draft.piece.fit(max(1, budget - 60)) is not None
    if alone:  # it would be served in an answer of its own
        reason = ask_alone(budget, draft.request.signal)
    elif isinstance(draft.piece, CodePiece) and _first_line_too_long(draft.piece, budget - 60):
        reason = line_too_long(draft.piece.start, budget, draft.request.signal)
    else:  # asking again the same way cannot work: say what can
        reason = ask_for_part(budget, draft.request.signal)
    return Draft(draft.request, "refused", reason)


def _first_line_too_long(piece: CodePiece, room: int) -> bool:
    line = piece.lines[piece.start - 1] if 0 < piece.start <= len(piece.lines) else ""
    return count_tokens(line[: max(0, room) * 12 + 12]) > room  # bounded: never tokenises a 50 MB line


class _Memo:
    """What `_render` works out once per draft rather than once per round."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.refused: dict[int, Draft] = {}
        self.lines: dict[int, tuple[str, int]] = {}

    def over_budget(self, i: int, draft: Draft) -> Draft:
        if i not in self.refused:
            self.refused[i] = _over_budget(draft, self.budget)
        return self.refused[i]

    def line(self, i: int, draft: Draft) -> tuple[str, int]:
        """(the NOT SERVED line of draft `i`, its tokens); `i` is final once it is refused."""
        if i not in self.lines:
            text = _problem_line(draft)
            self.lines[i] = (text, count_tokens(text))
        return self.lines[i]


def _render(drafts: Sequence[Draft], budget: int, overflow: set[int], header: str, footer: str,
            memo: _Memo) -> tuple[str, list[AnswerItem], set[int]]:
    final = {i: (memo.over_budget(i, d) if i in overflow else d) for i, d in enumerate(drafts)}
    problems = {i: memo.line(i, d) for i, d in final.items() if d.piece is None}
    pieces = [i for i, d in final.items() if d.piece is not None]
    listed = [text for text, _tokens in problems.values()] + ([footer] if footer else [])
    fixed = header + (_SEP + NOT_SERVED + "\n" + "\n".join(listed) if listed else "")
    room = budget - count_tokens(fixed) - 2 * len(pieces) - 2
    fits: dict[int, Fit] = {}
    failed: set[int] = set()
    order = sorted(pieces, key=lambda i: final[i].piece.full_tokens())
    for n, i in enumerate(order):
        share = room // (len(order) - n) if room > 0 else 0
        fit = final[i].piece.fit(share) if share > 0 else None
        if fit is None:
            failed.add(i)
            continue
        fits[i] = fit
        room -= fit.tokens + 2
    items = []
    for i, d in final.items():
        if i in fits:
            f = fits[i]
            items.append(AnswerItem(d.request, f.outcome, f.reason, f.tokens, (), f.next, *_served(d.piece, f), f.text))
        else:
            tokens = problems[i][1] if i in problems else 0
            items.append(AnswerItem(d.request, d.outcome, d.reason, tokens, d.suggestions))
    blocks = [header, *(fits[i].text for i in sorted(fits))]
    if listed:
        blocks.append(NOT_SERVED + "\n" + "\n".join(listed))
    return _SEP.join(blocks), items, failed


def _served(piece: Any, fit: Fit) -> tuple[str, tuple[tuple[int, int], ...], str]:
    """(path, line ranges, form) of what a fit serves: the provenance `noface_ctx.trust` records."""
    if isinstance(piece, DocPiece):
        span = ((piece.sections[0].start_line, piece.sections[-1].end_line),) if piece.sections else ()
        whole = piece.what == "whole doc"
        return piece.doc.path, span, ("full" if whole else "section") if fit.outcome == "served" else "partial"
    return piece.path, ((piece.start, piece.end),), "full" if fit.outcome == "served" else "partial"


def _squeeze(text: str, items: list[AnswerItem], budget: int) -> str:
    """Only refusals left and still too long: list as many as fit, say how many were not."""
    lines = text.split("\n")
    for keep in range(len(lines) - 1, 0, -1):
        dropped = sum(1 for ln in lines[keep:] if ln.startswith("- "))
        candidate = "\n".join([*lines[:keep], not_listed(dropped)])
        if count_tokens(candidate) <= budget:
            return candidate
    return truncate_to_tokens(text, budget)


# --------------------------------------------------------------------------- log


def write_log(config: Config, items: Iterable[AnswerItem], issue_id: str | None) -> tuple[str | None, str]:
    """Append one JSON line per request to `[context] request_log`; (path, warning on failure)."""
    root = Path(config.root)
    path = Path(config.context.request_log)
    path = path if path.is_absolute() else root / path
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    lines = "".join(
        json.dumps({"time": now, "issue": issue_id, **item.to_dict()}, ensure_ascii=False) + "\n" for item in items
    )
    try:
        noface_dir = root / ".noface"
        if path.is_relative_to(noface_dir):
            write_gate.create_new(noface_dir / ".gitignore", b"*\n", root=root, confine=True)
        # One O_APPEND write per answer, so two orchestrators appending at once never interleave lines.
        write_gate.append(path, lines.encode("utf-8", "backslashreplace"), root=root, confine=True)
    except OSError as exc:
        return None, f"request log {path}: not written ({exc.strerror or exc})"
    return str(path), ""
