"""NEED_CODE / NEED_DOC lines: the grammar, the input formats (text, stream JSON), what is refused and why."""

from __future__ import annotations

import json

import pytest
from conftest import assistant_event, stream_jsonl, tool_use_and_result

from noface_ctx.signals.parse import parse_line, parse_signals, parse_signals_detailed
from noface_ctx.signals.values import Request


def one(text: str) -> Request:
    found = parse_signals(text)
    assert len(found) == 1, found
    return found[0]


def rejected(text: str) -> Request:
    result = parse_signals_detailed(text)
    assert not result.requests, result.requests
    assert len(result.rejected) == 1, result.rejected
    return result.rejected[0]


# --------------------------------------------------------------------------- grammar


def test_plain_path():
    r = one("NEED_CODE: src/app.py")
    assert (r.kind, r.path, r.target, r.start, r.end, r.symbol) == ("code", "src/app.py", "src/app.py", None, None, "")
    assert r.line == 1 and r.raw == "NEED_CODE: src/app.py"
    assert r.signal == "NEED_CODE: src/app.py"


def test_line_range_and_single_line_and_github_style():
    r = one("NEED_CODE: src/app.py:12-40")
    assert (r.path, r.start, r.end, r.target) == ("src/app.py", 12, 40, "src/app.py:12-40")
    r = one("NEED_CODE: src/app.py:7")
    assert (r.start, r.end, r.target) == (7, 7, "src/app.py:7-7")
    r = one("NEED_CODE: src/app.py#L3-L9")
    assert (r.path, r.start, r.end) == ("src/app.py", 3, 9)


def test_symbol_forms():
    r = one("NEED_CODE: src/app.py::Service.handle")
    assert (r.path, r.symbol, r.target) == ("src/app.py", "Service.handle", "src/app.py::Service.handle")
    assert one("NEED_CODE: lib.rs::Parser::parse").symbol == "Parser.parse"
    assert one("NEED_CODE: a.py::main()").symbol == "main"


def test_doc_forms():
    r = one("NEED_DOC: auth-design")
    assert (r.kind, r.path, r.heading, r.target) == ("doc", "auth-design", "", "auth-design")
    r = one("NEED_DOC: docs/auth.md")
    assert r.path == "docs/auth.md"
    r = one("NEED_DOC: auth-design#Token refresh")
    assert (r.path, r.heading, r.target) == ("auth-design", "Token refresh", "auth-design#Token refresh")


@pytest.mark.parametrize(
    "line",
    [
        "NEED_CODE: `src/app.py`",
        'NEED_CODE: "src/app.py"',
        "NEED_CODE: 'src/app.py'",
        "NEED_CODE: ./src/app.py",
        "NEED_CODE: src//./app.py",
        "   NEED_CODE: src/app.py   ",
        "\tNEED_CODE:src/app.py",
        "- NEED_CODE: src/app.py",
        "2. NEED_CODE: src/app.py",
        "**NEED_CODE:** src/app.py",
        "`NEED_CODE: src/app.py`",
        "NEED_CODE: src/app.py.",
        "NEED_CODE: src/app.py — it holds the handler",
        "NEED_CODE: src/app.py to see how requests are routed",
    ],
)
def test_decorations_and_normalisation(line):
    r = one(line)
    assert (r.path, r.target) == ("src/app.py", "src/app.py")


def test_doc_target_stops_at_a_trailing_comment():
    assert one("NEED_DOC: auth-design (for the token rules)").target == "auth-design"
    assert one("NEED_DOC: auth-design#Token refresh — the expiry rules").heading == "Token refresh"


def test_duplicates_are_merged_first_occurrence_kept():
    text = "NEED_CODE: src/app.py\nNEED_CODE: ./src/app.py\nNEED_CODE: `src/app.py`\nNEED_DOC: a#X\nNEED_DOC: a#x\n"
    found = parse_signals(text)
    assert [r.target for r in found] == ["src/app.py", "a#X"]
    assert found[0].line == 1


def test_mid_line_mentions_are_not_requests():
    text = (
        "I could write NEED_CODE: src/app.py but I don't need it.\n"
        "The protocol uses `NEED_CODE:` lines.\n"
        "> NEED_CODE: quoted/from/someone.py\n"
        "need_code: lower/case.py\n"
        "NEED_CODES: x.py\n"
    )
    result = parse_signals_detailed(text)
    assert result.requests == () and result.rejected == ()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('NEED_CODE: {"path": "src/app.py"}', "JSON"),
        ('NEED_CODE: src/app.py"}]', "JSON"),
        ("NEED_CODE: [src/app.py]", "JSON"),
        ("NEED_CODE: <path>", "placeholder"),
        ("NEED_DOC: <slug>#<heading>", "placeholder"),
        ("NEED_CODE: path/to/...", "placeholder"),
        ("NEED_CODE: src/*.py", "wildcard"),
        ("NEED_CODE: src\\\\app.py", "backslash"),
        ("NEED_CODE:", "empty"),
        ("NEED_CODE: ``", "empty"),
        ("NEED_DOC: #heading", "before '#'"),
        ("NEED_CODE: src/app.py:40-12", "range"),
        ("NEED_CODE: src/app.py::", "symbol"),
        ("NEED_CODE: https://example.com/a.py", "URL"),
        ("NEED_CODE: ../../etc/passwd", "'..'"),
        ("NEED_CODE: src/../../outside.py", "'..'"),
        ("NEED_CODE: /etc/passwd", "absolute"),
        ("NEED_CODE: ~/.ssh/id_rsa", "absolute"),
        ("NEED_CODE: C:/Windows/system.ini", "absolute"),
        ("NEED_DOC: ../secrets.md", "'..'"),
    ],
)
def test_junk_and_escaping_targets_are_rejected_with_a_reason(line, why):
    bad = rejected(line)
    assert why.lower() in bad.error.lower()
    assert bad.path == "" and not bad.ok and bad.raw == line


