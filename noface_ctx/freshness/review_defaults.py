"""Defaults a doc speaks of without writing a value (issue 25, rule 5): reported for review when the code's default
changed since the doc's last commit, whatever it became (what the doc says happens by default may no longer hold).

- a paragraph that calls a code name a parameter, then says "default" in a later sentence: "you can use the
  `reloader_type` parameter of the :func:`run_simple` function. ``'stat'`` sets it to the default stat based
  polling": `reloader_type`'s default, of `run_simple` when the paragraph names the callable it belongs to ("the
  default description ... with the ``description`` parameter" speaks of a value the parameter overrides);
- a sentence saying "by default" that writes no code ("Slotted classes are weak-referenceable by default.") in a
  list item or paragraph whose other sentences name one parameter or field as code sharing a word with it ("This
  can be disabled by passing `weakref_slot=False` to `@attr.s`": weak): that name's default.

`review_statements` gives (names, line, of) for each; `review_words` the names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from itertools import pairwise

from noface_ctx.freshness.default_words import BY_DEFAULT, DEFAULT_WORD, SENTENCE_END
from noface_ctx.freshness.references import IDENT, codeish
from noface_ctx.freshness.subject_defaults import SPAN, code_name, prose_blocks

Statement = tuple[tuple[str, ...], int, str, tuple[str, ...]]  # (names, line, of: the callable the parameter belongs
# to or "", near: the names of the section, whose files are the ones meant when several code the name differently)

PARAMETER = re.compile(r"(?i)\bthe\s+(?::[\w:-]+:|\{[\w:-]+\})?(`+)([^`\n]+?)\1\s+(?:parameter|argument|keyword(?:\s+argument)?)\b"
                        r"(?:\s+(?:of|to|for)\s+(?:the\s+)?(?::[\w:-]+:|\{[\w:-]+\})?(`+)([^`\n]+?)\3)?")
_KEYWORD = re.compile(rf"^\s*({IDENT})\s*=(?!=)")
_CODE = re.compile(SPAN)
_UNDERLINE = re.compile(r"([=\-~^\"'`*+#])\1{2,}\s*")
_NOT_STEMS = frozenset({"defa"})  # "default" itself
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_ACRONYMED = re.compile(r"[A-Z]{2,}[a-z]{2,}\w*")  # `CORSMiddleware`, `HTTPAdapter`: a class a title names


def review_statements(lines: list[str]) -> list[Statement]:
    """The defaults `lines` speak of as the module docstring says."""
    if not any("efault" in line for line in lines):
        return []
    out: list[Statement] = []
    for lo, hi in prose_blocks(lines):
        text = "\n".join(lines[lo:hi])
        if DEFAULT_WORD.search(text) is None:
            continue
        for m in PARAMETER.finditer(text):
            end = SENTENCE_END.search(text, m.end())
            if end is None or DEFAULT_WORD.search(text, end.end()) is None:  # what it does by default: said after it
                continue
            names = code_name(m.group(2))
            owner = code_name(m.group(4)) if m.group(4) else ()
            if len(names) == 1 and names[0].islower():
                of = ".".join(owner[::-1]) if len(owner) > 1 and owner[1][:1].isupper() else owner[0] if owner else ""
                out.append(((names[0], *owner[:1]), lo + text.count("\n", 0, m.start(2)) + 1, of, ()))
        out += _unnamed(lo, text, partial(section_names, lines, lo, hi))  # (read only for a statement found)
    return sorted(set(out), key=lambda st: (st[1], st))


def review_words(text: str) -> set[str]:
    """The names these statements are about."""
    if "efault" not in text:
        return set()
    return {n for names, _line, _of, _near in review_statements(text.split("\n")) for n in names}


def stems(text: str) -> set[str]:
    """The first four letters of each word of four letters or more, split at `_` and humps
    (`max_retries` → max, retr; "retry" → retr)."""
    words = re.findall(r"[A-Za-z][a-z]*", re.sub(r"([a-z])([A-Z])", r"\1 \2", text))
    return {w[:4].lower() for w in words if len(w) >= 4}


def _unnamed(lo: int, text: str, near: Callable[[], tuple[str, ...]]) -> list[Statement]:
    """A "by default" sentence writing no code, about the one parameter or field the block's other sentences
    name as code (`weakref_slot=False`, ``cache_dir``) sharing a word with it; `near`: the section's names."""
    cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
    sentences = [(a, text[a:b]) for a, b in pairwise(cuts) if b > a]
    out: list[Statement] = []
    for k, (start, sentence) in enumerate(sentences):
        said = BY_DEFAULT.search(sentence)
        if said is None or "`" in sentence:
            continue
        words = stems(re.sub(r"\(.*?\)", "", sentence)) - _NOT_STEMS
        named = {n for j, (_a, other) in enumerate(sentences) if j != k for n in parameters(other) if stems(n) & words}
        if len(named) == 1:
            out.append(((named.pop(),), lo + text.count("\n", 0, start + said.start()) + 1, "", near()))
    return out


