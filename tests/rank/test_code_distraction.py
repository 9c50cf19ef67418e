"""Less distraction in CODE CONTEXT, end to end on small real git repositories: ranked code below
the relevance floor stays out whatever the budget (and the prompt says so), one file's blocks
come together in line order, and a method shown without its class is preceded by a short outline
of that class, once."""

from __future__ import annotations

import re
import textwrap

import pytest
from conftest import FakeEmbedder, make_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noface_ctx import _pipeline
from noface_ctx._pipeline import CODE_FLOOR, build_prompt
from noface_ctx._render import FLOOR_NOTE, floor_note
from noface_ctx._tokens import count_tokens
from noface_ctx.rank.code_forms import CLASS_OUTLINE, OUTLINE_MEMBERS, RANKED_OUTLINE_TOKENS


def _line_item(i: int) -> str:
    return textwrap.dedent(f'''
        def invoice_line_{i}(invoice, line):
            """Add line {i} of an invoice, with its tax."""
            amount = line.price * line.quantity
            invoice.tax += amount * invoice.tax_rate
            return invoice.total + amount
        ''')


ROUNDING = '''\
def round_invoice_tax(invoice, places=2):
    """Round the tax of an invoice to `places` decimals, half up, before the total is computed."""
    tax = invoice.tax
    invoice.tax = round_half_up(tax, places)
    return invoice.tax
'''

AUDIT = '''\
def write_audit_entry(entry, stream):
    """Append one audit entry to the stream; rounding of timestamps is left to the caller."""
    stream.write(str(entry) + "\\n")
    stream.flush()
'''

BILLING = {
    "billing/__init__.py": "",
    "billing/lines.py": '"""Invoice lines."""\n' + "".join(_line_item(i) for i in range(14)),
    "billing/rounding.py": ROUNDING,
    "billing/audit.py": AUDIT,
}

TAX_ISSUE = {
    "id": "b-1",
    "title": "Invoice tax rounding is wrong",
    "description": "round_invoice_tax must round the invoice tax half up before the invoice total; "
                   "lines add their tax unrounded.",
}


@pytest.fixture(scope="module")
def billing(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("floor") / "repo", BILLING)


def _code_section(text: str) -> str:
    return text[text.index("CODE CONTEXT:\n"):text.index("\n\nOMITTED CONTEXT:")]


def _scores(prompt) -> dict[str, float]:
    return {f"{row['path']}::{row['symbol']}": row["score"] for row in prompt.code}


@pytest.fixture
def floor_at_pool_average(monkeypatch):
    """The floor at 0 (the pool's average): in a repository this small no definition lies two
    standard deviations under the average, so the default floor (-2) would cut nothing here."""
    monkeypatch.setattr(_pipeline, "CODE_FLOOR", 0.0)
    return 0.0


def test_the_default_floor_cuts_ranked_code_two_deviations_under_the_pool_average():
    """Gold definitions on dev rows scored down to -1.9 (docs/budget-and-selection.md): kept."""
    from noface_ctx._budget import above_floor
    from noface_ctx.datatypes import Candidate, Form

    def cand(path: str, score: float, required: bool = False) -> Candidate:
        return Candidate("code", path, "f", "f", (Form("full", "x", 1),), score, f"NEED_CODE: {path}",
                         required=required)

    kept, below = above_floor([cand("a.py", 0.4), cand("b.py", -1.9), cand("c.py", -2.0), cand("d.py", -3.5),
                               cand("e.py", -9.0, required=True)], CODE_FLOOR)
    assert CODE_FLOOR == -2.0
    assert [c.path for c in kept] == ["a.py", "b.py", "e.py"] and below == 2


@pytest.mark.parametrize("embed", [False, FakeEmbedder()], ids=["bm25", "fake-embedder"])
def test_a_weak_match_stays_out_even_with_a_huge_budget_and_the_prompt_says_why(billing, embed, floor_at_pool_average):
    CODE_FLOOR = floor_at_pool_average
    prompt = build_prompt(TAX_ISSUE, billing, budget=50000, embed=embed)
    shown = {(row["path"], row["symbol"]) for row in prompt.code}
    assert ("billing/rounding.py", "round_invoice_tax") in shown  # strongly related: still in
    assert not any(path == "billing/audit.py" for path, _ in shown)  # one shared word: below the floor
    assert "write_audit_entry" not in prompt.text
    assert all(not o.path.endswith("audit.py") for o in prompt.omitted)  # and not listed as omitted
    assert all(row["score"] > CODE_FLOOR for row in prompt.code if not row["required"])
    below = prompt.details["code_floor"]["below"]
    assert below > 0 and prompt.details["code_floor"]["score"] == CODE_FLOOR
    code = _code_section(prompt.text)
    assert code.endswith("\n\n" + floor_note(below))
    assert "evidence gets weak" in code
    assert prompt.tokens["total"] == count_tokens(prompt.text) <= 50000


