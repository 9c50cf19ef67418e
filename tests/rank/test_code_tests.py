"""Tests beside the code, class outlines that earn their tokens, and pointers for weak evidence:
real git repositories, real tree-sitter, the whole pipeline."""

from __future__ import annotations

import re
import textwrap

import pytest
from conftest import make_repo

from noface_ctx import build_prompt
from noface_ctx._budget import MAX_POINTERS, select
from noface_ctx._tokens import count_tokens
from noface_ctx._wording import NOTHING_OMITTED
from noface_ctx.datatypes import Candidate, Form

PARSER = textwrap.dedent('''\
    """Reading message headers."""


    def parse_header(line):
        """Split one `Name: value` header line; the value keeps inner colons."""
        name, value = line.split(":")
        return name.strip().lower(), value.strip()


    def parse_headers(lines):
        """Every header of a message, until the first blank line."""
        out = {}
        for line in lines:
            if not line.strip():
                break
            name, value = parse_header(line)
            out[name] = value
        return out
    ''')

TEST_PARSER = textwrap.dedent('''\
    from mail.parser import parse_header, parse_headers


    def test_parse_header_lowercases_the_name():
        assert parse_header("Subject: hi") == ("subject", "hi")


    def test_parse_headers_stops_at_the_blank_line():
        assert parse_headers(["A: 1", "", "B: 2"]) == {"a": "1"}


    def test_parse_headers_empty():
        assert parse_headers([]) == {}
    ''')

TEST_OTHER = textwrap.dedent('''\
    def test_sending_retries_three_times():
        attempts = [1, 2, 3]
        assert len(attempts) == 3
    ''')

HEADER_ISSUE = {
    "id": "m-1",
    "title": "parse_header breaks on a value holding a colon",
    "description": "A header like `Date: 12:30` raises ValueError in parse_header: too many values to unpack. "
                   "The value should keep its inner colons.",
}


@pytest.fixture(scope="module")
def mail(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("tests-beside") / "repo", {
        "mail/__init__.py": "",
        "mail/parser.py": PARSER,
        "mail/send.py": "def send(message, retries=3):\n    \"\"\"Send a message.\"\"\"\n    return retries\n",
        "tests/test_parser.py": TEST_PARSER,
        "tests/test_send.py": TEST_OTHER,
    })


def test_the_test_beside_the_code_is_shown_with_a_pointer_to_its_file(mail):
    prompt = build_prompt(HEADER_ISSUE, mail, budget=6000, embed=False)
    rows = {(r["path"], r["symbol"]): r for r in prompt.code}
    shown = rows[("tests/test_parser.py", "test_parse_header_lowercases_the_name")]
    assert shown["form"] == "full" and "test beside the code: uses `parse_header`" in shown["reason"]
    assert 'assert parse_header("Subject: hi") == ("subject", "hi")' in prompt.text  # in full
    # the pointer: the test file's path, the other relevant tests, and the line fetching one
    pointer = next(r for r in prompt.code if r["form"] == "pointer" and r["path"] == "tests/test_parser.py")
    assert "goes with mail/parser.py" in pointer["reason"]
    line = next(ln for ln in prompt.text.splitlines() if ln.startswith("tests/test_parser.py — tests of"))
    assert "`parse_header`" in line and "test_parse_headers_stops_at_the_blank_line" in line
    assert re.search(r"^  NEED_CODE: tests/test_parser\.py::test_parse_headers_\w+$", prompt.text, re.M)
    # the tests come after the code they exercise, and an unrelated test file is not offered
    code = prompt.text[prompt.text.index("CODE CONTEXT:"):]
    assert code.index("mail/parser.py:") < code.index("tests/test_parser.py")
    assert "test_send.py" not in prompt.text
    # a small, explained share: the JSON says how much went to tests and what the share is
    beside = prompt.details["tests_beside_code"]
    tests = [r for r in prompt.code if r["path"].startswith("tests/")]
    assert beside["tokens"] == sum(r["tokens"] for r in tests) > 0
    assert beside["tokens"] <= beside["share"] * prompt.details["code_budget"] + 1
    assert prompt.tokens["total"] == count_tokens(prompt.text) <= 6000


def test_no_test_is_offered_without_evidence(tmp_path):
    repo = make_repo(tmp_path / "repo", {"mail/parser.py": PARSER, "tests/test_send.py": TEST_OTHER})
    prompt = build_prompt(HEADER_ISSUE, repo, budget=6000, embed=False)
    assert not any(r["path"].startswith("tests/") for r in prompt.code)
    assert "tests of" not in prompt.text


