"""Several signatures in one callable directive (`directive_lines.continued`): `.. function:: include(module)` then
`include(patterns, namespace=None)` indented on the next line (overloads documented at once, as the py domain reads
them) are each read by the readers of written signatures: a stated default the code changed, a keyword the callable
no longer takes, a default given to a parameter the code requires. Negatives: the same signatures while the code agrees,
an indented body line after a blank line, prose under the directive."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.directive_lines import continued, joined
from noface_ctx.freshness.extract import extract_references
from noface_ctx.freshness.required_defaults import written_signatures

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"

CODE = '''def include(arg, namespace=None, app_name="main"):
    return arg


def sample(iterable, k, weights=None):
    return list(iterable)[:k]


class URL:
    def with_query(self, *args, strict=False):
        return self
'''
API = """API
===

.. currentmodule:: pkg

.. function:: include(module)
              include(patterns, namespace=None, app_name="main")

   Include other URL patterns.

.. function:: sample(iterable)
              sample(iterable, k=1, weights=None)

.. method:: URL.with_query(query)
            URL.with_query(*, strict=False)

   Return a new URL.
       indented(body=1)

Some prose.
"""


def test_each_signature_line_is_a_directive_of_its_own():
    lines = API.split("\n")
    assert continued(lines, 5) == [(6, 'include(patterns, namespace=None, app_name="main")')]
    assert continued(lines, 13) == [(14, "URL.with_query(*, strict=False)")]
    assert joined(lines)[14] == ".. method:: URL.with_query(*, strict=False)"
    assert joined(lines)[17] == lines[17]  # a body line after a blank line: not a signature
    assert [(n, name, given) for n, name, _c, given in written_signatures(API, False)] == [
        (7, "include", ("namespace", "app_name")), (12, "sample", ("k", "weights")), (15, "URL.with_query", ("strict",))]
    refs = extract_references(Doc(path="docs/api.rst", slug="api", title="API", text=API))
    assert ("app_name", 7) in {(r.name, r.line) for r in refs if r.kind == "keyword"}, refs


def _repo(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.urls import include, sample, URL\n", "pkg/urls.py": CODE,
                         "docs/api.rst": API}, date=JAN)
    return root, git(root, "rev-parse", "--short=10", "HEAD").strip()


def test_a_required_parameter_given_a_default_on_a_second_line_is_flagged(repo_factory):
    root, first = _repo(repo_factory)
    got = check_docs(repo=root).lines()
    assert len(got) == 1 and got[0].startswith("docs/api.rst:12: changed-ref") and "`k` of `sample`" in got[0], got



def _code_change(root, old, new, message):
    (root / "pkg/urls.py").write_text(CODE.replace(old, new))
    commit(root, message, date=FEB)


def _one_finding_besides_line_12(root, where, name, blamed):
    """Line 12's own finding aside, exactly one, at `where`, naming `name`, blamed on the commit `blamed`."""
    got = [line for line in check_docs(repo=root).lines() if ":12:" not in line]
    assert len(got) == 1 and got[0].startswith(where) and name in got[0], got
    assert blamed in got[0], got

def test_a_changed_default_on_a_second_line_is_flagged(repo_factory):
    root, _first = _repo(repo_factory)
    _code_change(root, 'app_name="main"', 'app_name="site"', "urls: app_name is site")
    _one_finding_besides_line_12(root, "docs/api.rst:7:", "app_name", "urls: app_name is site")


def test_a_keyword_gone_on_a_second_line_is_flagged_whatever_the_docs_date(repo_factory):
    root, _first = _repo(repo_factory)
    _code_change(root, ", strict=False", "", "urls: no strict")
    (root / "docs/api.rst").write_text(API.replace("Some prose.", "Other prose."))
    commit(root, "docs: reword", date=MAR)
    _one_finding_besides_line_12(root, "docs/api.rst:15:", "`strict`", "urls: no strict")


def test_signatures_the_code_still_agrees_with_are_quiet(repo_factory):
    root, _first = _repo(repo_factory)
    (root / "docs/api.rst").write_text(API.replace("sample(iterable, k=1, weights=None)", "sample(iterable, k, weights=None)"))
    commit(root, "docs: k is required", date=FEB)
    (root / "pkg/urls.py").write_text(CODE + "\n\ndef helper():\n    return 1\n")
    commit(root, "urls: a helper", date=MAR)
    assert check_docs(repo=root).lines() == []
