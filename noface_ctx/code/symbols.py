"""tree-sitter parsing → `CodeChunk`s: definitions with qualified names, signatures, docstrings and
the identifiers they reference; module-level code between definitions as blocks; line windows for
text that has no grammar. How chunks are shown (outlines, excerpts) is `code.excerpts`.
"""

from __future__ import annotations

import inspect
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from noface_ctx.code.languages import CONTAINER_KINDS, LanguageSpec, grammar, language_for_path, spec_for
from noface_ctx.datatypes import CodeChunk

if TYPE_CHECKING:
    from tree_sitter import Node, Query

WINDOW_LINES = 50  # line-window size for files without a grammar
BLOCK_LINES = 60  # longest module-level block before it is split
MAX_SIGNATURE_LINES = 8
MAX_REFERENCES = 200
MAX_PARSE_BYTES = 4_000_000  # bigger files are windowed: a parse this size is slow and rarely useful

_JS_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "class", "class_expression"}
)
_ZIG_CONTAINERS = frozenset({"struct_declaration", "enum_declaration", "union_declaration", "opaque_declaration"})
_C_NAME_TYPES = frozenset(
    {"identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name", "type_identifier"}
)
_COMMENT_MARKERS = re.compile(r"^\s*(///?!?|//|/\*\*?|\*/|\*|#+!?|--)\s?")


@dataclass(slots=True)
class _Def:
    node: Node  # the definition node (name, body, docstring come from here)
    outer: Node  # the node whose span is the chunk (wrappers such as decorators included)
    kind: str
    name: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    parent: int = -1  # index into the defs list
    qualname: str = ""
    refs: list[str] = field(default_factory=list)


def parse_source(path: str, text: str, language: str | None) -> tuple[CodeChunk, ...]:
    """Every definition in `text` as a chunk (1-based inclusive lines), plus module-level blocks.

    `language` is a grammar name (None: guess from the path); text without a grammar, or one
    that fails to parse, becomes line windows of kind "window".
    """
    spec = spec_for(language) or spec_for(language_for_path(path))
    if spec is None or not text.strip() or len(text) > MAX_PARSE_BYTES:
        return line_windows(path, text, language=None if spec is None else spec.name)
    try:
        _lang, parser, defs_query, refs_query = grammar(spec.name)
    except (ImportError, KeyError, ValueError):
        return line_windows(path, text, language=None)
    data = text.encode("utf-8", "surrogatepass")
    tree = parser.parse(data)
    lines = text.split("\n")
    defs = _collect_defs(spec, defs_query, tree.root_node)
    _nest(defs)
    if refs_query is not None and defs:
        _assign_refs(defs, refs_query, tree.root_node)
    chunks = [_to_chunk(path, spec, d, defs, lines, data) for d in defs]
    chunks += _module_blocks(path, spec.name, defs, lines)
    chunks.sort(key=lambda c: (c.start_line, -c.end_line))
    return tuple(chunks)


# --------------------------------------------------------------------------- definitions


def _collect_defs(spec: LanguageSpec, query: Query, root: Node) -> list[_Def]:
    import tree_sitter as ts

    nodes = ts.QueryCursor(query).captures(root).get("def", [])
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))  # captures are not in document order
    defs: list[_Def] = []
    seen: set[int] = set()
    for node in nodes:
        if node.id in seen:
            continue
        seen.add(node.id)
        made = _make_def(spec, node)
        if made is not None:
            defs.append(made)
    defs.sort(key=lambda d: (d.start_byte, -d.end_byte))
    return defs


def _make_def(spec: LanguageSpec, node: Node) -> _Def | None:
    kind = spec.definitions[node.type]
    name = _name_of(spec, node)
    if name is None:
        return None
    if node.type == "type_spec":  # Go: struct, interface or plain type
        typ = node.child_by_field_name("type")
        kind = {"struct_type": "struct", "interface_type": "interface"}.get(typ.type if typ else "", "type")
    outer = node
    while outer.parent is not None and outer.parent.type in spec.wrappers:
        outer = outer.parent
    start_line = outer.start_point[0] + 1
    end_row, end_col = outer.end_point
    end_line = max(start_line, end_row if end_col == 0 and end_row > outer.start_point[0] else end_row + 1)
    return _Def(node, outer, kind, name, outer.start_byte, outer.end_byte, start_line, end_line)


def _text(node: Node | None) -> str:
    text = node.text if node is not None else None
    return text.decode("utf-8", "replace") if text is not None else ""


