"""`NEED_CODE:` / `NEED_DOC:` requests: parse them from agent output.

The agent says what it still needs on a line of its own; the orchestrator fetches it for the next
turn. Only the assistant's own text counts: in Claude Code stream-json that is `assistant` text
blocks and text deltas, never tool inputs or tool results (noface once read the raw stream and took
JSON fragments for file paths). Answering the requests is `signals.respond.resolve_requests`; this
module never imports it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from noface_ctx.signals.values import ParseResult, Request, RequestKind

__all__ = [
    "MAX_TARGET_CHARS",
    "ParseResult",
    "Request",
    "agent_texts",
    "normalise_path",
    "parse_line",
    "parse_signals",
    "parse_signals_detailed",
]

_KEYWORDS = {"NEED_CODE": "code", "NEED_DOC": "doc"}


# --------------------------------------------------------------------------- parsing

_BULLET = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
_LINE = re.compile(r"^(NEED_CODE|NEED_DOC)(?:\*\*|__)?:(?:\*\*|__)?\s*(.*)$")
_QUOTES = "`'\"“”‘’"
_COMMENT = re.compile(r"\s+(?:[-–—]{1,2}|//|\|)\s+|\s+\(")
_RANGE = re.compile(r"^(.+?)(?::(\d{1,9})(?:\s*[-–]\s*(\d{1,9}))?|#L(\d{1,9})(?:-L?(\d{1,9}))?)$")
_SYMBOL = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_JUNK = {
    "{": "looks like a JSON fragment",
    "}": "looks like a JSON fragment",
    "[": "looks like a JSON fragment",
    "]": "looks like a JSON fragment",
    '"': "contains a quote (JSON fragment?)",
    "\\": "contains a backslash (JSON escape or Windows path)",
    "<": "looks like a template placeholder",
    ">": "looks like a template placeholder",
}
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cn"})  # controls, bidi/zero-width format chars, unassigned
MAX_TARGET_CHARS = 500
# what an agent printed: its text, its stream-json as text or bytes, or the lines or events of it
AgentOutput = str | bytes | Iterable[str | bytes | dict[str, Any]]


def parse_signals(text_or_events: str | bytes | Iterable[str | dict[str, Any]]) -> list[Request]:
    """The valid requests in agent output (plain text or stream-json), duplicates merged."""
    return list(parse_signals_detailed(text_or_events).requests)


def parse_signals_detailed(text_or_events: str | bytes | Iterable[str | dict[str, Any]]) -> ParseResult:
    """Like `parse_signals`, and also the request lines that were rejected, with reasons.

    Stream-json is recognised when most non-empty lines are JSON objects with a `"type"`;
    lines that are not JSON are skipped there. Never raises on malformed input.
    """
    fmt, chunks = agent_texts(text_or_events)
    requests: dict[tuple[Any, ...], Request] = {}
    rejected: dict[tuple[str, str], Request] = {}
    for lineno, text in chunks:
        # Only "\n" ends a line: `str.splitlines` would also split at U+2028, \x1c, ... and let
        # a request hide mid-line behind an invisible separator.
        for offset, line in enumerate(text.split("\n")):
            req = parse_line(line, lineno + offset if fmt == "text" else lineno)
            if req is None:
                continue
            if req.ok:
                requests.setdefault(req.key(), req)
            else:
                rejected.setdefault((req.kind, req.raw.strip()), req)
    return ParseResult(tuple(requests.values()), tuple(rejected.values()), fmt)


def parse_line(line: str, lineno: int = 0) -> Request | None:
    """The request on this line, a rejected `Request` for a malformed one, or None for prose."""
    line = line.encode("utf-8", "replace").decode("utf-8")  # lone surrogates would break the log
    s = _BULLET.sub("", line.strip(), count=1)
    fence = len(s) - len(s.lstrip("`"))
    if fence:  # the whole line in a code span: `NEED_CODE: a.py`
        if not s.endswith("`" * fence) or len(s) < 2 * fence:
            return None
        s = s[fence:-fence].strip()
    s = s.lstrip("*_")
    m = _LINE.match(s)
    if not m:
        return None
    kind: RequestKind = _KEYWORDS[m.group(1)]  # type: ignore[assignment]
    target = _extract_target(m.group(2), kind)
    problem = _junk(target)
    if problem:
        return Request(kind, target, raw=line, line=lineno, error=problem)
    req = _parse_code(target) if kind == "code" else _parse_doc(target)
    if isinstance(req, str):
        return Request(kind, target, raw=line, line=lineno, error=req)
    return _replace_meta(req, line, lineno)


def _replace_meta(req: Request, raw: str, lineno: int) -> Request:
    return Request(req.kind, req.target, req.path, req.start, req.end, req.symbol, req.heading, raw, lineno)


def _extract_target(rest: str, kind: RequestKind) -> str:
    """The target text: a quoted span, else the first word (code) or text up to a comment (doc)."""
    rest = rest.strip().rstrip("*_").strip()
    if rest and rest[0] in _QUOTES:
        close = {"“": "”", "‘": "’"}.get(rest[0], rest[0])
        end = rest.find(close, 1)
        target = rest[1:end] if end > 0 else rest[1:]
    elif kind == "code":
        target = rest.split(None, 1)[0] if rest.split() else ""
    else:
        target = _COMMENT.split(rest, maxsplit=1)[0]
    target = target.strip().strip(_QUOTES).strip()
    while len(target) > 1 and target[-1] in ",;!?":
        target = target[:-1]
    if len(target) > 1 and target[-1] == ":" and target[-2] != ":":
        target = target[:-1]
    if len(target) > 1 and target[-1] == "." and target[-2].isalnum():
        target = target[:-1]
    return target


def _junk(target: str) -> str:
    """Why this target cannot be a path or slug, or '' when it can."""
    if not target:
        return "empty target"
    if len(target) > MAX_TARGET_CHARS:
        return f"target longer than {MAX_TARGET_CHARS} characters"
    for ch, why in _JUNK.items():
        if ch in target:
            return why
    if any(unicodedata.category(c) in _INVISIBLE for c in target):
        return "contains control or invisible characters"
    if "*" in target:
        return "wildcards are not supported: name one file"
    if "..." in target or "…" in target:
        return "looks like a placeholder ('...')"
    if re.match(r"^[A-Za-z][\w+.-]*://", target):
        return "a URL, not a repository path"
    return ""


def normalise_path(path: str) -> tuple[str, str]:
    """`(repo-relative POSIX path, "")`, or `("", reason)` for an absolute path or one with `..`."""
    path = path.strip()
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if path.startswith("/") or (parts and (parts[0].startswith("~") or re.match(r"^[A-Za-z]:", parts[0]))):
        return "", "absolute paths are not allowed: give a path relative to the repository root"
    if ".." in parts:
        return "", "'..' is not allowed: paths must stay inside the repository"
    if not parts:
        return "", "empty path"
    return "/".join(parts), ""


def _parse_code(target: str) -> Request | str:
    symbol = ""
    start = end = None
    path = target
    if "::" in target:
        path, _, symbol = target.partition("::")
        symbol = symbol.strip().replace("::", ".")
        if symbol.endswith("()"):
            symbol = symbol[:-2]
        if not _SYMBOL.match(symbol):
            return f"invalid symbol name {symbol!r}" if symbol else "empty symbol after '::'"
    else:
        m = _RANGE.match(target)
        if m:
            path = m.group(1)
            first, last = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
            start = int(first)
            end = int(last) if last else start
            if start < 1 or end < start:
                return f"invalid line range {start}-{end}"
    norm, problem = normalise_path(path)
    if problem:
        return problem
    canonical = norm + (f"::{symbol}" if symbol else f":{start}-{end}" if start else "")
    return Request("code", canonical, path=norm, start=start, end=end, symbol=symbol)


def _parse_doc(target: str) -> Request | str:
    ref, sep, heading = target.partition("#")
    heading = heading.strip().lstrip("#").strip()
    if sep and not heading:
        return "empty heading after '#'"
    if not ref.strip():
        return "missing doc slug or path before '#'" if sep else "empty target"
    norm, problem = normalise_path(ref)
    if problem:
        return problem
    return Request("doc", norm + (f"#{heading}" if heading else ""), path=norm, heading=heading)


# --------------------------------------------------------------------------- input formats


def agent_texts(source: AgentOutput | None) -> tuple[Literal["text", "stream-json", "events"], list[tuple[int, str]]]:
    """(format, [(line number, assistant text)]) for plain text, stream-json or event lists: what
    the agent said, without tool calls and results."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = bytes(source).decode("utf-8", "replace")
    if isinstance(source, str):
        source = source.lstrip("\ufeff")
        lines = source.split("\n")
        events = _json_events(lines)
        if events is None:
            return "text", [(1, source)]
        return "stream-json", list(_assistant_texts(events))
    if source is None:
        return "text", []
    items = list(source)
    if not any(isinstance(i, dict) for i in items):
        strings = [i.decode("utf-8", "replace") if isinstance(i, bytes) else i for i in items]
        return agent_texts("\n".join(s.rstrip("\r\n") for s in strings if isinstance(s, str)))
    parsed = [(n, i if isinstance(i, dict) else _load(i)) for n, i in enumerate(items, 1)]
    return "events", list(_assistant_texts((n, e) for n, e in parsed if e is not None))


