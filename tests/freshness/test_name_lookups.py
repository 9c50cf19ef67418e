"""name_lookups: the answers of the per-name patterns they stand in for, read once per text."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from noface_ctx.freshness.name_lookups import class_defines, identifiers_among, imported_from
from noface_ctx.freshness.version_words import VersionWords

SOURCE = '''\
"""A module."""
from .base import (Base,
    Mixin)  # Helper is not imported here
from .util import helper, other as renamed  # Tool
import os


class Widget(Base):
    size: int = 3
    color = "red"
    ratio == 2

    def render(self, width):
        local_name = width
        return local_name

    async def fetch(self):
        pass

    class Inner:
        depth = 1


class Other:
    def render(self):
        pass
'''


def test_class_defines_a_method_or_field_at_the_body_level_only() -> None:
    widget = frozenset({"Widget"})
    assert class_defines(SOURCE, "size", widget)
    assert class_defines(SOURCE, "color", widget)
    assert class_defines(SOURCE, "render", widget)
    assert class_defines(SOURCE, "fetch", widget)  # async def
    assert class_defines(SOURCE, "depth", frozenset({"Inner"}))
    # negative cases: a method's local, a comparison, a nested class's field, another class
    assert not class_defines(SOURCE, "local_name", widget)
    assert not class_defines(SOURCE, "ratio", widget)
    assert not class_defines(SOURCE, "depth", widget)
    assert not class_defines(SOURCE, "fetch", frozenset({"Other"}))
    assert not class_defines(SOURCE, "rend", widget)  # a word's part
    assert not class_defines(SOURCE, "missing", widget)


def test_imported_from_reads_parentheses_and_the_line() -> None:
    assert imported_from(SOURCE, "Mixin") == ".base"  # on the parenthesised list's second line
    assert imported_from(SOURCE, "renamed") == ".util"
    assert imported_from(SOURCE, "Tool") == ".util"  # on the line (a comment too, as the pattern read it)
    # negative cases: after the closing parenthesis's line, a word's part, a module imported whole
    assert imported_from(SOURCE, "Helper") is None
    assert imported_from(SOURCE, "help") is None
    assert imported_from(SOURCE, "os") is None


def _pattern_import(text: str, name: str) -> str | None:
    m = re.search(rf"^\s*from\s+([\w.]+)\s+import\s+(?:\([^)]*\b{re.escape(name)}\b[^)]*\)|[^\n]*\b{re.escape(name)}\b)",
                  text, re.M)
    return m.group(1) if m else None


def test_the_answers_are_the_per_name_patterns() -> None:
    texts = [SOURCE, "from a import\\\n  b\nfrom c import (d)\n", "x = 1\nfrom e  import  f,g\n\nfrom h import (\n i,\n)"]
    for text in texts:
        for name in {*re.findall(r"\w+", text), "a.b", "x y"}:
            assert imported_from(text, name) == _pattern_import(text, name), (text, name)


def test_identifiers_among() -> None:
    text = "Call run_all() then 9abc, a9xyz and pkg.mod (x_1)."
    assert identifiers_among(text, {"run_all", "abc", "xyz", "mod", "x_1", "a.b", "run"}) == {"run_all", "abc", "mod", "x_1"}
    many = {f"w{i}" for i in range(20)} | {"abc", "xyz"}
    assert identifiers_among(text, many) == {"abc"}  # more than a few: the text's identifiers listed, same answer


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def test_a_few_words_looked_for_in_blobs_are_whole_tokens(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.py").write_text("def register_blueprint():\n    pass\n")
    (tmp_path / "b.py").write_text("x = register_blueprints\n_register_blueprint = 1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    sha = _git(tmp_path, "rev-parse", "HEAD").strip()
    words = VersionWords(tmp_path)
    try:
        assert words.grep_words(sha, ["register_blueprint"]) == {"register_blueprint": {"a.py"}}
        assert words.grep_words(sha, ["register_blueprints", "missing"]) == {"register_blueprints": {"b.py"}}
    finally:
        words.close()
