"""Finding a doc's code references (`extract_references`), each kept with its line:

- backticked spans that are calls (`get_user()`, `Auth.login(x)`; `fig.tight()` on a variable: its
  method, `references.receiver_member`), dotted names (`Class.method`, `pkg::item`), code-shaped
  identifiers (`snake_case`, `camelCase`, `PascalCase` with two humps) or repository paths (`src/a.py:42`);
- Markdown link targets; unquoted `snake_name()` calls and `dir/file.py` paths in prose; member lists (`member_lists`);
- Sphinx API directives' targets (`.. autofunction:: pkg.name`), MkDocs' `::: pkg.name`, autorefs (`mkdocs_refs`),
  `:pyobject:`/CLI directives (`object_directives`), URL anchors (`anchor_links`); code examples (`examples`).

Never references: spans with spaces (shell commands, `pip install x`), URLs, flags (`-x`, `--json`), `$VARS`,
`~`/absolute paths, globs and placeholders (`<name>`, `foo`, `my_thing`), plain words (`true`, `None`, `json`),
ALL_CAPS constants, language builtins and keywords, well-known library roots (`os.path`, `console.log`,
`Vec::new`), `self.x`, lines carrying `noface-ctx: ignore`, and changelogs (`CHANGELOG.md`, `HISTORY.md`, ...).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from noface_ctx.datatypes import Doc
from noface_ctx.freshness import blocks as doc_blocks
from noface_ctx.freshness import example_attrs, examples, member_lists, mkdocs_refs, object_directives, suffix_roles
from noface_ctx.freshness.anchor_links import references as anchor_refs
from noface_ctx.freshness.autodoc_members import AUTO_OWNER, listed_members
from noface_ctx.freshness.blocks import (
    DOCTEST,
    UNDERLINE,
    doctest_block,
    fenced,
    frontmatter_end,
    indented_block,
    rst_block_lang,
)
from noface_ctx.freshness.bold_files import bold_names
from noface_ctx.freshness.directive_lines import joined
from noface_ctx.freshness.example_comments import comment_refs
from noface_ctx.freshness.examples import example_keywords, example_names, example_refs, example_types, ipython_code
from noface_ctx.freshness.import_strings import string_refs, string_span
from noface_ctx.freshness.keyword_spans import beside_called
from noface_ctx.freshness.module_context import CLASS_LEVEL, autodoc_ref, in_module
from noface_ctx.freshness.references import (
    CODE_EXTS,
    DOTTED,
    EXTERNAL_NAMES,
    FENCE_LANGS,
    IDENT,
    IGNORE_MARK,
    KNOWN_EXTS,
    STRING,
    Reference,
    annotation_refs,
    codeish,
    file_ext,
    keyword_refs,
    norm_path,
    placeholder,
    receiver_member,
    signature_after,
    title_word,
)
from noface_ctx.freshness.shell_paths import shell_refs
from noface_ctx.freshness.star_values import star_values

_SPAN = re.compile(r"(`+)(.+?)\1")
_CALL = re.compile(rf"^({DOTTED})\((.*)\)$")
_DOTTED_ONLY = re.compile(rf"^{IDENT}(?:(?:\.|::){IDENT})+$")
_IDENT_ONLY = re.compile(rf"^{IDENT}$")
_PATH_SHAPE = re.compile(r"^(?:\.{1,2}/)*[\w@+.-]+(?:/[\w@+.-]+)*/?$")
_LINE_SUFFIX = re.compile(r"^(.+?)(?::(\d+)(?:-\d+)?)?$")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+")
_LINK = re.compile(r"\]\(\s*<?([^()\s<>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
_PROSE_CALL = re.compile(rf"(?<![\w.`/:$-])({DOTTED})\([^()\n]{{0,60}}\)")
_PROSE_PATH = re.compile(
    rf"(?<![\w/.@`-])((?:\.{{1,2}}/)*(?:[\w@+.-]+/)+[\w@+.-]+\.(?:{'|'.join(sorted(CODE_EXTS))}))(?::(\d+))?(?![\w/])"
)
_KEYWORD_SPAN = re.compile(rf"^({IDENT})\s*=\s*[^=\s].*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([^\s`{,]*)")
_ROLE_TARGET = re.compile(r"^[^<>]*\s<([^<>\s]+)>$")
_AUTODOC = re.compile(r"^\s*\.\.\s+(?:py:)?auto(\w+)::\s")  # Sphinx autodoc: the text is generated from the code
# a Sphinx API directive's target: `.. class:: Paginator`, `.. method:: Paginator.page(number)`, `.. autoclass:: x.Y`
_API_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:auto)?(function|class|method|classmethod|staticmethod|attribute|"
                            r"property|exception|data|decorator|decoratormethod|setting)::\s+(\S.*?)\s*$")
_SETTING = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")  # django's `.. setting:: SESSION_COOKIE_AGE`, `:setting:`...``
_DEF_DIRECTIVES = frozenset({"function", "class", "method", "classmethod", "staticmethod", "exception", "decorator",
                             "decoratormethod"})  # what names a def or class (`data`, `attribute`: a value)
# a Sphinx role before a span (`:py:meth:`) or a MyST one (`{py:func}`); an object role's target is code whatever its shape
_ROLE = re.compile(r"(?::([\w-]+(?::[\w-]+)*):|\{([\w-]+(?::[\w-]+)*)\})$")
_OBJECT_ROLES = frozenset("func function meth method class exc exception attr attribute obj data const mod module deco "
                          "property type".split())
_TITLED_ROLES = frozenset({"ref", "doc", "numref"})  # a cross-reference to a section, whose title may name code
_MODULE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:current)?module::\s+([\w.]+)\s*$")  # `.. currentmodule:: xarray`
_AUTOSUMMARY = re.compile(r"^\s*\.\.\s+autosummary::\s*$")
_MYST = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*\{([\w:-]+)\}\s*(\S*)")  # ```{autosummary}, ```{currentmodule} xarray
_IPYTHON = re.compile(r"^\s*(?:\.\.\s+ipython::|`{3,}\s*\{ipython\})")  # IPython's directive: prompts and output
_TRIPLE = re.compile(r'"""|\'\'\'')
_PARAMETERS = re.compile(r"\(\s*[^)\s]")  # a signature or call written with something between its brackets
_OPEN_ROLE = re.compile(r"(?::[\w-]+(?::[\w-]+)*:|\{[\w-]+(?::[\w-]+)*\})`[^`]*$")


