"""Which signature changes a doc would notice (`counts_for`), by how it names the symbol: a doc
that states the parameters (`scale(x, factor=2)`, a `.. method::` line) notices a change to one
it states (not a parameter only added, nor a `/` or `*` it still writes validly); a
bare mention (`total()`, `Store`) an incompatible one (`parameters.compatible_change`); an
example's call one it no longer fits (`parameters.binds`; an import is judged by the example's
first call of the name it binds). `noface_ctx.freshness.assess` passes the answer to
`history.HistoryIndex.symbol_change`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from noface_ctx import _state as state
from noface_ctx.datatypes import Doc
from noface_ctx.freshness.calls import Call, calls_of, named_for, written_call
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.default_words import default_words, says_by_default
from noface_ctx.freshness.definitions import _first, body, is_container
from noface_ctx.freshness.number_values import same_default
from noface_ctx.freshness.parameters import (
    Param,
    bases,
    binds,
    changed_parameters,
    compatible,
    compatible_change,
    parameters,
    same_header,
    written_validly,
)
from noface_ctx.freshness.references import FENCE_LANGS, Reference
from noface_ctx.freshness.scan import SIGNATURE, about


def counts_for(doc: Doc, ref: Reference,
               ancestors: Callable[[Iterable[str]], set[str]] | None = None) -> Callable[[str, str], bool] | None:
    """Which signature changes of the symbol `ref` names matter to the doc: one to a parameter it
    states, when it states them (`scale(x, factor=2)`, a `.. method::` line); for an example's
    call, one the call no longer fits (an import: none); for a bare mention (`total()`, `Store`), one a caller
    would notice (not a new parameter with a default, nor `self, /`); and, whatever else, a
    default a sentence of the doc states by its old value (`old_default_stated`)."""
    if ref.source == "role" and not about(ref.name.rsplit(".", 1)[-1]):  # a plain word only a role makes code
        return lambda before, now: old_default_stated(doc, before, now) is not None
    counts = _counts_for(doc, ref, ancestors)
    if counts is None:
        return None
    return lambda before, now: counts(before, now) or old_default_stated(doc, before, now) is not None


def old_default_stated(doc: Doc, before: str, now: str) -> tuple[str, int] | None:
    """A parameter whose default string changed (`style="darkgrid"` → `"whitegrid"`) that a
    sentence saying "default" writes by its old value, as code or quoted ("The default theme is
    ``darkgrid``", 'By default, the histograms are "layered"': the word or its -s/-d/-ed/-ing
    form), not the new one: ("default NAME", the sentence's line); None otherwise. Only a string
    of three letters or more: a number or `None` next to "default" says nothing of whose it is."""
    changed = {n: (old, new) for n, old in _default_only(parameters(before), parameters(now)).items()
               if (new := next(d for _, m, d in parameters(now) or () if m == n)) and _WORD_VALUE.fullmatch(old)}
    for line, written in default_words(doc.text) if changed else ():
        for name, (old, new) in changed.items():
            then, value = old[1:-1].lower(), new.strip("'\"").lower()
            if value not in written and any(w == then or (w.startswith(then) and w[len(then):] in _FORMS) for w in written):
                return f"default {name}", line
    return None


_WORD_VALUE = re.compile(r"(['\"])[A-Za-z][\w-]{2,}\1")  # `"darkgrid"`, `'layer'`: a default spelled as a word
_FORMS = frozenset({"s", "d", "ed", "ing"})


def _counts_for(doc: Doc, ref: Reference,
                ancestors: Callable[[Iterable[str]], set[str]] | None) -> Callable[[str, str], bool] | None:
    if ref.source not in FENCE_LANGS:
        m = SIGNATURE.match(ref.ref)
        stated = m is not None and m.group(1).strip("() .…") != ""  # `f(...)` elides, it states nothing
        if stated:  # a call written in prose, a signature written as one, or an API directive's (`.. function::
            call = written_call(ref.ref, 1, ref.ref.split("(", 1)[0])  # f(a, b=1)`, read as written: a change to a
            if call is not None and any(_OPEN_OPERATOR.search(a) for a in call.positional):  # parameter it states)
                return None if ref.documented else lambda before, now: False  # not Python: `Cross(a>, b>)` in a table
            if call is not None:  # (unpacking `**param`: as a call is mentioned; a directive's: every change)
                return _call_counts(call, ancestors)
            return None if ref.documented else _uses_changed(doc, ancestors, ref.name)
        # a cross-reference's parentheses are Sphinx's decoration (`{func}`primepi()``): a mention
        return _uses_changed(doc, ancestors, ref.name, called=m is not None and ref.source != "xref", line=ref.line)
    # every call of the name the examples write from there (an import states nothing about a
    # signature: its calls do), each with its own arguments: `sns.histplot(...)` twenty times in a notebook
    name = ref.binds or ref.ref.removesuffix("()")  # as written: `app.run()` for `Flask.run`
    lines = doc.text.split("\n")
    called = re.compile(rf"(?<![\w.]){re.escape(name)}\s*\(")
    calls = [written_call(doc.text, i + 1, name, unpacked=True) for i in range(ref.line - (not ref.binds or ref.ref.endswith("()")), len(lines))
             if name in lines[i] and called.search(lines[i])]
    if ref.binds and not calls:
        return lambda before, now: False
    readable = [c for c in calls if c is not None]
    unread = len(readable) < len(calls) or not calls  # a call unpacking `*args` (`**kwargs` passes none it states)

    mention = _uses_changed(doc, ancestors, ref.name)

    def counts(before: str, now: str) -> bool:
        pb, pn = parameters(before), parameters(now)
        fit = [c for c in readable if pb is not None and binds(pb, *c.shape)]
        if pb is not None and pn is not None and fit:
            changed = (changed_parameters(before, now) or set()) - set(_default_only(pb, pn))  # a value passed: no default's concern
            changed -= written_validly(pb, pn, [c.shape for c in fit])  # `b=1` once `b` is keyword-only: it fits
            if any(not binds(pn, *c.shape) or _shifted(pb, pn, len(c.positional)) or changed & {n for n, _ in c.keywords}
                   for c in fit):  # no longer fits, an argument goes elsewhere, a keyword it passes renamed (code
                return True  # runs: a positional argument spelled as the renamed parameter still fits)
            if not unread:
                return False
        return mention(before, now)

    return counts


def gone_keyword(doc: Doc, ref: Reference, before: str | None, now: str | None) -> tuple[str, int] | None:
    """When a signature change of the symbol `ref` names took away a keyword a call of it in the
    doc passes (removed, renamed, made positional-only: `Run([...], exit=False)` once `exit` is
    `sys_exit`): ("keyword NAME", or "keyword NAME NEW" when a new parameter stands in its place,
    a rename), and the line passing it; None otherwise."""
    pb, pn = (parameters(before) if before else None), (parameters(now) if now else None)
    if pb is None or pn is None:
        return None
    gone = {n for k, n, _ in pb if k in ("any", "kw")} - {n for k, n, _ in pn if k in ("any", "kw")}
    if not gone:
        return None
    lines = doc.text.split("\n")
    last = re.escape((ref.binds or ref.name).removesuffix("()").rsplit(".", 1)[-1])
    called = re.compile(rf"(?<![\w.])((?:[A-Za-z_]\w*\.)*{last})\s*\(")
    for i, text in enumerate(lines, 1):
        for m in called.finditer(text):
            call = written_call(doc.text, i, m.group(1))
            passed = [n for n, _ in call.keywords if n in gone] if call is not None and binds(pb, *call.shape) else []
            if passed:
                at = re.compile(rf"(?<![\w.]){re.escape(passed[0])}\s*=(?!=)")
                line = next((j for j in range(i, min(i + 10, len(lines) + 1)) if at.search(lines[j - 1])), i)
                old, new = [n for k, n, _ in pb if k not in ("*", "**")], [n for k, n, _ in pn if k not in ("*", "**")]
                place = old.index(passed[0])  # a new name in the place of the gone one: a rename
                renamed = f" {new[place]}" if place < len(new) and new[place] not in old else ""
                return f"keyword {passed[0]}{renamed}", line
    return None


_OPEN_OPERATOR = re.compile(r"[-+*/%&|^<>=@.]$")  # an argument ending in an operator (`a>`) is no Python


def _call_counts(call: Call, ancestors: Callable[[Iterable[str]], set[str]] | None = None) -> Callable[[str, str], bool]:
    """A call a doc writes in prose (``get_pvgis_tmy(latitude, longitude)``,
    ``open_dataset(path, engine='netcdf4')``) uses the parameters it passes, no others: a change
    counts when the call no longer fits, or changed a parameter it passes by name or names at its
    place (``f(latitude, ...)`` where the first parameter is `latitude`): not a default it does
    not pass, nor an optional parameter appended. Written as a signature (every parameter named,
    or a default written out: ``open_dataset(filename, engine=None)``) it states them all: a
    change to any of them counts (a default: when it writes the old one), or to the header, not a
    parameter only added (it states no new one); so does a call that did not fit before. A `/` or
    `*` the call still fits (a parameter it passes by position made positional-only, one it
    passes by keyword made keyword-only) changes nothing it writes. Parameters not read on either
    side (a class without `__init__`): a change a caller would notice (`compatible_change`; a
    class whose old bases are still its ancestors keeps its calls: `im(expr)`)."""

    def counts(before: str, now: str) -> bool:
        pb, pn = parameters(before), parameters(now)
        if pb is None or pn is None:
            return not compatible_change(before, now, ancestors)
        if not binds(pb, *call.shape) or not binds(pn, *call.shape) or _shifted(pb, pn, len(call.positional)):
            return True
        changed = (changed_parameters(before, now) or set()) - written_validly(pb, pn, [call.shape])  # `/`, `*`: it fits
        defaults = _default_only(pb, pn)
        if _states_signature(call, pb):  # a parameter it states changed, or the header: not one only added
            written = {n for n, v in call.keywords if n in defaults and comparable(v) == comparable(defaults[n])}
            return bool(changed - (set(defaults) - written)) or not same_header(before, now, ancestors)
        return bool(changed & (_passed_by_name(call, pb) - set(defaults)))  # a value passed makes the default no concern

    return counts


def _states_signature(call: Call, params: list[Param]) -> bool:
    """Whether a call written in prose reads as the signature `params`: it writes a parameter's
    default (``engine=None``), or names every parameter (each positional argument the
    parameter's own name, the rest by keyword)."""
    defaults = {n: comparable(d) for _, n, d in params if d}
    if any(defaults.get(n) == comparable(v) for n, v in call.keywords):
        return True
    wanted = {n for k, n, _ in params if k in ("pos", "any", "kw")}
    return bool(wanted) and wanted <= _passed_by_name(call, params)


def _passed_by_name(call: Call, params: list[Param]) -> set[str]:
    """The parameters a call names: by keyword, or by a positional argument spelled as the
    parameter at its place (``f(latitude, ...)`` where the first parameter is `latitude`)."""
    slots = [n for k, n, _ in params if k in ("pos", "any")]
    return {n for n, _ in call.keywords} | {n for n, arg in zip(slots, call.positional, strict=False) if arg == n}


def _shifted(before: list[Param], now: list[Param], count: int) -> bool:
    """Whether one of the first `count` positional arguments goes to another parameter now
    (`days` removed: ``fetch(city, 7)`` passes 7 as `units`), not to the same one renamed."""
    old = [p for p in before if p[0] in ("pos", "any")][:count]
    new = [p for p in now if p[0] in ("pos", "any")][:count]
    old_names, new_names = {p[1] for p in before}, {p[1] for p in now}
    return any(o[1] != n[1] and (o[1] in new_names or n[1] in old_names) for o, n in zip(old, new, strict=False))


def body_counts(doc: Doc, line: int) -> Callable[[str, str], bool]:
    """Which body changes of the symbol a doc names at `line` matter to it: those
    `states_removed` finds in the part of the doc about that symbol."""
    return lambda before, now: states_removed(section(doc.text, line), before, now)


def states_removed(text: str, before: str, now: str) -> bool:
    """Whether a body change took away something `text` writes as code: a name the old body
    used and the new one does not (an exception it raised, a function it called, an attribute;
    not the module an import named), or a literal (a string, a number) — in backticks, in a
    code block, or as a keyword. A bug fix or a refactor that keeps everything the doc states is
    not evidence the doc went stale: django's docs, edited far less often than its code, got 20
    such warnings over 270 docs at one commit, none of them true."""
    gone = _body_words(body(before)) - _body_words(body(now))
    if not gone:
        return False
    words, spans = _words(text), _spans(text)
    for tok in gone:
        if tok[0] in "'\"":
            if len(tok[1:-1].strip()) >= 3 and tok[1:-1].strip() in spans:
                return True
        elif tok[0].isdigit():
            if re.search(rf"(?<![\w.]){tok}(?![\w.])", spans):
                return True
        elif len(tok) >= 3 and tok not in _NOT_STATED and not tok.startswith("_") and tok in words:
            return True
    return False


def section(text: str, line: int) -> str:
    """The part of a doc about what it names at `line`: from that line to the next heading or
    the next directive at the same or a lower indentation (at most 80 lines)."""
    lines = text.split("\n")
    start = max(line - 1, 0)
    indent = len(lines[start]) - len(lines[start].lstrip()) if start < len(lines) else 0
    out = lines[start:start + 1]
    for k, ln in enumerate(lines[start + 1:start + 80]):
        stripped = ln.strip()
        if k == 0 and _UNDERLINE.fullmatch(stripped):  # the line is a title: its section follows
            continue
        if _UNDERLINE.fullmatch(stripped) or (stripped.startswith("# ") and not out[-1].strip()):
            out = out[:-1]
            break
        if _DIRECTIVE.match(ln) and len(ln) - len(ln.lstrip()) <= indent:
            break
        out.append(ln)
    return "\n".join(out)


_UNDERLINE = re.compile(r"([=\-~^\"'`#*+])\1{2,}")  # not `blocks.UNDERLINE`: read on stripped
# lines, indented examples too, where a row of `...`, `:::` or `___` (an ellipsis) ends no section
_DIRECTIVE = re.compile(r"\s*\.\.\s+[\w:-]+::")
_IMPORTED = re.compile(r"\b(?:from|import)\s+((?:\w+\s*\.\s*)*\w+)")


def _body_words(text: str) -> set[str]:
    """A comparable body's names and literals, less the modules its imports name."""
    found = set(_BODY_TOKEN.findall(text))
    return found - {w for m in _IMPORTED.finditer(text) for w in re.findall(r"\w+", m.group(1))}


_BODY_TOKEN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\w+")
_NOT_STATED = frozenset({"self", "cls", "None", "True", "False", "and", "not", "for", "return", "def", "class",
                         "lambda", "yield", "with", "try", "except", "raise", "else", "elif", "while", "import",
                         "from", "pass", "super", "isinstance", "len", "str", "int", "dict", "list", "set",
                         "tuple", "bool", "object", "type", "getattr", "setattr", "hasattr", "kwargs", "args"})


def _uses_changed(doc: Doc, ancestors: Callable[[Iterable[str]], set[str]] | None,
                  name: str, *, called: bool = True, line: int = 0) -> Callable[[str, str], bool]:
    """For a doc that names a symbol (`name`) without stating its parameters: a change a caller
    would notice counts when it changes a parameter the doc names (renaming one `Flask()` keyword
    concerns the docs that use that keyword, not every doc naming `Flask`) — a default only when
    the doc states it (the old value beside the parameter, or a "by default" sentence naming
    the symbol and no other name) —; new bases when the parameters stay count
    for a doc naming a base the class lost, as code, in its part about the class (`section`).
    A change touching no parameter the doc could name (a
    new required one, parameters that do not parse) counts for a doc writing a call (`total()`,
    `called`), not for one only naming the symbol (`Store`, a title over its autodoc, a list entry):
    it uses no parameter; when a list does not parse, one a parameter of either is named in the
    part of the doc about the symbol (`section`: not `n` far from a mention of `primepi`). A
    parameter only made positional-only concerns a doc whose call of the symbol passes it by
    keyword (`row_del(row=1)`, not `Route(name=...)` beside `url_for(name)`); one only made
    keyword-only, a doc whose call passes it by position (`parameters.written_validly`)."""
    def counts(before: str, now: str) -> bool:
        if compatible_change(before, now, ancestors):
            return False
        changed = changed_parameters(before, now)
        pb, pn = parameters(before), parameters(now)
        if is_container(before) and (changed == set() or (pb is None and pn is None)):  # the same parameters: the bases changed
            old, new = bases(_first(before)), bases(_first(now))
            if old is not None and new is not None and ((pb is None and pn is None) or (
                    pb is not None and pn is not None and compatible(pb, pn))):
                code = _words(section(doc.text, line)) if line else frozenset(re.findall(r"\w+", _spans(doc.text)))
                return bool((set(old[1]) - set(new[1])) & code)  # a base it names as code where it names the class
        if changed is None and not called:  # a list that does not parse: a parameter of either the doc names there
            near = _words(section(doc.text, line)) if line else _words(doc.text)
            return any(n in near for _, n, _ in (pb or pn or []))
        if changed and pb is not None and pn is not None:
            shapes = [c.shape for c in calls_of(doc.text, name)]
            if any(binds(pb, *shape) and not binds(pn, *shape) for shape in shapes):
                return True  # a call of it the doc writes fitted and no longer does (`url_for("home")`, `name` keyword-only)
            changed -= written_validly(pb, pn, shapes)
            if not changed:  # only a `/` or `*` moved, and no call of it passes the parameter as no longer taken
                return False
        if not changed:  # a new required parameter counts for a call; a default number only written
            return called and not _respelled(pb, pn)  # another way (`1000` → `1000.`) is no change at all
        defaults = _default_only(pb, pn)  # passing `many=True` is not concerned by `many`'s default
        if changed & set(defaults) and says_by_default(doc.text, name.rsplit(".", 1)[-1], alone=True,
                                                       others=_other_defaults(pb, changed & set(defaults))):
            return True  # "By default, the `lookup` function will interpolate": behaviour stated, no value
        named = named_for(doc.text, name)  # its keyword, not `WSGITransport(app=app)` nor a variable `proxies`
        return any(n not in defaults or _states_default(doc.text, n, defaults[n]) for n in changed & named)

    return counts


def _respelled(before: list[Param] | None, now: list[Param] | None) -> bool:
    """Whether two parameter lists differ only in how a default number is written (`1000` → `1000.`)."""
    return before is not None and now is not None and before != now and len(before) == len(now) and all(
        k0 == k1 and n0 == n1 and same_default(d1, d0) for (k0, n0, d0), (k1, n1, d1) in zip(before, now, strict=True))


def _default_only(before: list[Param] | None, now: list[Param] | None) -> dict[str, str]:
    """The parameters whose only change is their default (`many=False` → `many=None`), with the old one."""
    if before is None or now is None:
        return {}
    new = {n: (k, d) for k, n, d in now}
    return {n: d for k, n, d in before if d and n in new and new[n][0] == k and new[n][1] and not same_default(new[n][1], d)}


def _other_defaults(before: list[Param] | None, changed: set[str]) -> frozenset[str]:
    """The literal defaults (numbers, strings' text) of the parameters other than `changed`, less the changed ones' own."""
    own = {comparable(d) for _, n, d in before or [] if n in changed}
    found = {comparable(d) for _, n, d in before or [] if d and n not in changed}
    return frozenset(v for v in found - own if re.fullmatch(r"-?\d[\d.]*|[A-Za-z][\w-]{2,}", v) and v not in ("True", "False", "None"))


def _states_default(text: str, name: str, default: str) -> bool:
    """Whether a doc line names parameter `name` with its old default written out (``many=False``,
    "``many`` is False by default"): a doc passing the parameter its own value states no default."""
    return _default_line(text, name, default) > 0


def _default_line(text: str, name: str, default: str) -> int:
    """The first doc line (from 1) naming parameter `name` with `default` written out, or 0 (`_states_default`)."""
    value = default.replace(" ", "")
    word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    said = re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w.])")  # `many=False`, "(2 by default)"
    return next((i for i, line in enumerate(text.split("\n"), 1) if value in line.replace(" ", "") and word.search(line)
                 and (said.search(line.replace(" ", "")) or said.search(line))), 0)


