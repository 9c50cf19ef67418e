"""Every reference form (issue 25, rule 3): Sphinx roles with `~`, `.` and titles, the
`currentmodule` context, autodoc and autosummary entries, MyST roles and directives, and calls
and attribute access in examples typed by the example's own assignments."""

from __future__ import annotations

from pathlib import Path

from conftest import commit, git

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

RST = """API
===

.. currentmodule:: pkg

Register with :meth:`app.register_blueprint() <App.register_blueprint>` or
:meth:`~pkg.App.register_blueprint`; see :class:`.Blueprint` and :func:`.stream_with_context`.

.. autosummary::
   :toctree: generated/

   App.register_blueprint
   stream_with_context
"""
MD = """# Streaming

Use {py:func}`stream_with_context` or `App.run()`.

```{currentmodule} pkg
```

```{autosummary}
App.register_blueprint
```

```python
from pkg import App

app = App(__name__)
app.register_blueprint(bp)
print(app.debug_mode)
ds = load_data()
ds.to_netcdf_file("out.nc")
fig, ax = subplots()
ax.plot(ds)
```
"""


def names(text: str, path: str) -> list[tuple[int, str, str, bool, str]]:
    refs = extract_references(Doc(path=path, slug="d", title="d", text=text))
    return [(r.line, r.name, r.kind, r.strict, r.source) for r in refs]


def test_roles_module_context_and_autosummary_entries_in_restructuredtext():
    got = names(RST, "docs/api.rst")
    assert (6, "pkg.App.register_blueprint", "method", True, "role") in got  # a title's target, in `currentmodule pkg`
    assert (7, "Blueprint", "symbol", True, "role") in got  # a leading dot, one word: a reference all the same
    assert (7, "stream_with_context", "symbol", True, "xref") in got  # a role's target: a cross-reference, never a plain literal
    assert (12, "pkg.App.register_blueprint", "method", True, "autodoc") in got  # read in `currentmodule pkg`
    assert (13, "pkg.stream_with_context", "method", True, "autodoc") in got


def test_myst_roles_directives_and_typed_examples_in_markdown():
    got = names(MD, "docs/stream.md")
    assert (3, "stream_with_context", "symbol", True, "xref") in got  # code-shaped: strict anyway, a cross-reference
    assert (9, "pkg.App.register_blueprint", "method", True, "autodoc") in got
    assert (16, "App.register_blueprint", "method", True, "python") in got  # `app = App(...)` types `app`
    assert (17, "App.debug_mode", "method", True, "python") in got  # attribute access too
    assert (19, "to_netcdf_file", "member", True, "python") in got  # type unknown: the method name alone
    assert not [n for n in got if n[1] in ("plot", "ax.plot")]  # not code-shaped: a library's, maybe


CODE = '''class Blueprint:
    pass


class App:
    def __init__(self, name):
        self.debug_mode = False

    def register_blueprint(self, bp):
        return bp

    def run(self):
        pass


def load_data():
    return Frame()


class Frame:
    def to_netcdf_file(self, path):
        return path


def stream_with_context(gen):
    return gen
'''


SUMMARY = """Summary
=======

.. currentmodule:: pkg

.. autosummary::

   App.register_blueprint
   stream_with_context
"""
EXAMPLE = """# Example

```python
app = App(__name__)
app.register_blueprint(bp)
```
"""


def _renamed(repo_factory) -> Path:
    root = repo_factory({"pkg/__init__.py": "from pkg.app import *\n", "pkg/app.py": CODE, "docs/api.rst": RST,
                         "docs/stream.md": MD, "docs/summary.rst": SUMMARY, "docs/example.md": EXAMPLE}, date=JAN)
    new = CODE.replace("register_blueprint", "add_blueprint").replace("stream_with_context", "streamed")
    new = new.replace("    def to_netcdf_file(self, path):\n        return path\n", "    pass\n")
    (root / "pkg/app.py").write_text(new)
    commit(root, "rename register_blueprint and stream_with_context, drop to_netcdf_file", date=FEB)
    return root