JSON_PROVIDER = textwrap.dedent('''\
    import json


    class JSONProvider:
        """Serialize data as JSON for responses.

        Subclasses change how values are encoded.
        """

        ensure_ascii = True
        """Escape non-ASCII characters."""

        sort_keys = True
        """Sort the keys of every dict. When enabled, keys must all be strings, they are not
        converted before sorting.
        """

        indent: int | None = None
        mimetype = "application/json"

        def dumps(self, obj, **kwargs):
            """Serialize `obj` to a JSON string, with this provider's defaults."""
            kwargs.setdefault("sort_keys", self.sort_keys)
            kwargs.setdefault("ensure_ascii", self.ensure_ascii)
            return json.dumps(obj, **kwargs)

    ''') + "".join(textwrap.indent(textwrap.dedent(f'''\
        def helper_{i}(self, value):
            """Unrelated helper {i}: formats a value for a log line."""
            text = str(value)
            if len(text) > 40:
                text = text[:40]
            return "helper {i}: " + text

    '''), "    ") for i in range(30))

SORT_ISSUE = {
    "id": "j-1",
    "title": "dumps sorts keys and fails on mixed key types",
    "description": "JSONProvider.dumps raises TypeError for {1: 'a', 'b': 2} because the keys are sorted. "
                   "Sorting should be possible to turn off.",
}


def test_a_class_outline_holds_its_docstring_attributes_and_the_methods_that_matter(tmp_path):
    repo = make_repo(tmp_path / "repo", {"web/provider.py": JSON_PROVIDER})
    prompt = build_prompt(SORT_ISSUE, repo, budget=3000, embed=False)
    rows = {r["symbol"]: r for r in prompt.code}
    assert rows["JSONProvider.dumps"]["form"] == "full"
    outline = next(b for b in prompt.text.split("\n\n") if "class JSONProvider — outline" in b)
    assert '"""Serialize data as JSON for responses."""' in outline  # first paragraph only
    assert "Subclasses change" not in outline
    assert "sort_keys = True" in outline and "keys must all be strings" in outline  # the issue touches it
    assert "ensure_ascii = True" in outline and 'mimetype = "application/json"' in outline
    assert "indent: int | None = None" in outline
    assert "def helper_" not in outline  # unrelated methods are folded ...
    assert re.search(r"\d+ more members not listed \(.*helper_\d+.*\); fetch one by name, e\.g\. "
                     r"NEED_CODE: web/provider\.py::JSONProvider\.\w+", outline)  # ... to a count and one line
    cls = JSON_PROVIDER[JSON_PROVIDER.index("class JSONProvider"):]
    assert count_tokens(outline) < count_tokens(cls)  # never more than what it stands for


def _cand(ref: str, score: float, tokens: int, label: str = "full", lines: tuple[int, int] = (1, 5)) -> Candidate:
    text = " ".join(["word"] * tokens)
    form = Form(label, text, count_tokens(text))
    return Candidate("code", "a.py", ref, ref, (form,), score, f"NEED_CODE: a.py::{ref}",
                     start_line=lines[0], end_line=lines[1])


def test_an_outline_never_crowds_a_ranked_definition_out():
    first = _cand("Store.put", 2.0, 300, lines=(50, 80))
    second = _cand("Store.get", 1.0, 300, lines=(20, 40))
    outline = _cand("Store", 2.0, 200, label="class-outline", lines=(10, 90))
    room = first.forms[0].tokens + second.forms[0].tokens + 8  # both methods, not the outline too
    sel = select([], [first, second], available=room, docs_share=0.0, max_docs=0, outlines=[outline])
    assert [c.candidate.ref for c in sel.code] == ["Store.get", "Store.put"]
    sel = select([], [first, second], available=room + 220, docs_share=0.0, max_docs=0, outlines=[outline])
    assert [c.candidate.ref for c in sel.code] == ["Store", "Store.get", "Store.put"]  # from what is left