def _load(line: Any) -> dict[str, Any] | None:
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    if not isinstance(line, str):
        return None
    line = line.strip()
    if not line.startswith("{"):
        return None
    from noface_ctx._bounded import loads_json
    from noface_ctx.errors import InputError

    try:
        value = loads_json(line, "agent output")  # bounded depth: a hostile event is skipped
    except InputError:
        return None
    return value if isinstance(value, dict) else None


def _json_events(lines: list[str]) -> list[tuple[int, dict[str, Any]]] | None:
    """The JSON events when most non-empty lines are JSON objects with a "type", else None."""
    nonempty = 0
    events: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        nonempty += 1
        event = _load(line)
        if event is not None and "type" in event:
            events.append((n, event))
    return events if nonempty and len(events) * 2 > nonempty else None


def _assistant_texts(events: Iterable[tuple[int, dict[str, Any]]]) -> Iterator[tuple[int, str]]:
    """The main agent's text: assistant text blocks and text deltas; a `result` only as fallback.

    Tool results (`user` events), tool inputs and sub-agent messages (`parent_tool_use_id` set)
    are never read: a file quoted by a tool may contain `NEED_CODE:` lines that nobody asked for.
    """
    pending: dict[Any, list[Any]] = {}  # content block index -> [line, parts]
    results: list[tuple[int, str]] = []
    seen = False
    for n, event in events:
        if event.get("parent_tool_use_id"):
            continue
        kind = event.get("type")
        if not isinstance(kind, str):
            continue
        if kind == "assistant":
            for text in _message_texts(event.get("message")):
                seen = True
                yield n, text
        elif kind == "stream_event" or kind in _STREAM_TYPES:
            inner = event.get("event") if kind == "stream_event" else event
            for text_line, text in _stream_delta(inner, n, pending):
                seen = True
                yield text_line, text
        elif kind == "item.completed":  # Codex `exec --json`
            item = event.get("item")
            if isinstance(item, dict) and item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                seen = True
                yield n, item["text"]
        elif kind == "result" and isinstance(event.get("result"), str):
            results.append((n, event["result"]))
    for start, parts in pending.values():
        seen = True
        yield start, "".join(parts)
    if not seen:
        yield from results


_STREAM_TYPES = {"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_stop"}


def _message_texts(message: Any) -> Iterator[str]:
    if not isinstance(message, dict) or message.get("role", "assistant") != "assistant":
        return
    content = message.get("content")
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                yield block["text"]


def _stream_delta(event: Any, n: int, pending: dict[Any, list[Any]]) -> Iterator[tuple[int, str]]:
    """Accumulate text deltas per content block; yield a block's text when it ends."""
    if not isinstance(event, dict):
        return
    kind = event.get("type")
    index = event.get("index")
    key = index if isinstance(index, (int, str)) else None
    if kind == "content_block_delta":
        delta = event.get("delta")
        if isinstance(delta, dict) and delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            pending.setdefault(key, [n, []])[1].append(delta["text"])
    elif kind == "content_block_start":
        block = event.get("content_block")
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            pending.setdefault(key, [n, []])[1].append(block["text"])
    elif kind == "content_block_stop" and key in pending:
        start, parts = pending.pop(key)
        yield start, "".join(parts)
    elif kind in ("message_start", "message_stop"):
        for start, parts in pending.values():
            yield start, "".join(parts)
        pending.clear()