def stated_default_line(doc: Doc, before: str, now: str) -> tuple[str, int] | None:
    """When a signature changed only in defaults (`backlog=2048` → `4096`), the first one the doc states by its old
    value beside its name (`_default_line`: "`--backlog <int>` ... **Default:** *2048*."): ("default NAME", that
    line). A doc naming the callable elsewhere (`uvicorn.run()`, a call passing other keywords) is told of the default
    it states, where it states it, not of a changed signature. None when another parameter changed, or none is stated."""
    pb, pn = parameters(before), parameters(now)
    defaults, changed = _default_only(pb, pn), changed_parameters(before, now)
    if not defaults or not changed or changed - set(defaults):
        return None
    return next(((f"default {n}", line) for n in sorted(changed) if (line := _default_line(doc.text, n, defaults[n]))), None)


_WORDS: state.Memo[str, frozenset[str]] = state.memo("freshness.notice.words", maxsize=64)


def _words(text: str) -> frozenset[str]:
    """The names a doc uses as code: in backticks, or as a keyword (`name=`) — not its prose
    (a parameter called `code` or `path` is not named by a sentence about code or paths)."""
    found = _WORDS.get(text)
    if found is None:
        spans = " ".join(re.findall(r"`+([^`]+)`+", text))
        found = _WORDS.put(text, frozenset(re.findall(r"[A-Za-z_]\w*", spans)) | frozenset(
            re.findall(r"([A-Za-z_]\w*)\s*=(?!=)", text)))
    return found


_SPANS: state.Memo[str, str] = state.memo("freshness.notice.spans", maxsize=64)


def _spans(text: str) -> str:
    """What a doc writes as code: its inline spans (in backticks) and its code blocks (fenced,
    reStructuredText literal and code blocks, doctest lines), one per line."""
    found = _SPANS.get(text)
    if found is None:
        found = _SPANS.put(text, "\n".join([*re.findall(r"`+([^`]+)`+", text), *_code_lines(text.split("\n"))]))
    return found


_CODE_OPENER = re.compile(r"::\s*$|^\s*\.\.\s+(?:code-block|code|sourcecode|testcode|doctest)::")


def _code_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    fence = ""
    opener: int | None = None  # the indentation of the line that opened a literal block
    for line in lines:
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            out += [line] if fence else []
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif opener is not None and (not stripped or len(line) - len(line.lstrip()) > opener):
            out += [line] if stripped else []
        elif stripped.startswith((">>>", "... ")):
            out.append(line)
        else:
            opener = len(line) - len(line.lstrip()) if _CODE_OPENER.search(line) else None
    return out
