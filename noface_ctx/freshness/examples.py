"""References in a doc's code examples (`example_refs`): calls and imports, and calls and
attribute access on the objects an example makes, typed by the example's own assignments.

- `app = Flask(__name__)` (or `with Client() as c:`, `except ValidationError as err:`) types `app`: `app.register_blueprint(bp)`
  and `app.config` are references to `Flask.register_blueprint` and `Flask.config`, and an
  attribute chain (`mc.results.ac`) to the chain on the class (`ModelChain.results.ac`: past its
  first attribute the type is unknown, so history decides, as below);
- a call on an object of unknown type (`ds = open_dataset(p)`, then `ds.to_netcdf(p)`) is a
  reference to the method name alone (kind `member`): it never tells what the doc is about,
  but a method this repository defined, has since removed, and nothing defines now, is stale
  wherever an example calls it. Only code-shaped names (`to_netcdf`, `getItem`) count, so
  that a library's `ax.plot(...)` never stands for a method the repository once had; a plain
  word too on what a function the example defines is handed (`_plain_method`: a hook's
  `for field in fields: field.evolve(...)`);
- so is a call on a free lowercase name the example never assigns (`bigquery.insert_matchers(...)`,
  a module-level object of the code, or a module: `pkg.mod.function` is judged as a dotted name too);
- a call through a module's import alias (`sns.histplot(data, binwidth=3)` after `import seaborn
  as sns`) is a call of the module's name (`seaborn.histplot`), judged like one written out, and a
  class made through it types its object (`p = so.Plot(...)`: `seaborn.objects.Plot`): a
  library's (`np.polyfit`) is dropped with the library's import (`scan.scan_doc`);
- the names an example defines, assigns or binds are the example's own (`example_names`), and
  an import is kept with the local name it binds (`Reference.binds`); so, within its block, is
  a parameter of a function the block defines (`def handle_request(self, request):`, then
  `request.url.copy_with(...)`: the method name alone, never the repository's `request`).
"""

from __future__ import annotations

import keyword
import re
from bisect import bisect_right
from dataclasses import replace

from noface_ctx.freshness.body_tokens import closing
from noface_ctx.freshness.constant_spans import constant_spans
from noface_ctx.freshness.references import (
    DOTTED,
    EXTERNAL_NAMES,
    IDENT,
    IGNORE_MARK,
    PROMPT,
    STRING,
    Reference,
    codeish,
    keyword_refs,
    placeholder,
)
from noface_ctx.freshness.tracebacks import traceback_output

_CODE_CALL = re.compile(rf"(?<![\w.$@])({DOTTED})\s*(?:\[[^\]\n]*\]\s*)?\(")  # `StashKey[bool]()` too
_WORD_PAIR = re.compile(rf"(?<![\w.])({IDENT})\s+({IDENT})(?![\w.(])")
_PY_KEYWORDS = frozenset(keyword.kwlist) | frozenset(getattr(keyword, "softkwlist", ()))


def prose_paren(line: str, cm: re.Match[str]) -> bool:
    """`test_schema_2 (only used on PostgreSQL and mssql)`: a name, a blank, then parentheses holding
    a phrase of words is prose, not a call. Python style writes no blank before a call's `(`, and
    two names side by side, neither a keyword (`only used`), are no expression (`f (x for x in y)`,
    `f (a if b else c)` are)."""
    if not cm.group(0)[:-1].endswith((" ", "\t")):
        return False
    depth, end = 1, cm.end()
    while end < len(line) and depth:
        depth += (line[end] in "([{") - (line[end] in ")]}")
        end += 1
    inner = STRING.sub('""', line[cm.end():end - 1 if depth == 0 else end])
    return any(a not in _PY_KEYWORDS and b not in _PY_KEYWORDS
               for a, b in (m.groups() for m in _WORD_PAIR.finditer(inner)))