def test_manifest_items_are_never_dropped_by_the_floor(billing, floor_at_pool_average):
    manifest = {"primary_files": ["billing/rounding.py"], "read_files": ["billing/audit.py"]}
    prompt = build_prompt(TAX_ISSUE, billing, budget=50000, embed=False, manifest=manifest)
    audit = [row for row in prompt.code if row["path"] == "billing/audit.py"]
    assert audit and all(row["required"] for row in audit)
    assert "def write_audit_entry(entry, stream):" in prompt.text


def test_no_floor_line_when_nothing_falls_below_it(billing):
    issue = {"id": "b-2", "title": "write_audit_entry flushes too often",
             "description": "write_audit_entry should not flush the stream after every audit entry."}
    prompt = build_prompt(issue, billing, budget=50000, embed=False)
    if prompt.details["code_floor"]["below"] == 0:
        assert "relevance floor" not in prompt.text
    else:
        assert _code_section(prompt.text).endswith(floor_note(prompt.details["code_floor"]["below"]))


def test_floor_note_wording():
    assert floor_note(0) == ""
    assert floor_note(1).startswith("[Code stops where the evidence gets weak: 1 weaker match, ranked below the code and pointers above, is ")
    assert floor_note(7) == FLOOR_NOTE.format(n=7, es="es", verb="are")


# --------------------------------------------------------------------------- grouping and outlines


def _filler(i: int) -> str:
    return f'''
    def format_label_{i}(self, value):
        """Unrelated helper {i}: a display label for a value."""
        text = str(value).strip()
        if len(text) > {i + 10}:
            text = text[:{i + 10}]
        return text.upper()
'''


CART = ('"""Shopping cart."""\n\n\nclass Cart:\n    """Items with quantities and a discount."""\n'
        + '''
    def __init__(self):
        self.items = {}
        self.discount = 0.0
''' + "".join(_filler(i) for i in range(40)) + '''
    def apply_discount(self, rate):
        """Set the cart discount rate; it must be clamped to [0, 1]."""
        self.discount = rate

    def total_price(self, prices):
        """The discounted total price of the cart."""
        total = sum(prices[sku] * n for sku, n in self.items.items())
        return total * (1 - self.discount)
''')

PRICING = '''\
"""Prices."""


def discount_total(total, rate):
    """Apply a discount rate to a total price."""
    return total * (1 - rate)


def clamp_rate(rate):
    """Clamp a discount rate to [0, 1]."""
    return min(1.0, max(0.0, rate))
'''