def extract_references(doc: Doc) -> list[Reference]:
    """Code-like references in a doc, in order, one per distinct (kind, name, code language): see the module docstring."""
    rst = doc.path.lower().endswith((".rst", ".txt", ".py"))  # .txt in Sphinx projects too; a gallery script: docs.gallery
    lines = joined(doc_blocks.blank_comments(doc.text.split("\n"))) if rst else doc.text.split("\n")  # a comment: unseen
    prose: list[Reference] = []
    blocks: list[tuple[list[tuple[int, str]], str]] = []
    start = frontmatter_end(lines)
    fence: tuple[str, str] | None = None  # (marker, language)
    block: list[tuple[int, str]] = []
    module = ""  # the `currentmodule` / `module` / `automodule` context of what follows
    owner, section = (-1, ""), ""  # the class directive whose body this is (its indent, its name); the section's class
    i, carry = start, 0  # carry: characters of this line a role wrapped from the line before took
    while i < len(lines):
        lineno, line = i + 1, lines[i]
        line, carry = (" " * carry + line[carry:], 0) if carry else (line, 0)
        owner = (-1, "") if line.strip() and len(line) - len(line.lstrip()) <= owner[0] else owner
        m = _FENCE.match(line) if not rst else None  # reStructuredText has no fences: `~~~~` underlines a title
        myst = _MYST.match(line) if fence is None and not rst else None
        if myst is not None:  # a MyST directive: a module context, autosummary entries, an autodoc target
            body, i = fenced(lines, i)
            if (lang := doc_blocks.myst_code_lang(myst.group(1), myst.group(2))) is not None:  # an example
                blocks.append((ipython_code(body) if _IPYTHON.match(line) else body, lang))
                continue
            module, found = _directive(myst.group(1), myst.group(2), body, module, lineno) if myst.group(1) != "eval-rst" else (
                doc_blocks.eval_rst(lines, lineno - 1, module, lambda rst: extract_references(replace(doc, path=f"{doc.path}.rst", text=rst))))
            prose += found
            continue
        if fence is None and m:
            fence, block = (m.group(1), m.group(2).lower()), []
        elif fence is not None:
            if line.strip().startswith(fence[0][:3]) and line.strip().strip(fence[0][0]) == "":
                blocks.append((block, fence[1]))
                prose += _block_roles(block, fence[1], module)
                fence = None
            else:
                block.append((lineno, line))
        else:
            directive = (_MODULE.match(line) or _AUTOSUMMARY.match(line)) if rst else None
            if directive is not None:
                body, after = indented_block(lines, i)
                kind = "autosummary" if directive.re is _AUTOSUMMARY else "currentmodule" if "current" in line else "module"
                module, found = _directive(kind,
                                           directive.group(1) if directive.re is _MODULE else "", body, module, lineno)
                prose += found
                i = after if directive.re is _AUTOSUMMARY else i + 1
                continue
            lang = rst_block_lang(lines, i) if rst else None
            if lang is not None:  # a doctest block is the paragraph of prompts itself
                body, i = doctest_block(lines, i) if lang == DOCTEST else indented_block(lines, i)
                body = ipython_code(body) if _IPYTHON.match(line) else body
                lang = "pycon" if lang == DOCTEST else lang
                literal = not line.lstrip().startswith(("..", ">>>"))
                if literal and body and body[0][1].lstrip().startswith(("$ ", "% ")):
                    lang = "console"  # a `::` literal block of a shell session (`$ pytest --help`): not Python
                blocks.append((body, lang))
                prose += _block_roles(body, lang, module)
                if literal:  # a paragraph ending in `::` is prose too
                    prose += [] if IGNORE_MARK in line else _prose_refs(line, lineno, module)
                continue
            if IGNORE_MARK not in line:
                wrapped, carry = _wrapped(line, lines[i + 1] if i + 1 < len(lines) else "")
                found = _prose_refs(line, lineno, module) + _prose_refs(wrapped, lineno + 1, module)
                heading = _is_heading(lines, i, rst)  # a title naming a class opens its member list (`member_lists`)
                found = ([replace(r, documented=True) for r in found] + ([] if found else title_word(line, lineno))
                         if heading else found + member_lists.member_refs(line, lineno, section))
                section = member_lists.section_class(line) if heading else section
                api = _API_DIRECTIVE.match(line) if rst else None
                arg = api.group(2) if api else ""  # in a class's body a member's bare name is the class's (Sphinx's `py:class`)
                arg = f"{owner[1]}.{arg}" if api and api.group(1) in CLASS_LEVEL and owner[1] and "." not in arg.split("(")[0] else arg
                owner = (len(line) - len(line.lstrip()), arg.split("(")[0].strip()) if api and api.group(1) in ("class", "exception") else owner
                target = _span_ref(re.sub(r"\s*->.*$", "", arg), lineno) if api else None
                if api is not None and api.group(1) == "setting":  # a project's setting: a module constant
                    setting = _setting(api.group(2), lineno)
                    found = [setting, *found] if setting is not None else found
                elif api is not None and target is not None and target.kind != "path":  # a def directive: `Request` too
                    strict = target.strict or (api.group(1) in _DEF_DIRECTIVES and not placeholder(target.name))
                    target = replace(target, strict=strict, documented=True)
                    bare = "." not in re.sub(r"\(.*$", "", arg)
                    found.insert(0, in_module(target, module) if bare and not _AUTODOC.match(line) else target)
                    found += _passed(target)  # `.. autofunction:: pytest.skip(reason, [allow_module_level=False])`
                if (autodoc := _AUTODOC.match(line)) and not re.search(r"\(\s*[^)\s]", line):  # a signature written out is the doc's
                    found = [autodoc_ref(autodoc.group(1), replace(r, source="autodoc"), module) for r in found]
                    found += listed_members(lines, i, module)
                head = AUTO_OWNER.match(line) if rst else None  # `.. automodule:: x` writes `.. py:module:: x`: a reference too
                module, auto = _directive("module", head.group(3), [], module, lineno) if head and head.group(2) == "module" else (module, [])
                prose += found + auto
        i += 1
    code = [(examples.split_imports(b) if lang in examples.PYTHON else b, lang) for b, lang in blocks if lang in FENCE_LANGS]
    imported = examples.imported_names([b for b, lang in code if lang in examples.PYTHON])
    provided = {n for b, _ in blocks for n in doc_blocks.directive_globals(lines, b)}  # `invoke()` in `.. click:run::`
    local = example_names([b for b, _ in code]) | (provided - imported)  # imported in another block: the repository's
    aliases = examples.example_aliases([b for b, _ in code])
    types = example_types([b for b, _ in code], local, aliases)
    refs = [r for b, lang in code for r in example_refs(b, lang, local, types, aliases, imported) + comment_refs(b, lang, local, types, aliases)]
    python = [b for b, lang in code if lang in examples.PYTHON]  # a bare name `*` binds; a literal word of what they import
    modules = {m: m for m in example_attrs.imported_modules(python) if m not in local} | aliases  # `import anyio`: `anyio.run(debug=...)`'s callee
    keywords = [r for b in python for r in example_keywords(b, local, types, modules, imported)]
    refs += keywords + beside_called(lines, start, types, keywords)  # ``specname`` in prose beside ``hookimpl``
    stars, refs = examples.star_modules(python), refs + example_attrs.module_attributes(python, local, types, aliases)
    refs += [r for b in python for r in example_attrs.handed_attributes(b, local) + string_refs(b)]
    refs += [r for b in python for r in examples.star_refs(b, local, imported, stars) + star_values(b, local, imported, stars)] if stars else []
    refs += [r for b, lang in blocks if lang in examples.PYTHON and lang != "pycon" for r in _docstring_xrefs(b)]
    prose += object_directives.references(doc.path, doc.text, rst) + anchor_refs(lines, start) + (
        [] if rst else mkdocs_refs.references(doc.text, start) + bold_names(lines, start))  # "- **Name** (`pkg/mod.py`)"
    refs += [r for r in prose + member_lists.introduced_members(lines, start) if r.name.split(".", 1)[0] not in local]
    refs += examples.plain_words(prose, local)  # without examples: the package's (`scan`); ALL_CAPS spans
    refs.sort(key=lambda r: r.line)
    seen: dict[tuple[str, ...], int] = {}
    out: list[Reference] = []
    for r in refs:  # once per code language too: a snippet in another language may not count
        key: tuple[str, ...] = (r.kind, examples.callee_key(r) + r.name, r.source if r.source in FENCE_LANGS or r.source in ("autodoc", "word", "constant") else "")
        kept = out[seen[key]] if key in seen else None
        if kept is not None and r.documented and kept.documented and r.ref != kept.ref and _PARAMETERS.search(r.ref):
            key = (*key, r.ref)  # another signature a directive writes (`include(pattern_list)` below `include(module)`)
        if key not in seen:
            seen[key] = len(out)
            out.append(r)
        elif r.documented and not out[seen[key]].documented:  # first mentioned, documented further down
            out[seen[key]] = replace(out[seen[key]], documented=True)
    return out


