"""Defaults a doc states, against the code's (issue 25, rule 5).

`stated_defaults(doc)` finds where a doc states a default: a `:default:` option under a directive (`.. confval::
tmp_path_retention_count` then `:default: ``"3"```), or a sentence saying "by default" / "defaults to" / "Default:" next
to a name in code (``prefix``, :confval:`name`, on that line or the one before or after in its paragraph), or a
"Default: ``1000``" line in the section a directive naming one value opens (`.. setting:: NAME`), or a list item
"`RAISE` (default)" under a paragraph naming the option (``unknown``: read in the code by its key, `getattr(meta,
"unknown", RAISE)`), or a list item "`5`: Default." in a section naming one setting (`_section_option`), with the value
it gives when it quotes one; or, in a paragraph saying what happens by default, "setting ``name`` to ``False``" (the
default is not that value: `Stated.not_value`; also "passing ``name=V``"); a ``name=value`` span beside "the default"
states `name`'s (`keyword_defaults`); more phrasings: `default_phrases`. The code's: `coded_defaults`,
`option_defaults`, `held_defaults` (a default constant built by a call, a function's one optional parameter).

`changed_defaults` reports a stated default whose code default changed since the doc's last commit (and differs from
what the doc says), naming the commit that changed it, or one stating a value the code had before that commit and not
now (`default_history.stated_before`); a default the code never states is never a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from noface_ctx.datatypes import ChangedRef, Doc
from noface_ctx.freshness import option_defaults as options
from noface_ctx.freshness.blocks import UNDERLINE
from noface_ctx.freshness.coded_defaults import code_default, coded, comparable, param_default
from noface_ctx.freshness.comment_defaults import comment_statements
from noface_ctx.freshness.default_history import stated_before
from noface_ctx.freshness.default_instances import instance_default, instance_statements
from noface_ctx.freshness.default_phrases import phrase_statements
from noface_ctx.freshness.default_words import DEFAULT_WORD, SENTENCE_END
from noface_ctx.freshness.distant_defaults import distant_statements
from noface_ctx.freshness.env_opt_outs import env_opt_outs
from noface_ctx.freshness.fallback_defaults import fallback_default, field_default, keyed_default
from noface_ctx.freshness.held_defaults import constant_default, docstring_default, optional_default
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.imported_constants import fed_history, feeding_files, reading
from noface_ctx.freshness.judgement import UNCOMMITTED
from noface_ctx.freshness.keyword_calls import keyword_calls
from noface_ctx.freshness.keyword_defaults import keyword_default, opt_outs
from noface_ctx.freshness.literal_defaults import is_table
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.noun_defaults import noun_statements
from noface_ctx.freshness.references import IDENT, codeish
from noface_ctx.freshness.review_defaults import heading_names, review_statements, stems
from noface_ctx.freshness.setting_defaults import setting_statements
from noface_ctx.freshness.shown_defaults import shown_default, shown_statements
from noface_ctx.freshness.signed_defaults import signed_statements
from noface_ctx.freshness.subject_defaults import subject_statements
from noface_ctx.freshness.written_numbers import spoken

_OPTION = re.compile(r"^\s+:default:\s*(.+?)\s*$")
_DIRECTIVE = re.compile(rf"^\s*\.\.\s+[\w:-]+::\s+({IDENT}(?:\.{IDENT})*)")
_SPAN = re.compile(r"(?::[\w:-]+:)?(`+)([^`]+?)\1")
_TITLE = re.compile(r"^.*<([^<>]+)>$")
_LITERAL = re.compile(r"[\d.]+|True|False|None|[A-Z][A-Z0-9_]*")  # a value prose states unquoted
_OPTION_LINE = re.compile(r"^:[\w-]+:(?:\s|$)")  # `:type: str`, not a role (`:confval:`x``)
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_SETTING_LINE = re.compile(r"^\s*Default:\s*\S")  # django's "Default: ``1000``" under `.. setting:: NAME`
_HOLDS_VALUE = re.compile(r"^\s*\.\.\s+(?:py:)?(setting|confval|data|attribute)::")  # a directive naming one value
_DEFAULT_ITEM = re.compile(r"^\s*[-*+]\s+(?::[\w:-]+:)?(`+)([^`]+)\1\s*\((?:the\s+)?default\)", re.I)
_ITEM = re.compile(r"^\s*[-*+]\s")
_TAGGED_ITEM = re.compile(r"^\s*[-*+]\s+(?::[\w:-]+:)?(`+)([^`]+)\1\s*:\s")  # a value, then what it does
_TAG_END = re.compile(r"\((?:the\s+)?default\)\.?\s*$", re.I)
_OPTION_SPAN = re.compile(r"--?[A-Za-z][\w-]*(?:=\S*)?|[a-z]+(?:-[a-z]+)+")  # `--jobs=4` passes a value: states none
_VALUE_AFTER = re.compile(r"(?i)\b(?:(?:the\s+)?default\s+value\s+(?:for|of)\s+`+[^`]+`+\s+is|default\s+value\s*[=:]|defaults?\s+(?:to|is)|by\s+default,?(?:\s+the\s+last|\s+(?:set\s+to|is))?|default:|the\s+default)\s+([\w.'\"+-]+)")


@dataclass(frozen=True, slots=True)
class Stated:
    """A default a doc states: the names it may be about, the line, the value quoted (or "").
    `of`: the callable whose parameter `names[0]` is, when the doc shows a call passing it
    (`HTTPAdapter`, `Dataset.copy`): only that parameter's default counts."""

    names: tuple[str, ...]
    line: int
    value: str
    of: str = ""
    keyed: bool = False  # an option a list gives the values of: read by its key (`getattr(meta, "unknown", RAISE)`)
    not_value: str = ""  # "setting ``name`` to ``False``" beside what happens by default: the default is not this
    held: str = ""  # "word": a plain word read in default constants only; "optional": `names[0]`'s one optional parameter; "call", "const": `shown_defaults`; "instance": `default_instances`
    near: tuple[str, ...] = ()  # what the section names (no value stated): the files defining them are the ones meant
    titled: tuple[str, ...] = ()  # the names its section's title writes (`## SessionMiddleware`): of two files, the one meant
    signed: bool = False  # a directive's signature (`.. function:: lipsum(n=5)`): judged only for a callable none defines
    besides: tuple[str, ...] = ()  # held "keys": the keys a per-key default excepts ("except when the location is `json`")
    was: bool = False  # judged by the change alone: stale only when the code's default at the doc's commit was `value`


