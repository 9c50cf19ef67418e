"""A traceback shown in a Python example (`Traceback (most recent call last):`, its frames, then
`pkg.exc.SignatureExpired: Signature age 15 > 5 seconds`) is the output of running it, not code:
its frames name nothing the reader calls, and its last line names the exception raised by its
qualified name, a reference to that class as an import's `from pkg.exc import SignatureExpired`
is. A builtin's bare name (`ValueError: ...`) is Python's. Read by `examples.example_refs`.
"""

from __future__ import annotations

import re

from noface_ctx.freshness.references import IDENT, PROMPT

_START = re.compile(r"^(\s*)Traceback \(most recent call last\):\s*$")
_RAISED = re.compile(rf"^({IDENT}(?:\.{IDENT})*)(?::\s|:?\s*$)")  # `pkg.exc.Error: message`, `KeyError`


def traceback_output(block: list[tuple[int, str]]) -> dict[int, str]:
    """The lines of a block that are a traceback's output (its first line, its frames, its
    exception), each with the qualified name of the exception it raises on its last line ("" for
    every other line, and for an exception's bare name)."""
    out: dict[int, str] = {}
    indent: int | None = None
    for lineno, raw in block:
        line = PROMPT.sub("", raw)
        start = _START.match(line)
        if start is not None:
            indent, out[lineno] = len(start.group(1)), ""
            continue
        if indent is None:
            continue
        if not line.strip() or len(line) - len(line.lstrip()) > indent:  # a frame, its code, `^^^^`
            out[lineno] = ""
            continue
        raised = _RAISED.match(line[indent:]) if len(line) - len(line.lstrip()) == indent else None
        if raised is not None:
            out[lineno] = raised.group(1) if "." in raised.group(1) else ""
        indent = None
    return out