def test_every_form_of_a_renamed_or_removed_name_is_flagged_with_its_commit(repo_factory):
    root = _renamed(repo_factory)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    report = check_docs(repo=root)
    got = {(f.path, f.line): f.message for f in report.findings if f.severity == "error"}
    # one finding per name and doc, at its first line
    assert set(got) == {("docs/api.rst", 6), ("docs/api.rst", 7), ("docs/stream.md", 3), ("docs/stream.md", 9),
                        ("docs/stream.md", 19), ("docs/summary.rst", 8), ("docs/summary.rst", 9),
                        ("docs/example.md", 5)}
    assert all(f"removed in {head}" in message for message in got.values())
    assert "renamed to `App.add_blueprint`?" in got[("docs/example.md", 5)]
    assert "renamed to `streamed`?" in got[("docs/stream.md", 3)]
    assert "renamed to" not in got[("docs/stream.md", 19)]  # deleted: nothing guessed


def test_a_subscripted_class_call_and_a_written_out_autodoc_signature():
    text = ("Stash\n=====\n\n.. autofunction:: pkg.skip(reason, [allow_module_level=False])\n\n"
            ".. autoclass:: pkg.StashKey\n\n.. code-block:: python\n\n    key = pkg.StashKey[bool]()\n")
    got = names(text, "docs/stash.rst")
    assert (4, "pkg.skip", "method", True, "span") in got  # its signature is the doc's own: it can go stale
    assert (6, "pkg.StashKey", "method", True, "autodoc") in got
    assert (10, "pkg.StashKey", "method", True, "python") in got


SKIP_DOC = """Skipping
========

.. module:: pkg.hooks

Skip a whole module with ``pkg.skip(reason, allow_module_level=True)``; see
:ref:`register_rewrite <assertion-rewriting>` and ``.App.add_js_file()``.

.. code-block:: python

    pkg.skip(
        "windows only",
        allow_module_level=True,
    )
    print(sep="", end="")

.. autofunction:: pkg.skip(reason, [allow_module_level=False])

.. autoclass:: pkg.StashKey

.. code-block:: pytest

    $ pytest --fixtures
    monkeypatch -- .../pkg/monkeypatch.py:36
        * :meth:`monkeypatch.syspath_prepend(path) <pkg.MonkeyPatch.syspath_prepend>`

.. code-block:: python

    class PostAPI(MethodView, metaclass=Meta):
        init_every_request = False
"""


def test_keywords_titles_listings_bases_and_qualified_autodoc_names():
    got = names(SKIP_DOC, "docs/skip.rst")
    # a keyword passed in a call, in prose, an example (over lines) and a signature written out
    assert [(n[0], n[2], n[4]) for n in got if n[1] == "allow_module_level"] == [
        (6, "keyword", "span"), (13, "keyword", "python")]  # once per form: the signature below repeats it
    signature = names(SKIP_DOC.split("\n.. autofunction::", 1)[1].join(["Skip\n====\n\n.. autofunction::", ""]), "d.rst")
    assert (4, "allow_module_level", "keyword", True, "span") in signature
    assert not [n for n in got if n[1] in ("sep", "end", "init_every_request")]  # a builtin's keywords; a class attribute
    assert (7, "register_rewrite", "symbol", True, "span") in got  # a section's title naming code
    assert (7, "App.add_js_file", "method", True, "span") in got  # a leading dot: Sphinx's search by suffix
    assert (19, "pkg.StashKey", "method", True, "autodoc") in got  # written from its module: not `pkg.hooks.pkg...`
    assert (25, "pkg.MonkeyPatch.syspath_prepend", "method", True, "xref") in got  # a role in a listing
    assert (29, "MethodView", "base", True, "python") in got
    assert not [n for n in got if n[1] in ("Meta", "PostAPI")]


