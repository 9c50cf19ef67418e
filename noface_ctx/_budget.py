"""Packing ranked docs and code into the token budget → `Selection`. Pure: no I/O.

Docs get `docs_share` of the room; what they leave flows to code, never the other way
(precision first: a doc that missed the bar is not let in because code was small). Each item
goes in whole, as a smaller form its ranker prepared (an outline, the best sections), or not at
all, in which case it is listed under OMITTED CONTEXT with the line that fetches it. Those
lines cost tokens too, so they are reserved before packing. A method shown without its class
brings the class's short outline when it fits; the chosen code is handed back grouped by file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from noface_ctx._tokens import count_tokens
from noface_ctx._wording import (
    NOT_LISTED_CAP,
    NOT_LISTED_LOW,
    RELEVANT_REASON,
    REQUIRED_REASON,
    WEAK_NOT_POINTED,
    already_shown,
    beyond_k,
    item_label,
    needs_tokens,
    omitted_entry,
    would_repeat,
)
from noface_ctx.datatypes import Candidate, Chosen, Form, Omitted, Selection

# Blocks are joined with a blank line; a join can merge with a block's edges, so each item
# is charged a little slack. The pipeline still verifies the finished prompt exactly.
ITEM_OVERHEAD = 2
# Forms that contain every line of their candidate: code inside them is not repeated.
COMPLETE_FORMS = frozenset({"full", "range", "whole", "file"})
_MAX_ROUNDS = 8
MAX_POINTERS = 8  # one-line pointers to weakly ranked code, at most
POINTER = "pointer"  # their form's label
TEST_SHARE = 0.15  # share of the code budget kept for the tests beside the code ...
TEST_MAX = 1500  # ... and at most this many tokens
# At most this share of the room goes to OMITTED CONTEXT lines: context first, pointers second.
OMITTED_SHARE = 0.25


def omitted_line(item: Omitted) -> str:
    """The OMITTED CONTEXT entry for `item`, exactly as rendered (two lines)."""
    return omitted_entry(item.kind, item.path, item.ref, item.reason, item.request)


def omitted_cost(items: Iterable[Omitted]) -> int:
    """Tokens the OMITTED CONTEXT entries for `items` add (each followed by a newline)."""
    return sum(count_tokens(omitted_line(o)) + 1 for o in items)


def above_floor(candidates: Sequence[Candidate], floor: float) -> tuple[list[Candidate], int]:
    """The code candidates worth offering: required (manifest) ones, and ranked ones scoring above
    `floor`, in order; and how many ranked ones fell at or below it, not counting those inside the
    lines of a kept one (a method of a kept class is not missing)."""
    kept = [c for c in candidates if c.required or c.score > floor]
    below = [c for c in candidates if not (c.required or c.score > floor)]
    return kept, sum(1 for c in below if not any(o.path == c.path and (_whole_file(o) or _contains(o, c)) for o in kept))


@dataclass(slots=True)
class _Packer:
    """Mutable state of one packing pass."""

    chosen_docs: list[Chosen] = field(default_factory=list)
    chosen_code: list[Chosen] = field(default_factory=list)
    omitted: list[Omitted] = field(default_factory=list)
    skipped: list[Omitted] = field(default_factory=list)


def select(
    doc_candidates: Sequence[Candidate],
    code_candidates: Sequence[Candidate],
    *,
    available: int,
    docs_share: float,
    max_docs: int,
    max_omitted: int = 15,
    list_code_above: float = float("-inf"),
    outlines: Sequence[Candidate] = (),
    tests: Sequence[Candidate] = (),
) -> Selection:
    """Choose a form for each candidate that fits in `available` tokens, or omit it.

    `available` is what is left after the fixed sections and section headers. The returned
    `Selection.omitted` holds at most `max_omitted` entries (required items first, then by
    score) costing at most `OMITTED_SHARE` of `available`, and that cost is inside `available`;
    `Selection.skipped` keeps the other decisions (duplicates, unlisted omissions) for the report.
    Ranked (not required) code scoring at or below `list_code_above` is not worth a pointer line:
    when it does not fit it goes to `skipped`, not `omitted`.
    `outlines` are class outlines (`path`, `ref` = the class): a method of a class placed
    without its class's own block brings that outline when it fits in what the ranked items left
    (see `_outline`): an outline never takes a ranked definition's place. `tests` (tests beside
    the code: pointers, then test functions) get a reserved share of the code budget
    (`TEST_SHARE`, at most `TEST_MAX` and what they need).
    `Selection.code` comes grouped by file (`grouped`).
    """
    available = max(0, int(available))
    omitted_room = int(available * OMITTED_SHARE)
    reserve = 0
    for _ in range(_MAX_ROUNDS):
        packer, docs_budget, code_budget = _pack(
            doc_candidates, code_candidates, available - reserve, docs_share, max_docs, outlines, tests
        )
        worth, low = _worth_listing(packer.omitted, list_code_above)
        listed, beyond_cap = _cap_omitted(worth, max_omitted)
        listed, over_room = _fit_omitted(listed, omitted_room)
        beyond_cap = over_room + beyond_cap
        cost = omitted_cost(listed)
        if cost <= reserve:
            break
        reserve = cost
    # Whatever the rounds settled on, list only the omissions that fit the room left.
    listed, trimmed = _fit_omitted(listed, available - _used(packer))
    beyond_cap = trimmed + beyond_cap
    skipped = packer.skipped + [replace(o, reason=o.reason + NOT_LISTED_CAP) for o in beyond_cap]
    skipped += [replace(o, reason=o.reason + NOT_LISTED_LOW) for o in low]
    return Selection(
        docs=tuple(packer.chosen_docs),
        code=grouped(packer.chosen_code),
        omitted=tuple(listed),
        budget=available,
        docs_budget=docs_budget,
        code_budget=code_budget,
        skipped=tuple(skipped),
        unlisted=len(beyond_cap) + len(low),  # weak matches that did not fit are left out too: never "none"
    )


def _used(packer: _Packer) -> int:
    return sum(c.form.tokens + ITEM_OVERHEAD for c in (*packer.chosen_docs, *packer.chosen_code))


def _pack(
    doc_candidates: Sequence[Candidate],
    code_candidates: Sequence[Candidate],
    room: int,
    docs_share: float,
    max_docs: int,
    outlines: Sequence[Candidate] = (),
    tests: Sequence[Candidate] = (),
) -> tuple[_Packer, int, int]:
    packer = _Packer()
    room = max(0, room)
    docs_budget = int(room * min(max(docs_share, 0.0), 1.0))
    docs_used = _pack_docs(packer, doc_candidates, docs_budget, max_docs)
    code_budget = room - docs_used
    _pack_code(packer, code_candidates, code_budget, outlines, tests)
    return packer, docs_budget, code_budget


def _pack_docs(packer: _Packer, candidates: Sequence[Candidate], budget: int, max_docs: int) -> int:
    """Take at most `max_docs` docs, in ranked order, each in the first form that fits."""
    used = 0
    seen: set[str] = set()
    eligible = 0
    for cand in candidates:
        key = cand.ref or cand.path
        if key in seen:
            continue
        seen.add(key)
        if eligible >= max_docs:
            packer.omitted.append(_omit(cand, beyond_k(max_docs)))
            continue
        eligible += 1
        form = _first_fitting(cand.forms, budget - used)
        if form is None:
            packer.omitted.append(_omit(cand, _too_big(cand, budget - used, "docs")))
            continue
        packer.chosen_docs.append(Chosen(cand, form))
        used += form.tokens + ITEM_OVERHEAD
    return used


def _pack_code(packer: _Packer, candidates: Sequence[Candidate], budget: int,
               outlines: Sequence[Candidate] = (), tests: Sequence[Candidate] = ()) -> int:
    """Required (manifest) items first, then ranked items in order, leaving the tests' share;
    then the tests; then, from what is left, the outlines of the classes whose methods were
    placed. Never repeat lines."""
    used = _pack_required(packer, [c for c in candidates if c.required], budget)
    test_room = test_share(budget - used, tests)
    placed: list[Candidate] = []
    pointers = 0
    for cand in candidates:
        if not cand.required:
            if is_pointer(cand):
                pointers += 1
                if pointers > MAX_POINTERS:
                    packer.skipped.append(_omit(cand, WEAK_NOT_POINTED))
                    continue
            took = _place(packer, cand, cand.forms, budget - used - test_room)
            used += took
            if took:
                placed.append(cand)
    for cand in tests:
        used += _place(packer, cand, cand.forms, budget - used)
    by_class = {(o.path, o.ref): o for o in outlines}
    for cand in placed if by_class else ():
        used += _outline(packer, cand, by_class, budget - used)
    return used - _drop_named_pointers(packer)


def _drop_named_pointers(packer: _Packer) -> int:
    """Pointers to members of a class whose block or outline is shown go: the outline already
    names them and how to fetch them. The tokens freed."""
    shown = {(c.candidate.path, c.candidate.ref) for c in packer.chosen_code if c.form.label != POINTER}
    freed = 0
    kept: list[Chosen] = []
    for item in packer.chosen_code:
        c = item.candidate
        if item.form.label == POINTER and c.ref and (c.path, c.ref.rpartition(".")[0]) in shown:
            packer.skipped.append(_omit(c, already_shown(_label(replace(c, ref=c.ref.rpartition(".")[0])))))
            freed += item.form.tokens + ITEM_OVERHEAD
        else:
            kept.append(item)
    packer.chosen_code[:] = kept
    return freed


def is_pointer(cand: Candidate) -> bool:
    """A ranked candidate offered only as a one-line pointer (its evidence is weak)."""
    return len(cand.forms) == 1 and cand.forms[0].label == POINTER


def weak_unlisted(candidates: Sequence[Candidate]) -> int:
    """How many pointer-only candidates the packer will leave unlisted (over `MAX_POINTERS`)."""
    return max(0, sum(1 for c in candidates if not c.required and is_pointer(c)) - MAX_POINTERS)


def test_share(room: int, tests: Sequence[Candidate]) -> int:
    """Tokens kept for the tests beside the code: what they need, at most `TEST_SHARE` of the
    code budget and `TEST_MAX`."""
    need = sum(c.forms[0].tokens + ITEM_OVERHEAD for c in tests if c.forms)
    return max(0, min(need, int(room * TEST_SHARE), TEST_MAX))


def _outline(packer: _Packer, cand: Candidate, outlines: Mapping[tuple[str, str], Candidate], room: int) -> int:
    """Add the outline of the class `cand` (just placed) belongs to, once, when no chosen item
    shows that class already (its own block, its outline, its file whole or outlined) and it
    fits; the tokens it takes. Without it the method's block still names its class."""
    outline = outlines.get((cand.path, cand.ref.rpartition(".")[0]))
    if outline is None or not outline.forms:
        return 0
    for item in packer.chosen_code:
        other = item.candidate
        if other.path == outline.path and (_whole_file(other) or (other.ref, other.start_line) == (outline.ref, outline.start_line)):
            return 0
    form = outline.forms[0]
    if form.tokens + ITEM_OVERHEAD > room:
        return 0
    packer.chosen_code.append(Chosen(outline, form))
    return form.tokens + ITEM_OVERHEAD