def stated_defaults(doc: Doc) -> list[Stated]:
    """Where the doc states a default (see the module docstring)."""
    lines, out = doc.text.split("\n"), list[Stated]()
    titles: tuple[tuple[str, ...], ...] = ()  # each line's section title's names (`heading_names`), read once if needed
    def titled(i: int) -> tuple[str, ...]:
        nonlocal titles
        titles = titles or heading_names(lines)
        return titles[i]
    target = section = ""  # the directive's target (its options), the value a directive's section is about
    for i, line in enumerate(lines):
        d = _DIRECTIVE.match(line)
        if d is not None:
            target = d.group(1).rsplit(".", 1)[-1]
            section = target if _HOLDS_VALUE.match(line) and line.rstrip().endswith(d.group(1)) else ""  # not `CACHES-TIMEOUT`
            continue
        if section and _SETTING_LINE.match(line) and (value := _coded_value(line.split(":", 1)[1])):
            out.append(Stated((section,), i + 1, value))  # "Default: ``1000``" in the section of `.. setting:: NAME`
            continue
        option = _OPTION.match(line)
        if option is not None and target:
            out.append(Stated((target,), i + 1, comparable(option.group(1))))
            continue
        target = target if line.strip() else ""
        item = _DEFAULT_ITEM.match(line)
        if item is not None and (option_names := _names(_intro(lines, i))) and (value := comparable(item.group(2).split(" <", 1)[0].lstrip("~."))):
            out.append(Stated((option_names[0],), i + 1, value, keyed=True))  # "- `RAISE` (default): ..."
            continue
        item = _TAGGED_ITEM.match(line)  # "* ``None``: set ... (default)." under "The values for ``boundary`` can be:"
        named = _names(SENTENCE_END.split(_intro(lines, i))[-1]) if item is not None and _TAG_END.search(" ".join(
            lines[i:next((j for j in range(i + 1, len(lines)) if not lines[j].strip() or _ITEM.match(lines[j])), len(lines))])) else []
        if item is not None and len(named) == 1 and (value := comparable(item.group(2))):  # the lead sentence's one name
            out.append(Stated((named[0], *(n for n in _names(_intro(lines, i)) if n != named[0])), i + 1, value))
            continue
        item = _VALUE_ITEM.match(line)  # "* :code:`5`: Default." in a list of a setting's values
        if item is not None and (setting := _section_option(lines, i)) and _LITERAL.fullmatch(value := comparable(item.group(2))):
            out.append(Stated((setting,), i + 1, value))
            continue
        if DEFAULT_WORD.search(line) is None or line.lstrip().startswith(":"):
            continue
        lo, hi = _paragraph(lines, i)
        row = is_table(lines, lo, hi)  # a table's row: about the names it writes (its other rows are read by `literal_defaults`)
        around = [line] if row else [lines[j] for j in (i - 1, i, i + 1) if 0 <= j < len(lines) and lines[j].strip() and not (
            (j < i and _ITEM.match(lines[i])) or (j > i and _ITEM.match(lines[j])))]  # not another item's
        sentences = ["", line] if row else _sentences(lines, lo, hi, i)
        names = tuple(dict.fromkeys([*(n for text in around for n in _names(text)), *_sentence_names(sentences)]))
        out += _passed_keywords(lines, lo, hi, i + 1, stems(" ".join(sentences)))
        if (kw := keyword_default(line, lines[i + 1] if i + 1 < hi else "")) is not None:  # "the default ``abandon=False``"
            out.append(Stated((kw[0],), i + 1, comparable(kw[1]), near=names))  # (`keyword_defaults`)
            continue
        if names:
            spans = [s for s in _spans(line) if s.removesuffix("()").rsplit(".", 1)[-1] not in names and not _OPTION_SPAN.fullmatch(s)]
            after = _VALUE_AFTER.search("\n".join(lines[i:min(i + 2, hi)]))  # the value may wrap: "(by default set to\n1024)"
            after = after if after is not None and after.start() < len(line) else None
            plain = (spoken(line[after.start(1):]) or comparable(after.group(1)).removesuffix(".")) if after else ""  # a full stop ends it
            plain = plain if _LITERAL.fullmatch(plain) else ""  # "Defaults to 2 weeks. If set to `None` ...": 1209600
            value = plain or (comparable(spans[0]) if spans else "")
            if value:  # a sentence that says what the default is: one that can be wrong; of its section's class, if titled by one
                out.append(Stated(names, i + 1, value, titled=titled(i)))
    outs = [(Stated(names, at, "", of, not_value=value, near=near), passed) for names, at, value, of, near, passed in [
        *opt_outs(lines, comparable), *env_opt_outs(lines)]]  # (an environment variable's: `env_opt_outs`)
    out += [st for st, passed in outs if not passed] + [Stated(*st) for st in [*options.option_statements(lines, comparable), *setting_statements(lines, comparable)]]
    read = {(st.line, st.names[0], st.value) for st in out}  # a phrasing both read: stated once
    out += [Stated(names, at, value, held=held) for names, at, value, held in phrase_statements(lines) if (at, names[0], value) not in read]
    said = {(st.line, st.names[0]) for st in out}  # a name's default stated on a line once
    out += [Stated(names, at, value, keyed=keyed, titled=titled(at - 1)) for names, at, value, keyed in subject_statements(lines)
            if (at, names[0]) not in said]  # of the class its section is titled by ("## SessionMiddleware"), if one
    out += [Stated(names, at, value, near=near) for names, at, value, near in distant_statements(lines) if (at, names[0]) not in said]
    out += [Stated(names, at, value, of, signed=True) for names, at, value, of in signed_statements(lines)]
    said = {(st.line, st.names[0]) for st in out}  # an example's comment: `# "name=V" is the default` (`comment_defaults`)
    out += [Stated(names, at, comparable(value), of) for names, at, value, of in comment_statements(lines) if (at, names[0]) not in said]
    said = {(st.line, st.names[0]) for st in out}
    out += [Stated(names, at, value, held="keys" if besides else "", besides=besides) for names, at, value, besides in noun_statements(lines)
            if (at, names[0]) not in said]  # "The default method is X" after ``digest_method``; "400 instead of 422"
    out += [Stated(names, at, value, of, held=held, near=near) for names, at, value, of, held, near in shown_statements(lines) if (at, names[0]) not in said]
    stating = {st.names[0] for st in out}  # a default spoken of without a value: only where no sentence states one
    out += [Stated(names, at, "", noun, held="instance") for names, at, noun in instance_statements(lines) if names[0] not in stating]
    reviewed = [Stated(names, at, "", of, near=near) for names, at, of, near in review_statements(lines) if names[0] not in stating]
    return out + [st for st, passed in outs if passed and st.names[0] not in {r.names[0] for r in reviewed}] + reviewed  # (reviewed: its section's)

