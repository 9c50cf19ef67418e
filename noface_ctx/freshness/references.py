"""Code references in docs: what counts as one, and the vocabulary (extensions, fence languages,
names that are never references) resolution shares.

`extract_references(doc)` finds code-like tokens, each kept with its line:

- backticked spans that are calls (`get_user()`, `Auth.login(x)`), dotted names (`Class.method`,
  `pkg::item`), code-shaped identifiers (`snake_case`, `camelCase`, `PascalCase` with two humps)
  or repository paths (`src/auth/login.py`, `src/a.py:42`);
- Markdown link targets; unquoted `snake_name()` calls and `dir/file.py` paths in prose;
- in reStructuredText, the target of a Sphinx API directive (`.. class:: Paginator`,
  `.. method:: Paginator.page(number)`, `.. autofunction:: pkg.name`), read like a span;
- in fenced blocks tagged with a language the repository is written in: calls, and
  `from pkg.mod import name` / `import pkg.mod` lines, minus names the doc's block defines.

Never references: spans with spaces (shell commands, `pip install x`), URLs, flags (`-x`,
`--json`), `$VARS`, `~`/absolute paths, globs and placeholders (`<name>`, `foo`, `my_thing`),
plain words (`true`, `None`, `json`), ALL_CAPS constants, language builtins and keywords,
well-known library roots (`os.path`, `console.log`, `Vec::new`), `self.x`, lines carrying
`noface-ctx: ignore`, and docs that are changelogs (`CHANGELOG.md`, `HISTORY.md`, ...).

Whether a reference still resolves is `noface_ctx.freshness.codebase`'s question.
"""

from __future__ import annotations

import builtins
import keyword
import posixpath
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from noface_ctx.datatypes import Doc
from noface_ctx.filetypes import DOC_EXTENSIONS, FRESHNESS_CODE_EXTENSIONS, MENTIONED_PATH_EXTENSIONS, bare

RefKind = Literal["symbol", "path", "call", "method"]

# --------------------------------------------------------------------------- vocabulary