def _is_heading(lines: list[str], i: int, rst: bool) -> bool:
    """Line `i` is a section title: a Markdown `#` heading, or a line underlined with a row of
    one punctuation character (reStructuredText; `===` / `---` in Markdown)."""
    line = lines[i]
    markdown = not rst and re.match(r"^\s{0,3}#{1,6}\s", line) is not None
    if markdown or not line.strip() or i + 1 >= len(lines) or UNDERLINE.match(line):
        return markdown
    under = UNDERLINE.match(lines[i + 1])
    return under is not None and (rst or under.group(1) in "=-") and len(lines[i + 1].rstrip()) >= len(line.strip())


def _directive(name: str, argument: str, body: list[tuple[int, str]], module: str,
               lineno: int) -> tuple[str, list[Reference]]:
    """(the module context after a Sphinx / MyST directive, the references it makes):
    `currentmodule` / `module` set the context; each `autosummary` entry and an autodoc
    directive's target is a reference (source `autodoc`: rendered from the code), read in the
    module context (`.. currentmodule:: xarray` then `Dataset.to_netcdf` is `xarray.Dataset.to_netcdf`)."""
    name = name.removeprefix("py:")
    if name in ("currentmodule", "module"):  # `.. module::` documents the module: a reference to it too
        found = [Reference(argument, argument, "method", lineno, True, "autodoc", documented=True)] if (
            name == "module" and "." in argument) else []
        return (argument if argument not in ("", "None") else ""), found
    if name == "autosummary":
        entries = [(n, text.strip().lstrip("~")) for n, text in body]
    elif name.startswith("auto") and argument:
        entries = [(lineno, argument)]
    else:
        return module, []
    refs = []
    for n, entry in entries:
        if not re.fullmatch(rf"{IDENT}(?:\.{IDENT})*", entry) or placeholder(entry):
            continue
        ref = Reference(entry, entry, "method" if "." in entry else "symbol", n, True, "autodoc")
        refs.append(in_module(ref, module) if name == "autosummary" else autodoc_ref(name[4:], ref, module))
    return module, refs


