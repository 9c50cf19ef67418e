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
