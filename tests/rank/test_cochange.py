"""Tests found by history (`rank/cochange.py`, weighed in `rank/code_tests.py`): the test file that
changed in the same commits as the module the issue is about is pointed at, though its name and
its code say nothing of that module; without history (a tree from `git archive`) it is not.
Real git repositories with real commits, the whole pipeline."""

from __future__ import annotations

import re
import shutil
import textwrap

from conftest import commit, make_repo, write_tree

from noface_ctx import build_prompt

RATES = textwrap.dedent('''\
    def convert(amount, rate):
        """An amount in another currency, rounded to cents."""
        return round(amount * rate, {digits})
    ''')

# a test named after no module and calling nothing of the package: through the web client
TEST_PRICING = textwrap.dedent('''\
    def test_price_in_euros_is_rounded(client):
        assert client.get("/price?currency=EUR&amount=1.005").json() == {expected}
    ''')

ISSUE = {"id": "r-1", "title": "convert rounds half a cent down",
         "description": "convert(1.005, 1.0) gives 1.0; amounts in another currency should round half a cent up."}


def _shop(root):
    make_repo(root, {
        "shop/__init__.py": "",
        "shop/rates.py": RATES.format(digits=2),
        "shop/checkout.py": "from shop.rates import convert\n\n\ndef total_in(currency, amounts):\n"
                            "    \"\"\"The sum of `amounts` in `currency`.\"\"\"\n    return sum(convert(a, 1.0) for a in amounts)\n",
        "tests/test_pricing.py": TEST_PRICING.format(expected=1.0),
        "tests/test_catalog.py": "def test_listing_is_sorted():\n    assert sorted([2, 1]) == [1, 2]\n",
    })
    for n, (digits, expected) in enumerate([(3, 1.005), (2, 1.0), (4, 1.005)]):  # fixed together, three times
        write_tree(root, {"shop/rates.py": RATES.format(digits=digits),
                          "tests/test_pricing.py": TEST_PRICING.format(expected=expected)})
        commit(root, f"rates: rounding, take {n}")
    write_tree(root, {"tests/test_catalog.py": "def test_listing_is_sorted():\n    assert sorted([3, 1]) == [1, 3]\n"})
    commit(root, "catalog test")
    return root


def test_a_test_file_changed_with_the_module_is_pointed_at(tmp_path):
    repo = _shop(tmp_path / "repo")
    prompt = build_prompt(ISSUE, repo, budget=6000, embed=False)
    rows = [r for r in prompt.code if r["path"] == "tests/test_pricing.py"]
    assert rows, "the co-changed test file is offered"
    assert any("goes with shop/rates.py" in r["reason"] for r in rows)
    assert re.search(r"NEED_CODE: tests/test_pricing\.py::test_price_in_euros_is_rounded", prompt.text)
    assert "tests/test_catalog.py" not in prompt.text  # changed, but never with `shop/rates.py`
    again = build_prompt(ISSUE, repo, budget=6000, embed=False)
    assert again.text == prompt.text  # the first build (history indexed meanwhile) and the next agree


def test_without_history_the_signal_is_off(tmp_path):
    repo = _shop(tmp_path / "repo")
    shutil.rmtree(repo / ".git")  # as `git archive` leaves it
    prompt = build_prompt(ISSUE, repo, budget=6000, embed=False)
    assert "tests/test_pricing.py" not in prompt.text