def _name_of(spec: LanguageSpec, node: Node) -> str | None:
    """The definition's own name, or None when this node is not a definition after all."""
    t = node.type
    lang = spec.name
    if t == "variable_declarator":  # JS/TS: only `const f = () => ...` / `= function` / `= class`
        value = node.child_by_field_name("value")
        name = node.child_by_field_name("name")
        if value is None or value.type not in _JS_FUNCTION_VALUES or name is None or name.type != "identifier":
            return None
        return _text(name)
    if lang == "zig" and t == "variable_declaration":
        if not any(c.type in _ZIG_CONTAINERS for c in node.named_children):
            return None
        ident = next((c for c in node.named_children if c.type == "identifier"), None)
        return _text(ident) if ident is not None else None
    if t == "test_declaration":
        label = next((c for c in node.named_children if c.type in ("string", "identifier")), None)
        return "test " + _text(label).strip('"') if label is not None else "test"
    if t == "method_declaration" and lang == "go":
        receiver = _go_receiver(node)
        method = _text(node.child_by_field_name("name"))
        return f"{receiver}.{method}" if receiver else method
    if t == "impl_item":
        typ = node.child_by_field_name("type")
        if typ is not None and typ.type == "generic_type":
            typ = typ.child_by_field_name("type")
        return _text(typ).replace("::", ".") or None
    if t == "function_definition" and lang in ("c", "cpp"):
        return _c_function_name(node)
    if t in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier"):
        if node.child_by_field_name("body") is None:
            return None  # a use such as `struct point *p`, not a definition
        name = node.child_by_field_name("name")
        if name is None and node.parent is not None and node.parent.type == "type_definition":
            name = node.parent.child_by_field_name("declarator")
        return _text(name).replace("::", ".") if name is not None else None
    if t == "namespace_definition":
        name = node.child_by_field_name("name")
        return _text(name).replace("::", ".") if name is not None else "(anonymous)"
    name = node.child_by_field_name("name")
    if name is None:
        return None
    return _text(name).replace("::", ".")


def _go_receiver(node: Node) -> str:
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ""
    stack = [receiver]
    while stack:
        cur = stack.pop(0)
        if cur.type == "type_identifier":
            return _text(cur)
        stack.extend(cur.named_children)
    return ""


def _c_function_name(node: Node) -> str | None:
    decl = node.child_by_field_name("declarator")
    for _ in range(8):
        if decl is None:
            return None
        if decl.type == "function_declarator":
            inner = decl.child_by_field_name("declarator")
            if inner is None or inner.type not in _C_NAME_TYPES:
                return _text(inner) or None
            return _text(inner).replace("::", ".")
        decl = decl.child_by_field_name("declarator")
    return None


def _nest(defs: list[_Def]) -> None:
    """Parent links, qualified names and method kinds, from byte containment."""
    stack: list[int] = []
    for i, d in enumerate(defs):
        while stack and defs[stack[-1]].end_byte <= d.start_byte:
            stack.pop()
        parent = stack[-1] if stack else -1
        d.parent = parent
        if parent >= 0:
            p = defs[parent]
            d.qualname = f"{p.qualname}.{d.name}"
            if d.kind == "function" and p.kind in CONTAINER_KINDS:
                d.kind = "method"
        else:
            d.qualname = d.name
            if d.kind == "function" and "." in d.name:  # Go receiver, C++ `A::f` out of line
                d.kind = "method"
        stack.append(i)


def _assign_refs(defs: list[_Def], query: Query, root: Node) -> None:
    """Each `@ref` capture goes to the innermost definition that contains it."""
    import tree_sitter as ts

    nodes = ts.QueryCursor(query).captures(root).get("ref", [])
    if not nodes:
        return
    starts = [d.start_byte for d in defs]
    seen: list[set[str]] = [set() for _ in defs]
    for node in sorted(nodes, key=lambda n: n.start_byte):
        pos = node.start_byte
        i = bisect_right(starts, pos) - 1
        while i >= 0 and defs[i].end_byte <= pos:
            i = defs[i].parent
        if i < 0:
            continue
        name = _text(node)
        if name not in seen[i] and len(seen[i]) < MAX_REFERENCES:
            seen[i].add(name)
            defs[i].refs.append(name)


def _to_chunk(path: str, spec: LanguageSpec, d: _Def, defs: list[_Def], lines: list[str], data: bytes) -> CodeChunk:
    return CodeChunk(
        path=path,
        symbol=d.qualname,
        kind=d.kind,
        start_line=d.start_line,
        end_line=d.end_line,
        signature=_signature(d, data),
        docstring=_docstring(spec, d),
        text="\n".join(lines[d.start_line - 1 : d.end_line]),
        parent=defs[d.parent].qualname if d.parent >= 0 else _implicit_parent(d.qualname),
        references=tuple(d.refs),
        language=spec.name,
    )


