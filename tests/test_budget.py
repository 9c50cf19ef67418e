"""Packing docs and code under the budget: shares, forms, required items, duplicates, omissions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noface_ctx._budget import ITEM_OVERHEAD, omitted_cost, omitted_line, select
from noface_ctx._tokens import count_tokens
from noface_ctx.datatypes import Candidate, Form, Omitted


def form(label: str, n: int, word: str = "alpha") -> Form:
    text = " ".join([word] * n)
    return Form(label, text, count_tokens(text))


def doc(slug: str, score: float, *sizes: int) -> Candidate:
    labels = ("full", "sections", "outline")
    forms = tuple(form(labels[i], n) for i, n in enumerate(sizes))
    return Candidate("doc", f"docs/{slug}.md", slug, slug.title(), forms, score, f"NEED_DOC: {slug}")


def code(path: str, ref: str, score: float, sizes: tuple[int, ...], *, lines=(0, 0), required=False,
         labels=("full", "definitions", "outline")) -> Candidate:
    forms = tuple(form(labels[i], n) for i, n in enumerate(sizes))
    request = f"NEED_CODE: {path}" + (f":{lines[0]}-{lines[1]}" if lines[1] else "")
    return Candidate("code", path, ref, ref or path, forms, score, request,
                     start_line=lines[0], end_line=lines[1], required=required)


def used(sel) -> int:
    return sum(c.form.tokens + ITEM_OVERHEAD for c in (*sel.docs, *sel.code))


def test_docs_stay_within_their_share_and_leftover_flows_to_code():
    docs = [doc("small", 0.9, 100)]
    big_code = [code("a.py", "f", 0.8, (1500,), lines=(1, 80))]
    sel = select(docs, big_code, available=2000, docs_share=0.35, max_docs=5)
    assert [c.candidate.ref for c in sel.docs] == ["small"]
    assert sel.docs_budget == 700
    # 700 - 102 unused by docs went to code, so a 1500-token function fits in 2000 - 102.
    assert [c.candidate.ref for c in sel.code] == ["f"]
    assert sel.code_budget == 2000 - (sel.docs[0].form.tokens + ITEM_OVERHEAD)


def test_unused_code_budget_is_not_given_to_docs():
    docs = [doc("huge", 0.9, 1200)]
    sel = select(docs, [], available=2000, docs_share=0.35, max_docs=5)
    assert sel.docs == ()
    assert [o.ref for o in sel.omitted] == ["huge"]
    assert re.fullmatch(r"relevant, but needs \d+ tokens \(\d+ left for docs\)", sel.omitted[0].reason)
    assert sel.omitted[0].request == "NEED_DOC: huge"


def test_smaller_form_is_used_when_the_full_one_does_not_fit():
    docs = [doc("design", 0.9, 900, 300, 60)]
    sel = select(docs, [], available=1000, docs_share=0.5, max_docs=5)
    assert [c.form.label for c in sel.docs] == ["sections"]


def test_at_most_k_docs_and_the_rest_are_omitted_with_the_reason():
    docs = [doc(f"d{i}", 1 - i / 10, 20) for i in range(5)]
    sel = select(docs, [], available=5000, docs_share=0.5, max_docs=2)
    assert [c.candidate.ref for c in sel.docs] == ["d0", "d1"]
    assert [o.ref for o in sel.omitted] == ["d2", "d3", "d4"]
    assert all(o.reason == "relevant, beyond K=2 for this issue" for o in sel.omitted)


def test_required_code_comes_first_in_its_largest_fitting_form():
    ranked = code("b.py", "g", 0.99, (300,), lines=(1, 30))
    req = code("a.py", "", 0.1, (700, 250, 40), required=True, labels=("full", "definitions", "outline"))
    sel = select([], [ranked, req], available=800, docs_share=0.0, max_docs=0)
    assert [(c.candidate.path, c.form.label) for c in sel.code] == [("a.py", "full")]
    assert [o.ref for o in sel.omitted] == ["g"]


def test_one_big_manifest_file_does_not_crowd_out_the_others():
    primary = code("big.py", "", 0.1, (900, 400, 60), required=True, labels=("whole", "outline+defs", "outline"))
    read = code("small.py", "", 0.1, (500, 80), required=True, labels=("whole", "outline"))
    sel = select([], [primary, read], available=600, docs_share=0.0, max_docs=0)
    # Both fit as outlines; then the first (primary) grows as far as the rest allows.
    assert [(c.candidate.path, c.form.label) for c in sel.code] == [("big.py", "outline+defs"), ("small.py", "outline")]
    assert sel.omitted == ()
    sel = select([], [primary, read], available=2000, docs_share=0.0, max_docs=0)
    assert [(c.candidate.path, c.form.label) for c in sel.code] == [("big.py", "whole"), ("small.py", "whole")]


def test_a_tiny_manifest_file_is_shown_whole_even_when_its_outline_is_longer():
    tiny = code("tiny.py", "", 0.1, (40, 55), required=True, labels=("whole", "outline"))
    sel = select([], [tiny], available=45, docs_share=0.0, max_docs=0)
    assert [c.form.label for c in sel.code] == ["whole"]


def test_required_item_that_cannot_fit_is_omitted_first_with_its_request():
    req = code("huge.py", "", 0.1, (5000, 3000), required=True)
    others = [doc(f"d{i}", 0.9, 10) for i in range(4)]
    sel = select(others, [req], available=1000, docs_share=0.5, max_docs=1)
    assert sel.code == ()
    assert sel.omitted[0].path == "huge.py"
    assert sel.omitted[0].request == "NEED_CODE: huge.py"
    assert re.fullmatch(r"manifest file, but needs \d+ tokens \(\d+ left for code\)", sel.omitted[0].reason)
    assert sel.omitted[0].required and not any(o.required for o in sel.omitted[1:])


def test_a_manifest_item_is_known_by_its_field_not_by_its_reason():
    """`Omitted.required` decides the listing order and the low-score rule, whatever the reason
    text says (the wording may change; the packer's decision must not)."""
    cands = [
        code("req.py", "", -5.0, (9000,), required=True),
        code("good.py", "g", 0.8, (9000,), lines=(1, 90)),
    ]
    sel = select([], cands, available=3000, docs_share=0.0, max_docs=0, list_code_above=0.0)
    assert [(o.path, o.required) for o in sel.omitted] == [("req.py", True), ("good.py", False)]


def test_items_that_do_not_fit_are_skipped_and_smaller_later_ones_still_packed():
    cands = [
        code("a.py", "big", 0.9, (900,), lines=(1, 100)),
        code("a.py", "small", 0.8, (100,), lines=(120, 130)),
        code("b.py", "tiny", 0.7, (50,), lines=(1, 5)),
    ]
    sel = select([], cands, available=400, docs_share=0.0, max_docs=0)
    assert [c.candidate.ref for c in sel.code] == ["small", "tiny"]
    assert [o.ref for o in sel.omitted] == ["big"]


def test_code_inside_a_chosen_whole_file_is_not_repeated():
    whole = code("a.py", "", 0.5, (200,), required=True)
    inner = code("a.py", "f", 0.9, (50,), lines=(3, 10))
    other = code("b.py", "g", 0.8, (50,), lines=(3, 10))
    sel = select([], [inner, whole, other], available=2000, docs_share=0.0, max_docs=0)
    assert [c.candidate.ref for c in sel.code] == ["", "g"]
    assert sel.omitted == ()
    assert [(s.ref, s.reason) for s in sel.skipped] == [("f", "already shown in a.py")]


def test_a_method_inside_a_chosen_class_is_skipped_but_an_outline_repeats_nothing():
    cls = code("a.py", "Store", 0.9, (300,), lines=(10, 60))
    method = code("a.py", "Store.get", 0.8, (40,), lines=(20, 30))
    sel = select([], [cls, method], available=2000, docs_share=0.0, max_docs=0)
    assert [c.candidate.ref for c in sel.code] == ["Store"]
    assert sel.skipped[0].ref == "Store.get"

    outline_only = code("a.py", "", 0.9, (5000, 30), required=True, labels=("full", "outline"))  # only the outline fits
    sel = select([], [outline_only, method], available=500, docs_share=0.0, max_docs=0)
    assert [(c.candidate.ref, c.form.label) for c in sel.code] == [("", "outline"), ("Store.get", "full")]


def test_a_class_containing_a_chosen_method_is_not_shown_in_full_again():
    method = code("a.py", "Store.get", 0.95, (40,), lines=(20, 30))
    cls = code("a.py", "Store", 0.9, (300, 30), lines=(10, 60), labels=("full", "outline"))
    sel = select([], [method, cls], available=2000, docs_share=0.0, max_docs=0)
    # one file's blocks come in line order: the class (line 10) before its method (line 20)
    assert [(c.candidate.ref, c.form.label) for c in sel.code] == [("Store", "outline"), ("Store.get", "full")]


def test_omitted_list_is_capped_by_score_and_its_cost_is_reserved():
    cands = [code(f"m{i}.py", f"f{i}", i / 100, (3000,), lines=(1, 50)) for i in range(30)]
    sel = select([], cands, available=2000, docs_share=0.0, max_docs=0, max_omitted=5)
    assert [o.ref for o in sel.omitted] == ["f29", "f28", "f27", "f26", "f25"]
    assert len(sel.skipped) == 25
    assert all("omitted-items cap" in s.reason for s in sel.skipped)
    assert used(sel) + omitted_cost(sel.omitted) <= 2000


def test_omitted_lines_take_at_most_their_share_of_a_small_room():
    cands = [code(f"pkg/module_{i}.py", f"function_{i}", 1 - i / 100, (3000,), lines=(1, 50)) for i in range(15)]
    sel = select([doc("useful", 0.9, 60)], cands, available=600, docs_share=0.35, max_docs=2)
    assert [c.candidate.ref for c in sel.docs] == ["useful"]
    assert 0 < omitted_cost(sel.omitted) <= 600 * 0.25
    assert [o.ref for o in sel.omitted] == [f"function_{i}" for i in range(len(sel.omitted))]


def test_low_scored_ranked_code_gets_no_pointer_line_but_manifest_files_always_do():
    cands = [
        code("req.py", "", -5.0, (9000,), required=True),
        code("good.py", "g", 0.8, (9000,), lines=(1, 90)),
        code("meh.py", "m", -0.4, (9000,), lines=(1, 90)),
    ]
    sel = select([], cands, available=3000, docs_share=0.0, max_docs=0, list_code_above=0.0)
    assert [o.path for o in sel.omitted] == ["req.py", "good.py"]
    assert [(s.path, s.reason.endswith("(not listed: low score)")) for s in sel.skipped] == [("meh.py", True)]


def test_omitted_line_renders_what_why_and_the_request_on_its_own_line():
    line = omitted_line(Omitted("code", "pkg/a.py", "Store.get", "too big", "NEED_CODE: pkg/a.py:20-30"))
    assert line == "- code pkg/a.py (Store.get) — too big\n  NEED_CODE: pkg/a.py:20-30"
    assert omitted_cost([Omitted("doc", "d.md", "d", "r", "NEED_DOC: d")]) == count_tokens(
        "- doc d.md (d) — r\n  NEED_DOC: d") + 1


def test_zero_room_selects_nothing_and_lists_what_it_can():
    sel = select([doc("a", 0.9, 10)], [code("a.py", "f", 0.5, (10,), lines=(1, 2))],
                 available=0, docs_share=0.5, max_docs=3)
    assert sel.docs == () and sel.code == ()
    assert omitted_cost(sel.omitted) == 0


sizes = st.lists(st.integers(min_value=1, max_value=2500), min_size=1, max_size=3).map(
    lambda xs: tuple(sorted(xs, reverse=True)))


@st.composite
def candidates(draw):
    n_docs = draw(st.integers(0, 8))
    n_code = draw(st.integers(0, 25))
    docs = [doc(f"d{i}", draw(st.floats(0, 1)), *draw(sizes)) for i in range(n_docs)]
    code_items = []
    for i in range(n_code):
        path = f"m{draw(st.integers(0, 4))}.py"
        start = draw(st.integers(1, 200))
        whole = draw(st.booleans()) and i % 5 == 0
        code_items.append(code(path, "" if whole else f"f{i}", draw(st.floats(0, 1)), draw(sizes),
                               lines=(0, 0) if whole else (start, start + draw(st.integers(0, 60))),
                               required=draw(st.booleans()) and i < 3))
    return docs, code_items


@settings(max_examples=60, deadline=None)
@given(candidates(), st.integers(0, 20000), st.floats(0, 1), st.integers(0, 6), st.integers(0, 20))
def test_never_over_available_and_no_repeated_lines(cands, available, share, k, cap):
    docs, code_items = cands
    sel = select(docs, code_items, available=available, docs_share=share, max_docs=k, max_omitted=cap)
    doc_used = sum(c.form.tokens + ITEM_OVERHEAD for c in sel.docs)
    assert doc_used <= sel.docs_budget
    assert len(sel.docs) <= k
    assert used(sel) + omitted_cost(sel.omitted) <= available
    assert len(sel.omitted) <= cap
    full = [c.candidate for c in sel.code if c.form.label == "full"]
    for i, a in enumerate(full):
        for b in full[i + 1:]:
            if a.path == b.path:
                whole = (a.ref == "" and a.end_line == 0) or (b.ref == "" and b.end_line == 0)
                assert not whole and (a.end_line < b.start_line or b.end_line < a.start_line)
    decided = {(c.candidate.kind, c.candidate.ref, c.candidate.path) for c in (*sel.docs, *sel.code)}
    decided |= {(o.kind, o.ref, o.path) for o in (*sel.omitted, *sel.skipped)}
    assert decided == {(c.kind, c.ref, c.path) for c in (*docs, *code_items)}


# --------------------------------------------------------------------------- grouping and class outlines


def outline_of(path: str, cls: str, n: int, lines=(1, 400)) -> Candidate:
    text = " ".join(["outline"] * n)
    return Candidate("code", path, cls, cls, (Form("class-outline", text, count_tokens(text)),), 0.5,
                     f"NEED_CODE: {path}:{lines[0]}-{lines[1]}", start_line=lines[0], end_line=lines[1])


def test_a_method_brings_its_class_outline_once_and_the_file_comes_together():
    m1 = code("a.py", "Store.put", 0.9, (40,), lines=(50, 60))
    other = code("b.py", "helper", 0.8, (40,), lines=(5, 9))
    m2 = code("a.py", "Store.get", 0.7, (40,), lines=(20, 30))
    free = code("a.py", "load", 0.6, (40,), lines=(100, 110))
    sel = select([], [m1, other, m2, free], available=2000, docs_share=0.0, max_docs=0,
                 outlines=[outline_of("a.py", "Store", 30, lines=(10, 90))])
    assert [(c.candidate.path, c.candidate.ref, c.form.label) for c in sel.code] == [
        ("a.py", "Store", "class-outline"), ("a.py", "Store.get", "full"), ("a.py", "Store.put", "full"),
        ("a.py", "load", "full"), ("b.py", "helper", "full")]
    assert used(sel) <= 2000


def test_no_class_outline_when_the_class_or_its_file_is_shown_or_it_does_not_fit():
    method = code("a.py", "Store.get", 0.9, (40,), lines=(20, 30))
    cls = code("a.py", "Store", 0.95, (300,), lines=(10, 60), labels=("outline",))
    outline = [outline_of("a.py", "Store", 30, lines=(10, 60))]
    sel = select([], [cls, method], available=2000, docs_share=0.0, max_docs=0, outlines=outline)
    assert [(c.candidate.ref, c.form.label) for c in sel.code] == [("Store", "outline"), ("Store.get", "full")]
    whole = code("a.py", "", 1.0, (200,), required=True, labels=("outline",))
    sel = select([], [whole, method], available=2000, docs_share=0.0, max_docs=0, outlines=outline)
    assert [c.form.label for c in sel.code] == ["outline", "full"]
    # room for the method but not for its outline: the method alone (its block names its class)
    sel = select([], [method], available=40 + ITEM_OVERHEAD + 10, docs_share=0.0, max_docs=0, outlines=outline)
    assert [c.candidate.ref for c in sel.code] == ["Store.get"]
    # a class ranked below the method: its own (ranked) outline is shown, the extra outline is not
    later = code("a.py", "Store", 0.5, (300,), lines=(10, 60), labels=("outline",))
    sel = select([], [method, later], available=2000, docs_share=0.0, max_docs=0, outlines=outline)
    assert [(c.candidate.ref, c.form.label) for c in sel.code] == [("Store", "outline"), ("Store.get", "full")]


@st.composite
def with_outlines(draw):
    """Code candidates where some are methods of classes C0..C2, and those classes' outlines."""
    code_items, outlines = [], {}
    for i in range(draw(st.integers(0, 25))):
        path = f"m{draw(st.integers(0, 3))}.py"
        owner = draw(st.sampled_from(["", "C0", "C1", "C2"]))
        start = draw(st.integers(11, 300))
        whole = owner == "" and draw(st.booleans()) and i % 5 == 0
        ref = "" if whole else (f"{owner}.f{i}" if owner else f"f{i}")
        code_items.append(code(path, ref, draw(st.floats(0, 1)), draw(sizes),
                               lines=(0, 0) if whole else (start, start + draw(st.integers(0, 60))),
                               required=draw(st.booleans()) and i < 3))
        if owner and (path, owner) not in outlines:
            outlines[(path, owner)] = outline_of(path, owner, draw(st.integers(1, 300)), lines=(10, 400))
    return code_items, list(outlines.values())


@settings(max_examples=80, deadline=None)
@given(with_outlines(), st.integers(0, 12000), st.integers(0, 20))
def test_outlines_and_grouping_never_break_the_budget(cands, available, cap):
    code_items, outlines = cands
    sel = select([], code_items, available=available, docs_share=0.0, max_docs=0, max_omitted=cap,
                 outlines=outlines)
    assert used(sel) + omitted_cost(sel.omitted) <= available
    # grouped: a file's items together, files in the order of their best placed item, lines ascending
    paths = [c.candidate.path for c in sel.code]
    order = list(dict.fromkeys(paths))
    assert paths == sorted(paths, key=order.index)
    for path in order:
        starts = [c.candidate.start_line for c in sel.code if c.candidate.path == path]
        assert starts == sorted(starts)
    rank = {id(c): n for n, c in enumerate(sorted(code_items, key=lambda c: not c.required))}
    best = [min(rank[id(c.candidate)] for c in sel.code if c.candidate.path == p and id(c.candidate) in rank)
            for p in order]
    assert best == sorted(best)
    # an outline only with a method of its class shown, once, and not beside its class's own block
    shown = [c for c in sel.code if c.form.label == "class-outline"]
    keys = [(c.candidate.path, c.candidate.ref) for c in shown]
    assert len(keys) == len(set(keys))
    methods = {(c.candidate.path, c.candidate.ref.rpartition(".")[0]) for c in sel.code if c.form.label != "class-outline"}
    assert set(keys) <= methods


def test_the_fast_vocabulary_read_encodes_like_tiktoken_itself(tmp_path):
    """`tokens._read_ranks` replaces tiktoken's slow loader: same ids for varied text, and a file
    that does not match its hash is refused."""
    import tiktoken

    from noface_ctx import _tokens as tokens
    theirs = tiktoken.get_encoding(tokens.ENCODING)
    ours = tokens._encoding()  # private: the offline encoder itself, compared with tiktoken's
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    text += "\nnaïve café — 東京 🚀 <|endoftext|> \t\r\n  def f(x):\n\treturn x**2\n"
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())
    assert ours.n_vocab == theirs.n_vocab
    fake = tmp_path / "v.tiktoken"
    fake.write_bytes(b"YQ== 0\nYg== 1\n")
    assert tokens._read_ranks(str(fake)) == {b"a": 0, b"b": 1}  # private: the loader that replaces tiktoken's
    with pytest.raises(ValueError, match="hash mismatch"):
        tokens._read_ranks(str(fake), expected_hash="0" * 64)  # private: as above