def grouped(chosen: Sequence[Chosen]) -> tuple[Chosen, ...]:
    """The same items with each file's together: files in the order of their first (best placed)
    item, a file's items in line order (a whole file or its outline first, a class before its
    members)."""
    first: dict[str, int] = {}
    for n, item in enumerate(chosen):
        first.setdefault(item.candidate.path, n)
    return tuple(sorted(chosen, key=lambda c: (first[c.candidate.path], c.candidate.start_line, -c.candidate.end_line)))


def _pack_required(packer: _Packer, required: Sequence[Candidate], budget: int) -> int:
    """Each manifest item first gets its smallest form that fits, so one big file cannot crowd
    out the others; then, in manifest order, each grows to the largest form that still fits."""
    used = 0
    for cand in required:
        used += _place(packer, cand, sorted(cand.forms, key=lambda f: f.tokens), budget - used)
    for n, item in enumerate(packer.chosen_code):
        others = packer.chosen_code[:n] + packer.chosen_code[n + 1:]
        room = budget - used + item.form.tokens
        for form in item.candidate.forms:  # most complete first, down to the one it has
            if form is item.form:
                break
            if form.tokens + ITEM_OVERHEAD <= room and _repeats(item.candidate, form, others) is None:
                packer.chosen_code[n] = Chosen(item.candidate, form)
                used += form.tokens - item.form.tokens
                break
    return used


