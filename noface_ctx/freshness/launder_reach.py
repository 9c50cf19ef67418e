"""How far back a doc's use of a class's field is followed past its six earlier versions
(`further_starts`), and a class's constructor keyword read as one of its fields (`takes_keyword`).

`Presence._unlaundered` looks for a name the code lacks where the doc started using it: the
oldest of its last six versions holding the word. A page edited often keeps a stale word through
many more edits: httpx's docs/advanced.md listed `max_keepalive` among `httpx.Limits`' settings
through twenty edits after 0.15.0 removed the argument. A plain name (a literal the doc writes
beside the classes it names: `Presence`'s `plain`) that every one of those six versions holds is
looked for further back, at the doc's 12th, 24th and 48th earlier versions (or its first, when
nearer: three reads, not forty), as long as each still holds the word and one of its classes
(the reference it makes: `Limits` was `PoolLimits` before) and the code files touched from there
to the doc's commit stay within the laundering bound (what makes one search cheap); found there
only as a field or constructor keyword of one of those classes. Other names stay within six
versions: a role or an example's name held that long (flask's `:data:`DEBUG``, a config key; an
example's `allow_redirects=...` passed to requests) is found far back in some long-gone example
file, a different thing.

A class-shaped name (`class_shaped`: `DatabaseMiddleware`) is looked for where the doc wrote the
line that names it now (`line_starts`: the oldest version from which every one holds that line,
found by halving the doc's last 48 versions, six reads), however many edits ago, and found there
only as that class, written in Python source (`proves`): starlette's database.md kept "Previous
versions of Starlette included a built-in `DatabaseMiddleware`. This option is currently still
available" through ten edits after 0.11 deleted it. Where the line was rewritten the word's past
says nothing: config.md's "You can use `DatabaseURL` from `databases` package", written after
starlette's own `DatabaseURL` went, names the other package's class.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Set

from noface_ctx._filetypes import is_test_path
from noface_ctx.freshness.ancestry import in_class_body
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.definitions import block_end
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.references import Reference, codeish, file_ext

SOURCE_READS = 8  # Python files read at a version for a class's definition
REACH = (12, 24, 48)  # the doc's earlier versions looked at past the sixth, newest first
# a doc read further back: its place among the asks, its commit, the fields, their classes, its versions
# (`reach`), and whether those are where the lines naming classes were written (`line_starts`)
Deep = tuple[int, Commit, set[str], dict[str, frozenset[str]], list[tuple[Commit, str]], bool]
Windows = Mapping[tuple[int, int], list[str] | None]


def by_doc(plain: Mapping[tuple[str, str], frozenset[str]]) -> dict[str, dict[str, frozenset[str]]]:
    """doc -> its plain names -> the classes it names (`Presence`'s `plain`, by doc)."""
    out: dict[str, dict[str, frozenset[str]]] = {}
    for (doc, name), named in plain.items():
        out.setdefault(doc, {})[name] = named
    return out


def deeper(index: HistoryIndex, doc: str, at: Commit, held: Set[str], classes: Mapping[str, Mapping[str, frozenset[str]]],
           read: int, place: int, lines: Mapping[str, str]) -> list[Deep]:
    """The doc (the `place`-th ask) read further back when all six (`read`) of its earlier versions hold a
    plain field of a class it names (`held`, `classes`: `by_doc`), and where it wrote the line naming a
    class-shaped name (`lines`: name -> that line now; one entry per version), else nothing."""
    fields = set(held) & classes.get(doc, {}).keys()
    out: list[Deep] = [(place, at, fields, dict(classes[doc]), reach(index, doc, at), False)] if fields and read == 6 else []
    starts: dict[Commit, set[str]] = {}
    for name, commit in line_starts(index, doc, at, {n: lines[n] for n in held if n in lines and class_shaped(n)}).items():
        starts.setdefault(commit, set()).add(name)
    path = dict(index.earlier(doc, at.seq, limit=REACH[-1])) if starts else {}
    return out + [(place, at, names, {n: frozenset({n}) for n in names}, [(c, path[c])], True) for c, names in starts.items()]


def named_lines(text: str, candidates: Iterable[tuple[Reference, str, tuple[str, ...]]]) -> dict[str, str]:
    """name -> the doc line (stripped) that first names it, for the class-shaped names among a doc's candidates."""
    lines = text.split("\n")
    out: dict[str, str] = {}
    for ref, lookup, _scope in candidates:
        if ref.kind != "path" and class_shaped(lookup) and 0 < ref.line <= len(lines):
            out.setdefault(lookup, lines[ref.line - 1].strip())
    return out


def line_starts(index: HistoryIndex, doc: str, at: Commit, lines: Mapping[str, str]) -> dict[str, Commit]:
    """name -> the oldest of the doc's earlier versions (48 at most) from which every one holds the line
    naming it now (`lines`), by halving (the line written once, kept since): when it is older than the
    sixth (nearer ones are `Presence`'s)."""
    versions = index.earlier(doc, at.seq, limit=REACH[-1]) if lines else []
    out: dict[str, Commit] = {}
    for name, line in lines.items():
        def holds(i: int, line: str = line) -> bool:
            return line in (index.versions.text_at(versions[i][0].sha, versions[i][1]) or "")
        if len(versions) < 7 or not line.strip() or not holds(6):
            continue
        lo, hi = 6, len(versions) - 1  # the last version holding it, past the sixth
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if holds(mid) else (lo, mid - 1)
        out[name] = versions[lo][0]
    return out


def class_shaped(name: str) -> bool:
    """`DatabaseMiddleware`: a capitalised name with two humps, which no prose word, setting or URL name is;
    not one that says when it goes (`RemovedInSphinx40Warning`: a page that has named it for years tells
    the deprecation schedule with it)."""
    return name[:1].isupper() and codeish(name) and not any(c.isdigit() for c in name)


def proves(text_at: Callable[[str], str], files: Set[str], name: str, classes: frozenset[str] | None, deep: bool,
           lined: bool = False) -> bool:
    """Whether the files holding `name` at a doc's earlier version (`text_at`: a path's text there) make it a
    name the code had there: any word, for a name read within six versions; a plain literal (`classes`: the
    classes the doc names) only as a field of one of them; where the doc wrote the line naming a class-shaped
    name (`lined`), that class, written (`class Name`) in Python source outside the tests."""
    if classes is None and not deep:
        return True
    python = [p for p in sorted(files) if file_ext(p) in PYTHON_EXTS and not is_test_path(p)][:SOURCE_READS] if lined else []
    written = re.compile(rf"^[ \t]*class[ \t]+{re.escape(name)}\b", re.M)
    if class_shaped(name) and any(written.search(text_at(p)) for p in python):
        return True
    return classes is not None and any(is_field(text_at(p), name, classes) for p in sorted(files)[:3])


def reach_pairs(deep: Iterable[Deep]) -> set[tuple[int, int]]:
    """The windows (a further version's commit, the doc's commit) the docs read further back need."""
    return {(c.seq, at.seq) for _i, at, _f, _c, picks, _l in deep for c, _p in picks}


def further_back(index: HistoryIndex, deep: Iterable[Deep], fits: Windows,
                 searched: tuple[dict[str, tuple[Commit, Commit, set[str]]], list[dict[str, list[str]]], dict[str, tuple[int, int]]],
                 bound: int) -> set[tuple[int, str, str]]:
    """Add to `Presence._unlaundered`'s searches (`searched`: the origins, each ask's keys by name,
    the keys not answered yet) each deep field's further start (`further_starts`): searched at
    its sixth version too, the first found counts. Returns (ask, name, key) of the lines' starts."""
    origins, asked, unsettled = searched
    lined: set[tuple[int, str, str]] = set()
    for i, at, fields, owners, picks, by_line in deep:
        for name, commit in further_starts(index, picks, at, fields, owners, fits).items():
            key = f"{commit.sha}<{at.sha}/{bound}"
            origins.setdefault(key, (commit, at, set()))[2].add(name)
            asked[i][name].append(key)
            lined.update([(i, name, key)] if by_line else [])
            if name not in index.greps(key, {name}):
                unsettled[key] = (commit.seq, at.seq)
    return lined


def is_field(text: str, name: str, classes: frozenset[str]) -> bool:
    """Whether `text` defines `name` as a field of one of `classes`: in its body (`in_class_body`)
    or as a keyword of its constructor (`takes_keyword`)."""
    return in_class_body(text, name, classes) or takes_keyword(text, name, classes)
_INIT = re.compile(r"^[ \t]+def[ \t]+__init__[ \t]*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)", re.M)


def reach(index: HistoryIndex, doc: str, at: Commit) -> list[tuple[Commit, str]]:
    """The doc's earlier versions before `at` looked at past its sixth, newest first: (commit, its path then)."""
    versions = index.earlier(doc, at.seq, limit=REACH[-1])
    return [versions[i - 1] for i in dict.fromkeys([*(i for i in REACH if i < len(versions)), min(len(versions), REACH[-1])])
            if i > 6]  # and the oldest there is (the doc's first version, when within reach)


def further_starts(index: HistoryIndex, picks: list[tuple[Commit, str]], at: Commit, names: Set[str],
                   classes: Mapping[str, frozenset[str]], fits: Windows) -> dict[str, Commit]:
    """name → the oldest of `picks` (`reach`) from which every one looked at holds the word and
    one of its `classes`, among those whose window of code files up to `at` (`fits`: None when
    beyond the laundering bound) is searched."""
    out: dict[str, Commit] = {}
    todo = set(names)
    for commit, path in picks:
        if not todo or fits.get((commit.seq, at.seq)) is None:
            break
        text = index.versions.text_at(commit.sha, path) or ""
        todo = {n for n in todo if _word(n, text) and any(_word(c, text) for c in classes.get(n, ()))}
        out.update(dict.fromkeys(todo, commit))
    return out


def takes_keyword(text: str, name: str, classes: frozenset[str]) -> bool:
    """Whether `text` has one of `classes` take `name` as a keyword of its constructor (a
    setting the class is made with: `Limits(max_keepalive=...)`)."""
    for m in re.finditer(r"(?:^|\n)([ \t]*)class[ \t]+(\w+)", text) if name in text else ():
        if m.group(2) in classes:
            body = text[m.end():block_end(text, m.end(), len(m.group(1).expandtabs(4)))]
            init = _INIT.search(body)
            if init is not None and re.search(rf"(?:^|,)\s*{re.escape(name)}\s*(?=[:=,]|$)",
                                                  re.sub(r"#[^\n]*", "", init.group(1))):
                return True
    return False


def _word(word: str, text: str) -> bool:
    return word in text and re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None
