"""A default that lives in a config file a package ships (`pkg/default_config.cfg` beside its
`__init__.py`), stated in a doc as a list item "`5`: Default." in the section naming the setting:
changed in the file, the doc warns, naming the commit. A repository's own tool config
(`setup.cfg` at its root, `ci/lint.cfg`) holds no default of the package; a section naming two settings states
none."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.defaults import stated_defaults

CFG = "[core]\nrender_variant_limit = 5\n"
DOC = """Templating
==========

Variants
--------

Variant rendering is controlled by the :code:`render_variant_limit` setting:

.. code-block:: cfg

    [core]
    render_variant_limit = 5

Recommended values:

* :code:`1`: Disable additional variants.
* :code:`5`: Default. A moderate setting.

Width
-----

The :code:`max_line_width` setting is read by the linter, the :code:`max_col` one by the fixer.

* :code:`80`: Default.
"""
TOOL = "[tool]\nmax_line_width = 80\n"
TOOL_DOC = "Style\n=====\n\nOur own :code:`max_line_width` setting:\n\n- `80`: Default.\n"


def test_a_value_list_item_marked_default_states_the_sections_setting():
    stated = stated_defaults(Doc("docs/templating.rst", "t", "t", DOC))
    assert [(s.names, s.line, s.value) for s in stated] == [(("render_variant_limit",), 17, "5")]  # Width names two


def test_a_default_changed_in_a_shipped_config_file_warns_the_doc(repo_factory):
    root = repo_factory({"lintkit/__init__.py": "", "lintkit/core/__init__.py": "", "lintkit/core/default_config.cfg": CFG,
                         "setup.cfg": TOOL, "ci/lint.cfg": TOOL, "docs/templating.rst": DOC, "docs/style.rst": TOOL_DOC},
                        date="2025-01-01T12:00:00+00:00")
    (root / "lintkit/core/default_config.cfg").write_text(CFG.replace("= 5", "= 3"))
    (root / "setup.cfg").write_text(TOOL.replace("80", "100"))
    (root / "ci/lint.cfg").write_text(TOOL.replace("80", "100"))
    commit(root, "lower the default render_variant_limit to 3", date="2025-02-01T12:00:00+00:00")
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/templating.rst", 17)}  # not style.rst: setup.cfg and ci/lint.cfg are the repository's own
    assert "default of `render_variant_limit` (lintkit/core/default_config.cfg)" in got["docs/templating.rst", 17]
    assert "lower the default render_variant_limit" in got["docs/templating.rst", 17]
