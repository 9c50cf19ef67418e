"""A setting's value a doc writes that the setting no longer accepts (issue 25, rule 6, real history).

matplotlib's view_angles.rst says ARCBALL "is also available (``mouserotationstyle: Shoemake``)"; the setting
`axes3d.mouserotationstyle` accepts `["azel", "trackball", "sphere", "arcball"]` since 89701eb7ec renamed
Shoemake to arcball. A literal written as an rc file writes a setting (``name: value``), for a setting whose
code registers a literal list of accepted strings (`"axes3d.mouserotationstyle": [...]`, `_Param("...",
validator=[...])`; the key itself or the one key ending in `.name`), with a value not in that list now and in it
before, is stale whatever the doc's last commit: one search (`git grep`) for every such name of a run, and one
`git log -S` for each value the list lacks now, to name the commit that took it out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from noface_ctx import _git as git
from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.history import Commit

ACCEPTED = "accepted values"  # a ChangedRef's `what` (`judgement.changed_reason`)
_LITERAL = re.compile(r"``([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*):[ \t]*([A-Za-z][\w.-]*)``")
_ITEM = re.compile(r"""\s*(["'])([^"'\n]*)\1\s*""")
_WINDOW = 600  # characters after a quoted key its list of values is looked for in
MAX_TRIED = 3  # commits `git log -S` names, newest first, whose versions are compared


def stated_values(text: str) -> list[tuple[str, str, int]]:
    """(setting, value, line) of each ``name: value`` literal the doc writes."""
    if ":" not in text:
        return []
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in _LITERAL.finditer(text)]


def value_words(text: str) -> set[str]:
    """The words a doc's judgement depends on through these literals: the settings' names and values."""
    return {w for name, value, _line in stated_values(text) for w in (*name.split("."), value)}


def accepted(text: str, name: str) -> tuple[str, ...] | None:
    """The strings the code in `text` accepts for the setting `name` (or the one key ending in `.name`): a
    list right after the quoted key (`"key": ["a", "b"]`) or a `validator=[...]` of the call registering it;
    None when the file gives none, or lists for several keys."""
    found: dict[str, tuple[str, ...]] = {}
    for m in re.finditer(rf"""(["'])((?:[\w.]+\.)?{re.escape(name)})\1""", text) if name in text else ():
        window = text[m.end():m.end() + _WINDOW]
        listed = re.match(r"\s*:\s*\[([^\]]*)\]", window) or re.match(
            r"\s*,(?:[^()\[\]]|\([^()]*\))*?\bvalidator\s*=\s*\[([^\]]*)\]", window)
        items = [_ITEM.fullmatch(i) for i in listed.group(1).split(",") if i.strip()] if listed is not None else []
        if items and all(items):
            found.setdefault(m.group(2), tuple(i.group(2) for i in items if i is not None))
    return next(iter(found.values())) if len(found) == 1 else None


def _accepts(values: tuple[str, ...], value: str) -> bool:
    return value.lower() in {v.lower() for v in values}


def value_findings(root: str, stated: dict[str, list[tuple[str, str, int]]], source: Callable[[str], bool],
                   read_now: Callable[[str], str | None], text_at: Callable[[str, str], str | None],
                   exclude: Iterable[str] = ()) -> dict[str, list[ChangedRef]]:
    """By doc path, the values `stated` (by doc path) that the one code file listing the setting's values
    (`source` tells a code file) no longer accepts and accepted before, naming the commit that took the
    value out; `read_now` reads a file now, `text_at(sha, path)` a version."""
    return start_value_findings(root, stated, source, read_now, text_at, exclude)()


def start_value_findings(root: str, stated: dict[str, list[tuple[str, str, int]]], source: Callable[[str], bool],
                         read_now: Callable[[str], str | None], text_at: Callable[[str, str], str | None],
                         exclude: Iterable[str] = ()) -> Callable[[], dict[str, list[ChangedRef]]]:
    """`value_findings`, its `git grep` started now in a thread while the caller works on: call the
    answer for the findings (its thread is gone once it answers: the caller may fork again)."""
    names = sorted({name for values in stated.values() for name, _v, _l in values})
    if not names:
        return dict
    pool = ThreadPoolExecutor(max_workers=1)
    grep = pool.submit(git.grep_words, root, ["HEAD"], [n.rsplit(".", 1)[-1] for n in names], exclude=list(exclude))

    def answer() -> dict[str, list[ChangedRef]]:
        try:
            hits = grep.result()
        finally:
            pool.shutdown(wait=True)
        out: dict[str, list[ChangedRef]] = {}
        blamed: dict[tuple[str, str, str], str | None] = {}
        for doc, values in stated.items():
            for name, value, line in values:
                homes = [(p, got) for p in sorted(hits.get(name.rsplit(".", 1)[-1], ())) if source(p)
                         and (got := accepted(read_now(p) or "", name)) is not None]
                if len(homes) != 1 or _accepts(homes[0][1], value):
                    continue
                path = homes[0][0]
                if (key := (path, name, value)) not in blamed:
                    blamed[key] = _taken_out(root, path, name, value, text_at)
                if blamed[key] is not None:
                    out.setdefault(doc, []).append(ChangedRef(f"{name}: {value}", line, path, blamed[key] or "", ACCEPTED))
        return out

    return answer


def _taken_out(root: str, path: str, name: str, value: str, text_at: Callable[[str, str], str | None]) -> str | None:
    """The label of the commit whose version of `path` no longer accepts `value` for `name` while its parent
    did (`git log -S` on the quoted value), or None when history does not show one."""
    try:
        log = git.run(root, "log", "--format=%H %P%x00%at%x00%s", f"-S{value}", "--", path)
    except git.GitError:
        return None
    for entry in [e for e in log.split("\n") if e][:MAX_TRIED]:
        shas, time, subject = [*entry.split("\0"), "", ""][:3]
        sha, *parents = shas.split()
        label = Commit(0, sha, int(time) if time.isdigit() else 0, subject).label()  # subjects masked as every finding's

        now, then = text_at(sha, path), text_at(parents[0], path) if parents else None
        before, after = (accepted(then, name) if then else None), (accepted(now, name) if now else None)
        if before is not None and _accepts(before, value) and (after is None or not _accepts(after, value)):
            return label
    return None
