"""A dotted path written from the repository's own top-level package (`pkg.Result`,
`pkg.Checker.check`, `~pkg.Result.get`) is judged along its whole path.

Two shortcuts of `Codebase._resolve_dotted` are for paths whose root is not ours (an example's
variable, another library): a name of the foreign-names list (`Result`, `Error`, `Option`: Rust,
JavaScript, Java) excuses a part, and a qualified name defined anywhere (`Checker.check`) finds the
path whatever is written before it. Under the repository's own package neither holds: `pkg.Result`
is `pkg`'s `Result` (it must define or re-export it), and `pkg.Checker.check` is the member of the
class `pkg` exports, not of some `Checker` elsewhere. The package is one `import root` loads from the
repository (`Codebase.importable`: at the top, under `src/`), and the path must be written from it
(a role target read in its `currentmodule` is not)."""

from __future__ import annotations

from typing import Protocol

from noface_ctx.freshness.references import Reference


class _Code(Protocol):
    """What `own_root` reads of a `Codebase` (which calls it: no import of it here)."""

    def importable(self, root: str) -> bool: ...


def own_root(code: _Code, ref: Reference) -> bool:
    """Whether `ref` is a dotted path written from the repository's own top-level package."""
    written = ref.ref.lstrip("~!.").split("(", 1)[0].replace("::", ".")
    root = ref.name.split(".", 1)[0]
    return "." in written and written.split(".", 1)[0] == root and code.importable(root)
