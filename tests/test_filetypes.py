"""The file-type registry: every derived set agrees with the table, and the pre-commit hook's
`files:` pattern is the one the registry generates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from noface_ctx import _filetypes as ft
from noface_ctx.code import languages
from noface_ctx.files.gate import file_kind

HOOKS = Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml"


def _hook_files_line() -> str:
    lines = [line.strip() for line in HOOKS.read_text(encoding="utf-8").splitlines()]
    (files,) = [line for line in lines if line.startswith("files:")]
    return files.removeprefix("files:").strip()


def test_hook_pattern_is_generated_from_the_registry() -> None:
    assert _hook_files_line() == ft.hook_files_pattern(), (
        "regenerate `files:` in .pre-commit-hooks.yaml from noface_ctx._filetypes.hook_files_pattern()"
    )


def test_hook_pattern_matches_exactly_the_hook_extensions() -> None:
    pattern = re.compile(_hook_files_line())
    for ext in ft.FILE_TYPES:
        assert bool(pattern.search(f"src/name{ext}")) == (ext in ft.HOOK_EXTENSIONS), ext
    for name in ("Makefile", "a.pyc", "a.json", "a.png", "a.c.orig", "a.cc~"):
        assert not pattern.search(name), name


def test_every_extension_is_a_lower_case_suffix() -> None:
    for ext in ft.FILE_TYPES:
        assert ext.startswith(".") and ext == ext.lower() and "." not in ext[1:] and " " not in ext, ext


def test_kinds_partition_the_table() -> None:
    assert ft.CODE_EXTENSIONS.isdisjoint(ft.DOC_EXTENSIONS)
    for ext, row in ft.FILE_TYPES.items():
        assert (ext in ft.CODE_EXTENSIONS) == (row.kind in ("grammar", "code")), ext
        assert (ext in ft.DOC_EXTENSIONS) == (row.kind == "doc"), ext
        assert (row.grammar is not None) == (row.kind == "grammar"), ext


def test_grammar_sets_agree_with_the_language_specs() -> None:
    specs = {spec.name: spec for spec in languages.SPECS}
    assert set(ft.EXTENSIONS_BY_GRAMMAR) == set(specs), "each grammar in the table needs a LanguageSpec and back"
    for name, spec in specs.items():
        assert spec.extensions == ft.EXTENSIONS_BY_GRAMMAR[name]
    for ext, name in ft.GRAMMAR_BY_EXTENSION.items():
        assert ext in ft.EXTENSIONS_BY_GRAMMAR[name]
        assert languages.spec_for(name) is not None


def test_fences() -> None:
    for ext, tag in ft.FENCE_BY_EXTENSION.items():
        assert ft.FILE_TYPES[ext].grammar is None and tag
        assert languages.fence_for(f"x{ext}") == tag
    for ext, name in ft.GRAMMAR_BY_EXTENSION.items():
        assert languages.fence_for(f"x{ext}") == ft.FILE_TYPES[ext].fence == languages.spec_for(name).fence  # type: ignore[union-attr]


def test_derived_sets_are_subsets_of_the_table() -> None:
    table = set(ft.FILE_TYPES)
    for derived in (ft.CODE_EXTENSIONS, ft.CODE_HINT_EXTENSIONS, ft.DOC_EXTENSIONS, ft.FRESHNESS_CODE_EXTENSIONS, ft.HOOK_EXTENSIONS,
                    ft.MENTIONED_PATH_EXTENSIONS, set(ft.FENCE_BY_EXTENSION), set(ft.GRAMMAR_BY_EXTENSION)):
        assert set(derived) <= table
    assert ft.CODE_EXTENSIONS <= ft.FRESHNESS_CODE_EXTENSIONS
    assert ft.HOOK_EXTENSIONS == ft.DOC_EXTENSIONS | ft.NOTEBOOK_EXTENSIONS | ft.FRESHNESS_CODE_EXTENSIONS  # notebooks may be docs
    assert ft.NOTEBOOK_EXTENSIONS <= table and not ft.NOTEBOOK_EXTENSIONS & (ft.DOC_EXTENSIONS | ft.CODE_EXTENSIONS)
    assert ft.MENTIONED_PATH_EXTENSIONS == {e for e, row in ft.FILE_TYPES.items() if row.mentioned}
    assert ft.FRESHNESS_CODE_EXTENSIONS <= ft.MENTIONED_PATH_EXTENSIONS
    assert ft.CODE_HINT_EXTENSIONS == ft.MENTIONED_PATH_EXTENSIONS - ft.DOC_EXTENSIONS
    assert ".pyx" in ft.CODE_EXTENSIONS and ".pyx" in ft.FRESHNESS_CODE_EXTENSIONS and ".pyx" in ft.MENTIONED_PATH_EXTENSIONS


def test_gate_kinds_follow_the_table() -> None:
    for ext, row in ft.FILE_TYPES.items():
        kind, language = file_kind(f"pkg/name{ext}")
        expected = "code" if row.kind in ("grammar", "code") else "doc" if row.kind == "doc" else "other"
        assert (kind, language) == (expected, row.grammar), ext
    for name in ft.CODE_FILE_NAMES:
        assert file_kind(f"sub/{name}") == ("code", None)


def test_bare_and_pattern_helpers() -> None:
    assert ft.bare({".py", ".c++"}) == {"py", "c++"}
    assert ft.bare({".py", ".c++"}, words_only=True) == {"py"}
    pattern = re.compile(rf"\.{ft.extension_pattern({'.c', '.cpp', '.c++'})}$")
    assert pattern.search("a.cpp").group(0) == ".cpp" and pattern.search("a.c++").group(0) == ".c++"  # type: ignore[union-attr]
    assert not pattern.search("a.cp")


@pytest.mark.parametrize(("path", "test"), [
    ("tests/test_views.py", True), ("src/app/testing/helpers.py", True), ("web/__tests__/Button.jsx", True),
    ("spec/models/user_spec.rb", True), ("app/specs/user.rb", True), ("pkg/server_test.go", True),
    ("ui/button.spec.ts", True), ("ui/button.test.js", True), ("conftest.py", True), ("test_x.py", True),
    ("src/app/contest.py", False), ("src/attestation.py", False), ("docs/testimonials.md", False),
    ("src/latest.py", False), ("src/protest/views.py", False),
])
def test_one_rule_says_what_a_test_file_is(path, test):
    assert ft.is_test_path(path) is test