def _place(packer: _Packer, cand: Candidate, forms: Sequence[Form], room: int) -> int:
    """Choose the first of `forms` that fits `room` and repeats nothing; the tokens it takes."""
    shown = _shown_in(cand, packer.chosen_code)
    if shown is not None:
        packer.skipped.append(_omit(cand, already_shown(shown)))
        return 0
    fitting = [f for f in forms if f.tokens + ITEM_OVERHEAD <= room]
    if not fitting:
        packer.omitted.append(_omit(cand, _too_big(cand, room, "code")))
        return 0
    fresh = [f for f in fitting if _repeats(cand, f, packer.chosen_code) is None]
    if not fresh:
        packer.skipped.append(_omit(cand, would_repeat(str(_repeats(cand, fitting[0], packer.chosen_code)))))
        return 0
    packer.chosen_code.append(Chosen(cand, fresh[0]))
    return fresh[0].tokens + ITEM_OVERHEAD


def _first_fitting(forms: Sequence[Form], room: int) -> Form | None:
    """Forms go from most to least complete, so the first that fits is the largest that fits."""
    for form in forms:
        if form.tokens + ITEM_OVERHEAD <= room:
            return form
    return None


def _shown_in(cand: Candidate, chosen: Sequence[Chosen]) -> str | None:
    """The chosen item whose complete text already contains all of `cand`, if any."""
    for item in chosen:
        other = item.candidate
        if other.path != cand.path:
            continue
        if (other.ref, other.start_line, other.end_line) == (cand.ref, cand.start_line, cand.end_line):
            return _label(other)
        if item.form.label in COMPLETE_FORMS and (_whole_file(other) or _contains(other, cand)):
            return _label(other)
    return None


