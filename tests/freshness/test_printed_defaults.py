"""Defaults a doctest's output shows (`printed_defaults`): a repr the session prints with `key=literal` shows the
default of the parameter the key is (or the code hands on to it) of a callable the session calls without passing it.
Stale when that default was the printed value at the doc's commit and is another now; a parameter the session passes,
a value that never was the default, a key no changed parameter reaches and prose after the output are nothing."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.printed_defaults import shown_keys

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

MAKE = '''class Props:
    """What `make` did to a class."""

    def __init__(self, slotted, has_weakref, color):
        self.slotted = slotted
        self.has_weakref = has_weakref
        self.color = color

    def __repr__(self):
        return f"Props(slotted={self.slotted!r}, has_weakref={self.has_weakref!r}, color={self.color!r})"


def make(cls=None, *, slotted=True, weakref=True, color="red", retries=3):
    """Decorate a class."""
    def wrap(c):
        c.__props__ = Props(slotted=slotted, has_weakref=weakref, color=color.upper())
        return c
    return wrap if cls is None else wrap(cls)


def props(cls):
    return cls.__props__
'''

DOC = """Inspecting
==========

.. doctest::

   >>> @make
   ... class C:
   ...     pass
   >>> props(C)
   Props(slotted=True, has_weakref=True, color='RED')

has_weakref=True is what you get.
"""


def _repo(repo_factory, doc: str = DOC):
    return repo_factory({"shapes/__init__.py": "", "shapes/make.py": MAKE, "docs/inspect.rst": doc}, date=JAN)


def _change(root, old: str, new: str) -> list[tuple[str, int, str]]:
    (root / "shapes/make.py").write_text(MAKE.replace(old, new))
    commit(root, f"{old} -> {new}", date=FEB)
    return [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]


def test_the_keys_a_session_prints():
    shown = list(shown_keys(DOC.split("\n")))
    assert [(key, line, value) for key, line, value, *_ in shown] == [
        ("slotted", 10, "True"), ("has_weakref", 10, "True"), ("color", 10, "RED")]
    _, _, _, reprs, callees, passed = shown[0]
    assert reprs == ("Props",) and callees == ("make", "props") and passed == frozenset()
    # prose after a blank line, a fence, an assignment's keywords
    lines = ["```pycon", ">>> p = props(C, deep=True)", ">>> p", "Props(slotted=False)", "", "Props(slotted=True)", "```",
             "Props(color='x')"]
    shown = list(shown_keys(lines))
    assert [(key, line) for key, line, *_ in shown] == [("slotted", 4)]
    assert shown[0][5] == frozenset({"p", "deep"})


def test_a_printed_default_that_changed_is_flagged_where_printed(repo_factory):
    root = _repo(repo_factory)
    assert check_docs(repo=root).findings == ()
    found = _change(root, "weakref=True,", "weakref=False,")  # handed on: `has_weakref=weakref`
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert [(p, line) for p, line, _ in found] == [("docs/inspect.rst", 10)]
    assert found[0][2].startswith(f"default of `weakref` (shapes/make.py) changed in {head}")


def test_a_key_that_is_the_parameter(repo_factory):
    root = _repo(repo_factory)
    assert [(p, line) for p, line, _ in _change(root, "slotted=True,", "slotted=False,")] == [("docs/inspect.rst", 10)]


def test_a_passed_parameter_or_another_value_is_nothing(repo_factory):
    # the session passes it: its own value, not the default
    root = _repo(repo_factory, DOC.replace(">>> @make\n", ">>> @make(weakref=True)\n"))
    assert _change(root, "weakref=True,", "weakref=False,") == []


def test_a_value_that_never_was_the_default_is_nothing(repo_factory):
    root = _repo(repo_factory, DOC.replace("has_weakref=True, color", "has_weakref=False, color"))
    assert _change(root, "weakref=True,", "weakref=False,") == []


def test_a_computed_key_or_an_unprinted_parameter_is_nothing(repo_factory):
    root = _repo(repo_factory)
    # `color` is printed, but computed (`color.upper()`): no parameter reaches it by name; `retries` is not printed
    assert _change(root, 'color="red", retries=3', 'color="blue", retries=5') == []


def test_a_session_calling_nothing_of_the_repository_is_nothing(repo_factory):
    doc = DOC.replace(">>> @make\n", ">>> @dataclass\n").replace(">>> props(C)", ">>> vars(C)")
    root = _repo(repo_factory, doc)
    assert _change(root, "weakref=True,", "weakref=False,") == []