_CODE_DEF = re.compile(
    rf"\b(?:def|class|function|fn|func|struct|enum|interface|trait|type|let|const|var|val)\s+(?:\([^)]*\)\s*)?(?:mut\s+)?({IDENT})"
)
_CODE_ASSIGN = re.compile(rf"^\s*((?:{IDENT}\s*,\s*)*{IDENT})\s*(?::[^=\n]*)?:?=(?!=)")
_CODE_BIND = re.compile(rf"\b(?:for|as)\s+({IDENT})")
_TYPED = re.compile(rf"^\s*({IDENT})\s*(?::[^=\n]*)?=\s*({DOTTED})\s*\(")  # `app = Flask(__name__)`
_WITH_AS = re.compile(rf"\bwith\s+({DOTTED})\s*\(.*\)\s+as\s+({IDENT})\s*:")  # `with Client() as c:`
_EXCEPT_AS = re.compile(rf"\bexcept\s+({DOTTED})\s+as\s+({IDENT})\s*:")  # `except ValidationError as err:`
_PY_DEF = re.compile(rf"\bdef\s+{IDENT}\s*\(")
_PY_FROM = re.compile(rf"^\s*from\s+({DOTTED})\s+import\s+\(?([\w\s,]+)\)?\s*$")
_PY_IMPORT = re.compile(rf"^\s*import\s+({IDENT}(?:\.{IDENT})*)(?:\s+as\s+({IDENT}))?\s*$")
_CLASS_HEADER = re.compile(rf"^\s*class\s+{IDENT}\s*\(([^()]*)\)\s*:")  # its bases and keywords (`metaclass=`)
PYTHON = frozenset({"python", "py", "python3", "py3", "pycon"})
_LOOP_VAR = re.compile(rf"\bfor\s+({IDENT})\s+in\s+({IDENT})\b")  # `for field in fields:`, a comprehension's too
# what a builtin value answers (`results.append`, `text.split`, `d.items`): never the repository's method
_BUILTIN_METHODS = frozenset(m for t in (str, bytes, bytearray, list, tuple, dict, set, frozenset, int, float, complex,
                                         object, type, range, memoryview, BaseException) for m in dir(t))
_IPY_PROMPT = re.compile(r"^(\s*)(?:In \[\d*\]:|\.\.\.+:)(?: |$)")  # `In [3]: x = f(`, `   ...:     a,`
_IPY_PSEUDO = re.compile(r"^\s*@(?:savefig|suppress|verbatim|doctest|okexcept|okwarning)\b")  # IPython's, not Python's

Block = list[tuple[int, str]]  # (doc line, text)


def example_names(blocks: list[Block]) -> set[str]:
    """Names the doc's own code examples define, assign, bind or import as an alias: in any
    block, they are the example's names, not the repository's (in prose too). A keyword
    argument on a line of its own inside a call (`    instance_relative_config=True,`) assigns
    nothing."""
    local: set[str] = set()
    for block in blocks:
        text = "\n".join(PROMPT.sub("", line) for _, line in block)
        local |= set(_CODE_DEF.findall(text)) | set(_CODE_BIND.findall(text))
        depth = 0
        for line in text.split("\n"):
            code = STRING.sub('""', line).split("#", 1)[0]
            m = _CODE_ASSIGN.match(code) if depth <= 0 else None
            if m:
                local.update(n.strip() for n in m.group(1).split(","))
            depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
    return local


def _parameters(block: Block) -> set[str]:
    """The parameter names of the functions a Python block defines (`def f(self, request, *a, k=g(1)):`:
    self, request, a, k), their headers read to the closing parenthesis across lines."""
    text = STRING.sub('""', "\n".join(PROMPT.sub("", line) for _, line in block))
    names: set[str] = set()
    for m in _PY_DEF.finditer(text):
        depth, part, parts = 1, "", []
        for ch in text[m.end():]:
            depth += (ch in "([{") - (ch in ")]}")
            if depth == 0 or (depth == 1 and ch == ","):
                parts.append(part)
                part = ""
                if depth == 0:
                    break
            else:
                part += ch
        names |= {n.group(0) for n in (re.match(IDENT, x.strip().lstrip("*").strip()) for x in parts) if n}
    return names