def test_weak_matches_become_one_line_pointers_and_the_rest_is_counted(tmp_path):
    strong = ("def apply_refund(order, amount):\n    \"\"\"Refund part of an order; the total must not go negative.\"\"\"\n"
              "    return order.total - amount\n")
    related = "".join(f"\ndef order_total_{i}(order):\n    \"\"\"Total of order part {i}.\"\"\"\n    return order.total * {i}\n"
                      for i in range(3))
    weak = "".join(f"\ndef audit_entry_{i}(record):\n    \"\"\"Write audit entry {i} for a record.\"\"\"\n"
                   f"    return 'entry {i}: ' + str(record) + ' ' * {i}\n" for i in range(30))
    repo = make_repo(tmp_path / "repo", {"shop/refund.py": strong + related + weak})
    issue = {"id": "r-1", "title": "apply_refund goes negative",
             "description": "apply_refund returns a negative order total when the refund amount is above the order total."}
    prompt = build_prompt(issue, repo, budget=3000, embed=False)
    forms = {r["symbol"]: r["form"] for r in prompt.code}
    assert forms["apply_refund"] == "full" and forms["order_total_1"] == "full"  # evidence: shown
    pointed = [s for s, f in forms.items() if f == "pointer"]
    assert pointed and all(s.startswith("audit_entry_") for s in pointed) and len(pointed) <= MAX_POINTERS
    lines = [ln for ln in prompt.text.splitlines() if " — not shown; NEED_CODE: " in ln]
    assert len(lines) == len(pointed)
    for ln in lines:  # path, lines, signature, and the line that fetches it
        assert re.match(r"^shop/refund\.py:\d+-\d+  def audit_entry_\d+\(record\): — not shown; "
                        r"NEED_CODE: shop/refund\.py::audit_entry_\d+$", ln)
    assert "audit entry 20" not in prompt.text  # no code of the weak ones
    below = prompt.details["code_floor"]["below"]
    assert below == 30 - len(pointed)  # the weak ones not pointed to are counted in the closing note
    assert f"{below} weaker matches" in prompt.text
    assert count_tokens(prompt.text) <= 3000


def test_nothing_left_out_is_said_only_when_nothing_was(tmp_path):
    from noface_ctx._render import fixed_sections, render_prompt
    from noface_ctx.config import Config
    from noface_ctx.datatypes import Issue

    fixed = fixed_sections(Config(root=tmp_path), Issue(id="v-1", title="t"), budget=2000)

    strong = _cand("apply_refund", 3.0, 100, lines=(1, 5))
    weak = _cand("order_note", -0.5, 400, lines=(10, 40))  # below the listing bar, and too big for the room
    sel = select([], [strong, weak], available=180, docs_share=0.0, max_docs=0, list_code_above=0.0)
    assert [c.candidate.ref for c in sel.code] == ["apply_refund"] and not sel.omitted
    assert sel.unlisted == 1  # a weak match was left out: counted, not hidden
    section = render_prompt(fixed, sel)
    assert NOTHING_OMITTED not in section and "1 more item left out and not listed here" in section
    sel = select([], [strong], available=180, docs_share=0.0, max_docs=0, list_code_above=0.0)
    assert NOTHING_OMITTED in render_prompt(fixed, sel)  # and when nothing was, it says so


def test_a_runner_up_test_file_is_one_pointer_naming_the_test_it_fetches(tmp_path):
    """The best test file's pointer lists its other relevant tests; a runner-up file's pointer is one
    line naming only the test its `NEED_CODE` line fetches (a second list would cost tokens for a
    weaker file)."""
    extra = textwrap.dedent('''\
        from mail.parser import parse_header


        def test_mailbox_subject_line():
            assert parse_header("Subject: hi")[1] == "hi"


        def test_mailbox_sender_line():
            assert parse_header("From: bob")[0] == "from"


        def test_mailbox_reply_line():
            assert parse_header("Reply-To: ann")[1] == "ann"
        ''')
    repo = make_repo(tmp_path / "repo", {"mail/__init__.py": "", "mail/parser.py": PARSER,
                                         "tests/test_parser.py": TEST_PARSER, "tests/test_mailbox.py": extra})
    prompt = build_prompt(HEADER_ISSUE, repo, budget=6000, embed=False)
    lines = prompt.text.splitlines()
    best = next(ln for ln in lines if ln.startswith("tests/test_parser.py — tests of"))
    assert "other relevant tests: " in best and best.count("(") >= 2
    # one line: the test's lines, what it tests, and the request fetching it (its name said once)
    runner = next(ln for ln in lines if ln.startswith("tests/test_mailbox.py:"))
    fetched = re.fullmatch(r"tests/test_mailbox\.py:(\d+)-(\d+) — a test of `parse_header`; "
                           r"NEED_CODE: tests/test_mailbox\.py::(test_\w+)", runner)
    assert fetched and runner.count("test_mailbox_") == 1  # the other two are not listed
    source = extra.splitlines()
    assert source[int(fetched.group(1)) - 1] == f"def {fetched.group(3)}():"


