"""Defaults a doc shows by an example of what the defaults amount to, or names by the noun they are the default
for, read in the code's constants named as defaults (issue 25, rule 5).

- A code block right after a sentence saying the defaults are / are equivalent to / amount to it ("Using the
  defaults, as above, is equivalent to:" then `configure(processors=[..., TimeStamper(fmt="%Y"), ...],
  wrapper_class=make_filtering_bound_logger(logging.NOTSET))`): each literal keyword of a call inside it
  (`TimeStamper`'s `fmt`, held "call") is the default the code writes in the same call inside a module constant
  named as a default (`DEFAULT_PROCESSORS = [..., TimeStamper(fmt="%Y"), ...]`); each keyword of the outer call
  given a call, a name or a literal (`wrapper_class`, held "const") is the value of the one constant named as a
  default whose words hold the keyword's (`_BUILTIN_DEFAULT_WRAPPER_CLASS`). An argument written as a name where
  the code writes a literal (`logging.NOTSET`, `0`) is not compared: the statement is for review (any change).
- Prose: "the default ... values are used which means :class:`collections.OrderedDict` for context": a value
  written as code "for <noun>" in a sentence saying "default" is the value of the one constant named as a default
  whose words hold the noun's (`_BUILTIN_DEFAULT_CONTEXT_CLASS`, held "const"); assigned in branches (`dict` on
  3.6+, else `OrderedDict`), the code's default is every value it may take.

`shown_statements` gives (names, line, value, of, held, near) for each, `near` the callables the example calls or
the section names (the files defining them are where such constants are looked for); `shown_default` the code's.
"""

from __future__ import annotations

import ast
import re
from itertools import pairwise

from noface_ctx import _state as state
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.default_words import DEFAULT_WORD, SENTENCE_END
from noface_ctx.freshness.subject_defaults import SPAN, code_name, prose_blocks

Statement = tuple[tuple[str, ...], int, str, str, str, tuple[str, ...]]  # names, line, value, of, held, near

_INTRO = re.compile(r"(?i)\bdefaults?\b.*(?:\b(?:equivalent\s+to|the\s+same\s+as|amounts?\s+to|corresponds?\s+to)\b.*"
                    r"|\b(?:is|are|looks?\s+like)(?:\s+(?:this|as\s+follows))?\s*):{1,2}\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*\{?(?:code-block\}?\s*|code\}?\s*|sourcecode\}?\s*)?(?:python|py|pycon|ipython)?\s*$")
_CODE_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:code-block|code|sourcecode)::\s*(?:python|py|pycon)?\s*$")
_DEFAULT_CONSTANT = re.compile(r"(?m)^[ \t]*(_*[A-Z][A-Z0-9_]*)[ \t]*(?::[^=\n]+)?=(?!=)")
_NAMED_DEFAULT = re.compile(r"(?:^|_)DEFAULTS?(?:_|$)")
_FOR_NOUN = re.compile(rf"{SPAN}\s+for\s+(?:the\s+|each\s+|every\s+)?(?:{SPAN}|(?P<noun>[a-z]+(?:\s+[a-z]+)?)(?=\s*[,.;:)]|\s+(?:and|or)\s|\s*$))")
_NOUN_STOP = frozenset({"and", "or", "you", "it", "them", "us", "this", "that", "these", "those", "all", "any", "both", "example",
                        "instance", "now", "free", "more", "details", "convenience", "compatibility", "reference", "use"})
_TITLE_LINE = re.compile(r"^\s*(?:#{1,6}\s|([=\-~^\"'`*+#])\1{3,}\s*$)")


def shown_statements(lines: list[str]) -> list[Statement]:
    """The defaults `lines` show or name as the module docstring says (read once a text)."""
    text = "\n".join(lines)
    if "efault" not in text:
        return []
    return list(_READ.get_or_put(text, lambda: tuple(_examples(lines) + _prose(lines))))


_READ: state.Memo[str, tuple[Statement, ...]] = state.memo("freshness.defaults.shown", maxsize=64)


def _examples(lines: list[str]) -> list[Statement]:
    out: list[Statement] = []
    for i in (i for i, line in enumerate(lines) if line.rstrip().endswith(":")):  # an introduction ends with a colon
        start = _block_start(lines, i)
        if start < 0:
            continue
        first, body = _block(lines, start)
        try:
            tree = ast.parse("\n".join(body))
        except (SyntaxError, ValueError, RecursionError):
            continue
        out += _block_statements(tree, first + 1)
    return out