def _repeats(cand: Candidate, form: Form, chosen: Sequence[Chosen]) -> str | None:
    """The chosen item whose lines `form` would show again: both complete and overlapping."""
    if form.label not in COMPLETE_FORMS:
        return None  # an outline or signature shows no body twice
    for item in chosen:
        other = item.candidate
        if other.path == cand.path and item.form.label in COMPLETE_FORMS:
            if _whole_file(cand) or _whole_file(other) or _overlaps(cand, other):
                return _label(other)
    return None


def _whole_file(cand: Candidate) -> bool:
    return cand.ref == "" and cand.end_line == 0


def _contains(outer: Candidate, inner: Candidate) -> bool:
    return outer.start_line <= inner.start_line and inner.end_line <= outer.end_line


def _overlaps(a: Candidate, b: Candidate) -> bool:
    if not (a.start_line and a.end_line and b.start_line and b.end_line):
        return False
    return a.start_line <= b.end_line and b.start_line <= a.end_line


def _label(cand: Candidate) -> str:
    return item_label(cand.path, cand.ref)


def _too_big(cand: Candidate, room: int, pool: str) -> str:
    smallest = min((f.tokens for f in cand.forms), default=0)
    return needs_tokens(REQUIRED_REASON if cand.required else RELEVANT_REASON, smallest, max(room, 0), pool)


def _omit(cand: Candidate, reason: str) -> Omitted:
    return Omitted(kind=cand.kind, path=cand.path, ref=cand.ref, reason=reason, request=cand.request, score=cand.score,
                   required=cand.required)


def _worth_listing(omitted: Sequence[Omitted], above: float) -> tuple[list[Omitted], list[Omitted]]:
    """Split omissions into those worth a pointer line and low-scored ranked code."""
    worth: list[Omitted] = []
    low: list[Omitted] = []
    for o in omitted:
        is_low = o.kind == "code" and o.score <= above and not o.required
        (low if is_low else worth).append(o)
    return worth, low


def _cap_omitted(omitted: Sequence[Omitted], cap: int) -> tuple[list[Omitted], list[Omitted]]:
    """Required (manifest) items first, then by score; the first `cap` are listed."""
    ranked = sorted(omitted, key=lambda o: (not o.required, -o.score))
    return ranked[: max(cap, 0)], ranked[max(cap, 0):]


def _fit_omitted(omitted: Sequence[Omitted], room: int) -> tuple[list[Omitted], list[Omitted]]:
    listed: list[Omitted] = []
    rest: list[Omitted] = []
    used = 0
    for o in omitted:
        cost = omitted_cost([o])
        if used + cost <= room:
            listed.append(o)
            used += cost
        else:
            rest.append(o)
    return listed, rest
