"""Code references in docs: the value (`Reference`), and the vocabulary extraction and resolution
share (extensions, fence languages, names that are never references, the shapes of names).

A reference is found by `noface_ctx.freshness.extract` (prose, Sphinx and Markdown forms) and
`noface_ctx.freshness.examples` (code examples); whether it still resolves is
`noface_ctx.freshness.codebase`'s question.
"""

from __future__ import annotations

import builtins
import keyword
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from noface_ctx._filetypes import DOC_EXTENSIONS, FRESHNESS_CODE_EXTENSIONS, MENTIONED_PATH_EXTENSIONS, bare

# member: a method called on an example's object of unknown type; keyword: a parameter a call passes by name;
# base: a class an example's class derives from; setting: a project setting (`:setting:`X``); each only checked for removal
RefKind = Literal["symbol", "path", "call", "method", "member", "keyword", "base", "setting"]

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
sizeof memcpy strlen puts require_relative attr_accessor np pd plt tf torch NaN NaT Infinity""".split()
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

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
DOTTED = rf"{IDENT}(?:(?:\.|::){IDENT})*"
PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")  # a doctest prompt
STRING = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
_KEYWORD_ARG = re.compile(rf"[\s\[]*({IDENT})\s*=(?!=)")  # `name=value`, `[name=default]` (optional, as written)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Reference:
    """A code-like token in a doc: `ref` as written, `name` as looked up (no parens, `::` → `.`)."""

    ref: str
    name: str
    kind: RefKind
    line: int
    strict: bool = True  # may be reported when it does not resolve
    source: str = "span"  # "span", "prose", "link", "role" (a word only its role makes code), "autodoc", or a code block's language tag
    binds: str = ""  # an import in a code example: the local name it binds
    documented: bool = False  # the doc documents it: an API directive's target, or named in a heading


def keyword_refs(args: str, start: int, line_of: Callable[[int], int], source: str) -> list[Reference]:
    """The keyword arguments of a call whose arguments start at `args[start]` (just after its
    opening parenthesis; strings blanked), as `keyword` references: a parameter name the call
    passes (`allow_module_level=True`; `[name=default]` in a signature written out too), with
    its line (`line_of(offset)`). Only a code-shaped name may be reported."""
    out = []
    depth, j, arg_start = 1, start, start
    while j < len(args) and depth:
        ch = args[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if (ch == "," and depth == 1) or depth == 0 or j == len(args) - 1:
            m = _KEYWORD_ARG.match(args, arg_start, j + 1)
            if m is not None and m.group(1) not in SELF_NAMES:
                out.append(Reference(m.group(1), m.group(1), "keyword", line_of(m.start(1)),
                                     codeish(m.group(1)) and not placeholder(m.group(1)), source))
            arg_start = j + 1
        j += 1
    return out


_AFTER_SPAN = re.compile(r"^ ?\(([\w\s,\[\].\u2026]*)\)")


def signature_after(ref: Reference, rest: str) -> Reference:
    """A span naming a callable followed by its parameters (`` `axes3d.Axes3D` (fig[, rect, elev, azim, ...]) ``,
    the Python docs' way, optional ones in brackets): the reference written as the call stating them
    (`axes3d.Axes3D(fig, rect=..., elev=..., azim=...)`: an optional parameter is one passed by name).
    Every item a name or an ellipsis, two names at least; else `ref` as it is."""
    m = _AFTER_SPAN.match(rest)
    if m is None or ref.kind not in ("symbol", "method") or "(" in ref.ref or not ref.strict:
        return ref
    items, optional, out = re.split(r"(\[|\]|,)", m.group(1)), 0, []
    for item in (i.strip() for i in items):
        optional += (item == "[") - (item == "]")
        if item in ("[", "]", ",", ""):
            continue
        if item not in ("...", "\u2026") and re.fullmatch(IDENT, item) is None:
            return ref
        out += [] if item in ("...", "\u2026") else [f"{item}=..." if optional else item]  # the rest elided: none stated
    if len(out) < 2:
        return ref
    return replace(ref, ref=f"{ref.ref}({', '.join(out)})", kind="method" if "." in ref.name else "call")


_RECEIVER_CALL = re.compile(rf"^([a-z_][A-Za-z0-9_]*)\.({IDENT})\(")


def receiver_member(ref: Reference) -> list[Reference]:
    """A literal span calling a method on a variable (``fig.set_tight_layout(True)``): inline example
    code whose receiver no example assigns, its code-shaped method a `member` (checked for removal
    only), as `examples` reads such a call in a code block."""
    m = _RECEIVER_CALL.match(ref.ref)
    if m is None or ref.kind != "method" or m.group(1) in EXTERNAL_NAMES or m.group(1) in SELF_NAMES:
        return []
    name = m.group(2)
    return [Reference(ref.ref, name, "member", ref.line, True, ref.source)] if codeish(name) and not placeholder(name) else []


def annotation_refs(signature: str, lineno: int) -> list[Reference]:
    """The classes a signature written in prose annotates with (`_eval(context: RuleContext) ->
    Optional[LintResult]`: `RuleContext`, `LintResult`): `symbol` references, strict when
    code-shaped (never a library's `Optional`)."""
    m = re.match(rf"^{DOTTED}\((.*)\)\s*(?:->\s*(.+))?$", signature)
    if m is None:
        return []
    annotations = re.findall(r":\s*([^,=]+)", m.group(1)) + ([m.group(2)] if m.group(2) else [])
    names = dict.fromkeys(n for text in annotations for n in re.findall(r"(?<![\w.])[A-Z]\w*", text))
    return [Reference(n, n, "symbol", lineno, codeish(n) and not placeholder(n)) for n in names if n not in EXTERNAL_NAMES]


def title_word(title: str, lineno: int) -> list[Reference]:
    """A section title written as one lowercase identifier (`mprint` on an API page): a name the
    page documents, source `word` (`scan` judges it as a removed name only, when no code names it now)."""
    word = title.strip().strip("`").lstrip("#").strip()
    if not re.fullmatch(IDENT, word) or not word[:1].islower() or len(word) < 4 or word in EXTERNAL_NAMES or placeholder(word):
        return []
    return [Reference(word, word, "symbol", lineno, True, "word", documented=True)]


def codeish(name: str) -> bool:
    """snake_case, camelCase or two-hump PascalCase; not ALL_CAPS, dunder, builtin or brand name."""
    if len(name) < 3 or name in EXTERNAL_NAMES or name in PROPER_NOUNS:
        return False
    if name.startswith("__") and name.endswith("__"):
        return False
    if name.upper() == name:
        return False
    core = name.strip("_")
    return "_" in core or bool(_CAMEL.search(core) and sum(1 for c in core if c.isupper()) >= (1 if core[0].islower() else 2))


def placeholder(name: str) -> bool:
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


def norm_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path
