"""Property tests: the signal parser never raises and never returns a target outside the repo."""

from __future__ import annotations

import json
import os
import posixpath
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noface_ctx.signals.parse import parse_signals, parse_signals_detailed
from noface_ctx.signals.respond import resolve_requests

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Nested JSON is costly to generate (not to parse): fewer examples keep the module at a few seconds.
EVENT_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text biased towards request lines, traversal, JSON punctuation and odd whitespace.
_PIECES = st.sampled_from(
    [
        "NEED_CODE: ", "NEED_DOC: ", "NEED_CODE:", "  - NEED_CODE: ", "**NEED_DOC:** ", "`", "\"", "'",
        "../", "..", "/", "./", "~/", "C:\\", "\\", "::", ":", "-", "#", "#L", "{", "}", "[", "]", "<", ">",
        "\n", "\r\n", "\t", " ", "\x00", "\u2028", "…", "...", "src/a.py", "etc/passwd", "Foo.bar", "12",
        "0", "99999999999", "https://x/", "\ufeff", '{"type":"assistant"}',
    ]
)
# Whole request lines whose targets are assembled from path-ish parts: most parse as requests.
_PATHY = st.sampled_from(
    ["src", "a.py", "/", "//", "..", ".", "./", "~", "\\", "C:", "::", "Foo", ".bar", ":", "12", "-", "#L", "#",
     " ", "`", "'", "\x00", "\t", "%2e%2e", "…", "é", "\u202e", "node_modules", ".env"]
)
_REQUEST_LINES = st.lists(
    st.tuples(
        st.sampled_from(["NEED_CODE: ", "NEED_DOC: ", "  - NEED_CODE: ", "`NEED_CODE: ", "**NEED_DOC:** "]),
        st.lists(_PATHY, max_size=10).map("".join),
    ).map("".join),
    max_size=6,
).map("\n".join)
_TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=40).map("".join),
    _REQUEST_LINES,
)

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["type", "text", "message", "content", "event", "delta", "index", "role", "result", "parent_tool_use_id", "item"]) | st.text(max_size=5), inner, max_size=5),
    max_leaves=8,
)
_EVENT_TYPES = st.sampled_from(["assistant", "user", "stream_event", "content_block_delta", "content_block_start", "content_block_stop", "message_start", "message_stop", "result", "system", "item.completed"])


@st.composite
def _events(draw):
    """JSON-ish events shaped roughly like stream-json, with arbitrary values inside."""
    out = []
    for _ in range(draw(st.integers(0, 5))):
        event = {"type": draw(_EVENT_TYPES)}
        event.update(draw(st.dictionaries(st.sampled_from(["message", "event", "delta", "index", "result", "item", "parent_tool_use_id"]), _JSON, max_size=2)))
        if draw(st.booleans()):
            event["message"] = {"role": "assistant", "content": [{"type": "text", "text": draw(_TEXT)}]}
        if draw(st.booleans()):
            event["delta"] = {"type": "text_delta", "text": draw(_TEXT)}
        out.append(event)
    return out


def _assert_safe(requests) -> None:
    for req in requests:
        assert req.ok
        for value in (req.path, req.target):
            assert "\x00" not in value
        path = req.path
        assert path and not path.startswith("/") and not path.startswith("~")
        assert ".." not in path.split("/")
        assert posixpath.normpath(path) == path  # already normalised: no ./, //, trailing /
        assert not re.match(r"^[A-Za-z]:", path)  # no drive letter
        assert "\\" not in path


@SETTINGS
@given(_TEXT)
def test_arbitrary_text_never_raises_and_stays_in_repo(text):
    _assert_safe(parse_signals(text))


@SETTINGS
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data):
    result = parse_signals_detailed(data)
    _assert_safe(result.requests)
    json.dumps(result.to_dict())


@EVENT_SETTINGS
@given(st.lists(_JSON, max_size=6))
def test_arbitrary_json_values_as_events_never_raise(items):
    _assert_safe(parse_signals(items))


@EVENT_SETTINGS
@given(_events())
def test_stream_shaped_events_as_objects_and_as_jsonl(events):
    _assert_safe(parse_signals(events))
    jsonl = "\n".join(json.dumps(e) for e in events)
    _assert_safe(parse_signals(jsonl))
    _assert_safe(parse_signals(jsonl.encode()))


# --------------------------------------------------------------------------- resolution

_OUTSIDE = "OUTSIDE-MARKER-7f3a"
_SECRET = "hunter2-SECRET-MARKER"
_REPO_PARTS = st.sampled_from(
    ["src", "app.py", "/", "..", ".", "escape.txt", "escape_dir", "outside.txt", ".env", "innocent.cfg",
     "::", "main", ":", "1", "-", "3", "#", "Intro", "docs", "guide", ".md", "guide", "~", "etc/passwd"]
)
_REPO_REQUESTS = st.lists(
    st.tuples(st.sampled_from(["NEED_CODE: ", "NEED_DOC: "]), st.lists(_REPO_PARTS, min_size=1, max_size=6).map("".join)).map("".join),
    min_size=1,
    max_size=4,
).map("\n".join)


@pytest.fixture(scope="module")
def small_repo(tmp_path_factory):
    from conftest import make_repo

    base = tmp_path_factory.mktemp("signals_property")
    outside = base / "outside"
    outside.mkdir()
    (outside / "outside.txt").write_text(_OUTSIDE + "\n")
    root = make_repo(
        base / "repo",
        {
            "src/app.py": "def main():\n    return 1\n",
            "docs/guide.md": "# Guide\n\n## Intro\n\nHello.\n",
            ".env": f"TOKEN={_SECRET}\n",
        },
    )
    os.symlink(outside / "outside.txt", root / "escape.txt")
    os.symlink(outside, root / "escape_dir")
    os.symlink(".env", root / "innocent.cfg")
    return root


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=_REPO_REQUESTS, budget=st.integers(1, 400))
def test_resolving_arbitrary_requests_never_leaks_and_fits(small_repo, text, budget):
    answer = resolve_requests(parse_signals_detailed(text), small_repo, budget=budget, log=False)
    assert _OUTSIDE not in answer.text and _SECRET not in answer.text
    assert answer.tokens <= budget
    for item in answer.items:
        assert item.outcome in ("served", "partial", "refused", "not found")
        assert item.outcome in ("refused", "not found") or item.request.ok
