"""Hand-written member lists (issue 25, reference forms): under a section titled with a class's
span (`` ## `URL` ``), a list item opening with `` `def .name(...)` ``, `` `def name(...)` `` or
`` `.name` `` is that class's member, with the signature it states (httpx's docs/api.md)."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

URLS = ('class URL:\n    def __init__(self, url):\n        self.host = url\n\n'
        '    def copy_with(self, scheme=None, authority=None, path=None):\n        return self\n\n'
        '    def json(self):\n        return {}\n')
API = ("# API\n\n## `URL`\n\n*A URL.*\n\n* `def __init__(url)`\n* `.host` - **str**\n"
       "* `def .copy_with([scheme], [authority])` - **URL**\n* `def .json()` - **dict**\n")


def _findings(root):
    return [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]


def test_a_renamed_method_of_a_member_list_is_flagged_with_its_new_name(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.urls import URL\n", "pkg/urls.py": URLS,
                         "docs/api.md": API}, date=JAN)
    (root / "pkg/urls.py").write_text(URLS.replace("def copy_with", "def replace"))
    commit(root, "URL.copy_with is URL.replace", date=FEB)
    [(path, line, message)] = _findings(root)
    assert (path, line) == ("docs/api.md", 9)
    assert "URL.copy_with" in message and "renamed to `URL.replace`?" in message


def test_a_member_named_like_a_builtin_is_looked_up_in_its_class(repo_factory):
    # httpx's `def .next()` / `def .anext()`: names of builtins, still members a class lost
    root = repo_factory({"pkg/__init__.py": "from pkg.urls import URL\n", "pkg/urls.py": URLS,
                         "docs/api.md": API}, date=JAN)
    (root / "pkg/urls.py").write_text(URLS.replace("    def json(self):\n        return {}\n", ""))
    commit(root, "URL.json dropped", date=FEB)
    assert [(p, n) for p, n, _ in _findings(root)] == [("docs/api.md", 10)]


def test_the_same_items_under_a_title_naming_no_class_are_no_members(repo_factory):
    # a changelog-like list under "## Changes" names `.copy_with` of nothing in particular
    doc = API.replace("## `URL`", "## Changes")
    root = repo_factory({"pkg/__init__.py": "from pkg.urls import URL\n", "pkg/urls.py": URLS,
                         "docs/api.md": doc}, date=JAN)
    (root / "pkg/urls.py").write_text(URLS.replace("    def json(self):\n        return {}\n", ""))
    commit(root, "URL.json dropped", date=FEB)
    assert _findings(root) == []


def test_a_stated_signature_is_checked_as_written(repo_factory):
    # `[authority]` is passed by name: a parameter renamed away breaks it; an optional one appended
    # does not (the list names two of three parameters: a call, not the whole signature)
    root = repo_factory({"pkg/__init__.py": "from pkg.urls import URL\n", "pkg/urls.py": URLS,
                         "docs/api.md": API}, date=JAN)
    (root / "pkg/urls.py").write_text(URLS.replace("path=None)", "path=None, fragment=None)"))
    commit(root, "URL.copy_with takes a fragment", date=FEB)
    assert _findings(root) == []
    (root / "pkg/urls.py").write_text(URLS.replace("authority=None", "netloc=None"))
    commit(root, "URL.copy_with: netloc", date="2025-03-01T12:00:00+00:00")
    [(path, line, message)] = _findings(root)
    assert (path, line) == ("docs/api.md", 9) and "authority" in message
    assert git(root, "status", "--porcelain") == ""


def test_an_rst_title_opens_the_list_and_any_other_title_closes_it():
    from noface_ctx.datatypes import Doc
    from noface_ctx.freshness.extract import extract_references

    text = ("``Response``\n============\n\n* ``.status_code`` - int\n* ``def .iter_raw([size], [decode])``\n\n"
            "Notes\n=====\n\n* ``.status_code`` again\n")
    got = {(r.line, r.name, r.ref) for r in extract_references(Doc("docs/api.rst", "a", "a", text))
           if r.name.startswith("Response.")}
    assert got == {(4, "Response.status_code", "Response.status_code"),
                   (5, "Response.iter_raw", "Response.iter_raw(size=..., decode=...)")}
