"""Ancestor classes in the current code. For `parameters.compatible_change`: a class whose old
bases are still its ancestors (flask's `Flask(Scaffold)` → `Flask(App)` with `App(Scaffold)`)
keeps its signature for a doc that mentions it. For resolution (`hierarchy`): a member
`Flask.register_blueprint` lives in the files of `Flask` and its ancestors (`App` in
`sansio/app.py`), or comes from a builtin base (`builtin_members`: `Exception`'s `args`); the file
defining it is the first of the class's method resolution order that does (`owner`). Bases are followed through their defining files (`defining_files`, as
`codebase.Codebase.defining_files` answers; a base imported under another name as the name it
stands for), each file read once per run.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Iterable

from noface_ctx._filetypes import is_test_path
from noface_ctx.freshness.definitions import block_end, definition
from noface_ctx.freshness.name_lookups import class_defines
from noface_ctx.freshness.parameters import bases

_ALIAS = re.compile(r"\b([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)\b")


class Ancestry:
    """Ancestors of classes in the current code; `read(path)` gives a repository file's text."""

    def __init__(self, defining_files: Callable[[str], list[str]], read: Callable[[str], str | None]) -> None:
        self.defining_files = defining_files
        self.read = read
        self._texts: dict[str, str | None] = {}  # current code files read for class ancestry
        self._families: dict[str, list[str] | None] = {}  # `hierarchy` answers, by class
        self._builtins: dict[str, set[str]] = {}  # the builtin bases (`Exception`, `dict`) a class has, by class
        self._heads: dict[str, list[tuple[str, list[str]]]] = {}  # class -> (file, bases) of each definition
        self._owners: dict[tuple[str, str], str] = {}  # `owner` answers, by (class, member)
        self._dynamic: dict[str, bool] = {}  # `dynamic` answers, by class

    def _text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = self.read(path)
        return self._texts[path] or ""

    def ancestors(self, names: Iterable[str], home: str) -> set[str]:
        """Every ancestor class of these bases of a class in `home` in the current code (by their
        last dotted part, through at most 4 levels and 40 definitions; a name defined more than
        once: each; an import alias, `Blueprint as SansioBlueprint`, as the name it stands for)."""
        seen: set[str] = set()
        todo = list(names)
        aliases: dict[str, str] = {}
        for _ in range(4):
            nxt = []
            for name in todo:
                if name in seen or len(seen) >= 40:
                    continue
                seen.add(name)
                aliases.update((alias, orig) for orig, alias in _ALIAS.findall(self._text(home)) if alias != orig)
                if name in aliases:  # imported under another name: look that one up too
                    nxt.append(aliases[name])
                for path in self.defining_files(aliases.get(name, name)):
                    text = self._text(path)
                    found = definition(text, aliases.get(name, name))
                    got = bases(found.split("\n", 1)[0].strip()) if found and found.startswith("class ") else None
                    if got is not None:
                        nxt += got[1]
            todo = nxt
        return seen - set(names) | set(todo)

    def hierarchy(self, cls: str) -> list[str] | None:
        """The files defining class `cls` and each of its ancestors, or None when a base is not
        the repository's (`dict`, a library's class: a member may come from there) or `cls` is
        not one class of the repository."""
        if cls not in self._families:
            self._families[cls] = self._hierarchy(cls)
        return self._families[cls]

    def builtin_members(self, cls: str) -> frozenset[str]:
        """What the builtin classes among `cls`'s ancestors give it (`ValidationError(Exception)`:
        `args`, `with_traceback`, ...): known exactly, unlike a library's members."""
        self.hierarchy(cls)
        return frozenset(m for base in self._builtins.get(cls, ()) for m in dir(getattr(builtins, base)))

    def dynamic(self, cls: str) -> bool:
        """Whether instances of `cls` get attributes named at run time: a class of its resolution
        order sets them by a computed name (`setattr(obj, vector_names[0], v1)`: sympy's
        `CoordSys3D` and its `N.i`): no member of it is gone."""
        if cls not in self._dynamic:
            order = self._resolution_order(cls) if self.hierarchy(cls) is not None else []
            self._dynamic[cls] = any(_builds_attributes(_class_body(self._text(p), name)) for name, p in order)
        return self._dynamic[cls]

    def owner(self, cls: str, member: str, defines: Callable[[str], bool]) -> str:
        """The file defining `member` of class `cls` now: that of the first class of its method
        resolution order (its own definition outside the tests, then its bases left to right, a
        base two share after both) whose body defines it, else the first of those files that
        `defines` it (an attribute set in a method); "" when the hierarchy is not all the
        repository's (`hierarchy`) or none does."""
        if (cls, member) not in self._owners:
            order = self._resolution_order(cls) if self.hierarchy(cls) is not None else []
            found = next((p for name, p in order if in_class_body(self._text(p), member, frozenset({name}))), "")
            self._owners[cls, member] = found or next((p for _, p in order if defines(p)), "")
        return self._owners[cls, member]

    def _resolution_order(self, cls: str) -> list[tuple[str, str]]:
        """(class, file) in `cls`'s method resolution order, as far as `hierarchy` read it: depth
        first, bases left to right, a class met again kept at its last place (Python's order
        wherever C3 agrees with it, as it does without conflicting diamonds)."""
        walk: list[tuple[str, str]] = []
        todo = [cls]
        while todo and len(walk) < 80:  # a loop of same-named classes ends there
            name = todo.pop(0)
            heads = self._heads.get(name, [])
            kept = [(p, b) for p, b in heads if not is_test_path(p)] or heads
            walk += [(name, p) for p, _ in kept]
            todo = [b for _, bs in kept for b in bs if b not in _IMPLICIT and b != name] + todo
        last = {pair: i for i, pair in enumerate(walk)}
        return [pair for i, pair in enumerate(walk) if last[pair] == i]

    def _hierarchy(self, cls: str) -> list[str] | None:
        files: list[str] = []
        builtin = self._builtins.setdefault(cls, set())
        todo, seen = [cls], set[str]()
        while todo:
            name = todo.pop()
            if name in seen or len(seen) >= 40:
                continue
            seen.add(name)
            homes = self.defining_files(name)
            found = [(path, h) for path in homes if (h := _class_header(self._text(path), name)) is not None]
            self._heads.setdefault(name, found)
            heads = [h for _, h in found]
            if not heads and name != cls and isinstance(getattr(builtins, name, None), type):
                builtin.add(name)  # `Exception`, `dict`: its members are known
                continue
            if not heads:
                return None if name == cls or name not in _IMPLICIT else files
            files += [p for p in homes if p not in files]
            for head in heads:
                todo += [b for b in head if b not in _IMPLICIT]
        return files


