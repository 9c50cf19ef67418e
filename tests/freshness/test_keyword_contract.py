"""Keywords an example passes that the callee's signature does not take (`keyword_contract`): flagged
even when no version ever took them, blamed on the commit that wrote the line or the one that took the
keyword out of the signature; `@overload` stubs are the contract (not the implementation's `**kwargs`),
and a decorator call (`@deco(stop=3)`) passes keywords as any call does. Not flagged: a callee taking
`**kwargs`, another package's callee, a decorated function, a keyword the signature takes."""

from __future__ import annotations

import subprocess

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.keyword_contract import accepted

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"
RUN = 'def run(func, *args, backend="a", backend_options=None):\n    return func(*args)\n'
RUN_DOC = """Running
=======

Start it::

    from pkg import run

    run(main, backend="b")

Options go to the backend::

    run(main, backend="b", debug=True)
"""


def _sha(root, rev="HEAD"):
    return subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", rev], capture_output=True, text=True,
                          check=True).stdout.strip()


def _messages(root):
    return [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]


def test_a_keyword_the_signature_never_took_is_flagged_from_the_commit_that_wrote_it(repo_factory):
    root = repo_factory({"pkg/__init__.py": RUN, "pkg/debug.py": "debug = True\n",
                         "docs/run.rst": RUN_DOC.replace(', debug=True', '')}, date=JAN)
    assert _messages(root) == []
    (root / "README.md").write_text("# pkg\n")
    commit(root, "readme", date=FEB)
    (root / "docs/run.rst").write_text(RUN_DOC)
    assert next(m for _, _, m in _messages(root)).endswith("wrong since uncommitted edits")  # the hook's view
    commit(root, "docs: backend options", date=MAR)
    written = _sha(root)
    (root / "docs/run.rst").write_text(RUN_DOC + "\nMore.\n")
    commit(root, "docs: more", date=MAR)
    got = _messages(root)
    assert [(p, line) for p, line, _ in got] == [("docs/run.rst", 12)]
    assert "passes `debug` to `run()`, which takes no keyword `debug`" in got[0][2] and f"since {written}" in got[0][2]


def test_a_keyword_taken_out_after_the_line_was_written_is_blamed_on_that_commit(repo_factory):
    code = RUN.replace('backend_options=None', 'backend_options=None, debug=False')
    root = repo_factory({"pkg/__init__.py": code, "pkg/flags.py": "def debug():\n    pass\n", "docs/run.rst": RUN_DOC},
                        date=JAN)
    (root / "pkg/__init__.py").write_text(RUN)
    commit(root, "run: no debug", date=FEB)
    removed = _sha(root)
    (root / "docs/run.rst").write_text(RUN_DOC + "\nMore.\n")
    commit(root, "docs: more", date=MAR)  # the doc's last commit is after the removal: no signature change since
    got = _messages(root)
    assert [(p, line) for p, line, _ in got] == [("docs/run.rst", 12)] and f"since {removed}" in got[0][2]


def test_no_finding_for_kwargs_another_package_or_a_decorated_callee(repo_factory):
    other = RUN_DOC.replace("from pkg import run", "from json import run")
    decorated = "import functools\n\n\n@functools.wraps(print)\n" + RUN
    root = repo_factory({"pkg/__init__.py": "def run(func, **kw):\n    return func\n", "docs/run.rst": RUN_DOC,
                         "docs/other.rst": other, "lib/__init__.py": decorated,
                         "docs/lib.rst": RUN_DOC.replace("from pkg", "from lib")}, date=JAN)
    (root / "README.md").write_text("# pkg\n")
    commit(root, "readme", date=FEB)
    assert _messages(root) == []


OVERLOADED = '''from typing import overload


@overload
def deco(*, stop: int = ...) -> int: ...


@overload
def deco(f: object) -> object: ...


def deco(*a, **k):
    return a
'''
DECO_DOC = """Retrying
========

::

    from pkg import deco

    @deco(stop=3)
    def work():
        pass
"""