def _block_start(lines: list[str], i: int) -> int:
    """The line starting the code block whose introduction ends at line `i` (with a colon: the caller's), when that
    introduction's last sentence says the defaults are (equivalent to) what follows; else -1."""
    if "efault" not in " ".join(lines[max(0, i - 4):i + 1]):  # (read below)
        return -1
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    literal = lines[i].rstrip().endswith("::")
    if j >= len(lines) or not ((literal and j > i + 1) or _FENCE.match(lines[j]) or _CODE_DIRECTIVE.match(lines[j])):
        return -1
    lo = i
    while lo > 0 and lines[lo - 1].strip() and not _TITLE_LINE.match(lines[lo - 1]):
        lo -= 1
    last = SENTENCE_END.split(" ".join(x.strip() for x in lines[lo:i + 1]))[-1]
    return j if _INTRO.search(last) else -1


def _block(lines: list[str], j: int) -> tuple[int, list[str]]:
    """(the index of its first line, the code lines: prompts dropped, dedented) of the block starting at line `j` (a
    fence, a code directive, or the first line of a `::` literal block)."""
    fence = _FENCE.match(lines[j])
    if fence is not None:
        end = next((k for k in range(j + 1, len(lines)) if lines[k].strip().startswith(fence.group(1))), len(lines))
        first = j + 1
    else:
        first = j + 1 if _CODE_DIRECTIVE.match(lines[j]) else j
        while first < len(lines) and (not lines[first].strip() or lines[first].lstrip().startswith(":")):
            first += 1  # a directive's options (`:caption:`)
        indent = len(lines[first]) - len(lines[first].lstrip()) if first < len(lines) else 0
        end = first
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) >= indent):
            end += 1
    body = [re.sub(r"^(\s*)(?:>>>|\.\.\.)(?: |$)", r"\1", x) for x in lines[first:end]]
    margin = min((len(x) - len(x.lstrip()) for x in body if x.strip()), default=0)
    return first, [x[margin:] for x in body]


def _block_statements(tree: ast.Module, first: int) -> list[Statement]:
    """The statements of a block whose code starts at (1-based) line `first`: see the module docstring."""
    out: list[Statement] = []
    for node in tree.body:
        call = node.value if isinstance(node, (ast.Expr, ast.Assign)) and isinstance(node.value, ast.Call) else None
        if call is None:
            continue
        outer = _last(call.func)
        near = (outer,) if outer else ()
        for kw in call.keywords:
            if kw.arg is None:
                continue
            line = first + kw.value.lineno - 1
            value = _value(kw.value)
            if value is not None:
                out.append(((kw.arg,), line, value, "", "const", near))
            for inner in (n for n in ast.walk(kw.value) if isinstance(n, ast.Call)):
                callee = _last(inner.func)
                for k in inner.keywords:
                    if k.arg and isinstance(k.value, ast.Constant) and callee:
                        out.append(((k.arg, callee), first + k.value.lineno - 1, comparable(ast.unparse(k.value)), callee, "call", near))
    return out