def test_dotdot_inside_a_name_is_fine():
    assert one("NEED_CODE: src/a..b.py").path == "src/a..b.py"


def test_parse_result_to_dict_is_json():
    result = parse_signals_detailed("NEED_CODE: a.py:1-2\nNEED_CODE: ../x\n")
    data = json.loads(json.dumps(result.to_dict()))
    assert data["format"] == "text"
    assert data["requests"][0]["request"] == "NEED_CODE: a.py:1-2"
    assert data["requests"][0]["start"] == 1
    assert data["rejected"][0]["line"] == 2 and "'..'" in data["rejected"][0]["error"]


def test_parse_line_returns_none_for_prose():
    assert parse_line("hello") is None
    assert parse_line("NEED_CODE: a.py", 7).line == 7


def test_bytes_and_crlf_and_bom():
    found = parse_signals("\ufeffNEED_CODE: a.py\r\nNEED_DOC: b\r\n".encode())
    assert [r.target for r in found] == ["a.py", "b"]
    assert parse_signals(b"\xff\xfeNEED_CODE: a.py\n\xc3") == []  # BOM-less garbage before the keyword


# --------------------------------------------------------------------------- stream-json


def test_stream_json_reads_only_assistant_text():
    events = [
        {"type": "system", "subtype": "init", "cwd": "/repo", "tools": ["Read"]},
        *tool_use_and_result("docs say:\nNEED_CODE: from/tool/result.py\nNEED_DOC: from-tool\n"),
        assistant_event("I looked around.\nNEED_CODE: src/wanted.py::handle\n"),
        {"type": "result", "subtype": "success", "result": "NEED_CODE: src/wanted.py::handle"},
    ]
    result = parse_signals_detailed(stream_jsonl(events))
    assert result.format == "stream-json"
    assert [r.target for r in result.requests] == ["src/wanted.py::handle"]
    assert result.requests[0].line == 4  # the JSON line the request came from
    assert result.rejected == ()


def test_stream_json_json_fragments_never_become_paths():
    # The raw stream is full of "NEED_CODE:"-free JSON; nothing here may turn into a target.
    events = [assistant_event('Done. {"path": "x"}'), *tool_use_and_result('{"file_path": "/etc/passwd"}')]
    raw = stream_jsonl(events) + '{"type":"assistant","message":{"content":[{"type":"text","text":"NEED_CODE: a.py"}]}'  # truncated line
    assert parse_signals(raw) == []


def test_stream_json_text_deltas_are_joined_across_chunks():
    parts = ["Need more.\nNEED_", "CODE: src/a", ".py:1-5\nNEED_DOC: de", "sign\n"]
    events = [{"type": "stream_event", "event": {"type": "message_start", "message": {}}}]
    events.append({"type": "stream_event", "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}})
    for p in parts:
        events.append({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}})
    events.append({"type": "stream_event", "event": {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "NEED_CODE: no.py"}}})
    events.append({"type": "stream_event", "event": {"type": "content_block_stop", "index": 0}})
    assert [r.target for r in parse_signals(stream_jsonl(events))] == ["src/a.py:1-5", "design"]


def test_stream_json_ignores_subagent_messages_and_skips_garbage_lines():
    events = [
        {"type": "system", "subtype": "init"},
        assistant_event("NEED_CODE: sub/agent.py", parent_tool_use_id="toolu_1"),
        assistant_event("NEED_CODE: main.py"),
    ]
    text = "not json at all\n" + stream_jsonl(events) + "{broken\n"
    assert [r.target for r in parse_signals(text)] == ["main.py"]


def test_result_event_is_a_fallback_when_there_is_no_assistant_text():
    assert [r.target for r in parse_signals(stream_jsonl([{"type": "result", "result": "NEED_DOC: arch"}]))] == ["arch"]


def test_event_objects_and_lines_are_accepted():
    events = [*tool_use_and_result("NEED_CODE: bad.py"), assistant_event("NEED_CODE: good.py")]
    assert [r.target for r in parse_signals(events)] == ["good.py"]
    assert [r.target for r in parse_signals([json.dumps(e) for e in events])] == ["good.py"]
    assert [r.target for r in parse_signals(["hello", "NEED_CODE: plain.py"])] == ["plain.py"]


def test_plain_text_with_a_few_json_lines_stays_plain_text():
    text = 'Here is a config:\n{"type": "x"}\nNEED_CODE: a.py\nmore prose\n'
    result = parse_signals_detailed(text)
    assert result.format == "text" and [r.target for r in result.requests] == ["a.py"]


def test_only_newlines_end_a_line():
    assert parse_signals("prose\u2028NEED_CODE: a.py\nprose\rNEED_CODE: b.py\nprose\x1cNEED_DOC: c") == []


def test_invisible_characters_and_lone_surrogates_are_handled():
    bad = rejected("NEED_CODE: src/\u202eyp.a")
    assert "invisible" in bad.error
    result = parse_signals_detailed("NEED_CODE: a\ud800b.py\nNEED_CODE: ok.py")
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # nothing unencodable survives
    assert [r.target for r in result.requests] == ["a?b.py", "ok.py"]