def _coded_value(text: str) -> str:
    """The value a "Default:" line writes as code (``1000``) or as a literal (`True`, `3`), or ""
    (prose: "A list of all language codes that are written right-to-left")."""
    value = comparable(text)
    return value if _SPAN.search(text) is not None or _LITERAL.fullmatch(value) else ""


_VALUE_ITEM = re.compile(r"^\s*[-*+]\s+(?::[\w:-]+:)?(`+)([^`]+)\1\s*[:\u2013\u2014-]\s*(?:the\s+)?default\b", re.I)


def _section_option(lines: list[str], i: int) -> str:
    """The one setting the section holding the list item at line `i` names before it ("Variant
    rendering is controlled by the :code:`render_variant_limit` setting" ... "Recommended
    values:"), or "" when the section names none or several."""
    found: set[str] = set()
    j = i - 1
    while j >= 0 and not _is_title(lines, j):
        found.update(n for n in _names(lines[j]) if coded(n) and n.islower())
        j -= 1
    return found.pop() if len(found) == 1 else ""


def _is_title(lines: list[str], j: int) -> bool:
    """Line `j` underlines a reStructuredText title or is a Markdown heading."""
    return re.match(r"^\s{0,3}#{1,6}\s", lines[j]) is not None or (
        j > 0 and _FENCE.match(lines[j]) is None and UNDERLINE.match(lines[j]) is not None and bool(lines[j - 1].strip()))


