"""Where an inherited method lives: a class's bases, and the files they are defined in.

`NEED_CODE: src/flask/app.py::Flask.register_blueprint` names a method `Flask` inherits from
`App` (`src/flask/sansio/app.py`). `resolve.Resolver` asks this module for the bases of the class
(from its definition line: `class Flask(App):`, `class A extends B`) and for the candidate
definitions of each base, in order: a class of that name in the same file, the module a Python
`from … import` / `import …` in the file names (relative or absolute, under the repository root,
`src/` or `lib/`), then any class of that name in the code index. Pure functions over text: the
caller reads files through its own guard.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from noface_ctx._lexical import split_outside_brackets

_PY_CLASS = re.compile(r"^\s*class\s+\w+\s*(?:\[[^\]]*\])?\s*\((.*)\)\s*(?:->[^:]*)?:", re.S)
_EXTENDS = re.compile(r"\bextends\s+([\w.$]+)")
_IMPLEMENTS_OR_BODY = re.compile(r"\bimplements\b|\{")
_IGNORED = {"object", "Generic", "Protocol", "ABC", "Enum", "Exception", "BaseException", "NamedTuple",
            "TypedDict", "type", "dict", "list", "tuple", "str", "int", "set"}
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#]+)", re.M)
_ROOTS = ("", "src/", "lib/")


def class_bases(signature: str) -> list[str]:
    """Base class names from a class definition line, dotted as written (`sansio.App`)."""
    sig = signature.strip()
    m = _PY_CLASS.match(sig)
    if m:
        bases = []
        for part in split_outside_brackets(m.group(1)):
            part = part.strip()
            if not part or "=" in part or part.startswith("*"):  # metaclass=…, **kwargs
                continue
            name = part.split("[", 1)[0].strip()
            if re.fullmatch(r"[A-Za-z_][\w.]*", name) and name.rsplit(".", 1)[-1] not in _IGNORED:
                bases.append(name)
        return bases
    m = _EXTENDS.search(_IMPLEMENTS_OR_BODY.split(sig, 1)[0])
    return [m.group(1)] if m else []


def imported_from(text: str, name: str) -> list[tuple[str, str]]:
    """(module as written, name in that module) for each Python import binding `name`.

    `from .sansio.app import App` → [(".sansio.app", "App")]; `from x import Y as App` →
    [("x", "Y")]; for a dotted `mod.App`, `import pkg.mod as mod` → [("pkg.mod", "App")].
    """
    head, _, last = name.rpartition(".")
    found: list[tuple[str, str]] = []
    for m in _FROM_IMPORT.finditer(text):
        module, names = m.group(1), m.group(2).strip("() \n")
        for item in names.replace("\n", " ").split(","):
            bits = item.split()
            if not bits:
                continue
            original, alias = bits[0], bits[2] if len(bits) == 3 and bits[1] == "as" else bits[0]
            if not head and alias == last:
                found.append((module, original))
            elif head and alias == head.split(".")[0]:  # `from pkg import mod` then `mod.App`
                sep = "" if module.endswith(".") else "."
                found.append((module + sep + original + "".join("." + p for p in head.split(".")[1:]), last))
    if head:
        for m in _IMPORT.finditer(text):
            for item in m.group(1).split(","):
                bits = item.split()
                if not bits:
                    continue
                module, alias = bits[0], bits[2] if len(bits) == 3 and bits[1] == "as" else bits[0]
                if alias == head:
                    found.append((module, last))
    return found


def module_files(module: str, from_path: str) -> list[str]:
    """Repository-relative files a Python module name may live in, most likely first."""
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module.lstrip(".").split(".") if p]
    if dots:
        base = PurePosixPath(from_path).parent
        for _ in range(dots - 1):
            base = base.parent
        stems = ["/".join([*([str(base)] if str(base) != "." else []), *parts])]
    else:
        top = PurePosixPath(from_path).parts
        roots = [*_ROOTS, f"{top[0]}/"] if len(top) > 1 else list(_ROOTS)
        stems = [root + "/".join(parts) for root in dict.fromkeys(roots)]
    out = []
    for stem in stems:
        if stem:
            out += [f"{stem}.py", f"{stem}/__init__.py"]
        elif dots:  # `from . import X` inside a package: the package's __init__
            out.append("__init__.py")
    return out


def base_locations(base: str, path: str, text: str, same_file_classes: Iterable[str],
                   exists: Callable[[str], bool], index_classes: Callable[[str], list[str]]) -> list[tuple[str, str]]:
    """(file, class name there) candidates for `base` as written in `path`, best first."""
    last = base.rsplit(".", 1)[-1]
    out: list[tuple[str, str]] = []
    if "." not in base and base in set(same_file_classes):
        out.append((path, base))
    for module, original in imported_from(text, base):
        for cand in module_files(module, path):
            if exists(cand):
                out.append((cand, original))
                break
    out += [(p, last) for p in index_classes(last)]
    return list(dict.fromkeys(out))
