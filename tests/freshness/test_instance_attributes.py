"""Instance attributes a doc lists under the class it names (issue 25, held-out13's tenacity
`RetryCallState.idle_for`): `self.name = ...` in a method makes `Class.name` a member, and a span
is that member when the paragraph introducing its list names the class (or a paragraph naming one
class speaks of its attributes). Renamed everywhere: flagged, blamed, the new name suggested."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.member_lists import introduced_members

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

STATE = ("class State:\n    def __init__(self):\n        self.idle_for: float = 0.0\n        self.attempt = 1\n\n"
         "    def sleep(self, seconds):\n        self.idle_for += seconds\n")
LISTED = ("Guide\n=====\n\nA callback gets a :class:`pkg.State`. It has:\n\n"
          "* ``idle_for`` -- seconds spent sleeping,\n  between attempts\n* ``attempt`` -- the attempt number\n")
PROSE = "Guide\n=====\n\nThe :class:`State` attribute ``idle_for`` holds the seconds slept.\n"


def _findings(root):
    return [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]


def _rename(root, path="pkg/state.py", old="idle_for", new="slept_for"):
    (root / path).write_text((root / path).read_text().replace(old, new))
    commit(root, f"{old} is now {new}", date=FEB)
    return git(root, "rev-parse", "--short=10", "HEAD").strip()


def _repo(repo_factory, doc, **more):
    files = {"pkg/__init__.py": "from pkg.state import State\n", "pkg/state.py": STATE, "docs/guide.rst": doc, **more}
    root = repo_factory(files, date=JAN)
    assert _findings(root) == []
    return root


def test_an_attribute_listed_under_its_class_is_flagged_once_renamed(repo_factory):
    root = _repo(repo_factory, LISTED)
    sha = _rename(root)
    [(path, line, message)] = _findings(root)
    assert (path, line) == ("docs/guide.rst", 6)
    assert "State.idle_for" in message and sha in message and "slept_for" in message


def test_a_paragraph_naming_its_class_and_attribute_is_flagged_once_renamed(repo_factory):
    root = _repo(repo_factory, PROSE)
    sha = _rename(root)
    [(path, line, message)] = _findings(root)
    assert (path, line) == ("docs/guide.rst", 4) and sha in message and "slept_for" in message


def test_a_markdown_list_under_a_span_of_the_class(repo_factory):
    doc = "# Guide\n\n`State` objects have:\n\n- `idle_for`: seconds spent sleeping\n- `attempt`: the attempt\n"
    root = repo_factory({"pkg/__init__.py": "from pkg.state import State\n", "pkg/state.py": STATE,
                         "docs/guide.md": doc}, date=JAN)
    _rename(root)
    assert [(p, n) for p, n, _ in _findings(root)] == [("docs/guide.md", 5)]


def test_no_class_named_no_member(repo_factory):
    root = _repo(repo_factory, LISTED.replace("A callback gets a :class:`pkg.State`. It has:", "Callbacks get:"))
    _rename(root)
    assert _findings(root) == []


def test_a_local_variable_renamed_is_no_member(repo_factory):
    code = ("class State:\n    def __init__(self):\n        self.attempt = 1\n\n\n"
            "def wait():\n    idle_for = 0\n    return idle_for\n")
    root = _repo(repo_factory, LISTED, **{"pkg/state.py": code})
    _rename(root)
    assert _findings(root) == []  # `State.idle_for` never was: a function's local went


def test_an_attribute_still_set_in_a_base_class_elsewhere(repo_factory):
    base = "class Base:\n    def __init__(self):\n        self.idle_for = 0.0\n"
    state = "from pkg.base import Base\n\n\n" + STATE.replace("class State:", "class State(Base):")
    root = _repo(repo_factory, LISTED, **{"pkg/base.py": base, "pkg/state.py": state})
    (root / "pkg/state.py").write_text(state.replace("        self.idle_for: float = 0.0\n", "        super().__init__()\n")
                                       .replace("self.idle_for += seconds", "self.attempt += 0"))
    commit(root, "State's idle_for set by Base", date=FEB)
    assert _findings(root) == []


def test_a_list_of_arguments_or_two_classes_names_no_members():
    args = ["A :class:`State` takes these arguments:", "", "* ``idle_for`` -- seconds"]
    two = ["A :class:`State` or a :class:`Clock` has:", "", "* ``idle_for`` -- seconds"]
    literal = ["A :class:`State` has::", "", "* ``idle_for`` -- seconds"]
    prose = ["The :class:`State` takes ``idle_for``, the seconds slept."]  # says nothing of attributes
    assert [introduced_members(lines) for lines in (args, two, literal, prose)] == [[], [], [], []]
    nested = ["A :class:`State` has:", "", "* ``idle_for`` -- seconds", "", "  * ``inner`` -- no", "* ``outer``"]
    assert [r.name for r in introduced_members(nested)] == ["State.idle_for", "State.outer"]
