"""The one table of file types: what each extension is, its Markdown fence tag and its grammar.

Every other list of extensions in the package is derived here (the gate's code and doc kinds,
the grammar of a path, fence tags, the extensions a path named in an issue or a doc may end with,
the pre-commit hook's `files:` pattern). Adding a language is one row in `FILE_TYPES` plus, when
it has a tree-sitter grammar, its `LanguageSpec` in `code/languages.py` under the same name.

Extensions are lower-case with their dot (`.py`); `bare()` drops the dots for the modules that
compare against `file_ext()` values (`py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CODE_EXTENSIONS",
    "CODE_FILE_NAMES",
    "CODE_HINT_EXTENSIONS",
    "DOC_EXTENSIONS",
    "EXTENSIONS_BY_GRAMMAR",
    "FENCE_BY_EXTENSION",
    "FILE_TYPES",
    "FRESHNESS_CODE_EXTENSIONS",
    "GRAMMAR_BY_EXTENSION",
    "HOOK_EXTENSIONS",
    "MENTIONED_PATH_EXTENSIONS",
    "NOTEBOOK_EXTENSIONS",
    "FileType",
    "TypeKind",
    "bare",
    "extension_pattern",
    "hook_files_pattern",
    "is_test_path",
]

# grammar: source with a tree-sitter grammar here (definitions become chunks);
# code: source without one (line windows); doc: prose; data: configuration and data files;
# asset: files a doc or an issue may name but that are never read as text here (images), and notebooks:
# the gate's "other", read only as docs (`docs/notebook.py`) when a doc glob takes them.
TypeKind = Literal["grammar", "code", "doc", "data", "asset"]


@dataclass(frozen=True, slots=True)
class FileType:
    """One extension's row: its kind, grammar name (kind "grammar" only) and Markdown fence tag."""

    kind: TypeKind
    grammar: str | None = None
    fence: str = ""
    # False for an extension that prose mostly uses as something else (`python.org`)
    mentioned: bool = True


def _rows(kind: TypeKind, extensions: str, *, grammar: str | None = None, fence: str = "",
          mentioned: bool = True) -> dict[str, FileType]:
    """Rows for space-separated `extensions`; a grammar's fence tag defaults to its name."""
    row = FileType(kind, grammar, fence or (grammar or ""), mentioned)
    return dict.fromkeys(extensions.split(), row)


FILE_TYPES: Mapping[str, FileType] = {
    # ---- code with a grammar (its LanguageSpec in code/languages.py has the same name)
    **_rows("grammar", ".py .pyi .pyw", grammar="python"),
    **_rows("grammar", ".js .mjs .cjs .jsx", grammar="javascript"),
    **_rows("grammar", ".ts .mts .cts", grammar="typescript"),
    **_rows("grammar", ".tsx", grammar="tsx"),
    **_rows("grammar", ".go", grammar="go"),
    **_rows("grammar", ".rs", grammar="rust"),
    **_rows("grammar", ".zig", grammar="zig"),
    **_rows("grammar", ".java", grammar="java"),
    **_rows("grammar", ".c .h", grammar="c"),
    **_rows("grammar", ".cc .cpp .cxx .c++ .hpp .hh .hxx .h++ .ipp", grammar="cpp"),
    **_rows("grammar", ".rb .rake .gemspec", grammar="ruby"),
    # ---- code without a grammar here: still "code" (line windows instead of definitions)
    **_rows("code", ".sh .bash", fence="bash"),
    **_rows("code", ".kt", fence="kotlin"),
    **_rows("code", ".swift", fence="swift"),
    **_rows("code", ".php", fence="php"),
    **_rows("code", ".cs", fence="csharp"),
    **_rows("code", ".scala", fence="scala"),
    **_rows("code", ".lua", fence="lua"),
    **_rows("code", ".html .htm", fence="html"),
    **_rows("code", ".css", fence="css"),
    **_rows("code", ".scss", fence="scss"),
    **_rows(
        "code",
        ".zsh .fish .ps1 .kts .fs .pl .pm .r .m .mm .ex .exs .erl .hrl .hs .ml .mli .clj .cljs .dart .jl "
        ".nim .v .sv .vhd .groovy .gradle .vue .svelte .astro .sass .less .pyx .pxd .cu .proto .graphql "
        ".tf .sol .elm .cmake .mk .bzl",
    ),
    # ---- docs
    **_rows("doc", ".md", fence="markdown"),
    **_rows("doc", ".rst", fence="rst"),
    **_rows("doc", ".txt", fence="text"),
    **_rows("doc", ".markdown .mdx .adoc .asciidoc .rdoc .textile"),
    **_rows("doc", ".org", mentioned=False),  # `python.org` is a web site far more often
    # ---- configuration and data
    **_rows("data", ".json", fence="json"),
    **_rows("data", ".toml", fence="toml"),
    **_rows("data", ".yaml .yml", fence="yaml"),
    **_rows("data", ".cfg .ini", fence="ini"),
    **_rows("data", ".xml", fence="xml"),
    **_rows("data", ".sql", fence="sql"),
    **_rows("data", ".jsonl .ndjson .csv .tsv .lock"),
    # ---- named by docs and issues, never read as text here
    **_rows("asset", ".png .jpg .jpeg .gif .svg .ipynb"),
}
# Jupyter notebooks: an asset to the gate and to code freshness (their words define nothing), a doc
# where `[context] doc_globs` take them (markdown cells as prose, code cells as examples).
NOTEBOOK_EXTENSIONS = frozenset({".ipynb"})

# Files that are code by their whole name (no telling extension).
CODE_FILE_NAMES = frozenset({"Makefile", "GNUmakefile", "Dockerfile", "Rakefile", "Gemfile", "Justfile", "CMakeLists.txt"})


