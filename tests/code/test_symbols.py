"""symbols.parse_source / outline on real tree-sitter grammars, one small file per language."""

from __future__ import annotations

import re
import textwrap

import pytest

from noface_ctx.code.excerpts import elide_children, outline, render_block
from noface_ctx.code.languages import fence_for, language_for_path, languages
from noface_ctx.code.symbols import line_windows, parse_source


def _defs(chunks):
    return {c.symbol: c for c in chunks if c.symbol}


PY = textwrap.dedent(
    '''\
    """Module docstring."""
    import os

    LIMIT = 3


    @decorator
    class Store(Base):
        """Keeps things.

        More text.
        """

        size = 0

        # Fetch one item.
        @property
        def get_item(self, key,
                     default=None):
            return self.backend.lookup(key).value

        async def save(self):
            def inner():
                return helper()
            return inner()


    def top_level(x):
        return os.path.join(x, str(LIMIT))
    '''
)


def test_python_definitions_names_and_ranges():
    chunks = parse_source("pkg/store.py", PY, "python")
    defs = _defs(chunks)
    assert set(defs) == {"Store", "Store.get_item", "Store.save", "Store.save.inner", "top_level"}
    store = defs["Store"]
    assert (store.kind, store.start_line, store.end_line) == ("class", 7, 25)  # decorator included
    assert store.docstring == "Keeps things.\n\nMore text."
    assert store.signature == "@decorator\nclass Store(Base):"
    get_item = defs["Store.get_item"]
    assert (get_item.kind, get_item.parent, get_item.start_line, get_item.end_line) == ("method", "Store", 17, 20)
    assert get_item.signature.endswith("default=None):") and get_item.signature.count("\n") == 2
    assert get_item.docstring == "Fetch one item."  # leading comment when there is no docstring
    assert get_item.references == ("backend", "lookup", "value")
    assert defs["Store.save.inner"].kind == "function"
    assert defs["Store.save.inner"].parent == "Store.save"
    assert defs["Store.save.inner"].references == ("helper",)
    assert defs["Store.save"].references == ("inner",)  # inner's call is not the method's
    assert defs["top_level"].references == ("path", "join", "str")
    assert defs["top_level"].text == "def top_level(x):\n    return os.path.join(x, str(LIMIT))"
    assert all(c.path == "pkg/store.py" and c.language == "python" for c in chunks)


def test_python_module_level_code_becomes_blocks():
    chunks = parse_source("pkg/store.py", PY, None)  # language guessed from the path
    blocks = [c for c in chunks if c.kind == "block"]
    assert [(b.start_line, b.end_line) for b in blocks] == [(1, 4)]
    assert "LIMIT = 3" in blocks[0].text and blocks[0].symbol == ""


def test_chunks_are_in_document_order():
    text = "\n".join(f"def f{i}():\n    return {i}\n" for i in range(40))
    chunks = parse_source("many.py", text, "python")
    assert [c.symbol for c in chunks] == [f"f{i}" for i in range(40)]
    assert [c.start_line for c in chunks] == sorted(c.start_line for c in chunks)


def test_broken_python_still_yields_the_good_definitions():
    text = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self):\n        pass\n"
    defs = _defs(parse_source("x.py", text, "python"))
    assert "ok" in defs and "Fine.m" in defs