def ipython_code(block: Block) -> Block:
    """The code of an IPython directive's block (`.. ipython::`, `{ipython}`): input prompts
    (`In [1]:`, `...:`) stripped, pseudo-decorators (`@savefig a.png`, `@suppress`) dropped and,
    when the block is written with prompts, every line without one (`Out[1]:` and other output)."""
    prompted = any(_IPY_PROMPT.match(text) for _, text in block)
    out: Block = []
    for lineno, text in block:
        m = _IPY_PROMPT.match(text)
        if m is not None:
            out.append((lineno, m.group(1) + text[m.end():]))
        elif not prompted and not _IPY_PSEUDO.match(text):
            out.append((lineno, text))
    return out


def example_keywords(block: Block, local: set[str], types: dict[str, str], aliases: dict[str, str] | None = None,
                     imported: frozenset[str] = frozenset()) -> list[Reference]:
    """The keyword arguments a Python example passes to calls of the repository's names or
    methods (`pytest.skip("x", allow_module_level=True)`, `app = Flask(__name__,
    instance_relative_config=True)`, over several lines too): `keyword` references; not those
    of an example's own function or class, nor of a builtin's or a standard module's. Passed to
    a callee the example reaches through its imports (`sns.histplot(x, binwidth=3)`, a name
    `from pkg import` binds) or an object it made (`g.map_dataframe(...)` after `g =
    sns.FacetGrid(...)`), any name is one (`binwidth`, not only a code-shaped one), written
    with its callee (`sns.histplot(binwidth=...)`: `scan` drops it when the callee is another
    package's, and a removal names the call)."""
    lines = [STRING.sub('""', PROMPT.sub("", raw)).split("#", 1)[0] if IGNORE_MARK not in raw else "" for _, raw in block]
    text = "\n".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def line_of(offset: int) -> int:
        return block[bisect_right(starts, offset) - 1][0]

    out: list[Reference] = []
    for cm in _CODE_CALL.finditer(text):
        name = cm.group(1)
        root = name.split(".", 1)[0]
        if prose_paren(text, cm) or (root in local and root not in types and "." not in name) or (
                root in EXTERNAL_NAMES or placeholder(name)):
            continue
        found = keyword_refs(text, cm.end(), line_of, "python")
        callee = _callee(name, types, aliases or {}, imported)
        out += [replace(r, ref=f"{callee}({r.name}=...)", strict=True) for r in found] if callee else found
    return out


def _callee(name: str, types: dict[str, str], aliases: dict[str, str], imported: frozenset[str]) -> str | None:
    """A call's callee as a keyword reference names it, when the example's imports or objects
    tell whose it is: through a module alias as written (`sns.histplot`), a method of an
    object the example made by its class (`seaborn.FacetGrid.map_dataframe`), that object
    called (`hookimpl(...)`, `@hookimpl(...)`: `HookimplMarker.__call__`), a name an import binds;
    None otherwise (`ax.set(...)` on an object of unknown type)."""
    root, _, rest = name.partition(".")
    if root in types:  # `hookimpl(specname=...)` after `hookimpl = HookimplMarker(...)`: the class's `__call__`
        return f"{types[root]}.{rest or '__call__'}"
    if (rest and root in aliases) or (not rest and name in imported):
        return name
    return None


_STAR = re.compile(rf"^\s*from\s+({IDENT}(?:\.{IDENT})*)\s+import\s+\*\s*$")


def star_modules(blocks: list[Block]) -> tuple[str, ...]:
    """The modules a doc's Python examples import with `*` (`from sympy.physics.mechanics import *`)."""
    found = (_STAR.match(PROMPT.sub("", raw)) for block in blocks for _, raw in block)
    return tuple(dict.fromkeys(m.group(1) for m in found if m is not None))


def star_refs(block: Block, local: set[str], imported: frozenset[str], stars: tuple[str, ...]) -> list[Reference]:
    """A Python example's calls of a bare lowercase name it neither defines nor imports by name,
    which only its `from module import *` can bind (`mprint(I)` under `from sympy.physics.mechanics
    import *`): one `module.name` reference per such module, binding `name` on its own line (`scan`
    keeps the one that resolves, and judges a name none has only when every such module is the repository's).
    Code-shaped names (`check_ode(...)`) are already references on their own."""
    out: list[Reference] = []
    for lineno, raw in block:
        line = STRING.sub('""', PROMPT.sub("", raw)).split("#", 1)[0]
        if IGNORE_MARK in raw or _STAR.match(line) or _PY_FROM.match(line) or _PY_IMPORT.match(line):
            continue
        for cm in _CODE_CALL.finditer(line):
            name = cm.group(1)
            if prose_paren(line, cm) or "." in name or not name[:1].islower() or codeish(name) or len(name) < 3 or name in local or (
                    name in imported or name in EXTERNAL_NAMES or placeholder(name)):
                continue
            out += [Reference(name + "()", f"{module}.{name}", "method", lineno, True, "python", name) for module in stars]
    return out