def _block_roles(body: list[tuple[int, str]], lang: str, module: str) -> list[Reference]:
    """The Python object roles in a block that is not code (`pytest --fixtures` output listing ``:meth:`monkeypatch.
    syspath_prepend(path) <pytest.MonkeyPatch.syspath_prepend>` ``): a role names code wherever it is written."""
    if lang in FENCE_LANGS:
        return []
    return shell_refs(body, lang) + [r for n, text in body if "`" in text and IGNORE_MARK not in text
                                       for r in _prose_refs(text, n, module, roles_only=True)]


def _docstring_xrefs(body: list[tuple[int, str]]) -> list[Reference]:
    """The dotted names an example's docstrings write in backticks (`` `~pkg.core.Model` ``
    typing a parameter, `` :class:`pkg.Model` ``): the API the example says it works with."""
    out: list[Reference] = []
    quote = ""
    for n, text in body:
        start, segments = 0, []
        for m in _TRIPLE.finditer(text):
            if not quote:
                quote, start = m.group(0), m.end()
            elif m.group(0) == quote:
                segments.append(text[start:m.start()])
                quote = ""
        segments += [text[start:]] if quote else []
        for m in (m for segment in segments for m in _SPAN.finditer(segment)):
            ref = _role_ref(m.group(2).strip(), n)
            if ref is not None and ref.kind == "method" and ref.strict:
                out.append(replace(ref, source="xref"))
    return out


