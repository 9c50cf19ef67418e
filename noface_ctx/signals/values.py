"""The values that cross the signals stages: a parsed `Request`, a `ParseResult`, and the
`AnswerItem`s and `Answer` that resolving requests gives back. No parsing or I/O here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from noface_ctx.schema import SCHEMA_VERSION, AnswerItemJSON, AnswerJSON, ParseResultJSON, RequestJSON

__all__ = ["Answer", "AnswerItem", "Outcome", "ParseResult", "Request", "RequestKind"]

RequestKind = Literal["code", "doc"]


@dataclass(frozen=True, slots=True)
class Request:
    """One request line. `error` is set (and `path` empty) when the line was rejected.

    `path` is the repo-relative file for code, the slug or path for docs (before `#`);
    `start`/`end` a 1-based inclusive range; `symbol` a qualified name; `heading` a doc section.
    `line` is the input line it came from (for stream-json, the event's line).
    """

    kind: RequestKind
    target: str
    path: str = ""
    start: int | None = None
    end: int | None = None
    symbol: str = ""
    heading: str = ""
    raw: str = ""
    line: int = 0
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def signal(self) -> str:
        """The request as the agent would write it, e.g. `NEED_CODE: a.py:10-20`."""
        return f"NEED_{self.kind.upper()}: {self.target}"

    def key(self) -> tuple[Any, ...]:
        return (self.kind, self.path, self.start, self.end, self.symbol, self.heading.casefold())

    def to_dict(self) -> RequestJSON:
        out: RequestJSON = {"kind": self.kind, "target": self.target, "request": self.signal}
        if self.ok:
            out.update({"path": self.path, "start": self.start, "end": self.end, "symbol": self.symbol,
                        "heading": self.heading})
        else:
            out["error"] = self.error
        out.update({"line": self.line, "raw": self.raw})
        return out


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Valid requests (duplicates merged, first occurrence kept) and rejected request lines."""

    requests: tuple[Request, ...]
    rejected: tuple[Request, ...]
    format: Literal["text", "stream-json", "events"] = "text"

    SCHEMA_VERSION = SCHEMA_VERSION  # the compatibility rule is in schema.py

    def to_dict(self) -> ParseResultJSON:
        return {
            "version": self.SCHEMA_VERSION,
            "format": self.format,
            "requests": [r.to_dict() for r in self.requests],
            "rejected": [r.to_dict() for r in self.rejected],
        }


# --------------------------------------------------------------------------- answers

Outcome = Literal["served", "refused", "not found", "partial"]


@dataclass(frozen=True, slots=True)
class AnswerItem:
    """What became of one request. `next` is the request line for what was left out, if any."""

    request: Request
    outcome: Outcome
    reason: str = ""
    tokens: int = 0
    suggestions: tuple[str, ...] = ()
    next: str = ""
    path: str = ""  # what was served: the file, its lines, and how completely
    ranges: tuple[tuple[int, int], ...] = ()
    form: str = ""
    text: str = field(default="", repr=False, compare=False)  # its block in the answer (`run` evicts by item)

    @property
    def where(self) -> str:
        """`path:start-end` of what was served (the bare path for a whole file without lines)."""
        spans = ",".join(f"{a}-{b}" for a, b in self.ranges)
        return f"{self.path}:{spans}" if spans else self.path

    def to_dict(self) -> AnswerItemJSON:
        return {
            "request": self.request.signal,
            "kind": self.request.kind,
            "target": self.request.target,
            "line": self.request.line,
            "outcome": self.outcome,
            "reason": self.reason,
            "tokens": self.tokens,
            "suggestions": list(self.suggestions),
            "next": self.next,
            "path": self.path,
            "ranges": [list(r) for r in self.ranges],
            "form": self.form,
        }


@dataclass(frozen=True, slots=True)
class Answer:
    """The `CONTEXT YOU REQUESTED:` block (≤ `budget` tokens) and the fate of every request."""

    text: str
    items: tuple[AnswerItem, ...]
    tokens: int
    budget: int
    warnings: tuple[str, ...] = ()
    log_path: str | None = None

    SCHEMA_VERSION = SCHEMA_VERSION  # the compatibility rule is in schema.py

    def to_dict(self) -> AnswerJSON:
        return {
            "version": self.SCHEMA_VERSION,
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "items": [i.to_dict() for i in self.items],
            "warnings": list(self.warnings),
            "log": self.log_path,
        }