def plain_words(prose: list[Reference], local: set[str]) -> list[Reference]:
    """A plain lowercase word a doc writes as a literal (``mprint``), not one its examples bind (`local`), which a
    reader takes for a name of the modules the doc's examples import from (`from pkg.mod import a`, or `*`): source
    `word`; `scan` reads it in each such module (`pkg.mod.mprint`) and judges it only as a removed name, and only when
    no code names it now. And each ALL_CAPS span (`constant_spans`: a settings example assigns them too)."""
    return [replace(r, strict=True, source="word") for r in prose if r.kind == "symbol" and r.source == "span" and r.name not in local and (
        not r.strict and r.ref == r.name and r.name[:1].islower() and len(r.name) > 3 and not placeholder(r.name)
        and r.name not in EXTERNAL_NAMES)] + constant_spans(prose)  # and ``INSTALLED_ADDONS`` (`constant_spans`)


_IMPORT_HEAD = re.compile(rf"^(\s*(?:from\s+{DOTTED}\s+)?import\s+[\w\s,.]+?)\s*;\s*(\S.*)$")
_DECORATOR = re.compile(r"^(\s*(?:(?:>>>|\.\.\.) )?\s*)@(?=[A-Za-z_])")  # `@retry(stop=...)`, `>>> @app.route("/")`


def split_imports(block: Block) -> Block:
    """`import seaborn as sns; sns.set_theme()`: the import as a line of its own (the same doc
    line), so that it binds its alias and the rest is read as code; a decorator's `@` as a blank
    (`@retry(stop=3)` calls `retry`, its keywords and names read as any call's)."""
    out: Block = []
    for lineno, raw in block:
        raw = _DECORATOR.sub(r"\1 ", raw)
        m = _IMPORT_HEAD.match(PROMPT.sub("", raw))
        out += [(lineno, m.group(1)), (lineno, m.group(2))] if m else [(lineno, raw)]
    return out


def callee_key(ref: Reference) -> str:
    """The callee a keyword reference names (`sns.histplot` in `sns.histplot(binwidth=...)`), with a
    separator: a keyword is one reference per callee, right for one and wrong for another; "" for any other."""
    return ref.ref.split("(", 1)[0] + ":" if ref.kind == "keyword" and "(" in ref.ref else ""


def imported_names(blocks: list[Block]) -> frozenset[str]:
    """The names the examples' `from pkg import name [as alias]` bind."""
    out: set[str] = set()
    for block in blocks:
        for _, raw in block:
            m = _PY_FROM.match(PROMPT.sub("", raw))
            for part in m.group(2).split(",") if m else ():
                name, _, alias = part.strip().partition(" as ")
                out.add(alias.strip() or name.strip())
    return frozenset(n for n in out if re.fullmatch(IDENT, n))


def example_aliases(blocks: list[Block]) -> dict[str, str]:
    """Alias → the module an example's `import pkg.mod as alias` names (`sns` → `seaborn`), when
    every such import in the doc agrees."""
    seen: dict[str, set[str]] = {}
    for block in blocks:
        for _, raw in block:
            m = _PY_IMPORT.match(PROMPT.sub("", raw))
            if m and m.group(2) and m.group(2) != m.group(1):
                seen.setdefault(m.group(2), set()).add(m.group(1))
    return {alias: next(iter(mods)) for alias, mods in seen.items() if len(mods) == 1}