def _intro(lines: list[str], i: int) -> str:
    """The paragraph introducing the list whose item is line `i` ("... the ``unknown`` option,
    which accepts one of the following:"), or "" when there is none."""
    j = i - 1
    while j >= 0 and (not lines[j].strip() or _ITEM.match(lines[j]) or lines[j][:1].isspace()):
        j -= 1
    if j < 0 or not lines[j].rstrip().endswith(":"):
        return ""
    lo, _hi = _paragraph(lines, j)
    return " ".join(lines[lo:j + 1])


def _paragraph(lines: list[str], i: int) -> tuple[int, int]:
    """The paragraph around line `i`: the non-blank lines about it, not crossing a directive or
    an option line (`.. confval::`, `:type:`), as (first, after last)."""
    def inside(j: int) -> bool:
        text = lines[j].strip()
        return bool(text) and not text.startswith(".. ") and _OPTION_LINE.match(text) is None and _FENCE.match(lines[j]) is None

    lo = i
    while lo > 0 and inside(lo - 1):
        lo -= 1
    hi = i + 1
    while hi < len(lines) and inside(hi):
        hi += 1
    return lo, hi


def _sentences(lines: list[str], lo: int, hi: int, i: int) -> list[str]:
    """The sentences of the paragraph `lines[lo:hi]` that say "default" on line `i` (a sentence
    may run over lines: "By default, the last 3 directories are kept, but ... :confval:`name`."),
    each after the sentence before it ("You can copy a `Dataset` with :meth:`~Dataset.copy`."):
    pairs (the sentence before or "", the sentence)."""
    text = "\n".join(lines[lo:hi])
    start = sum(len(line) + 1 for line in lines[lo:i])
    cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
    spans = [(a, b) for a, b in pairwise(cuts) if b > a]
    out = []
    for k, (a, b) in enumerate(spans):
        if b > start and a < start + len(lines[i]) and DEFAULT_WORD.search(text[a:b]) is not None:
            out += [text[spans[k - 1][0]:spans[k - 1][1]].replace("\n", " ") if k else "", text[a:b].replace("\n", " ")]
    return out


