"""The dotted name a rename or move suggestion gives a definition (`public_name`): the way its
users import it. A definition in a private module (a module path with a `_part`:
`anyio/_core/_synchronization.py`) is named through the nearest package above it, without a
private part, that re-exports it (`anyio.Event`, not `anyio._core._synchronization.Event`); when
none does, through its own package when that re-exports it, else its own module."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection

from noface_ctx._filetypes import is_test_path


def public_name(path: str, name: str, paths: Collection[str], module_defines: Callable[[str, str], bool],
                reexported_from: Callable[[str, str], str] = lambda _p, _n: "") -> str:
    """`name` defined in the module file `path` as imported by its users (see the module
    docstring); `paths`: the repository's files, `module_defines(file, name)`: whether a module
    file defines or re-exports `name` now, `reexported_from(file, name)`: the module file a module
    file imports `name` from ("" when it does not)."""
    folder, init = posixpath.dirname(path), posixpath.dirname(path) + "/__init__.py"
    home = init if posixpath.basename(path).startswith("_") and init != path and init in paths and (
        module_defines(init, name)) else path
    while private(path) and folder:
        init, folder = folder + "/__init__.py", posixpath.dirname(folder)
        if init != path and init in paths and not private(init) and module_defines(init, name):
            return ".".join([*module_parts(init), name])
    public = sorted(p for p in paths if p.endswith("/__init__.py") and len(module_parts(p)) == 1 and not private(p)
                    and not is_test_path(p) and reexported_from(p, name) == path) if private(path) else []
    home = public[0] if public else home  # a top-level package importing it from the private module
    return ".".join([*module_parts(home), name])


def module_parts(path: str) -> list[str]:
    """A module file's dotted module path as parts (`src/` and `lib/` aside, `__init__` dropped)."""
    parts = path.removesuffix(".pyi").removesuffix(".py").split("/")
    parts = parts[1:] if parts[0] in ("src", "lib") and len(parts) > 1 else parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def private(path: str) -> bool:
    """A module file whose dotted path has a private part (`anyio/_core/_tasks.py`; `__main__` is not one)."""
    return any(p.startswith("_") and not p.startswith("__") for p in module_parts(path))