def test_no_test_is_shown_in_full_when_two_test_files_are_about_as_likely(tmp_path, monkeypatch):
    """Which test file goes with the fix is unclear when the runner-up's evidence is close to the
    best's (`LEADS_BY`): both come as pointers naming their relevant tests, none in full."""
    from noface_ctx.rank import code_tests

    files = {"mail/__init__.py": "", "mail/parser.py": PARSER,  # two test files with the same evidence
             "tests/test_inbox.py": TEST_PARSER, "tests/test_outbox.py": TEST_PARSER + "\n\n# the outbox's copy\n"}
    repo = make_repo(tmp_path / "repo", files)
    prompt = build_prompt(HEADER_ISSUE, repo, budget=6000, embed=False)
    tests = [r for r in prompt.code if r["path"].startswith("tests/")]
    assert {r["path"] for r in tests} == {"tests/test_inbox.py", "tests/test_outbox.py"}
    assert {r["form"] for r in tests} == {"pointer"}
    assert 'assert parse_header("Subject: hi")' not in prompt.text
    assert re.search(r"^  NEED_CODE: tests/test_(inbox|outbox)\.py::test_parse_header_lowercases_the_name$",
                     prompt.text, re.M)
    monkeypatch.setattr(code_tests, "LEADS_BY", float("inf"))  # the closeness is what held them back
    shown = build_prompt(HEADER_ISSUE, repo, budget=6000, embed=False)
    assert any(r["form"] == "full" for r in shown.code if r["path"].startswith("tests/"))


CODEC = textwrap.dedent('''\
    """Writing records as JSON text."""
    import json


    class Encoder:
        """Turns records into JSON text; keys must all be strings."""

        sort_keys = True

        def dumps(self, obj):
            return json.dumps(obj, sort_keys=self.sort_keys)


    def encode(obj):
        """The JSON text of `obj`."""
        return Encoder().dumps(obj)
    ''')

TEST_CODEC = textwrap.dedent('''\
    from store.codec import Encoder, encode


    def test_encode_basic_types():
        for value in (1, "a", None, 2.5):
            assert encode(value)


    def test_encode_nested_dicts():
        assert encode({"a": {"b": 1}}) == '{"a": {"b": 1}}'


    def test_encode_lists():
        assert encode([1, 2]) == "[1, 2]"


    def test_codec_NAME():
        text = encode({"b": 1, "a": 2})
        assert text.index('"a"') < text.index('"b"')  # the keys come sorted
        assert Encoder.sort_keys
    ''')

TEST_API = textwrap.dedent('''\
    from store.codec import encode


    def test_encode_response_body():
        assert encode({"ok": True}) == '{"ok": true}'


    def test_encode_error_body():
        assert encode({"error": "x"})


    def test_encode_empty_body():
        assert encode({}) == "{}"
    ''')

MIXED_KEYS_ISSUE = {
    "id": "s-1",
    "title": "encode fails when a dict has keys of mixed types",
    "description": "`encode({1: 'a', 'b': 2})` raises TypeError because the encoder sorts keys. Sorting should "
                   "not crash on mixed key types, or the sorting option should be easy to turn off.\n\n"
                   "```\nTraceback (most recent call last):\n  File \"store/codec.py\", line 12, in dumps\n"
                   "TypeError: '<' not supported between instances of 'str' and 'int'\n```",
}


@pytest.mark.parametrize("name", ["key_sorting", "roundtrip"])
def test_the_test_named_with_the_issues_words_leads_its_file(tmp_path, name):
    """Three tests named after `encode` and one named after what the issue describes (key sorting),
    whose body matches the issue best: that one leads its file, and is shown in full although
    another test file is about as likely, its file being named after the module. Named otherwise
    (`test_codec_roundtrip`), it is one test among others and the close runner-up holds every test
    back as a pointer."""
    repo = make_repo(tmp_path / "repo", {"store/__init__.py": "", "store/codec.py": CODEC,
                                         "tests/test_codec.py": TEST_CODEC.replace("NAME", name),
                                         "tests/test_store_api.py": TEST_API})
    prompt = build_prompt(MIXED_KEYS_ISSUE, repo, budget=6000, embed=False)
    tests = [r for r in prompt.code if r["path"].startswith("tests/")]
    assert {r["path"] for r in tests} == {"tests/test_codec.py", "tests/test_store_api.py"}
    full = [r for r in tests if r["form"] == "full"]
    line = next(ln for ln in prompt.text.splitlines() if ln.startswith("tests/test_codec.py — tests of"))
    if name == "key_sorting":
        assert [r["symbol"] for r in full] == ["test_codec_key_sorting"]
        assert "named with the issue's words key, sorting" in full[0]["reason"]
        assert "assert text.index('\"a\"') < text.index('\"b\"')" in prompt.text  # in full
        assert "shown below: test_codec_key_sorting" in line and "test_encode_nested_dicts" in line
    else:  # (a test may still come as a ranked definition, not as the test beside the code)
        assert not [r for r in full if r["reason"].startswith("test beside the code")]
        assert "relevant tests: test_encode_" in line  # the tests named after `encode` come first