CART_ISSUE = {
    "id": "s-1",
    "title": "Cart discount rate is not clamped",
    "description": "Cart.apply_discount accepts a rate above 1, so Cart.total_price goes negative. "
                   "Clamp the discount rate with clamp_rate in apply_discount.",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("grouping") / "repo",
                     {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": PRICING})


BLOCK_HEAD = re.compile(r"^(\S+\.py)(?::(\d+)-(\d+))?  ", re.M)


def _blocks(text: str) -> list[tuple[str, int]]:
    """(path, start line) of each code block header in CODE CONTEXT, in prompt order."""
    return [(m.group(1), int(m.group(2) or 0)) for m in BLOCK_HEAD.finditer(_code_section(text))]


def assert_grouped(prompt) -> None:
    """Each file's blocks together, in line order, rows matching the text."""
    blocks = _blocks(prompt.text)
    assert blocks == [(row["path"], row["start_line"]) for row in prompt.code]
    paths = [p for p, _ in blocks]
    order = list(dict.fromkeys(paths))
    assert paths == sorted(paths, key=order.index)  # contiguous per file
    for path in order:
        starts = [s for p, s in blocks if p == path]
        assert starts == sorted(starts)


@pytest.mark.parametrize("embed", [False, FakeEmbedder()], ids=["bm25", "fake-embedder"])
def test_one_files_blocks_come_together_in_line_order_after_one_class_outline(shop, embed):
    prompt = build_prompt(CART_ISSUE, shop, budget=6000, embed=embed)
    assert_grouped(prompt)
    rows = [(row["path"], row["symbol"], row["form"]) for row in prompt.code]
    methods = [r for r in rows if r[1].startswith("Cart.")]
    assert ("shop/cart.py", "Cart.apply_discount", "full") in methods
    assert ("shop/cart.py", "Cart.total_price", "full") in methods
    outlines = [r for r in rows if r[2] in ("outline", CLASS_OUTLINE)]
    assert outlines == [("shop/cart.py", "Cart", outlines[0][2])]  # once, though several methods are shown
    assert rows.index(outlines[0]) < min(rows.index(m) for m in methods)  # before its methods
    assert ("shop/pricing.py", "clamp_rate", "full") in rows
    # The outline: the class line and docstring, the signatures that matter, the rest folded.
    text = _code_section(prompt.text)
    outline = text[text.index("shop/cart.py:4-"):]
    outline = outline[:outline.index("\n\n")]
    assert outline.splitlines()[0].startswith("shop/cart.py:4-") and "class Cart — outline" in outline
    assert "class Cart:" in outline and '"""Items with quantities and a discount."""' in outline
    assert "def apply_discount(self, rate):" in outline and "def total_price(self, prices):" in outline
    assert "self.discount = rate" not in outline  # no bodies
    assert outline.count("    def ") <= OUTLINE_MEMBERS  # the 40 unrelated helpers are folded, not listed
    assert "more members not listed" in outline and "NEED_CODE: shop/cart.py::Cart." in outline
    assert count_tokens(outline) <= RANKED_OUTLINE_TOKENS
    row = next(r for r in prompt.code if r["symbol"] == "Cart")
    assert row["tokens"] == count_tokens(outline)  # its tokens are counted like any block
    assert prompt.tokens["total"] == count_tokens(prompt.text) <= 6000


def test_an_outline_only_when_the_class_itself_is_not_shown(tmp_path):
    small = ('class Meter:\n    """A small meter."""\n\n    def reset_meter(self):\n        self.count = 0\n\n'
             '    def read_meter(self):\n        return self.count\n')
    repo = make_repo(tmp_path / "repo", {"meter.py": small})
    issue = {"id": "m-1", "title": "Meter is not thread safe",
             "description": "Two threads using one Meter lose counts: make the Meter class safe to share."}
    prompt = build_prompt(issue, repo, budget=4000, embed=False)
    assert [(row["symbol"], row["form"]) for row in prompt.code] == [("Meter", "full")]
    assert prompt.text.count("class Meter:") == 1
    # its methods scored below the floor, but they are shown inside the class: not counted as left out
    assert prompt.details["code_floor"]["below"] == 0 and "relevance floor" not in prompt.text

    issue = {"id": "m-2", "title": "Meter reset_meter and read_meter disagree",
             "description": "Meter.reset_meter should reset what Meter.read_meter returns."}
    prompt = build_prompt(issue, repo, budget=4000, embed=False)
    rows = [(row["symbol"], row["form"]) for row in prompt.code]
    # the methods rank above their class; an outline of so small a class would cost as much as the
    # class itself, so there is none, and the class block is not repeated
    assert rows == [("Meter.reset_meter", "full"), ("Meter.read_meter", "full")]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=1200, max_value=20000))
def test_any_budget_fits_with_outlines_and_grouping(shop, budget):
    prompt = build_prompt(CART_ISSUE, shop, budget=budget, embed=False)
    assert prompt.tokens["total"] == count_tokens(prompt.text) <= budget
    assert_grouped(prompt)
    outlines = [row for row in prompt.code if row["form"] == CLASS_OUTLINE]
    assert len(outlines) <= 1
    if outlines:  # only with a method of its class shown
        assert any(row["symbol"].startswith("Cart.") for row in prompt.code)


