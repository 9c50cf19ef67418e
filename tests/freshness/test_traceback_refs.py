"""The exception line of a traceback shown in a Python example (`pkg.exc.SignatureExpired:
Signature age 15 > 5 seconds`, after `Traceback (most recent call last):`) names the class raised
by its qualified name: a reference (held-out10's itsdangerous `timed.rst`)."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

EXC = "class BadSignature(Exception):\n    pass\n\n\nclass SignatureExpired(BadSignature):\n    pass\n"
TIMED = ("Timed\n=====\n\n.. code-block:: python\n\n    s = make()\n    s.unsign(value, max_age=5)\n"
         "    Traceback (most recent call last):\n      ...\n"
         "    pkg.exc.SignatureExpired: Signature age 15 > 5 seconds\n")
PYCON = ("# Timed\n\n```pycon\n>>> s.unsign(value, max_age=5)\nTraceback (most recent call last):\n"
         "  File \"<stdin>\", line 1, in <module>\npkg.exc.SignatureExpired: too old\n```\n")
PLAIN = ("Plain\n=====\n\n.. code-block:: python\n\n    codes = {\n        \"SignatureExpired\": 1,\n    }\n"
         "    limit: int = 3\n    raise ValueError(limit)\n")


def _found(root):
    return sorted((f.path, f.line, f.code, f.message) for f in check_docs(repo=root).findings)


def test_a_traceback_names_the_exception_it_raises(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/exc.py": EXC, "docs/timed.rst": TIMED, "docs/timed.md": PYCON,
                         "docs/plain.rst": PLAIN}, date=JAN)
    git(root, "mv", "pkg/exc.py", "pkg/errors.py")
    commit(root, "move the exceptions", date=FEB)
    got = _found(root)
    assert [(p, ln, code) for p, ln, code, _ in got] == [("docs/timed.md", 7, "stale-ref"), ("docs/timed.rst", 10, "stale-ref")]
    assert all("pkg.errors.SignatureExpired" in m for *_, m in got)


def test_an_exception_still_raised_from_its_module_is_no_finding(repo_factory):
    # negative: the traceback's class still lives where it says; a dict literal's key and an
    # annotation in an ordinary example name nothing
    root = repo_factory({"pkg/__init__.py": "", "pkg/exc.py": EXC, "docs/timed.rst": TIMED, "docs/timed.md": PYCON,
                         "docs/plain.rst": PLAIN}, date=JAN)
    (root / "pkg/exc.py").write_text(EXC + "\n\nclass Another(BadSignature):\n    pass\n")
    commit(root, "another", date=FEB)
    assert _found(root) == []
