"""A parameter a Sphinx directive's written signature names that the documented callable no longer
takes is stale whatever the doc's date, blamed on the commit that took it out (issue 25, held-out15:
yarl's `.. method:: URL.build(*, scheme, ..., \\` / `query_string, fragment, strict=False)` after
"Drop strict mode"); the signature continues across lines ending in a backslash. A callable taking
`**kwargs`, Sphinx's optional brackets naming a parameter still taken, a parameter before `/` and a
directive for a callable the repository does not define are no finding."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.directive_keywords import written_parameters
from noface_ctx.freshness.directive_lines import joined
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"

URL = """class URL:
    @classmethod
    def build(cls, *, scheme="", host="", strict=False):
        return cls()


class Base:
    def send(self, data, *, timeout=None):
        return data


class Client(Base):
    pass


def minmax(arg1, arg2, *args, key=None):
    return arg1


def options(name, **kwargs):
    return name


def pair(a, b, /):
    return a, b
"""

API = """API
===

.. method:: URL.build(*, scheme, \\
                      host, strict=False)

   Build a URL.

.. method:: Client.send(data, *, timeout=None)

.. function:: minmax(arg1, arg2, *args[, key])

.. function:: options(name, color=None)

.. function:: pair(x, y, /)

.. function:: numpy.stack(arrays, axis=0, out=None)

Some prose.
"""


def test_a_parameter_a_directive_states_that_the_callable_no_longer_takes(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.url import URL, Client, minmax, options, pair\n",
                         "pkg/url.py": URL, "docs/api.rst": API}, date=JAN)
    assert list(check_docs(repo=root).findings) == []
    (root / "pkg/url.py").write_text(URL.replace(', strict=False', '').replace("timeout=None", "deadline=None"))
    commit(root, "drop strict mode", date=FEB)
    text = (root / "docs/api.rst").read_text()
    (root / "docs/api.rst").write_text(text.replace("Some prose.", "Some other prose."))
    commit(root, "docs: reword", date=MAR)
    findings = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in findings] == [("docs/api.rst", 5), ("docs/api.rst", 9)]
    assert "`strict`" in findings[0].message and "drop strict mode" in findings[0].message
    assert "`timeout`" in findings[1].message and "Client.send" in findings[1].message  # inherited from Base


def test_what_a_written_signature_names():
    assert written_parameters("minmax(arg1, arg2, *args[, key])") == ["key"]  # positional ones: passed by place
    assert written_parameters("f(a[, b[, c=3]])") == ["c"]
    assert written_parameters("f(self, a=1, b=2, /, c=3, *, d=[1, 2], **kw)") == ["c", "d"]
    assert written_parameters("f(x: Optional[int] = None, y='a, b')") == ["x", "y"]
    assert written_parameters("open(path, cache=0)") == ["cache"]
    assert written_parameters("int foo(char *x)") == []
    lines = ["", ".. method:: URL.build(*, scheme, \\", "        strict=False)", "", "   Body \\", "   text"]
    assert joined(lines) == ["", ".. method:: URL.build(*, scheme, strict=False)", "", "", "   Body \\", "   text"]
    doc = Doc(path="docs/api.rst", slug="api", title="API", text=API)
    build = [r for r in extract_references(doc) if r.name == "URL.build"]
    assert [(r.ref, r.line) for r in build] == [("URL.build(*, scheme, host, strict=False)", 4)]