def test_final_count_drops_a_class_outline_first_unlisted_then_the_lowest_scored_item():
    from pathlib import Path

    from noface_ctx._pipeline import final_count
    from noface_ctx._render import NO_CODE, NO_DOCS, fixed_sections, render_prompt
    from noface_ctx.config import Config
    from noface_ctx.datatypes import Candidate, Chosen, Form, Issue, Selection

    def item(ref: str, score: float, n: int, label: str = "full", lines=(10, 20)) -> Chosen:
        text = f"a.py:{lines[0]}-{lines[1]}  {ref}\n" + "x = 1\n" * n
        cand = Candidate("code", "a.py", ref, ref, (Form(label, text, count_tokens(text)),), score,
                         f"NEED_CODE: a.py:{lines[0]}-{lines[1]}", start_line=lines[0], end_line=lines[1])
        return Chosen(cand, cand.forms[0])

    fixed = fixed_sections(Config(root=Path("/tmp/v")), Issue(id="v-1", title="t"), budget=2000)
    outline = item("Store", 0.9, 5, CLASS_OUTLINE, lines=(1, 90))
    chosen = (outline, item("Store.get", 0.9, 40, lines=(10, 20)), item("load", 0.5, 40, lines=(95, 99)))
    sel = Selection(docs=(), code=chosen, omitted=(), budget=0, docs_budget=0, code_budget=0)
    full = count_tokens(render_prompt(fixed, sel))
    packed = final_count(fixed, sel, full - 3, NO_DOCS, NO_CODE)  # a few tokens over: the outline goes, unlisted
    assert [c.candidate.ref for c in packed.selection.code] == ["Store.get", "load"]
    assert packed.dropped == () and packed.selection.omitted == ()
    assert [o.ref for o in packed.selection.skipped] == ["Store"]

    reordered = Selection(docs=(), code=(outline, item("Store.get", 0.2, 40), item("load", 0.5, 40, lines=(95, 99))),
                          omitted=(), budget=0, docs_budget=0, code_budget=0)
    budget = full - count_tokens(outline.form.text) - 60  # the outline and a method must go
    packed = final_count(fixed, reordered, budget, NO_DOCS, NO_CODE)
    assert count_tokens(packed.text) <= budget
    assert [c.candidate.ref for c in packed.selection.code] == ["load"]
    assert [o.ref for o in packed.dropped] == ["Store.get"]  # listed under OMITTED CONTEXT
    assert [o.ref for o in packed.selection.skipped] == ["Store"]
    assert "\n  NEED_CODE: a.py:10-20\n" in packed.text and "NEED_CODE: a.py:1-90" not in packed.text


REFUND = '''\
def apply_refund(order, amount):
    """Refund part of an order; the refunded total must never go negative."""
    if amount > order.total:
        raise ValueError("refund above the order total")
    order.total -= amount
    return refund_note(order, amount)


def refund_note(order, amount):
    """The line printed on the receipt for a refund."""
    return f"refund {amount} on {order.number}"
'''


def _report(i: int) -> str:
    return textwrap.dedent(f'''
        def weekly_summary_{i}(rows, stream):
            """Weekly report {i}: one line per row, totals at the bottom."""
            for row in rows:
                stream.write(str(row) + " {i}\\n")
            stream.write("total " + str(sum(r.amount for r in rows)))
        ''')


def test_files_with_weak_evidence_give_a_pointer_not_code(tmp_path, monkeypatch):
    from noface_ctx.rank import code_forms

    files = {"shop/__init__.py": "", "shop/refund.py": REFUND,
             **{f"reports/weekly_{i}.py": _report(i) for i in range(8)}}
    repo = make_repo(tmp_path / "repo", files)
    issue = {"id": "r-2", "title": "apply_refund lets the order total go negative",
             "description": "apply_refund subtracts the refund amount from the order total without checking; "
                            "a refund above the total leaves a negative amount on the receipt."}
    prompt = build_prompt(issue, repo, budget=6000, embed=False)
    ranked = prompt.details["ranked_files"]
    forms = {(r["path"], r["symbol"]): r for r in prompt.code}
    assert forms[("shop/refund.py", "apply_refund")]["form"] == "full"
    outer = [r for r in prompt.code if r["path"] in ranked[code_forms.LEAD_FILES:]]
    assert outer and all(r["form"] == "pointer" for r in outer if r["score"] <= code_forms.FIRST_EVIDENCE)
    weak = [r for r in outer if r["form"] == "pointer"]
    assert weak and all(f'" {r["symbol"][-1]}\\n"' not in prompt.text for r in weak)  # no line of their code
    assert prompt.tokens["total"] < 6000 // 2  # a prompt may stay well under its budget
    monkeypatch.setattr(code_forms, "FIRST_EVIDENCE", code_forms.POINTER_MIN)  # the bar is what kept them out
    shown = build_prompt(issue, repo, budget=6000, embed=False)
    assert {(r["path"], r["form"]) for r in shown.code if r["path"] == weak[0]["path"]} == {(weak[0]["path"], "full")}