# From filetypes; now also .pyx, .html, .css, .proto, ... (all the gate's code), c++/h++ left out (joined into a regex)
CODE_EXTS = bare(FRESHNESS_CODE_EXTENSIONS, words_only=True)
KNOWN_EXTS = bare(MENTIONED_PATH_EXTENSIONS)  # now also every code and doc extension, .tsv, .ndjson
DOC_EXTS = bare(DOC_EXTENSIONS)  # now also mdx, asciidoc, org, rdoc, textile (the gate's docs)
# fenced-block language tag -> extensions the repository must have for the block to be checked
FENCE_LANGS: Mapping[str, tuple[str, ...]] = {
    **dict.fromkeys(("python", "py", "python3", "py3", "pycon"), ("py", "pyi")),
    **dict.fromkeys(("javascript", "js", "jsx", "node", "mjs"), ("js", "mjs", "cjs", "jsx", "ts", "tsx")),
    **dict.fromkeys(("typescript", "ts", "tsx"), ("ts", "tsx", "mts", "cts")),
    **dict.fromkeys(("go", "golang"), ("go",)),
    **dict.fromkeys(("rust", "rs"), ("rs",)),
    "java": ("java",), "zig": ("zig",), "c": ("c", "h"),
    **dict.fromkeys(("cpp", "c++", "cc", "cxx", "hpp"), ("cc", "cpp", "cxx", "hpp", "hh", "h")),
    **dict.fromkeys(("ruby", "rb"), ("rb",)),
}
_FOREIGN = """console window document require module exports process JSON Math Object Array Promise
String Number Boolean Date Error Map Set Symbol RegExp Reflect parseInt parseFloat setTimeout
setInterval fetch undefined null fmt make len cap append panic recover new nil errors strings http
context std core alloc Vec Box Option Some Ok Err Result HashMap HashSet BTreeMap Rc Arc RefCell Self
crate System Integer List ArrayList Arrays Collections Optional Stream Collectors printf malloc free
sizeof memcpy strlen puts require_relative attr_accessor np pd plt tf torch""".split()
EXTERNAL_NAMES = frozenset(
    [*_FOREIGN, *dir(builtins), *keyword.kwlist, *getattr(keyword, "softkwlist", []), *sys.stdlib_module_names]
)
PROPER_NOUNS = frozenset(
    """GitHub GitLab JavaScript TypeScript PyPI NumPy SciPy PyTorch OpenAI macOS iOS PostgreSQL MySQL
    SQLite YouTube LinkedIn PowerShell WebSocket OAuth JetBrains VSCode DevOps FastAPI LaTeX ChatGPT
    HuggingFace CodeMirror TreeSitter""".split()
)
PLACEHOLDER_PARTS = frozenset("foo bar baz qux quux spam eggs ham xyz example placeholder whatever".split())
GENERIC_PARTS = frozenset("class method function func module mod package pkg obj object attr name field".split())
WORD_CATEGORIES = frozenset({"size", "generated", "forbidden"})  # excluded files whose names still count
SELF_NAMES = frozenset({"self", "this", "cls", "super"})
IGNORE_MARK = "noface-ctx: ignore"

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = rf"{_IDENT}(?:(?:\.|::){_IDENT})*"
_SPAN = re.compile(r"(`+)(.+?)\1")
_CALL = re.compile(rf"^({_DOTTED})\((.*)\)$")
_DOTTED_ONLY = re.compile(rf"^{_IDENT}(?:(?:\.|::){_IDENT})+$")
_IDENT_ONLY = re.compile(rf"^{_IDENT}$")
_PATH_SHAPE = re.compile(r"^(?:\.{1,2}/)*[\w@+.-]+(?:/[\w@+.-]+)*/?$")
_LINE_SUFFIX = re.compile(r"^(.+?)(?::(\d+)(?:-\d+)?)?$")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+")
_LINK = re.compile(r"\]\(\s*<?([^()\s<>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
_PROSE_CALL = re.compile(rf"(?<![\w.`/:$-])({_DOTTED})\([^()\n]{{0,60}}\)")
_PROSE_PATH = re.compile(
    rf"(?<![\w/.@`-])((?:\.{{1,2}}/)*(?:[\w@+.-]+/)+[\w@+.-]+\.(?:{'|'.join(sorted(CODE_EXTS))}))(?::(\d+))?(?![\w/])"
)
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([^\s`{,]*)")
_CODE_CALL = re.compile(rf"(?<![\w.$@])({_DOTTED})\s*\(")
_CODE_DEF = re.compile(
    rf"\b(?:def|class|function|fn|func|struct|enum|interface|trait|type|let|const|var|val)\s+(?:\([^)]*\)\s*)?(?:mut\s+)?({_IDENT})"
)
_CODE_ASSIGN = re.compile(rf"^\s*((?:{_IDENT}\s*,\s*)*{_IDENT})\s*(?::[^=\n]*)?:?=(?!=)")
_CODE_BIND = re.compile(rf"\b(?:for|as)\s+({_IDENT})")
_PY_FROM = re.compile(rf"^\s*from\s+({_DOTTED})\s+import\s+\(?([\w\s,]+)\)?\s*$")
_PY_IMPORT = re.compile(rf"^\s*import\s+({_IDENT}(?:\.{_IDENT})*)(?:\s+as\s+({_IDENT}))?\s*$")
_ROLE_TARGET = re.compile(r"^[^<>]*\s<([^<>\s]+)>$")
_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")
_AUTODOC = re.compile(r"^\s*\.\.\s+(?:py:)?auto\w+::\s")  # Sphinx autodoc: the text is generated from the code
# a Sphinx API directive's target: `.. class:: Paginator`, `.. method:: Paginator.page(number)`, `.. autoclass:: x.Y`
_API_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:auto)?(function|class|method|classmethod|staticmethod|attribute|"
                            r"property|exception|data|decorator|decoratormethod)::\s+(\S.*?)\s*$")
_DEF_DIRECTIVES = frozenset({"function", "class", "method", "classmethod", "staticmethod", "exception", "decorator",
                             "decoratormethod"})  # what names a def or class (`data`, `attribute`: a value)
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(code-block|code|sourcecode|testcode|doctest)::\s*(\S+)?\s*$")
_STRING = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Reference:
    """A code-like token in a doc: `ref` as written, `name` as looked up (no parens, `::` → `.`)."""

    ref: str
    name: str
    kind: RefKind
    line: int
    strict: bool = True  # may be reported when it does not resolve
    source: str = "span"  # "span", "prose", "link", "autodoc" (an autodoc directive), or a code block's language tag
    binds: str = ""  # an import in a code example: the local name it binds
    documented: bool = False  # the doc documents it: an API directive's target, or named in a heading



# --------------------------------------------------------------------------- extraction


def extract_references(doc: Doc) -> list[Reference]:
    """Code-like references in a doc, in order, one per distinct (kind, name, code language); see
    the module docstring."""
    lines = doc.text.split("\n")
    prose: list[Reference] = []
    blocks: list[tuple[list[tuple[int, str]], str]] = []
    start = _frontmatter_end(lines)
    rst = doc.path.lower().endswith((".rst", ".txt"))  # Sphinx projects write .txt in reStructuredText too
    fence: tuple[str, str] | None = None  # (marker, language)
    block: list[tuple[int, str]] = []
    i = start
    while i < len(lines):
        lineno, line = i + 1, lines[i]
        m = _FENCE.match(line) if not rst else None  # reStructuredText has no fences: `~~~~` underlines a title
        if fence is None and m:
            fence, block = (m.group(1), m.group(2).lower()), []
        elif fence is not None:
            if line.strip().startswith(fence[0][:3]) and line.strip().strip(fence[0][0]) == "":
                blocks.append((block, fence[1]))
                fence = None
            else:
                block.append((lineno, line))
        else:
            lang = _rst_block_lang(line) if rst else None
            if lang is not None:
                body, i = _indented_block(lines, i)
                literal = not line.lstrip().startswith("..")
                if literal and body and body[0][1].lstrip().startswith(("$ ", "% ")):
                    lang = "console"  # a `::` literal block of a shell session (`$ pytest --help`): not Python
                blocks.append((body, lang))
                if literal:  # a paragraph ending in `::` is prose too
                    prose += [] if IGNORE_MARK in line else _prose_refs(line, lineno)
                continue
            if IGNORE_MARK not in line:
                found = _prose_refs(line, lineno)
                if _is_heading(lines, i, rst):
                    found = [replace(r, documented=True) for r in found]
                api = _API_DIRECTIVE.match(line) if rst else None
                target = _span_ref(re.sub(r"\s*->.*$", "", api.group(2)), lineno) if api else None
                if api is not None and target is not None and target.kind != "path":  # a def directive: `Request` too
                    strict = target.strict or (api.group(1) in _DEF_DIRECTIVES and not _placeholder(target.name))
                    found.insert(0, replace(target, strict=strict, documented=True))
                prose += [replace(r, source="autodoc") for r in found] if _AUTODOC.match(line) else found
        i += 1
    code = [(b, lang) for b, lang in blocks if lang in FENCE_LANGS]
    local = _example_names([b for b, _ in code])
    refs = [r for b, lang in code for r in _code_block_refs(b, lang, local)]
    refs += [r for r in prose if _root(r.name) not in local]
    refs.sort(key=lambda r: r.line)
    seen: dict[tuple[str, str, str], int] = {}
    out: list[Reference] = []
    for r in refs:  # once per code language too: a snippet in another language may not count
        key = (r.kind, r.name, r.source if r.source in FENCE_LANGS or r.source == "autodoc" else "")
        if key not in seen:
            seen[key] = len(out)
            out.append(r)
        elif r.documented and not out[seen[key]].documented:  # first mentioned, documented further down
            out[seen[key]] = replace(out[seen[key]], documented=True)
    return out


_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")


def _is_heading(lines: list[str], i: int, rst: bool) -> bool:
    """Line `i` is a section title: a Markdown `#` heading, or a line underlined with a row of
    one punctuation character (reStructuredText; `===` / `---` in Markdown)."""
    line = lines[i]
    if not rst and re.match(r"^\s{0,3}#{1,6}\s", line):
        return True
    if not line.strip() or i + 1 >= len(lines) or _UNDERLINE.match(line):
        return False
    under = _UNDERLINE.match(lines[i + 1])
    return under is not None and (rst or under.group(1) in "=-") and len(lines[i + 1].rstrip()) >= len(line.strip())


def _root(name: str) -> str:
    return name.split(".", 1)[0]


def _rst_block_lang(line: str) -> str | None:
    """The language of the reStructuredText code block `line` opens, or None: `.. code-block::
    python` (and `code`, `sourcecode`, `testcode`, `doctest`), or a paragraph ending in `::`
    (a literal block, taken as Python)."""
    m = _RST_DIRECTIVE.match(line)
    if m:
        return (m.group(2) or "python").lower() if m.group(1) != "doctest" else "pycon"
    stripped = line.rstrip()
    if stripped.endswith("::") and not stripped.lstrip().startswith(".."):
        return "python"
    return None


def _indented_block(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """The lines indented under line `i` (blank lines included), and the index after them."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    body = []
    j = i + 1
    while j < len(lines):
        text = lines[j]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        if text.strip() and not text.lstrip().startswith(":"):  # directive options (`:linenos:`)
            body.append((j + 1, text))
        j += 1
    return body, j


def _example_names(blocks: list[list[tuple[int, str]]]) -> set[str]:
    """Names the doc's own code examples define, assign, bind or import as an alias: in any
    block, they are the example's names, not the repository's (in prose too)."""
    local: set[str] = set()
    for block in blocks:
        text = "\n".join(_PROMPT.sub("", line) for _, line in block)
        local |= set(_CODE_DEF.findall(text)) | set(_CODE_BIND.findall(text))
        for line in text.split("\n"):
            m = _CODE_ASSIGN.match(_STRING.sub('""', line))
            if m:
                local.update(n.strip() for n in m.group(1).split(","))
    return local


def _frontmatter_end(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                return i + 1
    return 0


def _prose_refs(line: str, lineno: int) -> list[Reference]:
    refs: list[Reference] = []
    for m in _SPAN.finditer(line):
        ref = _span_ref(m.group(2).strip(), lineno)
        if ref is not None:
            refs.append(ref)
    prose = _URL.sub(" ", _SPAN.sub(" ", line))
    for m in _LINK.finditer(prose):
        target = m.group(1).split("#", 1)[0].split("?", 1)[0]
        if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target) and _PATH_SHAPE.match(target):
            has_ext = file_ext(target) in KNOWN_EXTS or "." in posixpath.basename(target).lstrip(".")
            refs.append(Reference(target, target.lstrip("/"), "path", lineno, has_ext, "link"))
    prose = _LINK.sub(" ", prose)
    for m in _PROSE_CALL.finditer(prose):
        name = m.group(1).replace("::", ".")
        if ("." in name or _codeish(name)) and not _placeholder(name):
            refs.append(Reference(m.group(0), name, "method" if "." in name else "call", lineno, True, "prose"))
    for m in _PROSE_PATH.finditer(prose):
        refs.append(Reference(m.group(0), _norm_path(m.group(1)), "path", lineno, True, "prose"))
    return refs


def _span_ref(text: str, lineno: int) -> Reference | None:
    """Classify one backticked span; None when it is not a code reference."""
    role = _ROLE_TARGET.match(text)  # a Sphinx role: :func:`~pkg.mod.name` or :class:`title <target>`
    text = (role.group(1) if role else text).lstrip("~!")
    if not text or "://" in text or text[0] in "-$~<@#/\\%!&*":
        return None
    m = _CALL.match(text)
    if m:
        name = m.group(1).replace("::", ".")
        dunder = name.rsplit(".", 1)[-1].startswith("__")
        strict = not _placeholder(name) and not dunder and ("." in name or name not in EXTERNAL_NAMES)
        return Reference(text, name, "method" if "." in name else "call", lineno, strict)
    if any(c.isspace() for c in text) or any(c in text for c in "*?[]{}<>|=,;'\"()"):
        return None
    path_m = _LINE_SUFFIX.match(text)
    path = path_m.group(1) if path_m else text
    if _PATH_SHAPE.match(path) and ("/" in path or file_ext(path) in KNOWN_EXTS):
        return Reference(text, _norm_path(path), "path", lineno, True)
    if _DOTTED_ONLY.match(text):
        name = text.replace("::", ".")
        return Reference(text, name, "method", lineno, not _placeholder(name))
    if _IDENT_ONLY.match(text):
        return Reference(text, text, "symbol", lineno, _codeish(text) and not _placeholder(text))
    return None


def _code_block_refs(block: list[tuple[int, str]], lang: str, local: set[str]) -> list[Reference]:
    """Calls and imports in a code block, minus the example's own names (`local`).

    An import is kept with the local name it binds (`binds`): when its module is not part of
    the repository (a third-party package), freshness drops every reference through that name."""
    comment = "#" if lang in ("python", "py", "python3", "py3", "pycon", "ruby", "rb") else "//"
    refs: list[Reference] = []
    for lineno, raw in block:
        if IGNORE_MARK in raw:
            continue
        raw = _PROMPT.sub("", raw)
        m = _PY_FROM.match(raw) if comment == "#" else None
        if m:
            for part in m.group(2).split(","):
                name, _, alias = part.strip().partition(" as ")
                if _IDENT_ONLY.match(name.strip()):
                    name = name.strip()
                    refs.append(Reference(name, f"{m.group(1)}.{name}", "method", lineno, True, lang,
                                          alias.strip() or name))
            continue
        m = _PY_IMPORT.match(raw) if comment == "#" else None
        if m:
            refs.append(Reference(m.group(1), m.group(1), "method", lineno, True, lang, m.group(2) or _root(m.group(1))))
            continue
        line = _STRING.sub('""', raw).split(comment, 1)[0]
        for cm in _CODE_CALL.finditer(line):
            name = cm.group(1).replace("::", ".")
            if _root(name) in local or name in EXTERNAL_NAMES or _placeholder(name):
                continue
            if "." in name:
                refs.append(Reference(name + "()", name, "method", lineno, True, lang))
            elif _codeish(name):
                refs.append(Reference(name + "()", name, "call", lineno, True, lang))
    return refs


def _codeish(name: str) -> bool:
    """snake_case, camelCase or two-hump PascalCase; not ALL_CAPS, dunder, builtin or brand name."""
    if len(name) < 3 or name in EXTERNAL_NAMES or name in PROPER_NOUNS:
        return False
    if name.startswith("__") and name.endswith("__"):
        return False
    if name.upper() == name:
        return False
    core = name.strip("_")
    return "_" in core or bool(_CAMEL.search(core) and sum(1 for c in core if c.isupper()) >= (1 if core[0].islower() else 2))


def _placeholder(name: str) -> bool:
    """`foo`, `my_func`, `spam.eggs`, and generic dotted names such as `Class.method`."""
    parts = [p.lower() for p in re.split(r"[._]|(?<=[a-z])(?=[A-Z])", name) if p]
    if "." in name and all(p in GENERIC_PARTS for p in parts):
        return True
    return any(p in PLACEHOLDER_PARTS for p in parts) or bool(re.match(r"(?i)(my|your|some)_", name))


def file_ext(path: str) -> str:
    """Lowercased extension without the dot ("" for none; `.noface.toml` → "toml")."""
    base = path.rstrip("/").rpartition("/")[2]
    dot = base.rfind(".")
    return base[dot + 1 :].lower() if dot > 0 and base[:dot].strip(".") else ""


def _norm_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path