def _prose_refs(line: str, lineno: int, module: str = "", *, roles_only: bool = False) -> list[Reference]:
    refs: list[Reference] = []
    if "`" not in line and "(" not in line and "/" not in line:  # no span, link, call or path: most lines
        return refs
    for m in _SPAN.finditer(line):
        role = _ROLE.search(line, 0, m.start())
        kind = (role.group(1) or role.group(2)).rsplit(":", 1)[-1] if role is not None else ""
        if kind == "setting":
            ref = _setting(m.group(2).strip(), lineno)
        elif kind in _OBJECT_ROLES:  # `:meth:`~.Flask.register_blueprint``, `{py:func}`corr``
            ref = _role_ref(m.group(2).strip(), lineno, module)
        elif roles_only:
            continue
        elif kind in _TITLED_ROLES:  # `:ref:`register_assert_rewrite <assertion-rewriting>``: a title naming code
            title = _ROLE_TARGET.match(m.group(2).strip())
            ref = _span_ref(title.group(0).rsplit("<", 1)[0].strip(), lineno) if title else None
            ref = ref if ref is not None and ref.kind != "path" and ref.strict else None
        else:
            ref = _span_ref(m.group(2).strip(), lineno)
        if ref is not None:
            ref = signature_after(ref, line[m.end():]) if kind in _OBJECT_ROLES or not kind else ref
            refs.append(ref)
            refs += _passed(ref) + (annotation_refs(m.group(2).strip(), lineno) + receiver_member(ref) if not kind else [])
    if roles_only:
        return refs
    prose = _URL.sub(" ", _SPAN.sub(" ", line))
    for m in _LINK.finditer(prose):
        target = m.group(1).split("#", 1)[0].split("?", 1)[0]
        if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target) and _PATH_SHAPE.match(target):
            has_ext = file_ext(target) in KNOWN_EXTS or "." in posixpath.basename(target).lstrip(".")
            refs.append(Reference(target, target.lstrip("/"), "path", lineno, has_ext, "link"))
    prose = _LINK.sub(" ", prose)
    for m in _PROSE_CALL.finditer(prose):
        name = m.group(1).replace("::", ".")
        if ("." in name or codeish(name)) and not placeholder(name):
            refs.append(Reference(m.group(0), name, "method" if "." in name else "call", lineno, True, "prose"))
    for m in _PROSE_PATH.finditer(prose):
        refs.append(Reference(m.group(0), norm_path(m.group(1)), "path", lineno, True, "prose"))
    return refs


def _wrapped(line: str, following: str) -> tuple[str, int]:
    """A role wrapped to the next line (reST: `` :attr:`Change list pagination`` / `` <pkg.ModelAdmin.list_per_page>` ``):
    the role written whole, and how many characters of the next line it took ("", 0 when no role is left open)."""
    opened = _OPEN_ROLE.search(_SPAN.sub(lambda m: " " * len(m.group(0)), line)) if "`" in line else None
    end = following.find("`")
    if opened is None or end < 0 or following[end + 1:end + 2] == "`" or not following[:end].strip():
        return "", 0
    return line[opened.start():].rstrip() + " " + following[:end + 1].strip(), end + 1