def example_types(blocks: list[Block], local: set[str], aliases: dict[str, str] | None = None) -> dict[str, str]:
    """Example name → the class an assignment makes it (`app = Flask(...)` → `Flask`; `p = so.Plot(...)`
    after `import seaborn.objects as so` → `seaborn.objects.Plot`), for names every such assignment
    in the doc gives the same class (a class: its last part capitalised, not an example's own)."""
    aliases = aliases or {}
    seen: dict[str, set[str]] = {}
    for block in blocks:
        for _, raw in block:
            line = STRING.sub('""', PROMPT.sub("", raw))
            made = [m.groups() for m in _TYPED.finditer(line)] + [m.groups()[::-1] for m in _WITH_AS.finditer(line)]
            for var, cls in made + [m.groups()[::-1] for m in _EXCEPT_AS.finditer(line)]:
                root, last = cls.split(".", 1)[0], cls.rsplit(".", 1)[-1]
                cls = aliases[root] + cls[len(root):] if root in aliases and root != cls else cls
                if last[:1].isupper() and not last.isupper() and cls.split(".", 1)[0] not in local:
                    seen.setdefault(var, set()).add(cls)
    # one class however it is written (`requests.Session()` here, `Session()` there): its longest spelling
    return {var: max(classes, key=len) for var, classes in seen.items() if len({c.rsplit(".", 1)[-1] for c in classes}) == 1}


def example_refs(block: Block, lang: str, local: set[str], types: dict[str, str],
                 aliases: dict[str, str] | None = None, imported: frozenset[str] = frozenset()) -> list[Reference]:
    """Calls and imports in a code block, minus the example's own names (`local`), calls and
    attribute access on typed example names (`types`) as members of their class, calls on a
    module's import alias (`aliases`) as calls through the module, and calls on other example
    names as `member` references (see the module docstring). A name the examples import by name
    (`imported`: `from alembic import context`) is the import's whatever `EXTERNAL_NAMES` says
    (Go's `context`): calls on it are `member` references (`scan` drops them with a foreign import)."""
    aliases = aliases or {}
    python = lang in PYTHON
    comment = "#" if python or lang in ("ruby", "rb") else "//"
    # `mc.results.ac`: the first attribute (`ModelChain.results`), and the chain past it, whose type is unknown
    typed_attr = re.compile(rf"(?<![\w.])({'|'.join(map(re.escape, types))})\.({IDENT})((?:\.{IDENT})*)\b(?!\s*\()") if types else None
    refs: list[Reference] = []
    params = _parameters(block) if python else set()
    handed = params | {m.group(1) for _, raw in block for m in _LOOP_VAR.finditer(raw) if m.group(2) in params}
    shown = traceback_output(block) if python else {}  # a traceback's lines: output, its last one names the exception
    for lineno, raw in block:
        if IGNORE_MARK in raw:
            continue
        if lineno in shown:
            refs += [Reference(shown[lineno], shown[lineno], "method", lineno, True, lang)] if shown[lineno] else []
            continue
        raw = PROMPT.sub("", raw)
        m = _PY_FROM.match(raw) if comment == "#" else None
        if m:
            for part in m.group(2).split(","):
                name, _, alias = part.strip().partition(" as ")
                if re.fullmatch(IDENT, name.strip()):
                    name = name.strip()
                    refs.append(Reference(name, f"{m.group(1)}.{name}", "method", lineno, True, lang,
                                          alias.strip() or name))
            continue
        m = _PY_IMPORT.match(raw) if comment == "#" else None
        if m:
            refs.append(Reference(m.group(1), m.group(1), "method", lineno, True, lang,
                                  m.group(2) or m.group(1).split(".", 1)[0]))
            continue
        line = STRING.sub('""', raw).split(comment, 1)[0]
        header = _CLASS_HEADER.match(line) if python else None
        for base in header.group(1).split(",") if header is not None else ():  # `class PostAPI(MethodView):`
            last = "" if "=" in base else base.split("[", 1)[0].strip().rsplit(".", 1)[-1]
            if re.fullmatch(IDENT, last) and last not in local and last not in EXTERNAL_NAMES and not placeholder(last):
                refs.append(Reference(last, last, "base", lineno, codeish(last), lang))
        for cm in _CODE_CALL.finditer(line):
            if prose_paren(line, cm):
                continue
            name = cm.group(1).replace("::", ".")
            root, _, rest = name.partition(".")
            if python and root not in types and root not in local:  # `Spec("x").is_empty()`: as `s = Spec("x")`
                refs += _made_then_used(line, cm, name, aliases, lineno, lang)  # then `s.is_empty()`
            if root in aliases and rest and python and root not in types:  # `sns.histplot(...)`: `seaborn.histplot`
                refs.append(Reference(name + "()", f"{aliases[root]}.{rest}", "method", lineno, True, lang))
            if root in types and rest and python:
                refs.append(Reference(name + "()", f"{types[root]}.{rest}", "method", lineno, True, lang))
                last = name.rsplit(".", 1)[-1]
                if codeish(last) and not placeholder(last):  # its class may be spelled through an alias (`xr.Dataset`)
                    refs.append(Reference(name + "()", last, "member", lineno, True, lang))
                continue
            if root in local or (rest and root in params):
                last = name.rsplit(".", 1)[-1]
                plain = root in handed and "." not in rest and _plain_method(last)  # `field.evolve()`, `field` a hook's
                if rest and python and last not in local and (codeish(last) or plain) and not placeholder(last):
                    refs.append(Reference(name + "()", last, "member", lineno, True, lang))
                continue
            if name in EXTERNAL_NAMES or placeholder(name):
                continue
            if "." in name:
                refs.append(Reference(name + "()", name, "method", lineno, True, lang))
                last = name.rsplit(".", 1)[-1]
                if python and root.islower() and (root not in EXTERNAL_NAMES or root in imported) and codeish(last) and (
                        not placeholder(last)):
                    # a free receiver the example never assigns (`some_dialect.insert_matchers(...)`): the method name too
                    refs.append(Reference(name + "()", last, "member", lineno, True, lang))
            elif codeish(name) or (python and name[:1].isupper() and not name.isupper()):
                # a class made (`Flask(__name__)`): not strict, but its call is judged against its signature
                refs.append(Reference(name + "()", name, "call", lineno, codeish(name), lang))
        if typed_attr is not None and python:
            for am in typed_attr.finditer(line):
                refs.append(Reference(am.group(0), f"{types[am.group(1)]}.{am.group(2)}", "method", lineno, True, lang))
                if am.group(3):
                    refs.append(Reference(am.group(0), f"{types[am.group(1)]}.{am.group(2)}{am.group(3)}", "method", lineno, True, lang))
    return refs


