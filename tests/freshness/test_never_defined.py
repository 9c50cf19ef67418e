"""References wrong from the day they were written (`never_defined`): a role, autodoc entry or example import
rooted at the repository's package, whose module resolves but never defined the name while the doc wrote it, is
stale from the commit that wrote the line (rich's `:meth:`~rich.ScreenContext.update``, `ScreenContext` living in
`rich.console`; `:meth:`~rich.console.Print.print``, no `Print` anywhere; webargs' `from webargs import json`).
Names a module makes at run time, names of other packages, real names and names removed later are not judged so."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.never_defined import static

INIT = 'from .console import Console\n\n__all__ = ["Console"]\n'
CONSOLE = '''import json


class Console:
    def print(self, *objects):
        return objects


class ScreenContext:
    def update(self, text):
        return text


def dump(data):
    return json.dumps(data)
'''
DOC = """Console
=======

Print with :meth:`~mypkg.console.Console.print`.

"""


def _day(i: int) -> str:
    return f"2025-01-{1 + i:02d}T12:00:00+00:00"


def _written_then_edited(repo_factory, lines: str, files: dict[str, str] | None = None) -> tuple[list[str], str]:
    """A package and a doc; `lines` are added to the doc by the second commit, then doc and code are edited."""
    root = repo_factory({"mypkg/__init__.py": INIT, "mypkg/console.py": CONSOLE, "docs/console.rst": DOC, **(files or {})},
                        date=_day(0))
    (root / "docs/console.rst").write_text(DOC + lines)
    commit(root, "docs: the screen and printing", date=_day(1))
    written = git(root, "rev-parse", "--short=10", "HEAD").strip()
    for i in range(3):
        (root / "docs/console.rst").write_text(DOC + lines + f"\nNote {i}.\n")
        (root / "mypkg/console.py").write_text(CONSOLE + f"\nVERSION = {i}\n")
        commit(root, f"note {i}", date=_day(2 + i))
    return check_docs(repo=root).lines(), written


def test_a_role_to_a_name_another_module_defines_is_stale_since_it_was_written(repo_factory):
    got, written = _written_then_edited(repo_factory, "Update with :meth:`~mypkg.ScreenContext.update`.\n")
    assert got == [f"docs/console.rst:6: stale-ref: references `mypkg.ScreenContext.update`, which its module never "
                   f"defined: wrong since it was written in {written} (2025-01-02, \"docs: the screen and printing\") "
                   "(defined in `mypkg.console.ScreenContext`)"], got


def test_a_name_defined_nowhere_or_an_import_the_package_lacks_is_stale_without_suggestion(repo_factory):
    lines = ("Or :meth:`~mypkg.console.Print.print`.\n\n.. code-block:: python\n\n"
             "   from mypkg import Console, json\n\n   json.dumps(Console())\n")
    got, written = _written_then_edited(repo_factory, lines)
    assert [line.split(": stale-ref: ")[0] for line in got] == ["docs/console.rst:6", "docs/console.rst:10"], got
    assert all(f"wrong since it was written in {written}" in line and "defined in" not in line for line in got), got
    assert "`mypkg.console.Print.print`" in got[0] and "`json`" in got[1], got


def test_real_names_other_packages_short_roles_and_names_docs_declare_are_not_judged(repo_factory):
    lines = ("See :class:`mypkg.console.ScreenContext`, :class:`numpy.ndarray`, :class:`.Nowhere`,\n"
             ":func:`mypkg.Declared` and :func:`os.path.nothing_here`.\n\n.. function:: mypkg.Declared()\n\n"
             ">>> from mypkg.console import *\n>>> cos(1)\n")
    got, _written = _written_then_edited(repo_factory, lines)
    assert got == [], got


def test_a_failing_import_shown_a_stubbed_package_or_a_member_list_is_not_judged(repo_factory):
    lines = (".. code-block:: python\n\n   from mypkg import Hidden\n   # ImportError: cannot import name 'Hidden'\n\n"
             ".. autoclass:: mypkg.Console\n   :members: print, nothing\n")
    got, _written = _written_then_edited(repo_factory, lines)
    assert got == [], got
    lines = ":class:`mypkg.Typed` is what the stub declares.\n"
    got, _written = _written_then_edited(repo_factory, lines, {"mypkg/__init__.pyi": "class Typed: ...\n"})
    assert got == [], got


def test_names_a_module_makes_at_run_time_are_never_judged(repo_factory):
    files = {
        "mypkg/lazy.py": "def __getattr__(name):\n    return name\n",
        "mypkg/made.py": "for _n in ('a', 'b'):\n    globals()[_n] = _n\n",
        "mypkg/starred.py": "from ._speedups import *\n",
        "mypkg/stubbed.py": "X = 1\n",
        "mypkg/stubbed.pyi": "X: int\ndef fast() -> None: ...\n",
        "mypkg/grown.py": "from . import console\n__all__ = console.__all__ + ['extra']\n",
    }
    lines = (":func:`mypkg.lazy.anything`, :func:`mypkg.made.a`, :func:`mypkg.starred.escape`,\n"
             ":func:`mypkg.stubbed.fast`, :func:`mypkg.grown.extra`.\n")
    got, _written = _written_then_edited(repo_factory, lines, files)
    assert got == [], got


def test_a_name_the_module_had_after_the_doc_wrote_it_is_a_removal_not_this_rule(repo_factory):
    root = repo_factory({"mypkg/__init__.py": INIT, "mypkg/console.py": CONSOLE, "docs/console.rst": DOC}, date=_day(0))
    (root / "docs/console.rst").write_text(DOC + "Render with :func:`mypkg.console.render`.\n")
    commit(root, "docs: render, coming next", date=_day(1))
    (root / "mypkg/console.py").write_text(CONSOLE + "\n\ndef render(x):\n    return x\n")
    commit(root, "add render", date=_day(2))
    assert check_docs(repo=root).lines() == []
    (root / "mypkg/console.py").write_text(CONSOLE)
    commit(root, "drop render", date=_day(3))
    got = check_docs(repo=root).lines()
    assert not any("never defined" in line for line in got), got
    (root / "docs/console.rst").write_text(DOC + "Render with :func:`mypkg.console.render`.\n\nMore.\n")
    commit(root, "docs: more", date=_day(4))
    got = check_docs(repo=root).lines()
    assert len(got) == 1 and "which no longer exists, removed in" in got[0] and "never defined" not in got[0], got


def test_static_reads_a_module_whose_names_its_text_tells():
    assert static(INIT) and static(CONSOLE)
    assert static("class Proxy:\n    def __getattr__(self, name):\n        return name\n")
    assert static("import inspect\n\n\ndef log(\n    x,\n):\n    return inspect.currentframe(), setattr(x, 'a', 1)\n")
    assert not static("def __getattr__(name):\n    raise AttributeError(name)\n")
    assert not static("if True:\n    def __getattr__(name):\n        raise AttributeError(name)\n")
    assert not static("import sys\nsetattr(sys.modules[__name__], 'x', 1)\n")
    assert not static("__getattr__ = attach(__name__, ['a'])\n")
    assert not static("__all__ = []\n__all__ += ['a']\n")
    assert not static("from .utils import find_current_module, set_constants\nset_constants(find_current_module())\n")
    assert not static("import inspect\n_set(inspect.currentframe())\n")