def section_names(lines: list[str], lo: int, hi: int) -> tuple[str, ...]:
    """The names written as code from the start of the section holding lines `lo:hi` to their end: an indented
    block's section starts at the entry it is indented under (a glossary term, a directive), another's at the
    title before it."""
    start, indented = lo, _indent(lines[lo]) > 0
    while start > 0 and not ((indented and lines[start].strip() and not _indent(lines[start])) or is_title(lines, start)):
        start -= 1
    found = [code_name(m.group(2)) for line in lines[start:hi] for m in _CODE.finditer(line)]
    return tuple(dict.fromkeys(n[0] for n in found if n and len(n[0]) > 2))  # not `s`: "def s" begins many a def


def heading_names(lines: list[str]) -> tuple[tuple[str, ...], ...]:
    """For each line, the code names the title of its section writes ("## SessionMiddleware", "``Request`` limits",
    ":class:`Map` options"): a span's name, or a bare word shaped like a class or a function."""
    out, names, fenced = list[tuple[str, ...]](), tuple[str, ...](), False
    for i, line in enumerate(lines):  # a comment in a fence (`# Ensure ...`) or a line over one (```) titles nothing
        fence = _FENCE.match(line) is not None
        fenced ^= fence
        if not fenced and not fence and line[:1] not in ("", " ", "\t") and (line.startswith("#") or (
                i + 1 < len(lines) and _FENCE.match(lines[i + 1]) is None and is_title(lines, i))):
            title = line.strip().lstrip("#")
            found = [n[0] for m in _CODE.finditer(title) if (n := code_name(m.group(2)))]
            bare = re.findall(r"(?<![\w`.])[A-Za-z_]\w*(?![\w`(])", _CODE.sub(" ", title))
            names = tuple(dict.fromkeys([*found, *(w for w in bare if codeish(w) or _ACRONYMED.fullmatch(w))]))
        out.append(names)
    return tuple(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def is_title(lines: list[str], i: int) -> bool:
    """Line `i` is a Markdown heading or a reStructuredText title (the line over an underline)."""
    return lines[i].startswith("#") or (i + 1 < len(lines) and bool(lines[i].strip()) and _UNDERLINE.fullmatch(lines[i + 1]) is not None)


def parameters(sentence: str) -> set[str]:
    """The parameters and fields a sentence writes as code: a keyword passed (`weakref_slot=False`) or a
    lowercase name with an underscore (``cache_dir``)."""
    out = set()
    for m in _CODE.finditer(sentence):
        keyword = _KEYWORD.match(m.group(2))
        name = keyword.group(1) if keyword is not None else (code_name(m.group(2)) or ("",))[0]
        if name.islower() and ("_" in name.strip("_") or keyword is not None):
            out.add(name)
    return out