def _sentence_names(sentences: list[str]) -> list[str]:
    """Code names of each sentence stating a default; a sentence naming none is about what the
    sentence before it names ("By default, the copy is shallow")."""
    out: list[str] = []
    for before, sentence in zip(sentences[::2], sentences[1::2], strict=True):
        out += _names(sentence) or _names(before)
    return out


def _passed_keywords(lines: list[str], lo: int, hi: int, line: int, about: set[str]) -> list[Stated]:
    """A paragraph stating a default ("By default, Requests does not retry") that shows a call
    passing a keyword (`HTTPAdapter(max_retries=retries)` in the example it introduces,
    `ds.copy(deep=True)` in its text) states that keyword's default when the keyword or the
    callable shares a word with the sentence (`about`: its `stems`; retry / max_retries, copy /
    copy): one `Stated` per keyword, `of` the callable (`Dataset.copy` when the paragraph names
    `Dataset.copy`)."""
    code = [m.group(2) for m in _SPAN.finditer("\n".join(lines[lo:hi]))]
    after = hi
    while after < len(lines) and not lines[after].strip():
        after += 1
    opens = lines[hi - 1].rstrip().endswith("::") or (after < len(lines) and (
        _FENCE.match(lines[after]) is not None or re.match(r"^\s*\.\.\s+(?:code-block|code|sourcecode)::", lines[after])))
    if opens and after < len(lines):
        code.append("\n".join(lines[after:_block_end(lines, after)]))
    qualified = {n.rsplit(".", 1)[-1]: ".".join(n.split(".")[-2:]) for n in
                 (s.removesuffix("()") for s in _spans("\n".join(lines[lo:hi]))) if re.fullmatch(r"[\w.]+\.[A-Z]\w*\.\w+|[A-Z]\w*\.\w+", n)}
    out = []
    for text in code:
        for callee, keyword in keyword_calls(text):
            last = callee.rsplit(".", 1)[-1]
            of = last if last[:1].isupper() else qualified.get(last, last)
            if len(keyword) > 2 and keyword not in ("self", "cls") and stems(f"{keyword} {last}") & about:
                out.append(Stated((keyword, *of.split(".")), line, "", of))
    return list(dict.fromkeys(out))