_IMPLICIT = frozenset({"object", "Generic", "Protocol", "ABC"})  # bases that bring no member a doc names


def _class_header(text: str, name: str) -> list[str] | None:
    """The bases of class `name` defined in `text`, or None when it defines no such class."""
    found = definition(text, name)
    got = bases(found.split("\n", 1)[0].strip()) if found and found.startswith("class ") else None
    return got[1] if got is not None else None


_CONSTRUCTOR = re.compile(r"\n([ \t]+)def[ \t]+__(?:init|new)__\b")
_SETATTR = re.compile(r"(?<![\w.])setattr\(\s*[\w.]+\s*,\s*(?![\"'\s])")  # a name computed, not written


def _builds_attributes(body: str) -> bool:
    """Whether a class's constructor sets attributes by computed names (`setattr(obj,
    vector_names[0], v1)`; not a `__setstate__` restoring known ones, nor `__init_subclass__`
    wrapping methods). A `__getattr__` is not enough: xarray's `DataArray` answers its coordinates
    by name, and its documented `DataArray.swap_dims` can still be removed."""
    return any(_SETATTR.search(body, m.end(), block_end(body, m.end(), len(m.group(1).expandtabs(4))))
               for m in _CONSTRUCTOR.finditer(body))


def _class_body(text: str, name: str) -> str:
    """The bodies of the classes named `name` in `text` (nested ones too), joined."""
    return "\n".join(text[m.end():block_end(text, m.end(), len(m.group(1).expandtabs(4)))]
                     for m in re.finditer(rf"(?:^|\n)([ \t]*)class[ \t]+{re.escape(name)}\b", text))


def named_classes(names: Iterable[str]) -> frozenset[str]:
    """The class names among a doc's reference names (their last parts: `BaseRule`, not `CONSTANT`)."""
    return frozenset(last for n in names if (last := n.rsplit(".", 1)[-1])[:1].isupper() and not last.isupper())


def in_class_body(text: str, name: str, classes: frozenset[str]) -> bool:
    """Whether `text` defines `name` right in the body of one of `classes` (a field
    `needs_raw_stack = False` or a method of `BaseRule`; a method's local is not)."""
    return class_defines(text, name, classes)
