"""Tests found by their place (`rank/test_names.py` weighed by `rank/code_tests.py`): named after
the package a module sits in, in the tests folder mirroring the module's folder, named with the
issue title's words, and never a same-named test inside another package. Real git repository,
real tree-sitter, the whole pipeline."""

from __future__ import annotations

import re
import textwrap

import pytest
from conftest import make_repo

from noface_ctx import build_prompt

EXPLAIN = textwrap.dedent('''\
    def format_explanation(text):
        """Render an assertion's explanation: every line after the first is indented."""
        first, *rest = text.split("\\n")
        return "\\n".join([first, *("  " + line for line in rest)])
    ''')

WRITER = textwrap.dedent('''\
    def serialize_value(value):
        """The source text of a value written into a migration file."""
        if isinstance(value, set):
            return "{" + ", ".join(serialize_value(v) for v in value) + "}"
        return repr(value)
    ''')

FITS_UTIL = textwrap.dedent('''\
    def decode_card(raw):
        """One header card: its keyword and value, from the 80 raw bytes."""
        keyword, _, value = raw.partition("=")
        return keyword.strip(), value.strip()
    ''')

ORDERS = textwrap.dedent('''\
    class Order:
        """A customer's order."""

        def save(self, using=None):
            """Write the order; a proxy class saves through its concrete parent."""
            return using
    ''')


def _tests_of(name: str, body: str) -> str:
    return f"def {name}():\n    {body}\n"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("test-names") / "repo", {
        "shop/__init__.py": "",
        "shop/assertion/__init__.py": "",
        "shop/assertion/explain.py": EXPLAIN,
        "shop/db/__init__.py": "",
        "shop/db/migrations/__init__.py": "",
        "shop/db/migrations/writer.py": WRITER,
        "shop/io/__init__.py": "",
        "shop/io/fits/__init__.py": "",
        "shop/io/fits/util.py": FITS_UTIL,
        "shop/orders.py": ORDERS,
        # named after the package `assertion`, calling nothing the issue names
        "testing/test_assertion.py": _tests_of("test_multiline_message_is_indented",
                                               'assert run_pytest("-x").lines[1].startswith("  ")'),
        # both call `serialize_value`; only the first sits in the folder mirroring `shop/db/migrations`
        "tests/migrations/test_values.py": _tests_of("test_set_is_written_sorted", 'assert serialize_value({2, 1}) == "{1, 2}"'),
        "tests/orders_app/test_values.py": _tests_of("test_set_round_trips", "assert serialize_value({3}) == '{3}'"),
        # named after `util`: one beside the module's package, one inside another package
        "shop/io/fits/tests/test_util.py": _tests_of("test_card_with_blank_value", 'assert read_header("A =")'),
        "shop/modeling/tests/test_util.py": _tests_of("test_tree_is_flattened", "assert flatten([[1]]) == [1]"),
        # a test app named after the issue title's words, calling nothing the issue names
        "tests/proxy_models/tests.py": _tests_of("test_proxy_keeps_parent_table", 'assert table_of("ProxyOrder") == "order"'),
        "tests/billing/tests.py": _tests_of("test_invoice_total", "assert total([1, 2]) == 3"),
        # named with two of the title's words glued (`Order.save` → `ordersave`)
        "tests/test_ordersave.py": _tests_of("test_saving_twice_keeps_one_row", 'assert rows_after("write", "write") == 1'),
    })


def test_a_test_file_named_after_the_modules_package_goes_with_it(shop):
    issue = {"id": "s-1", "title": "format_explanation drops the indent of the third line",
             "description": "With a three-line message, format_explanation indents the second line only."}
    prompt = build_prompt(issue, shop, budget=6000, embed=False)
    shown = {r["path"]: r for r in prompt.code}
    assert "testing/test_assertion.py" in shown
    assert "goes with shop/assertion/explain.py" in shown["testing/test_assertion.py"]["reason"]
    assert re.search(r"NEED_CODE: testing/test_assertion\.py::test_multiline_message_is_indented", prompt.text)


def test_the_tests_folder_mirroring_the_modules_folder_comes_first(shop):
    issue = {"id": "s-2", "title": "serialize_value writes a set in a random order",
             "description": "Two runs of makemigrations write serialize_value({2, 1}) differently."}
    prompt = build_prompt(issue, shop, budget=6000, embed=False)
    beside = [r for r in prompt.code if r["reason"].startswith("test beside the code")]
    assert beside[0]["path"] == "tests/migrations/test_values.py"  # the best test file: its pointer, its test in full
    assert [r["form"] for r in beside[:2]] == ["pointer", "full"]
    assert "goes with shop/db/migrations/writer.py" in beside[1]["reason"]


def test_a_same_named_test_inside_another_package_is_not_offered(shop):
    issue = {"id": "s-3", "title": "decode_card loses the value of a card without a comment",
             "description": "decode_card returns an empty value for `DATE = 2020`."}
    prompt = build_prompt(issue, shop, budget=6000, embed=False)
    paths = {r["path"] for r in prompt.code}
    assert "shop/io/fits/tests/test_util.py" in paths
    assert "shop/modeling/tests/test_util.py" not in paths and "shop/modeling" not in prompt.text


def test_a_test_app_named_with_the_issue_titles_words_is_pointed_at(shop):
    issue = {"id": "s-4", "title": "Order.save crashes on proxy models",
             "description": "Saving an instance of a proxy of Order raises AttributeError in save()."}
    prompt = build_prompt(issue, shop, budget=6000, embed=False)
    rows = [r for r in prompt.code if r["path"] == "tests/proxy_models/tests.py"]
    assert rows and ("NEED_CODE: tests/proxy_models/tests.py::test_proxy_keeps_parent_table" in prompt.text
                     or rows[0]["form"] == "full")  # pointed at, or shown (then its pointer would repeat it)
    assert re.search(r"NEED_CODE: tests/test_ordersave\.py::test_saving_twice_keeps_one_row", prompt.text)
    assert "tests/billing/tests.py" not in prompt.text  # named with no word of the title


def test_a_test_name_carries_the_issues_own_words_not_its_tracebacks_or_the_codes_names():
    from noface_ctx.rank.test_names import issue_named, prose_words

    said = prose_words("jsonify fails when a dict has keys of mixed types",
                       "The provider sorts keys.\n\n```\nFile \"app/cli.py\", line 3, in run_command\n```\n"
                       "    stdin_reader = open_stream()\nSorting should not crash.")
    assert {"keys", "sorts", "sorting", "dict"} <= said and not {"run_command", "stdin", "stream"} & said
    code = frozenset({"jsonify", "json", "default", "provider"})
    assert issue_named("test_json_key_sorting", said, code) == ("key", "sorting")  # json: the code's own name
    assert issue_named("TestJSON.testKeySorting", said, code) == ("key", "sorting")
    assert issue_named("test_jsonify_dicts", said, code) == ("dicts",)
    assert issue_named("test_cli_stdin_command", said, code) == ()  # words only a traceback said
