"""How code is shown in the prompt: a file's outline (signatures only, for files too big to show
whole), fenced excerpts with their enclosing headers, and containers with their members elided.
"""

from __future__ import annotations

from collections.abc import Iterable

from noface_ctx._wording import OUTLINE_EMPTY, excerpt_head, lines_omitted, outline_head
from noface_ctx.datatypes import CodeChunk

# --------------------------------------------------------------------------- outline


def _depths(defs: list[CodeChunk]) -> list[int]:
    """Nesting depth of each definition (sorted by position): how many enclosing ones contain it."""
    stack: list[CodeChunk] = []
    out = []
    for c in defs:
        while stack and not (
            stack[-1].start_line <= c.start_line
            and c.end_line <= stack[-1].end_line
            and c.symbol.startswith(stack[-1].symbol + ".")
        ):
            stack.pop()
        out.append(len(stack))
        stack.append(c)
    return out


def outline(chunks: Iterable[CodeChunk], *, path: str, total_lines: int | None = None) -> str:
    """Signatures and first docstring lines with their line ranges, nested by indentation."""
    defs = sorted(
        (c for c in chunks if c.path == path and c.symbol and c.kind not in ("block", "window")),
        key=lambda c: (c.start_line, -c.end_line),
    )
    head = outline_head(path, total_lines)
    if not defs:
        return f"{head}\n{OUTLINE_EMPTY}"
    width = len(str(max(c.end_line for c in defs)))
    out = [head]
    for c, depth in zip(defs, _depths(defs), strict=True):
        indent = "    " * depth
        sig = " ".join(part.strip() for part in (c.signature or c.symbol).split("\n") if part.strip())
        if len(sig) > 160:
            sig = sig[:157] + "..."
        doc = c.docstring.strip().split("\n", 1)[0].strip() if c.docstring else ""
        if len(doc) > 100:
            doc = doc[:97] + "..."
        rng = f"{c.start_line:>{width}}-{c.end_line:<{width}}"
        out.append(f"{rng}  {indent}{sig}" + (f"  — {doc}" if doc else ""))
    return "\n".join(out)


# --------------------------------------------------------------------------- rendering blocks


def header_line(lines: list[str], start: int) -> tuple[int, str]:
    """The definition line of a chunk starting at `start` (decorators and attributes skipped)."""
    ln = start
    while ln < len(lines) and lines[ln - 1].lstrip().startswith(("@", "#[")):
        ln += 1
    return ln, lines[ln - 1] if 0 < ln <= len(lines) else ""


def render_block(
    path: str,
    lines: list[str],
    start: int,
    end: int,
    *,
    title: str = "",
    fence: str = "",
    context: Iterable[tuple[int, str]] = (),
    body: list[str] | None = None,
) -> str:
    """`path:start-end  title`, then a fenced block: enclosing headers (with `...` where lines
    are skipped) followed by lines start..end (or `body`, already prepared)."""
    out = [excerpt_head(path, start, end, title)]
    out.append(f"```{fence}")
    last = None
    for ln, text in context:
        if last is not None and ln > last + 1:
            out.append(_indent_of(text) + "...")
        out.append(text)
        last = ln
    if last is not None and start > last + 1:
        out.append(_indent_of(lines[start - 1] if start <= len(lines) else "") + "...")
    out.extend(body if body is not None else lines[start - 1 : end])
    out.append("```")
    return "\n".join(out)


def _indent_of(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def elide_children(lines: list[str], start: int, end: int, children: Iterable[CodeChunk]) -> list[str]:
    """Lines start..end with each child definition cut down to its header and a `...` line."""
    out: list[str] = []
    ln = start
    for child in sorted(children, key=lambda c: c.start_line):
        if child.start_line < ln or child.end_line > end:
            continue
        out.extend(lines[ln - 1 : child.start_line - 1])
        def_line, _ = header_line(lines, child.start_line)
        sig_len = max(1, len(child.signature.split("\n")) - (def_line - child.start_line))
        head_end = min(child.end_line, def_line + sig_len - 1)
        out.extend(lines[child.start_line - 1 : head_end])
        if child.end_line > head_end:
            out.append(_indent_of(lines[def_line - 1]) + lines_omitted(head_end + 1, child.end_line))
        ln = child.end_line + 1
    out.extend(lines[ln - 1 : end])
    return out


def signature_lines(lines: list[str], chunk: CodeChunk) -> list[str]:
    """The lines of `chunk` (decorators included) up to the end of its signature."""
    def_line, _ = header_line(lines, chunk.start_line)
    sig_len = max(1, len(chunk.signature.split("\n")) - (def_line - chunk.start_line))
    return lines[chunk.start_line - 1 : min(chunk.end_line, def_line + sig_len - 1)]


def body_indent(lines: list[str], chunk: CodeChunk) -> str:
    """The indentation of `chunk`'s body: its header's plus four spaces."""
    _, text = header_line(lines, chunk.start_line)
    return _indent_of(text) + "    "
