"""Budget to evidence across the ranked files (issue 26): a file that earns less context gets a
cheaper form of it. A weaker file matching the issue by words alone, far under the best match,
opens with its best definition's signature and docstring (`brief`, with the line fetching the
body); so does each file of the second page (ranked 7-10); and only the three best-ranked files
lower their bars when the best match itself is weak."""

from __future__ import annotations

import textwrap

from conftest import make_repo, scan

from noface_ctx import build_prompt
from noface_ctx.code.index import CodeIndex
from noface_ctx.config import load_config
from noface_ctx.datatypes import Issue
from noface_ctx.rank import code_forms
from noface_ctx.rank.code_forms import ChunkRenderer, snippet_candidates
from noface_ctx.rank.code_lexical import CodeRun

REFUND = '''\
def apply_refund(order, amount):
    """Refund part of an order; the refunded total must never go negative."""
    if amount > order.total:
        raise ValueError("refund above the order total")
    order.total -= amount
    return order
'''

ISSUE = {"id": "p-1", "title": "apply_refund lets the order total go negative",
         "description": "apply_refund subtracts the refund amount from the order total without checking; "
                        "a refund above the order total leaves a negative amount."}


def _helper(i: int) -> str:
    """A helper sharing only words with the issue (fewer the higher `i`), with a body of twelve lines."""
    words = " ".join(["refund order total"] * (14 - i))
    body = "".join(f"    step_{k} = order.lines[{k}] * {i + k}  # line {k} of helper {i}\n" for k in range(12))
    return f'def refund_helper_{i}(order, amount):\n    """Helper {i}. Refund {words}."""\n{body}    return order.total - amount\n'


def _report(i: int) -> str:
    return f'def weekly_summary_{i}(rows, stream):\n    """Weekly report {i}: one line per row."""\n    stream.write(str(rows))\n'


def _shop(tmp_path, helpers: int = 14, reports: int = 8):
    """The best file, `helpers` files matching the issue's words ever more weakly, and `reports` that do not."""
    files = {"shop/__init__.py": "", "shop/refund.py": REFUND,
             **{f"shop/helpers_{i}.py": _helper(i) for i in range(helpers)},
             **{f"reports/weekly_{i}.py": _report(i) for i in range(reports)}}
    return make_repo(tmp_path / "repo", files)


def _by_rank(prompt) -> dict[int, dict]:
    ranked = prompt.details["ranked_files"]
    return {ranked.index(r["path"]): r for r in prompt.code if r["path"] in ranked}


def test_a_weaker_file_matching_by_words_far_under_the_best_opens_with_a_signature(tmp_path, monkeypatch):
    repo = _shop(tmp_path, helpers=3, reports=0)
    prompt = build_prompt(ISSUE, repo, budget=13000, embed=False)
    rows = _by_rank(prompt)
    assert rows[0]["symbol"] == "apply_refund" and rows[0]["form"] == "full"
    top = rows[0]["score"]
    second = rows[1]
    assert second["form"] == code_forms.BRIEF and second["score"] < code_forms.SHARE_OF_BEST * top
    assert not second["reason"]  # nothing in the issue names it: its words alone
    k = second["symbol"].rpartition("_")[2]
    text = prompt.text
    assert f"def refund_helper_{k}(order, amount):" in text and f'"""Helper {k}."""' in text  # the first sentence
    assert f"NEED_CODE: shop/helpers_{k}.py::refund_helper_{k}" in text  # how to get the body
    assert f"# line 3 of helper {k}" not in text and "refund order total refund" not in text
    monkeypatch.setattr(code_forms, "SHARE_OF_BEST", float("-inf"))  # the bar is what cut it to its signature
    whole = build_prompt(ISSUE, repo, budget=13000, embed=False)
    assert _by_rank(whole)[1]["form"] == "full" and f"# line 3 of helper {k}" in whole.text


def test_the_second_page_of_files_opens_with_signatures_and_deeper_files_give_pointers(tmp_path, monkeypatch):
    monkeypatch.setattr(code_forms, "SHARE_OF_BEST", float("-inf"))  # only the page decides here
    repo = _shop(tmp_path)
    prompt = build_prompt(ISSUE, repo, budget=13000, embed=False)
    rows = _by_rank(prompt)
    assert len(rows) > code_forms.PAGE_FILES
    assert {rows[n]["form"] for n in range(code_forms.CODE_FILES)} == {"full"}
    assert {rows[n]["form"] for n in range(code_forms.CODE_FILES, code_forms.PAGE_FILES)} == {code_forms.BRIEF}
    assert {r["form"] for n, r in rows.items() if n >= code_forms.PAGE_FILES} == {"pointer"}
    for n in range(code_forms.CODE_FILES, code_forms.PAGE_FILES):
        k = rows[n]["symbol"].rpartition("_")[2]
        assert f"# line 5 of helper {k}\n" not in prompt.text and f"NEED_CODE: shop/helpers_{k}.py::refund_helper_{k}" in prompt.text
    monkeypatch.setattr(code_forms, "CODE_FILES", code_forms.PAGE_FILES)
    wide = _by_rank(build_prompt(ISSUE, repo, budget=13000, embed=False))
    assert {wide[n]["form"] for n in range(code_forms.PAGE_FILES)} == {"full"}


