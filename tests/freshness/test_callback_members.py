"""A member read on a callback's parameter that nothing in the repository has (`callback_members`): the function
an example hands on is called with the object the code constructs under that parameter's name, so an attribute no
code file has as a word is wrong from the commit that wrote the line. Not: a member the class has, a function the
doc never hands on, a name the code constructs as two classes, a class with `__getattr__` or a foreign base, a word
the code holds anywhere."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = '''class State:
    """One call's state, handed to the callback."""

    def __init__(self, fn):
        self.fn = fn
        self.outcome = None
        self.attempt_number = 1


class Retrying:
    def __init__(self, callback=None):
        self.callback = callback

    def call(self, fn):
        state = State(fn)
        state.outcome = fn()
        return self.callback(state) if self.callback else state.outcome


def make_state(fn):
    state = make_state_for(fn)
    return state
'''

DOC = """Callbacks
=========

::

    def last_value(state):
        print(state.attempt_number)
        return state.last_result

    Retrying(callback=last_value).call(work)
"""


def _findings(root):
    return [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]


def test_a_member_no_code_has_on_a_handed_callbacks_parameter_is_flagged(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/cb.rst": DOC}, date=JAN)
    written = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/cb.rst").write_text(DOC.replace("Callbacks\n=========", "Callback functions\n=================="))
    commit(root, "retitle", date=FEB)  # a later edit of the page: the line is still the first commit's
    found = _findings(root)
    assert [(p, line) for p, line, _ in found] == [("docs/cb.rst", 8)]
    assert "`last_result` on a `State`" in found[0][2] and f"wrong since {written}" in found[0][2]


def test_a_member_the_class_has_or_a_function_never_handed_is_nothing(repo_factory):
    doc = DOC.replace("state.last_result", "state.outcome")
    root = repo_factory({"pkg/__init__.py": CODE, "docs/cb.rst": doc}, date=JAN)
    assert _findings(root) == []
    lone = DOC.replace("    Retrying(callback=last_value).call(work)\n", "    Retrying().call(work)\n")
    root = repo_factory({"pkg/__init__.py": CODE, "docs/cb.rst": lone}, name="lone", date=JAN)
    assert _findings(root) == []  # `last_value` is never handed to anything


def test_a_type_the_code_does_not_tell_is_nothing(repo_factory):
    two = CODE + "\n\ndef other():\n    state = Other()\n    return state\n\n\nclass Other:\n    pass\n"
    dynamic = CODE.replace('"""One call\'s state, handed to the callback."""\n',
                           '"""One call\'s state."""\n\n    def __getattr__(self, name):\n        return None\n')
    foreign = CODE.replace("class State:", "class State(dict):")
    worded = CODE + '\n\nOLD = "last_result"\n'  # the word is the code's somewhere: removals are judged elsewhere
    for i, code in enumerate((two, dynamic, foreign, worded)):
        root = repo_factory({"pkg/__init__.py": code, "docs/cb.rst": DOC}, name=f"r{i}", date=JAN)
        assert _findings(root) == [], i