def _last(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _value(node: ast.expr) -> str | None:
    """A value comparable with a constant's (`_coded`): a literal, a name's last part, a call of one (its arguments
    literals, else "": only a change can be told); None for anything else (a list of processors)."""
    if isinstance(node, ast.Constant):
        return comparable(ast.unparse(node))
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _last(node) or None
    if isinstance(node, ast.Call) and _last(node.func):
        args = [*node.args, *(k.value for k in node.keywords)]
        if any(not isinstance(a, ast.Constant) for a in args):
            return ""
        return comparable(_coded(node))
    return None


def _coded(node: ast.expr) -> str:
    """A constant's value in one form: `cast(T, v)` is `v`, a dotted name or callee its last part."""
    if isinstance(node, ast.Call) and _last(node.func) == "cast" and len(node.args) == 2:
        return _coded(node.args[1])
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _last(node)
    if isinstance(node, ast.Call) and _last(node.func):
        return f"{_last(node.func)}({', '.join([*map(ast.unparse, node.args), *(f'{k.arg}={ast.unparse(k.value)}' for k in node.keywords)])})"
    return ast.unparse(node)


def _prose(lines: list[str]) -> list[Statement]:
    out: list[Statement] = []
    for lo, hi in prose_blocks(lines):
        text = "\n".join(lines[lo:hi])
        if "efault" not in text or " for" not in text or "`" not in text or DEFAULT_WORD.search(text) is None:
            continue
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
        for a, b in pairwise(cuts):
            sentence = text[a:b]
            if " for" not in sentence or "`" not in sentence or DEFAULT_WORD.search(sentence) is None:
                continue
            for m in _FOR_NOUN.finditer(sentence):
                value = code_name(m.group(2))
                if m.group("noun"):
                    noun = "_".join(w for w in m.group("noun").split() if w not in _NOUN_STOP)
                else:
                    noun = (code_name(m.group(4)) or ("",))[0]
                if value and noun and noun not in _NOUN_STOP and DEFAULT_WORD.search(sentence, 0, m.start()):
                    at = lo + text.count("\n", 0, a + m.start(2)) + 1
                    out.append(((noun,), at, value[0], "", "const", _section_names(lines, at - 1)))
    return out


def _section_names(lines: list[str], i: int) -> tuple[str, ...]:
    """The nearest 8 code names written from the title of line `i`'s section (at most 40 lines up) to line `i`."""
    names: dict[str, None] = {}
    j = i
    while j >= 0 and i - j < 40 and len(names) < 8 and not _TITLE_LINE.match(lines[j]):
        for m in re.finditer(SPAN, lines[j]):
            names.update(dict.fromkeys(n for n in code_name(m.group(2)) if len(n) > 2))
        j -= 1
    return tuple(names)[:8]


def shown_default(text: str, name: str, of: str, held: str) -> str | None:
    """The code's default for a statement read here (`held` "call": `name` passed to a call of `of` inside a
    default constant; "const": the one default constant whose words hold `name`'s), or None."""
    if "DEFAULT" not in text or (held == "call" and of not in text):
        return None
    named = [m.group(1) for m in _DEFAULT_CONSTANT.finditer(text) if _NAMED_DEFAULT.search(m.group(1))]  # parsed only if one fits
    if not named or (held == "const" and not _matching(dict.fromkeys(named, ()), name)):
        return None
    if held == "call":
        found = {comparable(value) for called, value in _calls(text) if called == (of, name)}
        return found.pop() if len(found) == 1 else None
    constants = _constants(text)
    matching = _matching(constants, name)
    values = sorted({comparable(v) for v in constants[matching]}) if matching else []
    return " or ".join(values) if values else None


def _matching(constants: dict[str, tuple[str, ...]], name: str) -> str:
    """The one default constant whose words hold `name`'s (`_BUILTIN_DEFAULT_CONTEXT_CLASS` for `context`), or ""."""
    words = set(name.lower().split("_"))
    matching = [c for c in constants if words <= set(c.lower().strip("_").split("_"))]
    return matching[0] if len(matching) == 1 else ""


def setting_of(text: str, name: str) -> str:
    """What the default constant read for `name` is the default of, when `name` is a noun of prose: its words after
    DEFAULT, lowercased (`context_class` for `_BUILTIN_DEFAULT_CONTEXT_CLASS`); else `name`."""
    constant = _matching(_constants(text), name) if "DEFAULT" in text else ""
    setting = _NAMED_DEFAULT.split(constant, 1)[-1].strip("_").lower() if constant else ""
    return setting if setting and setting != name and "_" in setting else name


@state.cached(maxsize=256)
def _constants(text: str) -> dict[str, tuple[str, ...]]:
    """Each module constant named as a default: the values it is assigned at module level (in branches too)."""
    if not any(_NAMED_DEFAULT.search(m.group(1)) for m in _DEFAULT_CONSTANT.finditer(text)):
        return {}
    tree = _parsed(text)
    out: dict[str, list[str]] = {}
    stack = list(tree.body) if tree is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.If, ast.Try)):
            stack += [*node.body, *node.orelse, *getattr(node, "finalbody", []), *(s for h in getattr(node, "handlers", []) for s in h.body)]
            continue
        for target, value in _assigned(node):
            if _NAMED_DEFAULT.search(target) and target.upper() == target:
                out.setdefault(target, []).append(_coded(value))
    return {k: tuple(v) for k, v in out.items()}


@state.cached(maxsize=256)
def _calls(text: str) -> tuple[tuple[tuple[str, str], str], ...]:
    """((callee, keyword), literal) for each call inside a default constant's value."""
    tree = _parsed(text)
    out = []
    for node in ast.walk(tree) if tree is not None else ():
        for _target, value in ((t, v) for t, v in _assigned(node) if _NAMED_DEFAULT.search(t) and t.upper() == t):
            for call in (n for n in ast.walk(value) if isinstance(n, ast.Call)):
                out += [((_last(call.func), k.arg), ast.unparse(k.value)) for k in call.keywords if k.arg and isinstance(k.value, ast.Constant)]
    return tuple(out)


def _assigned(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """(name, value) of an assignment statement to plain names (`X = v`, `X: T = v`)."""
    if isinstance(node, ast.Assign):
        return [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
        return [(node.target.id, node.value)]
    return []


@state.cached(maxsize=64)
def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