def _two_defs(name: str) -> str:
    return textwrap.dedent(f'''\
        def {name}_open(order):
            """Open the {name} entry of an order."""
            entry = dict(order=order, kind="{name}")
            entry["state"] = "open"
            return entry


        def {name}_close(order):
            """Close the {name} entry of an order."""
            entry = dict(order=order, kind="{name}")
            entry["state"] = "closed"
            return entry
        ''')


def test_only_the_lead_files_lower_their_bars_when_the_best_match_is_weak(tmp_path):
    """With the best match at 2.5, anything above 0.5 is near it: the three best-ranked files show
    such further definitions; a file ranked lower needs `OUTER_EVIDENCE` as in any other pool."""
    names = ["ledger", "refund", "receipt", "audit", "report"]
    repo = make_repo(tmp_path / "repo", {f"shop/{n}.py": _two_defs(n) for n in names})
    config = load_config(repo)
    files = scan(repo)
    index = CodeIndex.build(files, config)
    run = CodeRun(Issue(id="p-3", title="ledger entries", description="ledger"), files, index, config)
    paths = [f"shop/{n}.py" for n in names]
    ids = {(index.path_of(i), index.symbol(i)): i for i in range(len(index.symbols())) if index.symbol(i)}
    score, reasons = {}, {}
    for rank, (path, name) in enumerate(zip(paths, names, strict=True)):
        score[ids[(path, f"{name}_open")]] = 2.5 - 0.3 * rank  # each file's best
        score[ids[(path, f"{name}_close")]] = 1.0  # under OUTER_EVIDENCE, within WEAK_GAP of the best
        reasons[ids[(path, f"{name}_open")]] = [f"names `{name}_open`"]  # every file has evidence of its own
    ranked = sorted(score, key=lambda i: -score[i])
    out, _ = snippet_candidates(run, ChunkRenderer(index), ranked, score, paths, set(), {}, reasons)
    forms = {(c.path, c.ref): c.forms[0].label for c in out}
    lead = [forms[(p, f"{n}_close")] for p, n in zip(paths, names, strict=True)][: code_forms.LEAD_FILES]
    lower = [forms[(p, f"{n}_close")] for p, n in zip(paths, names, strict=True)][code_forms.LEAD_FILES:]
    assert lead == ["full"] * code_forms.LEAD_FILES and lower == ["pointer"] * len(lower)


LEDGER = '''\
"""The refund ledger."""
import decimal

REFUND_ACCOUNT = "4100"  # where every refund of an order total is booked
NEGATIVE_TOTAL_MESSAGE = "a refund may not leave a negative order total"
ROUNDING = decimal.ROUND_HALF_UP


def post_refund(ledger, order, amount):
    """Book a refund of an order total on the refund account."""
    ledger.append((REFUND_ACCOUNT, order.number, -amount))
    return ledger
'''


def test_another_files_module_level_code_is_left_out_unless_the_issue_points_at_it(tmp_path):
    """Imports and constants of a file other than the best-ranked one share words with the issue,
    not evidence: the file opens with its definition instead, and the block is counted in the note
    closing CODE CONTEXT. When the issue quotes a line of it, the block is shown."""
    repo = make_repo(tmp_path / "repo", {"shop/__init__.py": "", "shop/refund.py": REFUND, "shop/ledger.py": LEDGER})
    prompt = build_prompt(ISSUE, repo, budget=13000, embed=False)
    ledger = [r for r in prompt.code if r["path"] == "shop/ledger.py"]
    assert [(r["symbol"], r["form"]) for r in ledger] == [("post_refund", "full")]
    assert 'REFUND_ACCOUNT = "4100"' not in prompt.text and "Code stops where the evidence gets weak" in prompt.text
    quoted = dict(ISSUE, description=ISSUE["description"] + ' The message is wrong:\n'
                  '    NEGATIVE_TOTAL_MESSAGE = "a refund may not leave a negative order total"')
    again = build_prompt(quoted, repo, budget=13000, embed=False)
    block = next(r for r in again.code if r["path"] == "shop/ledger.py" and not r["symbol"])
    assert block["form"] == "full" and "holds the issue's line" in block["reason"]
    assert 'REFUND_ACCOUNT = "4100"' in again.text