def _implicit_parent(qualname: str) -> str:
    return qualname.rpartition(".")[0] if "." in qualname else ""


def _signature(d: _Def, data: bytes) -> str:
    node = d.node
    body = node.child_by_field_name("body")
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        body = value.child_by_field_name("body") if value is not None else None
    if body is not None and body.start_byte > d.start_byte:
        raw = data[d.start_byte : body.start_byte].decode("utf-8", "replace")
    else:
        raw = data[d.start_byte : d.end_byte].decode("utf-8", "replace").split("\n", 1)[0]
    sig_lines = [ln.rstrip() for ln in raw.rstrip().split("\n")]
    while len(sig_lines) > 1 and sig_lines[-1].lstrip().startswith(("#", "//", "/*", "*")):
        sig_lines.pop()  # a comment between the header and the body (Ruby, C) is not signature
    if len(sig_lines) > MAX_SIGNATURE_LINES:
        sig_lines = [*sig_lines[:MAX_SIGNATURE_LINES], "..."]
    return "\n".join(sig_lines).rstrip(" {")


def _docstring(spec: LanguageSpec, d: _Def) -> str:
    if spec.python_docstrings:
        body = d.node.child_by_field_name("body")
        first = body.named_children[0] if body is not None and body.named_children else None
        if first is not None and first.type == "expression_statement" and first.named_children:
            string = first.named_children[0]
            if string.type == "string":
                content = [c for c in string.named_children if c.type == "string_content"]
                if content:
                    return inspect.cleandoc(_text(content[0]))
    comments: list[str] = []
    node = d.outer
    prev = node.prev_named_sibling
    row = node.start_point[0]
    while prev is not None and prev.type in spec.comment_types and prev.end_point[0] >= row - 1:
        comments.append(_text(prev))
        row = prev.start_point[0]
        prev = prev.prev_named_sibling
    if not comments:
        return ""
    return _strip_comment("\n".join(reversed(comments)))


def _strip_comment(text: str) -> str:
    out = []
    for line in text.split("\n"):
        line = _COMMENT_MARKERS.sub("", line.strip()).rstrip()
        if line.endswith("*/"):
            line = line[:-2].rstrip()
        out.append(line)
    return "\n".join(out).strip()


# --------------------------------------------------------------------------- blocks and windows


def _module_blocks(path: str, language: str, defs: list[_Def], lines: list[str]) -> list[CodeChunk]:
    """Top-level code between definitions (imports, constants, registrations) as `block` chunks."""
    covered = [False] * (len(lines) + 2)
    for d in defs:
        if d.parent < 0:
            for ln in range(d.start_line, d.end_line + 1):
                covered[ln] = True
    out: list[CodeChunk] = []
    run: list[int] = []
    for ln in range(1, len(lines) + 1):
        if not covered[ln]:
            run.append(ln)
        elif run:
            out += _blocks_from_run(path, language, run, lines)
            run = []
    out += _blocks_from_run(path, language, run, lines)
    return out


def _blocks_from_run(path: str, language: str | None, run: list[int], lines: list[str]) -> list[CodeChunk]:
    while run and not lines[run[0] - 1].strip():
        run = run[1:]
    while run and not lines[run[-1] - 1].strip():
        run = run[:-1]
    if not run:
        return []
    out = []
    for start in range(run[0], run[-1] + 1, BLOCK_LINES):
        end = min(start + BLOCK_LINES - 1, run[-1])
        body = "\n".join(lines[start - 1 : end])
        if body.strip():
            out.append(CodeChunk(path, "", "block", start, end, text=body, language=language))
    return out


def line_windows(path: str, text: str, *, language: str | None = None, size: int = WINDOW_LINES) -> tuple[CodeChunk, ...]:
    """Consecutive windows of `size` lines (a short tail joins the previous window)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n = len(lines)
    if n == 0 or not text.strip():
        return ()
    bounds = []
    start = 1
    while start <= n:
        end = min(start + size - 1, n)
        if n - end < size // 5:
            end = n
        bounds.append((start, end))
        start = end + 1
    return tuple(
        CodeChunk(path, "", "window", s, e, text="\n".join(lines[s - 1 : e]), language=language)
        for s, e in bounds
        if any(ln.strip() for ln in lines[s - 1 : e])
    )