def _made_then_used(line: str, cm: re.Match[str], name: str, aliases: dict[str, str], lineno: int,
                    lang: str) -> list[Reference]:
    """`Callee(args).name(` or `Callee(args).name`, `Callee` a class (its last part capitalised, as
    `example_types` reads an assignment's): a `method` reference to `Callee.name`, the one
    `x = Callee(args); x.name()` gives. Only the first link of a chain (what `.name` returns is
    unknown); a function's result (`load(s).get`) gives nothing."""
    last = name.rsplit(".", 1)[-1]
    if not last[:1].isupper() or last.isupper() or name in EXTERNAL_NAMES or placeholder(name):
        return []
    close = closing(line, cm.end() - 1)
    attr = re.match(rf"\s*\.\s*({IDENT})\b(\s*\()?", line[close + 1:]) if close > 0 else None
    if attr is None or placeholder(attr.group(1)):
        return []
    root = name.split(".", 1)[0]
    cls = aliases[root] + name[len(root):] if root in aliases and root != name else name
    written = f"{name}(...).{attr.group(1)}" + ("()" if attr.group(2) else "")
    return [Reference(written, f"{cls}.{attr.group(1)}", "method", lineno, True, lang)]


def _plain_method(name: str) -> bool:
    """A lowercase word called as a method on what a function the example defines is handed (a
    parameter, or a loop variable over one: `def auto_convert(cls, fields): for field in
    fields: ... field.evolve(...)`, a hook the repository calls with its own objects) is the
    method name alone, as a code-shaped one is, when it is no builtin value's method nor a word
    Python itself has. On a variable the example assigns (`con = engine.connect()`) a plain
    word may be any library's: not read."""
    return name.isalpha() and name.islower() and len(name) > 3 and name not in _BUILTIN_METHODS and (
        name not in EXTERNAL_NAMES)