def _passed(ref: Reference) -> list[Reference]:
    """The parameters a call or a signature written in prose passes or states by name
    (``pytest.skip(reason, allow_module_level=True)``): `keyword` references."""
    m = _CALL.match(ref.ref.lstrip("~!."))
    if m is None or ref.kind not in ("call", "method") or "=" not in m.group(2):
        return []
    args = STRING.sub('""', m.group(2)) + ")"
    return keyword_refs(args, 0, lambda _offset: ref.line, "span")


def _setting(text: str, lineno: int) -> Reference | None:
    """A setting a `setting` role or directive names (`SESSION_EXPIRE_AT_BROWSER_CLOSE`): checked
    for removal only (its value is the doc's `Default:` line's business)."""
    return Reference(text, text, "setting", lineno, True, "role") if _SETTING.match(text) else None


def _role_ref(text: str, lineno: int, module: str = "") -> Reference | None:
    """The target of a Python object role: a title's target (`title <target>`), without `~`,
    `!` and a leading `.` (a search by suffix); a code name whatever its shape. A bare name in
    a module context, or a member of a class named without its module, is read in that module
    (`BaseSearch`, `BaseSearch.add_document` under `.. currentmodule::
    sphinxcontrib.websupport.search` are that package's, not the repository's); so is a dotted
    name, when the module's submodule (`Codebase.resolve` decides)."""
    role = _ROLE_TARGET.match(text)
    written = (role.group(1) if role else text).lstrip("~!")
    target = written.lstrip(".")
    ref = _span_ref(target, lineno) if target else None
    if ref is None or ref.kind == "path" or placeholder(ref.name):
        return ref
    if module and not written.startswith(".") and ("." not in written.removesuffix("()") or written[:1].isupper()):
        return in_module(replace(ref, strict=True, source="role"), module)  # `Name`, `Class.member`: the module's
    # a cross-reference (`xref`: never a plain literal), or a word only the role makes code
    ref = replace(ref, source="xref") if ref.strict else replace(ref, strict=True, source="role")
    # `extmath.density` under `sklearn.utils`: Sphinx tries it as written, then in the module
    # (`Codebase` reads it there when `sklearn.utils.extmath` is a module of the repository)
    return in_module(ref, module) if module and not written.startswith(".") else suffix_roles.mark(ref, written)


def _span_ref(text: str, lineno: int) -> Reference | None:
    """Classify one backticked span; None when it is not a code reference."""
    role = _ROLE_TARGET.match(text)  # a Sphinx role: :func:`~pkg.mod.name` or :class:`title <target>`
    text = (role.group(1) if role else text).lstrip("~!")
    if re.match(r"\.[A-Za-z_]", text):  # ``.Sphinx.add_js_file()``: Sphinx's search by suffix
        text = text[1:]
    if not text or "://" in text or text[0] in "-$~<@#/\\%!&*":
        return None
    m = _CALL.match(re.sub(r"\)\s*->[^()]*(?:\[[^()]*\])?$", ")", text))  # `_eval(context: Context) -> Result`
    if m:
        name = m.group(1).replace("::", ".")
        dunder = name.rsplit(".", 1)[-1].startswith("__")
        strict = not placeholder(name) and not dunder and ("." in name or name not in EXTERNAL_NAMES)
        return Reference(text, name, "method" if "." in name else "call", lineno, strict)
    keyword = _KEYWORD_SPAN.match(text)  # ``instance_relative_config=True``: a keyword argument, named
    if keyword is not None and codeish(keyword.group(1)) and not placeholder(keyword.group(1)):
        return Reference(text, keyword.group(1), "symbol", lineno, True)
    if any(c.isspace() for c in text) or any(c in text for c in "*?[]{}<>|=,;'\"()"):
        return string_span(text, lineno)  # ``'pkg.mod.Class'``: an import path
    path_m = _LINE_SUFFIX.match(text)
    path = path_m.group(1) if path_m else text
    if _PATH_SHAPE.match(path) and ("/" in path or file_ext(path) in KNOWN_EXTS):
        return Reference(text, norm_path(path), "path", lineno, True)
    if _DOTTED_ONLY.match(text):
        name = text.replace("::", ".")
        return Reference(text, name, "method", lineno, not placeholder(name))
    if _IDENT_ONLY.match(text):
        return Reference(text, text, "symbol", lineno, codeish(text) and not placeholder(text))
    return None