def _block_end(lines: list[str], start: int) -> int:
    """The line after the code block starting at `start`: a fence's closing fence, a directive's
    or a literal block's last line indented past the paragraph (`.. code-block::` or the block's
    own first line)."""
    if _FENCE.match(lines[start]) is not None:
        end = start + 1
        while end < len(lines) and _FENCE.match(lines[end]) is None:
            end += 1
        return end + 1
    directive = lines[start].lstrip().startswith("..")
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
                                or (not directive and len(lines[end]) - len(lines[end].lstrip()) == indent)):
        end += 1
    return end


def _spans(line: str) -> list[str]:
    return [(t.group(1) if (t := _TITLE.match(m.group(2))) else m.group(2)).strip().lstrip("~.!")
            for m in _SPAN.finditer(line)]


def _names(line: str) -> list[str]:
    """Code names a line's spans and roles give: `prefix`, `~flask.Config.from_prefixed_env`
    (a plain word, `prefix`, only counts as a parameter of a function named beside it)."""
    out = []
    for span in _spans(line):
        if _OPTION_SPAN.fullmatch(span):  # an option: `--jobs`, `include-naming-hint`
            out += [("--" if len(key := span.lstrip("-").split("=", 1)[0]) > 1 else "-") + key]
            continue
        parts = span.removesuffix("()").split(".")
        for name in parts[-2:][::-1]:  # `Options.timeout`: the field, and the class it belongs to
            if re.fullmatch(IDENT, name) and name not in ("True", "False", "None") and (codeish(name) or name.islower() or (name[:1].isupper() and not name.isupper())) and len(name) > 2:
                out.append(name)
    return out


def _default_of(text: str, name: str, st: Stated, path: str, read: Callable[[str], str | None] | None = None) -> str | None:
    """`_read_default`, another module's constant a default is written with read by `read` (`imported_constants`)."""
    with reading(path, read):
        return _read_default(text, name, st, path)


def _read_default(text: str, name: str, st: Stated, path: str) -> str | None:
    """`of`'s parameter; an option's or a shipped config's setting (`option_defaults`); else `code_default`'s."""
    if st.held == "instance":  # "the default clock": the instance built when `of` is None (`default_instances`)
        return instance_default(text, name, st.of)
    if st.held in ("keys", "call", "const"):  # a dict of defaults by key; a default constant (`shown_defaults`)
        return keyed_default(text, name, st.value, st.besides) if st.held == "keys" else shown_default(text, name, st.of, st.held)
    if st.of:
        return param_default(text, st.of, name)
    if st.held:
        return optional_default(text, name) if st.held == "optional" else constant_default(text, name)
    if name.startswith("-") or options.config_file(path):
        return options.declared_default(path, text, name, comparable)
    found = field_default(code_default(text, name, (*st.names, *st.near, *st.titled), keyed=st.keyed))  # `field(default=3)`: 3
    if found in (None, "None") and (held := constant_default(text, name, keys=st.keyed or coded(name))) is not None:  # `Limits(..., name=20)`
        return held
    if found == "None" and (held := (st.value != "None" and fallback_default(text, name)) or docstring_default(text, name)) is not None:
        return held  # `name = name or self.default_name` (unless the doc says None); or as the docstring says the body picks it
    return options.declared_default(path, text, name, comparable) if found is None and coded(name) else found