def _where(*kinds: TypeKind) -> frozenset[str]:
    return frozenset(ext for ext, row in FILE_TYPES.items() if row.kind in kinds)


# ---- derived sets
#
# Where the seven copies this replaces disagreed, the union was taken. Behaviour changes:
# - doc freshness (references.CODE_EXTS): every gate code extension now counts as code there,
#   .pyx/.pxd/.pyw, .html/.css/.scss, .proto, .graphql, .tf, ... (c++/h++ left out: that set is
#   joined unescaped into a regex); .sql stays.
# - doc freshness (references.DOC_EXTS): .mdx, .asciidoc, .org, .rdoc, .textile are docs there too.
# - doc freshness (references.KNOWN_EXTS): a path in a doc may also end with any code or doc
#   extension of the table, .tsv or .ndjson.
# - rank/code issue hints (`_EXT`, `CODE_HINT_EXTENSIONS`): a file named in an issue may also end
#   with the gate's other code (.pyw, .ex, .kts, .vue, .c++, ...), .jsonl, .csv, .xml, .lock, or an
#   image/notebook extension; docs stay out, as before (same hints on the 82 benchmark issues).
# - rank/complexity (`_CODE_EXTS`, `MENTIONED_PATH_EXTENSIONS`): a path-like token in an issue
#   counts as a named file for every table extension (it had a subset with .md/.rst/.txt); the
#   same named files on the 82 benchmark issues.
# - the pre-commit hook (`files:`): every doc and freshness-code extension, was md, markdown, rst,
#   txt and part of the grammar extensions.
# The gate's kinds, the grammars of paths and the fence tags are unchanged.

GRAMMAR_BY_EXTENSION: Mapping[str, str] = {ext: row.grammar for ext, row in FILE_TYPES.items() if row.grammar}
EXTENSIONS_BY_GRAMMAR: Mapping[str, tuple[str, ...]] = {
    name: tuple(ext for ext, g in GRAMMAR_BY_EXTENSION.items() if g == name)
    for name in dict.fromkeys(GRAMMAR_BY_EXTENSION.values())
}
# The gate's kinds: code (with or without a grammar) and docs; everything else is "other".
CODE_EXTENSIONS = _where("grammar", "code")
DOC_EXTENSIONS = _where("doc")
# Fence tags of files without a grammar (a grammar's tag is its LanguageSpec's `fence`).
FENCE_BY_EXTENSION: Mapping[str, str] = {
    ext: row.fence for ext, row in FILE_TYPES.items() if row.fence and row.grammar is None
}
# What doc freshness treats as code: definitions are read from it, prose names its paths. SQL
# counts (`CREATE FUNCTION`), as it always did there, though the gate files it as data.
FRESHNESS_CODE_EXTENSIONS = CODE_EXTENSIONS | {".sql"}
# Extensions a path mentioned in an issue or a doc may end with (any row prose does not misuse).
MENTIONED_PATH_EXTENSIONS = frozenset(ext for ext, row in FILE_TYPES.items() if row.mentioned)
# Files an issue names that the code ranker boosts: any mentioned path but a doc (docs are the
# doc ranker's; `README.md` in an issue stays a word there, as before).
CODE_HINT_EXTENSIONS = MENTIONED_PATH_EXTENSIONS - DOC_EXTENSIONS
# The pre-commit hook runs on docs (notebooks too) and on the code they may reference (`.pre-commit-hooks.yaml`).
HOOK_EXTENSIONS = DOC_EXTENSIONS | NOTEBOOK_EXTENSIONS | FRESHNESS_CODE_EXTENSIONS


def bare(extensions: Iterable[str], *, words_only: bool = False) -> frozenset[str]:
    """The extensions without their dot (`py`); `words_only` drops those with other characters
    than letters, digits and `_` (`c++`), for sets joined unescaped into a regular expression."""
    out = (ext[1:] for ext in extensions)
    return frozenset(e for e in out if not words_only or re.fullmatch(r"\w+", e))


def extension_pattern(extensions: Iterable[str]) -> str:
    """A non-capturing regex alternation of the extensions without their dot, escaped, longest
    first (so `cpp` is tried before `c`): `(?:cpp|py|c)`."""
    names = sorted(bare(extensions), key=lambda e: (-len(e), e))
    return "(?:" + "|".join(re.escape(e) for e in names) + ")"


def hook_files_pattern() -> str:
    """The `files:` regex of the `noface-doc-freshness` hook in `.pre-commit-hooks.yaml`."""
    names = sorted(bare(HOOK_EXTENSIONS))
    return r"\.(" + "|".join(re.escape(e) for e in names) + r")$"


_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})
_TEST_NAME = re.compile(r"^(?:test_.*|conftest\.py|.*[._-](?:test|tests|spec)\.\w+)$")


def is_test_path(path: str) -> bool:
    """Whether a repository path is a test file: under a tests folder (`tests/`, `spec/`, ...), or
    named like one (`test_x.py`, `x_test.go`, `x.spec.ts`, `conftest.py`). Ranking demotes them,
    the dense stage does not embed them ahead, and freshness does not take their definitions for
    what a doc describes."""
    parts = path.lower().split("/")
    return any(p in _TEST_DIRS for p in parts[:-1]) or _TEST_NAME.match(parts[-1]) is not None


# Folders of release notes and changelogs: never ranked as design docs nor judged for freshness
# (`docs.markup.is_record`, which reads `release-notes/` and `ReleaseNotes/` as `release_notes/`);
# the default of `[context] record_dirs`.
RECORD_DIRS = ("releases", "release_notes", "changelog", "changes", "news", "whatsnew", "history", "announce")