@pytest.mark.parametrize(
    "path, text, expected",
    [
        (
            "web/app.ts",
            """\
            /** Adds one. */
            export function addOne(a: number): number { return helper(a) + 1; }
            export const double = (a: number) => a * 2;
            export class Shape extends Base {
              /** The area. */
              area(): number { return this.compute(); }
            }
            interface Sized { size(): number }
            """,
            {"addOne": ("function", 2, 2), "double": ("function", 3, 3), "Shape": ("class", 4, 7),
             "Shape.area": ("method", 6, 6), "Sized": ("interface", 8, 8), "Sized.size": ("method", 8, 8)},
        ),
        (
            "web/view.tsx",
            """\
            export function View(props: Props) {
              return <div onClick={() => props.go()}>{props.name}</div>;
            }
            """,
            {"View": ("function", 1, 3)},
        ),
        (
            "web/lib.js",
            """\
            function plain(a) { return a; }
            class Widget {
              render() { return draw(this.el); }
            }
            module.exports = { plain, Widget };
            """,
            {"plain": ("function", 1, 1), "Widget": ("class", 2, 4), "Widget.render": ("method", 3, 3)},
        ),
        (
            "srv/server.go",
            """\
            package srv

            // Server serves.
            type Server struct { n int }

            // Start starts it.
            func (s *Server) Start(x int) error {
            \treturn s.run(x)
            }

            func main() { fmt.Println(1) }
            """,
            {"Server": ("struct", 4, 4), "Server.Start": ("method", 7, 9), "main": ("function", 11, 11)},
        ),
        (
            "src/point.rs",
            """\
            /// A point.
            pub struct Point { x: i32 }
            impl Point {
                /// Its norm.
                pub fn norm(&self) -> i32 { self.x.abs() }
            }
            trait Shape { fn area(&self) -> f64; }
            """,
            {"Point": ("struct", 2, 2), "Point.norm": ("method", 5, 5), "Shape": ("trait", 7, 7),
             "Shape.area": ("method", 7, 7)},
        ),
        (
            "src/main.zig",
            """\
            const std = @import("std");
            /// Adds numbers.
            pub fn add(a: i32, b: i32) i32 {
                return a + b;
            }
            const Point = struct {
                x: i32,
                pub fn norm(self: Point) i32 {
                    return self.x;
                }
            };
            """,
            {"add": ("function", 3, 5), "Point": ("struct", 6, 11), "Point.norm": ("method", 8, 10)},
        ),
        (
            "src/A.java",
            """\
            package x;
            /** A thing. */
            public class A extends B {
                public A(int x) { super(x); }
                public int run(String s) { return helper.go(s); }
            }
            """,
            {"A": ("class", 3, 6), "A.A": ("method", 4, 4), "A.run": ("method", 5, 5)},
        ),
        (
            "src/add.c",
            """\
            /* Adds. */
            static int add(int a, int b) { return compute(a, b); }
            struct point { int x; };
            """,
            {"add": ("function", 2, 2), "point": ("struct", 3, 3)},
        ),
        (
            "src/widget.cpp",
            """\
            namespace ns {
            class Widget {
             public:
              int size() const { return n_; }
            };
            }
            void ns::Widget::grow(int k) { n_ += k; }
            """,
            {"ns": ("namespace", 1, 6), "ns.Widget": ("class", 2, 5), "ns.Widget.size": ("method", 4, 4),
             "ns.Widget.grow": ("method", 7, 7)},
        ),
        (
            "lib/greeter.rb",
            """\
            module Foo
              class Greeter
                # Says hello.
                def hello(name)
                  puts name
                end
              end
            end
            """,
            {"Foo": ("module", 1, 8), "Foo.Greeter": ("class", 2, 7), "Foo.Greeter.hello": ("method", 4, 6)},
        ),
    ],
)
def test_definitions_in_each_language(path, text, expected):
    chunks = parse_source(path, textwrap.dedent(text), None)
    got = {(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks if c.symbol}
    assert {(name, *where) for name, where in expected.items()} <= got
    assert chunks[0].language == language_for_path(path)


def test_leading_comments_and_references_in_other_languages():
    go = "package a\n\n// Start starts it.\n// Twice.\nfunc (s *Server) Start(x int) error {\n\treturn s.run(x)\n}\n"
    start = _defs(parse_source("a.go", go, "go"))["Server.Start"]
    assert start.docstring == "Start starts it.\nTwice."
    assert start.signature == "func (s *Server) Start(x int) error"
    assert start.references == ("run",)
    rs = "/// A point.\npub struct Point { x: i32 }\n"
    assert _defs(parse_source("a.rs", rs, "rust"))["Point"].docstring == "A point."
    ts = "/** Adds one. */\nexport function addOne(a: number) { return helper(a); }\n"
    add_one = _defs(parse_source("a.ts", ts, "typescript"))["addOne"]
    assert add_one.docstring == "Adds one."
    assert add_one.references == ("helper",)


def test_text_without_grammar_falls_back_to_line_windows():
    text = "".join(f"line {i}\n" for i in range(1, 106))
    chunks = parse_source("notes/data.txt", text, None)
    assert [(c.kind, c.symbol, c.start_line, c.end_line) for c in chunks] == [
        ("window", "", 1, 50),
        ("window", "", 51, 105),  # a short tail joins the window before it
    ]
    assert chunks[0].text.splitlines()[0] == "line 1"
    assert parse_source("empty.py", "", "python") == ()
    assert line_windows("x.cfg", "\n\n") == ()


def test_outline_of_a_huge_file_lists_signatures_with_line_numbers():
    parts = ['"""Huge module."""\n']
    for i in range(300):
        parts.append(f'\nclass C{i}:\n    """Class {i} does things.\n\n    Details."""\n\n    def m(self, a, b):\n')
        parts.append("".join(f"        x{j} = a + b + {j}\n" for j in range(20)))
        parts.append("        return x0\n")
    text = "".join(parts)
    chunks = parse_source("huge.py", text, "python")
    out = outline(chunks, path="huge.py", total_lines=text.count("\n"))
    lines = out.splitlines()
    assert lines[0].startswith("# outline of huge.py (")
    assert "bodies omitted" in lines[0]
    assert len(lines) == 1 + 600
    c0 = _defs(chunks)["C0"]
    assert lines[1].split()[0] == f"{c0.start_line}-{c0.end_line}"
    assert lines[1].endswith("class C0:  — Class 0 does things.")
    assert re.match(r"^ *\d+-\d+ +  {4}def m\(self, a, b\):$", lines[2])  # nested one level deeper
    assert "x5 = a" not in out
    assert len(out) < len(text) / 5


def test_outline_ignores_other_files_and_handles_no_definitions():
    chunks = parse_source("a.py", "def f():\n    pass\n", "python")
    assert "(no definitions found)" in outline(chunks, path="b.py")


def test_render_block_and_elision():
    chunks = parse_source("pkg/store.py", PY, "python")
    defs = _defs(chunks)
    lines = PY.split("\n")
    method = defs["Store.save"]
    text = render_block("pkg/store.py", lines, method.start_line, method.end_line, title="method Store.save",
                        fence="python", context=[(8, lines[7])])
    assert text.splitlines()[:4] == ["pkg/store.py:22-25  method Store.save", "```python", "class Store(Base):", "    ..."]
    assert text.endswith("return inner()\n```")
    store = defs["Store"]
    kids = [c for c in chunks if c.parent == "Store"]
    body = elide_children(lines, store.start_line, store.end_line, kids)
    assert "    def get_item(self, key," in body and "                 default=None):" in body
    assert any("lines 20-20 omitted" in ln for ln in body)
    assert not any("lookup" in ln for ln in body)


def test_language_registry():
    assert {"python", "javascript", "typescript", "tsx", "go", "rust", "zig", "java", "c", "cpp", "ruby"} <= set(languages())
    assert language_for_path("a/b.PY") == "python"
    assert language_for_path("README.md") is None
    assert fence_for("x.tsx") == "tsx" and fence_for("x.html") == "html" and fence_for("x.unknown") == ""