HOOKS = '''class MethodView:
    pass


class _Skip:
    def __call__(self, reason="", allow_module_level=False):
        raise SystemExit(reason)


skip = _Skip()
'''


def test_a_renamed_keyword_and_a_renamed_base_are_flagged_where_the_doc_passes_or_derives(repo_factory):
    doc = ("Views\n=====\n\nSkip with ``pkg.skip(reason, allow_module_level=True)``.\n\n.. code-block:: python\n\n"
           "    class PostAPI(MethodView):\n        pass\n")
    other = "Other\n=====\n\nCall ``pkg.skip(reason)`` and see :class:`~pkg.hooks.MethodView`.\n"
    root = repo_factory({"pkg/__init__.py": "from pkg.hooks import MethodView, skip\n", "pkg/hooks.py": HOOKS,
                         "docs/views.rst": doc, "docs/other.rst": other}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/hooks.py").write_text(HOOKS.replace("allow_module_level", "module_level"))
    commit(root, "rename allow_module_level", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert list(got) == [("docs/views.rst", 4)]  # the doc not passing the keyword: no finding
    assert got[("docs/views.rst", 4)] == (f"references `allow_module_level` which no longer exists, removed in {head} "
                                          f"(2025-02-01, \"rename allow_module_level\") (renamed to `module_level`?)")
    (root / "pkg/__init__.py").write_text("from pkg.hooks import MethodDispatchView, skip\n")
    (root / "pkg/hooks.py").write_text((root / "pkg/hooks.py").read_text().replace("MethodView", "MethodDispatchView"))
    commit(root, "rename MethodView", date="2025-03-01T12:00:00+00:00")
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert "renamed to `MethodDispatchView`?" in got[("docs/views.rst", 8)]


def test_a_package_member_named_like_a_standard_module_is_the_packages(repo_factory):
    # marshmallow dropped `marshmallow.pprint`; `from pprint import pprint` stays the standard one
    doc = ("Nesting\n=======\n\n.. code-block:: python\n\n    from pprint import pprint\n    from pkg import pprint as show\n\n"
           "    show(result)\n")
    root = repo_factory({"pkg/__init__.py": "from pkg.utils import pprint\n",
                         "pkg/utils.py": "from pprint import pprint as py_pprint\n\n\ndef pprint(obj):\n    py_pprint(obj)\n",
                         "docs/nesting.rst": doc}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/utils.py").write_text("from pprint import pprint as py_pprint  # noqa\n")
    commit(root, "drop pkg.pprint", date=FEB)
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/nesting.rst", 7)]


def test_a_renamed_setting_is_stale_where_a_setting_role_or_directive_names_it(repo_factory):
    settings = "SESSION_EXPIRE_AT_BROWSER_CLOSE = False\nSESSION_COOKIE_AGE = 1209600\n"
    ref = ("Settings\n========\n\n.. setting:: SESSION_EXPIRE_AT_BROWSER_CLOSE\n\n"
           "``SESSION_EXPIRE_AT_BROWSER_CLOSE``\n----------------------------------\n\nDefault: ``False``\n")
    topic = "Sessions\n========\n\nSet :setting:`SESSION_EXPIRE_AT_BROWSER_CLOSE` and :setting:`SESSION_COOKIE_AGE`.\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/global_settings.py": settings, "docs/settings.txt": ref,
                         "docs/sessions.txt": topic}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/global_settings.py").write_text(settings.replace("SESSION_EXPIRE_AT_BROWSER_CLOSE", "SESSION_BROWSER_SCOPED"))
    commit(root, "rename the setting", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/settings.txt", 4), ("docs/sessions.txt", 4)}
    assert all("renamed to `SESSION_BROWSER_SCOPED`?" in m for m in got.values())


def test_a_role_whose_text_wraps_to_the_next_line_is_one_reference(repo_factory):
    # django's tutorial07: :attr:`Change list pagination\n<django.contrib.admin.ModelAdmin.list_per_page>`
    options = "class ModelAdmin:\n    list_per_page = 100\n    search_fields = ()\n"
    doc = ("Admin\n=====\n\nChange lists paginate. :attr:`Change list pagination\n"
           "<pkg.options.ModelAdmin.list_per_page>`, :attr:`search boxes\n<pkg.options.ModelAdmin.search_fields>` "
           "and ``ModelAdmin`` are options.\n")
    names = [(r.name, r.line) for r in extract_references(Doc(path="docs/tutorial.txt", slug="t", title="t", text=doc))]
    assert ("pkg.options.ModelAdmin.list_per_page", 5) in names and ("pkg.options.ModelAdmin.search_fields", 6) in names
    assert ("ModelAdmin", 6) in names  # the span after the wrapped role's end is read as before
    root = repo_factory({"pkg/__init__.py": "", "pkg/options.py": options, "docs/tutorial.txt": doc}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/options.py").write_text(options.replace("list_per_page", "paginate_by"))
    commit(root, "rename list_per_page", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert list(got) == [("docs/tutorial.txt", 5)] and "renamed to `pkg.options.ModelAdmin.paginate_by`?" in got[("docs/tutorial.txt", 5)]


def test_a_module_directive_of_a_module_deleted_since_is_stale(repo_factory):
    # django's middleware.txt kept `.. module:: django.middleware.exception` after the module went
    doc = ("Middleware\n==========\n\n.. module:: pkg.middleware.exception\n   :synopsis: Exceptions.\n\n"
           ".. class:: ExceptionMiddleware\n\n.. module:: pkg.middleware.common\n\n.. class:: CommonMiddleware\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/middleware/__init__.py": "", "pkg/handlers.py": "exception = None\n",
                         "pkg/middleware/exception.py": ("from pkg.handlers import exception\n\n\n"
                                                                        "class ExceptionMiddleware:\n    pass\n"),
                         "pkg/middleware/common.py": "class CommonMiddleware:\n    pass\n", "docs/middleware.txt": doc}, date=JAN)
    assert check_docs(repo=root).findings == ()
    git(root, "rm", "-q", "pkg/middleware/exception.py")
    commit(root, "drop the exception middleware", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert list(got) == [("docs/middleware.txt", 4)]  # the module, named once (its class is in it)
    assert got[("docs/middleware.txt", 4)].startswith(f"references `pkg.middleware.exception` which no longer exists, "
                                                      f"removed in {head}")


def test_an_automodule_members_list_names_members_of_its_module(repo_factory):
    # matplotlib's transformations.rst lists the module's functions in `:members:`, over several lines
    doc = ("Transforms\n==========\n\n.. automodule:: pkg.transforms\n   :members: Bbox, nonsingular,\n"
           "       interval_contains\n   :show-inheritance:\n   :special-members: __add__\n\n"
           ".. autoclass:: Bbox\n   :members: frozen\n\nText after.\n")
    refs = {(r.name, r.line) for r in extract_references(Doc("docs/t.rst", "t", "T", doc)) if r.source == "autodoc"}
    assert {("pkg.transforms.Bbox", 5), ("pkg.transforms.nonsingular", 5), ("pkg.transforms.interval_contains", 6),
            ("pkg.transforms.Bbox.frozen", 11)} <= refs  # an autoclass's members are its target's, in the automodule
    assert not any("add" in name or "inheritance" in name for name, _ in refs)
    code = ("class Bbox:\n    def frozen(self):\n        return self\n\n\ndef nonsingular(a, b):\n    return a, b\n\n\n"
            "def interval_contains(interval, val):\n    return True\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/transforms.py": code, "docs/transforms.rst": doc}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/transforms.py").write_text(code.split("\n\n\ndef interval_contains")[0] + "\n")
    commit(root, "remove the deprecated interval_contains", date=FEB)
    got = [(f.path, f.line, f.message.split(" which")[0]) for f in check_docs(repo=root).findings]
    assert got == [("docs/transforms.rst", 6, "references `pkg.transforms.interval_contains`")]