def _long_refund_step(name: str, lines: int, doc: str = "Post a refund of an order to the ledger, step by step.") -> str:
    body = "".join(f"    order.total = order.total - amount * {k} / {lines}  # refund step {k} of the order total\n"
                   for k in range(lines))
    return f'def {name}(order, amount):\n    """{doc}"""\n{body}    return order\n'


def test_a_costly_definition_outside_the_best_file_comes_as_a_pointer(tmp_path, monkeypatch):
    from noface_ctx.rank import code_forms

    monkeypatch.setattr(code_forms, "SHARE_OF_BEST", float("-inf"))  # the size alone decides here (see test_code_pages)
    files = {"shop/__init__.py": "", "shop/refund.py": REFUND + "\n\n" + _long_refund_step(
        "settle_refund", 110, "Settle a refund apply_refund accepted: the order total must never go negative."),
             "shop/ledger.py": _long_refund_step("post_refund", 110)}
    repo = make_repo(tmp_path / "repo", files)
    issue = {"id": "r-3", "title": "apply_refund lets the order total go negative",
             "description": "apply_refund subtracts the refund amount from the order total without checking; "
                            "a refund above the total leaves a negative amount on the receipt."}
    prompt = build_prompt(issue, repo, budget=13000, embed=False)
    assert prompt.details["ranked_files"][:2] == ["shop/refund.py", "shop/ledger.py"]
    forms = {r["symbol"]: r for r in prompt.code}
    big = code_forms.BIG_SHARE * 13000
    # the best file's costly definition is shown; the weaker file's gives its NEED_CODE line, not its code
    assert forms["settle_refund"]["form"] == "full" and forms["settle_refund"]["tokens"] > big
    assert forms["post_refund"]["form"] == "pointer" and "NEED_CODE: shop/ledger.py::post_refund" in prompt.text
    assert "refund step 50 of the order total" not in prompt.text.split("shop/ledger.py")[1]
    # with a budget it is a small share of, or without the rule, the same definition is shown in full
    roomy = build_prompt(issue, repo, budget=60000, embed=False)
    assert {r["symbol"]: r["form"] for r in roomy.code}["post_refund"] == "full"
    monkeypatch.setattr(code_forms, "BIG_SHARE", 1.0)
    again = build_prompt(issue, repo, budget=13000, embed=False)
    assert {r["symbol"]: r["form"] for r in again.code}["post_refund"] == "full"


LEDGER = '''\
"""The refund ledger."""


def post_refund_entry(ledger, order, amount):
    """Post a refund of an order to the ledger: the order total and the refund amount."""
    ledger.append((order.number, order.total, -amount))
    return ledger


def refund_total_report(ledger, stream):
    """Print every refund amount of the ledger and the order total it was taken from."""
    for number, total, amount in ledger:
        stream.write(f"{number}: refund {amount} of order total {total}\\n")
'''

CLOSING = '''\
"""Closing the day."""


def post_refund_entry(ledger, order, amount):
    """Post a refund of an order to the ledger: the order total and the refund amount."""
    ledger.append((order.number, order.total, -amount))
    return ledger


def close_day(ledger, orders):
    """Close the business day: post every pending entry and archive the day's sheet."""
    for order in orders:
        post_refund_entry(ledger, order, order.pending)
    archive_sheet(ledger)


def archive_sheet(ledger):
    """Keep a copy of the sheet."""
    return list(ledger)
'''

NEGATIVE_REFUND = {"id": "r-4", "title": "apply_refund lets the order total go negative",
                   "description": "apply_refund subtracts the refund amount from the order total without checking; "
                                  "a refund above the order total leaves a negative amount."}


def _forms(prompt) -> dict[tuple[str, str], str]:
    return {(r["path"], r["symbol"]): r["form"] for r in prompt.code}