def test_overloads_are_the_contract_and_a_decorator_call_passes_keywords(repo_factory):
    root = repo_factory({"pkg/__init__.py": OVERLOADED, "pkg/halts.py": "def stop():\n    pass\n", "docs/deco.rst": DECO_DOC},
                        date=JAN)
    assert _messages(root) == []  # an overload takes `stop`
    (root / "pkg/__init__.py").write_text(OVERLOADED.replace("*, stop", "*, halt"))
    commit(root, "deco: stop is halt", date=FEB)
    renamed = _sha(root)
    (root / "docs/deco.rst").write_text(DECO_DOC + "\nMore.\n")
    commit(root, "docs: more", date=MAR)
    got = _messages(root)
    assert [(p, line) for p, line, _ in got] == [("docs/deco.rst", 8)] and f"since {renamed}" in got[0][2]


def test_without_overloads_the_implementations_kwargs_take_anything(repo_factory):
    plain = "def deco(*a, **k):\n    return a\n"
    root = repo_factory({"pkg/__init__.py": plain, "docs/deco.rst": DECO_DOC}, date=JAN)
    (root / "pkg/__init__.py").write_text(plain + "\n\ndef other():\n    pass\n")
    commit(root, "other", date=FEB)
    assert _messages(root) == []


def test_the_contract_of_functions_and_classes():
    assert accepted(OVERLOADED, "deco") == {"stop", "f"}
    assert accepted(OVERLOADED.replace("*, stop: int = ...", "**kw"), "deco") is None  # an overload takes any
    assert accepted("class A:\n    def __init__(self, a, *, b=1):\n        pass\n", "A") == {"a", "b"}
    assert accepted("class A(metaclass=M):\n    def __init__(self, a):\n        pass\n", "A") is None
    assert accepted("class A:\n    def __new__(cls, a, b):\n        pass\n\n    def __init__(self, a):\n        pass\n", "A") is None
    assert accepted("class A:\n    x = 1\n", "A") is None  # `__init__` from a base: no telling
    assert accepted("from dataclasses import dataclass\n\n\n@dataclass\nclass A:\n    x: int\n    y: int = 2\n", "A") == {"x", "y"}
    assert accepted("@cache\ndef f(a):\n    pass\n", "f") == {"a"}
    assert accepted("@register('x')\ndef f(a):\n    pass\n", "f") is None
    assert accepted("def f(a):\n    pass\n\n\nf = wrap(f)\n", "f") is None
    assert accepted("if X:\n    def f(a):\n        pass\nelse:\n    def f(a, b):\n        pass\n", "f") is None
    # a method of that name only: the module re-exports another function under it (`from ._t import t_run as run`)
    assert accepted("class Job:\n    def run(self):\n        pass\n\n\ndef t_run(fn, *, limiter=None):\n    pass\n", "run") is None


def test_a_decorator_call_is_a_call_of_its_name(repo_factory):
    doc = "Hooks\n=====\n\n::\n\n    import pkg\n\n    @pkg.on_event(kind=1)\n    def work():\n        pass\n"
    code = "def on_event(kind=0):\n    return kind\n"
    root = repo_factory({"pkg/__init__.py": code, "docs/hooks.rst": doc}, date=JAN)
    assert _messages(root) == []
    (root / "pkg/__init__.py").write_text(code.replace("on_event", "on_signal"))
    commit(root, "on_event is on_signal", date=FEB)
    got = _messages(root)
    assert [(p, line) for p, line, _ in got] == [("docs/hooks.rst", 8)] and "on_signal" in got[0][2]


def test_a_call_through_the_docs_import_of_the_module_is_judged_too(repo_factory):
    doc = RUN_DOC.replace("from pkg import run", "import pkg").replace("    run(", "    pkg.run(")
    numpy = RUN_DOC.replace("from pkg import run", "import numpy").replace("    run(", "    numpy.run(")  # another package's
    root = repo_factory({"pkg/__init__.py": RUN, "pkg/debug.py": "debug = True\n", "docs/run.rst": doc,
                         "docs/numpy.rst": numpy}, date=JAN)
    got = _messages(root)
    assert [(p, line) for p, line, _ in got] == [("docs/run.rst", 12)] and "passes `debug` to `pkg.run()`" in got[0][2]
