"""An import through a deprecation shim (`deprecated_paths`): click's `from click.parser import
split_arg_string`, which `click.parser.__getattr__` hands out from `click.shell_completion` with a
DeprecationWarning since the commit that moved it."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.deprecated_paths import shim_home

PARSER = '''def split_arg_string(string):
    """Split an argument string as with shlex."""
    return string.split()


def _normalize_opt(opt):
    return opt.lower()
'''
SHIM = '''def _normalize_opt(opt):
    return opt.lower()


def __getattr__(name):
    import warnings

    if name == "normalize_opt":
        warnings.warn("'parser.normalize_opt' is deprecated and will be removed.", DeprecationWarning, stacklevel=2)
        return globals()["_normalize_opt"]

    if name == "split_arg_string":
        from .completion import split_arg_string

        warnings.warn(
            "Importing 'parser.split_arg_string' is deprecated, it will only be available in 'completion'.",
            DeprecationWarning,
            stacklevel=2,
        )
        return split_arg_string

    raise AttributeError(name)
'''
COMPLETION = "def split_arg_string(string):\n    return string.split()\n"
DOC = """# Shell completion

```python
import os
from pkg.parser import split_arg_string

args = split_arg_string(os.environ["COMP_WORDS"])
```
"""
JAN, FEB, MAR = "2025-01-01T12:00:00+00:00", "2025-02-01T12:00:00+00:00", "2025-03-01T12:00:00+00:00"


def test_an_import_through_a_deprecation_shim_names_its_new_module_and_the_commit_that_made_the_shim(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/parser.py": PARSER, "docs/completion.md": DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/parser.py").write_text(SHIM)
    (root / "pkg/completion.py").write_text(COMPLETION)
    commit(root, "deprecate the parser", date=FEB)
    shim = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "pkg/parser.py").write_text(SHIM.replace("stacklevel=2,\n", "stacklevel=3,\n"))
    (root / "docs/completion.md").write_text(DOC.replace("# Shell completion", "# Shell completion (custom shells)"))
    commit(root, "a later edit of both", date=MAR)  # the doc edited after the shim: still teaching its path
    got = check_docs(repo=root).lines()
    assert got == [f"docs/completion.md:5: changed-ref: warning: `pkg.parser.split_arg_string` is a deprecated import "
                   f"path: the module's `__getattr__` (pkg/parser.py) hands it out with a deprecation warning since "
                   f"{shim} (2025-02-01, \"deprecate the parser\"); it lives in `pkg.completion.split_arg_string`"], got
    (root / "docs/completion.md").write_text(DOC.replace("pkg.parser", "pkg.completion"))  # the new path: nothing
    commit(root, "import from the new module", date=MAR)
    assert check_docs(repo=root).findings == ()


def test_what_is_a_deprecation_shim_and_what_is_not():
    assert shim_home(SHIM, "pkg", "split_arg_string") == "pkg.completion"
    assert shim_home(SHIM, "pkg", "normalize_opt") is None  # deprecated with no new home: an API going away
    assert shim_home(SHIM, "pkg", "OptionParser") is None
    lazy = SHIM.replace("warnings.warn(", "print(").replace("DeprecationWarning,", "")  # a lazy import, no warning
    assert shim_home(lazy, "pkg", "split_arg_string") is None
    defined = SHIM + "\n\ndef split_arg_string(string):\n    return string.split()\n"  # defined apart from the shim too
    assert shim_home(defined, "pkg", "split_arg_string") is None
    absolute = SHIM.replace("from .completion import", "from pkg.shell.completion import")
    assert shim_home(absolute, "pkg", "split_arg_string") == "pkg.shell.completion"
    assert shim_home(SHIM.replace("from .completion", "from ..completion"), "top.pkg", "split_arg_string") == "top.completion"
    assert shim_home(SHIM.replace("from .completion", "from ..completion"), "pkg", "split_arg_string") is None
    future = SHIM.replace("DeprecationWarning", "FutureWarning")
    assert shim_home(future, "pkg", "split_arg_string") == "pkg.completion"


def _guarded(text: str, guard: str) -> str:
    """`text` with its module-level `__getattr__` nested under `guard` (one indent deeper)."""
    head, _, shim = text.partition("def __getattr__")
    body = "\n".join(("    " + line) if line else line for line in ("def __getattr__" + shim).split("\n"))
    return f"import typing as t\n\n{head}{guard}\n{body}"


def test_a_shim_nested_in_a_module_level_if_or_try_is_the_modules_as_declarations_reads_it():
    guarded = _guarded(SHIM, "if not t.TYPE_CHECKING:")
    assert shim_home(guarded, "pkg", "split_arg_string") == "pkg.completion"
    tried = _guarded(SHIM, "try:\n    import readline\nfinally:")
    assert shim_home(tried, "pkg", "split_arg_string") == "pkg.completion"
    assert shim_home(guarded, "pkg", "normalize_opt") is None
    # a class's `__getattr__` answers for its instances, one in a function is a local: neither is the module's
    assert shim_home(_guarded(SHIM, "class Lazy:"), "pkg", "split_arg_string") is None
    assert shim_home(_guarded(SHIM, "def install():"), "pkg", "split_arg_string") is None


def test_an_import_through_a_guarded_shim_is_reported_like_one_at_module_level(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/parser.py": PARSER, "docs/completion.md": DOC}, date=JAN)
    (root / "pkg/parser.py").write_text(_guarded(SHIM, "if not t.TYPE_CHECKING:"))
    (root / "pkg/completion.py").write_text(COMPLETION)
    commit(root, "deprecate the parser", date=FEB)
    shim = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = check_docs(repo=root).lines()
    assert got == [f"docs/completion.md:5: changed-ref: warning: `pkg.parser.split_arg_string` is a deprecated import "
                   f"path: the module's `__getattr__` (pkg/parser.py) hands it out with a deprecation warning since "
                   f"{shim} (2025-02-01, \"deprecate the parser\"); it lives in `pkg.completion.split_arg_string`"], got