def changed_defaults(stated: Sequence[Stated], since: Commit, index: HistoryIndex,
                     holders: dict[str, set[str]], now_text: Callable[[str], str | None],
                     touched: Callable[[str], bool], known: dict[tuple[object, ...], str | None]) -> list[ChangedRef]:
    """The stated defaults whose code default changed since commit `since` (the doc's last): `holders` maps a name to
    the code files holding it now, `now_text` reads a file now, `touched(path)` tells whether it changed since `since`
    (commits or uncommitted edits); `known`: the code defaults now already read (by path and what is asked), kept across docs."""
    out: list[ChangedRef] = []
    seen: set[str] = set()
    def then_text(path: str) -> str | None:
        return index.versions.text_at(since.sha, path)
    own_touched, touched = touched, lambda p: own_touched(p) or any(own_touched(f) for f in feeding_files(now_text(p) or "", p))
    def default_now(path: str, name: str, st: Stated) -> str | None:
        if (key := (path, name, st.of, st.names, st.keyed, st.held, st.near, st.titled, st.besides, st.held == "keys" and st.value)) not in known:
            known[key] = _default_of(now_text(path) or "", name, st, path, now_text)
        return known[key]
    for st in stated:
        for name in st.names[:1] if st.of else st.names:  # a keyword passed: that parameter only
            if name in seen:
                continue
            homes = [p for p in sorted(holders.get(name, ())) if default_now(p, name, st) is not None] if any(
                touched(p) for p in holders.get(name, ())) else []  # else nothing changed where it is coded since
            if len({default_now(p, name, st) for p in homes}) > 1:  # coded in several files (`template_name` on many views): the one naming what the doc names
                named = [p for p in homes if any(f"class {n}" in (text := now_text(p) or "") or f"def {n}" in text
                                                 for n in (*st.names, *st.near, *st.titled) if n != name)]
                homes = named if len(named) == 1 or (st.near and named) else _agreeing(homes, st.value, lambda p: _default_of(
                    then_text(p) or "", name, st, p, then_text))  # noqa: B023 (called at once)
            for path in homes:
                if not touched(path):
                    continue
                if (now := default_now(path, name, st)) is None or (st.value and options.same_value(st.value, now)):
                    continue  # (what the code says now first: a default the doc still states reads no older version)
                then = _default_of(was, name, st, path, then_text) if (was := then_text(path)) is not None else None
                if then is None or options.same_value(then, now) or (st.not_value and st.not_value != now) or (st.was and not options.same_value(st.value, then)):
                    continue
                seen.add(name)
                at = _changed_at(index, path, since, name, st, then, now_text(path))  # a signature's: "default of `n` of `lipsum`"
                out.append(ChangedRef(st.names[1], st.line, path, at, f"default {name}") if st.signed else ChangedRef(name, st.line, path, at, "default"))
                break
            if name not in seen and not st.not_value and not st.was and (old := stated_before(  # a value the code had before
                    st.value, st.line, name, holders.get(name, set()), index, since, now_text,
                    lambda text, path: _default_of(text, name, st, path), () if coded(name) else st.names)):  # noqa: B023 (called at once)
                out, seen = [*out, old], seen | {name}
    return out


def _agreeing(homes: list[str], value: str, then: Callable[[str], str | None]) -> list[str]:
    """Of the files coding a name's default differently, the one whose default (`then`) was the stated value when
    the doc was written (the doc agreed with it then: Map's `merge_slashes=True`, not Rule's `None`), or none."""
    agreed = [p for p in homes if value and (was := then(p)) is not None and options.same_value(value, was)]
    return agreed if len(agreed) == 1 else []


def _changed_at(index: HistoryIndex, path: str, since: Commit, name: str, st: Stated, then: str, now: str | None) -> str:
    """The label of the first commit after `since` where `path`'s default for `name` is no longer `then` (an
    opt-out's: became its value; a merge's: the merged commit that did; else "uncommitted edits"), the commits of
    the files whose constants its defaults are written with too (`imported_constants.fed_history`)."""
    def changed(sha: str, at: str | None) -> bool:
        text = index.versions.text_at(sha, at) if at is not None else None
        now = _default_of(text, name, st, at or path, lambda p: index.versions.text_at(sha, p)) if text is not None else None
        return text is None or (now == st.not_value if st.not_value else now is None or not options.same_value(then, now))
    found = next(((c, at) for c, at in fed_history(index, path, since, now) if changed(c.sha, at)), None)
    return merged_change(index, found[0], found[1] or path, lambda sha: changed(sha, found[1] or path)).label() if found else UNCOMMITTED