def test_a_weaker_file_sharing_only_words_with_the_issue_gives_its_best_definition_alone(tmp_path):
    """Budget to evidence: the second-ranked file matches the issue's words but nothing in the issue
    names it (no identifier, path, frame, line or message, no call link to a best match): its best
    definition is shown, its next one is a pointer. Once the issue names the file, both are shown."""
    files = {"shop/__init__.py": "", "shop/refund.py": REFUND, "shop/ledger.py": LEDGER,
             **{f"reports/weekly_{i}.py": _report(i) for i in range(8)}}
    repo = make_repo(tmp_path / "repo", files)
    prompt = build_prompt(NEGATIVE_REFUND, repo, budget=13000, embed=False)
    assert prompt.details["ranked_files"][:2] == ["shop/refund.py", "shop/ledger.py"]
    forms = _forms(prompt)
    assert forms[("shop/refund.py", "apply_refund")] == "full" and forms[("shop/refund.py", "refund_note")] == "full"
    ledger = [r for r in prompt.code if r["path"] == "shop/ledger.py"]
    assert [r["form"] for r in ledger].count("full") == 1 and [r["form"] for r in ledger].count("pointer") == 1
    pointed = next(r["symbol"] for r in ledger if r["form"] == "pointer")
    assert f"NEED_CODE: shop/ledger.py::{pointed}" in prompt.text
    assert prompt.tokens["total"] < 13000 // 2  # the room is not refilled with weaker code

    named = dict(NEGATIVE_REFUND, description=NEGATIVE_REFUND["description"] + " The ledger (shop/ledger.py) shows it.")
    again = _forms(build_prompt(named, repo, budget=13000, embed=False))
    assert {again[("shop/ledger.py", s)] for s in ("post_refund_entry", "refund_total_report")} == {"full"}


def test_a_callee_lifted_next_to_a_weaker_files_match_keeps_its_own_evidence(tmp_path):
    """The definitions one call away from a best match join it (`_add_near`). Outside the best-ranked
    file such a definition is shown only when its own score would show it: `archive_sheet`, which
    `close_day` calls, shares no word with the issue, so it is a pointer though the link lifted it
    above the bar; `close_day` itself matches the issue's words and is shown. In the best file the
    callee of the match (`refund_note`) is shown."""
    from noface_ctx.rank import code_forms

    files = {"shop/__init__.py": "", "shop/refund.py": REFUND, "shop/closing.py": CLOSING,
             **{f"reports/weekly_{i}.py": _report(i) for i in range(8)}}
    repo = make_repo(tmp_path / "repo", files)
    prompt = build_prompt(NEGATIVE_REFUND, repo, budget=13000, embed=False)
    assert prompt.details["ranked_files"][:2] == ["shop/refund.py", "shop/closing.py"]
    forms = _forms(prompt)
    assert forms[("shop/refund.py", "refund_note")] == "full"  # called by the best match, in the best file
    assert forms[("shop/closing.py", "post_refund_entry")] == "full" and forms[("shop/closing.py", "close_day")] == "full"
    row = next(r for r in prompt.code if r["symbol"] == "archive_sheet")
    assert row["form"] == "pointer" and row["score"] > code_forms.WEAK_EVIDENCE  # lifted, not shown
    assert "called by `close_day`" in row["reason"] and "return list(ledger)" not in prompt.text
    assert "NEED_CODE: shop/closing.py::archive_sheet" in prompt.text


def _refund_helper(i: int) -> str:
    words = " ".join(["refund order total"] * (14 - i))
    return f'def refund_helper_{i}(order, amount):\n    """{words}."""\n    return order.total - amount * {i}\n'


def test_below_the_first_page_of_files_a_file_gives_pointers_only(tmp_path, monkeypatch):
    """A deeper page of candidates goes in as one-line pointers: however well its best definition
    matches, a file ranked below the `PAGE_FILES` best gives its `NEED_CODE` line, not its code."""
    from noface_ctx.rank import code_forms

    files = {"shop/__init__.py": "", "shop/refund.py": REFUND,
             **{f"shop/helpers_{i}.py": _refund_helper(i) for i in range(14)},
             **{f"reports/weekly_{i}.py": _report(i) for i in range(8)}}
    repo = make_repo(tmp_path / "repo", files)
    prompt = build_prompt(NEGATIVE_REFUND, repo, budget=13000, embed=False)
    ranked = prompt.details["ranked_files"]
    deep = [r for r in prompt.code if r["path"] in ranked[code_forms.PAGE_FILES:]]
    assert deep and {r["form"] for r in deep} == {"pointer"}
    assert all(f"NEED_CODE: {r['path']}::{r['symbol']}" in prompt.text for r in deep)
    assert {r["form"] for r in prompt.code if r["path"] in ranked[:3]} >= {"full"}
    monkeypatch.setattr(code_forms, "PAGE_FILES", 100)  # the page is what kept their code out
    wide = build_prompt(NEGATIVE_REFUND, repo, budget=13000, embed=False)
    assert any(r["form"] == "full" for r in wide.code if r["path"] in ranked[code_forms.FIRST_PASS_FILES * 2:])
