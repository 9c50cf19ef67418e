"""Defaults of command-line options and shipped settings (issue 25, rule 5): an option table, an
argparse or click call, or a config file inside the package declares them; a doc states them in
the option's section or directive, or in a list of the setting's values. A changed default is a
warning naming the commit that changed it."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.defaults import comparable, stated_defaults
from noface_ctx.freshness.option_defaults import declared_default, shipped_config

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

OPTIONS = '''OPTIONS = (
    (
        "jobs",
        {
            "type": "int",
            "short": "j",
            "default": 1,
            "help": "Use multiple processes (default: 1, {not: a dict})",
        },
    ),
    (
        "include-naming-hint",
        {"default": False, "type": "yn", "help": "Include a hint."},
    ),
    ("fail-under", {"default": 10, "type": "float"}),
)
'''
ALL_OPTIONS = """All options
===========

.. _jobs-option:

--jobs
\"\"\"\"\"\"
*Use multiple processes to speed up the run.*

**Default:**  ``1``

--include-naming-hint
\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"
*Include a hint for the correct naming format.*

**Default:**  ``False``

--fail-under
\"\"\"\"\"\"\"\"\"\"\"\"
**Default:**  ``10``

Example configuration::

    [main]
    jobs = 4
"""
NAMING = """Naming
======

.. option:: --include-naming-hint=y|n

   Default: off

   Include a hint with every warning.

Run it with ``--jobs=4`` to use four processes, instead of the default 1 of ``--jobs``.
"""


def test_option_sections_and_directives_state_an_options_default():
    stated = stated_defaults(Doc(path="doc/all-options.rst", slug="a", title="a", text=ALL_OPTIONS))
    assert [(s.names, s.line, s.value) for s in stated] == [
        (("--jobs",), 10, "1"), (("--include-naming-hint",), 16, "False"), (("--fail-under",), 20, "10")]
    naming = stated_defaults(Doc(path="doc/naming.rst", slug="n", title="n", text=NAMING))
    # "off" is False; "instead of the default 1" beside ``--jobs`` states 1, not the 4 the example passes
    assert {(s.names, s.line, s.value) for s in naming} == {(("--include-naming-hint",), 6, "False"), (("--jobs",), 10, "1")}


def test_the_code_declares_an_options_default_in_a_table_or_a_cli_call():
    assert declared_default("pkg/options.py", OPTIONS, "--jobs", comparable) == "1"
    assert declared_default("pkg/options.py", OPTIONS, "include_naming_hint", comparable) == "False"
    assert declared_default("pkg/options.py", OPTIONS, "--help", comparable) is None
    cli = ('parser.add_argument("-d", "--maxdepth", type=int, default=4, help="depth (default: 3)")\n'
           '@click.option("--retries", "-r", default="3")\n'
           'parser.add_option("--verbose", dest="verbose", action="store_true")\n')
    assert [declared_default("pkg/cli.py", cli, n, comparable) for n in ("--maxdepth", "-d", "retries", "-r", "--verbose")] \
        == ["4", "4", "3", "3", None]
    assert declared_default("pkg/cli.py", '"--maxdepth"\nadd_argument("--max", default=1)\n', "--maxdepth", comparable) is None


def test_a_changed_option_default_warns_the_docs_that_state_it(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/options.py": OPTIONS, "doc/all-options.rst": ALL_OPTIONS,
                         "doc/naming.rst": NAMING}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/options.py").write_text(OPTIONS.replace('"default": 1,', '"default": 0,').replace(
        '{"default": False,', '{"default": True,'))
    commit(root, "every CPU and naming hints by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("doc/all-options.rst", 10), ("doc/all-options.rst", 16), ("doc/naming.rst", 6), ("doc/naming.rst", 10)}
    assert got[("doc/all-options.rst", 10)].startswith(f"default of `--jobs` (pkg/options.py) changed in {head}")
    assert got[("doc/naming.rst", 6)].startswith(f"default of `--include-naming-hint` (pkg/options.py) changed in {head}")


CLI = '''import argparse

import click


def parser():
    p = argparse.ArgumentParser()
    p.add_argument("-d", "--maxdepth", dest="maxdepth", type=int, default=4,
                   help="Maximum depth of the table of contents")
    return p


@click.command()
@click.option("--retries", default=3, help="How many times to retry.")
def fetch(retries):
    return retries
'''
CLI_DOC = """sphinx-like
===========

.. option:: -d <MAXDEPTH>

   Maximum depth for the generated table of contents file. Defaults to ``4``.
"""
CLI_MD = "# fetch\n\n## `--retries`\n\nHow many times to retry.\n\nDefault: `3`\n\n## Other\n\nDefault: `5`\n"


def test_argparse_and_click_defaults_follow_the_option_directive_and_heading(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/cli.py": CLI, "doc/cli.rst": CLI_DOC, "doc/fetch.md": CLI_MD}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/cli.py").write_text(CLI.replace("default=4", "default=2").replace("default=3", "default=5"))
    commit(root, "shallower, more retries", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("doc/cli.rst", 6), ("doc/fetch.md", 7)}  # "## Other"'s "Default: `5`" states no option's
    assert got[("doc/cli.rst", 6)].startswith(f"default of `-d` (pkg/cli.py) changed in {head}")
    assert got[("doc/fetch.md", 7)].startswith(f"default of `--retries` (pkg/cli.py) changed in {head}")


def test_a_value_in_backticks_is_a_value_not_a_name(repo_factory):
    # seaborn's faq: "It is `False` by default, but setting it to `True` will ..."
    code = "def stripplot(data=None, native_scale=False):\n    return data\n\n\ndef boxplot(data=None, native_scale=False):\n    return data\n"
    doc = ("FAQ\n===\n\nThe release added a `native_scale` parameter which provides control over this behavior. "
           "It is `False` by default, but setting it to `True` will preserve the data's scale.\n")
    stated = stated_defaults(Doc(path="doc/faq.rst", slug="f", title="f", text=doc))
    assert [(s.names, s.line, s.value) for s in stated] == [(("native_scale",), 4, "False")]
    root = repo_factory({"pkg/__init__.py": "", "pkg/categorical.py": code, "doc/faq.rst": doc}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/categorical.py").write_text(code.replace("native_scale=False", "native_scale=True"))
    commit(root, "native scale by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert [g[:2] for g in got] == [("doc/faq.rst", 4)]
    assert got[0][2].startswith(f"default of `native_scale` (pkg/categorical.py) changed in {head}")


CONFIG = "[core]\n# how many variants\nrender_variant_limit = 5\nlarge_file_skip = yes  ; bytes\n\n[rules]\ntab_space_size = 4\n"
VARIANTS = """Variants
========

Configuration
-------------

Rendering is controlled by the top-level :code:`render_variant_limit` setting:

.. code-block:: cfg

    [core]
    render_variant_limit = 8

Recommended values:

* :code:`1`: Disable additional variants.
* :code:`5`: Default. A moderate setting.
* Higher values: more coverage.
"""


def test_a_config_file_shipped_in_the_package_defines_defaults(repo_factory):
    paths = {"src/pkg/__init__.py", "src/pkg/core/__init__.py"}
    assert shipped_config("src/pkg/core/default_config.cfg", paths) and shipped_config("src/pkg/themes/basic/theme.toml", paths)
    assert not shipped_config("setup.cfg", paths) and not shipped_config("docs/conf.ini", paths)
    assert not shipped_config("src/pkg/tests/fixture.cfg", paths) and not shipped_config("src/pkg/core/rules.py", paths)
    assert [declared_default("x.cfg", CONFIG, n, comparable) for n in ("render_variant_limit", "large_file_skip", "tab-space-size")] \
        == ["5", "True", "4"]
    stated = stated_defaults(Doc(path="docs/variants.rst", slug="v", title="v", text=VARIANTS))
    assert [(s.names, s.line, s.value) for s in stated] == [(("render_variant_limit",), 17, "5")]  # not the example's 8
    root = repo_factory({"src/pkg/__init__.py": "", "src/pkg/core/__init__.py": "", "src/pkg/core/default_config.cfg": CONFIG,
                         "setup.cfg": "[tool]\nrender_variant_limit = 9\n", "docs/variants.rst": VARIANTS,
                         "src/pkg/core/linter.py": 'LIMIT = config.get("render_variant_limit")\n'}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "setup.cfg").write_text("[tool]\nrender_variant_limit = 2\n")  # the project's own tooling: no default
    commit(root, "tooling", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "src/pkg/core/default_config.cfg").write_text(CONFIG.replace("= 5", "= 3"))
    commit(root, "fewer variants by default", date="2025-03-01T12:00:00+00:00")
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert [g[:2] for g in got] == [("docs/variants.rst", 17)]
    assert got[0][2].startswith(f"default of `render_variant_limit` (src/pkg/core/default_config.cfg) changed in {head}")


def test_option_tables_that_never_close_are_read_a_bounded_number_of_times(monkeypatch):
    """A file of table entries whose brackets never close is not read once per entry (a hostile file
    of 10,000 such entries was read 10,000 × 20,000 characters); every closed entry of a long real
    table is still read."""
    import noface_ctx.freshness.option_defaults as option_defaults

    read = []

    class Counting:
        def finditer(self, text, start, end):
            read.append(end - start)
            return real.finditer(text, start, end)

    real = option_defaults.SOURCE_TOKEN
    monkeypatch.setattr(option_defaults, "SOURCE_TOKEN", Counting())
    hostile = '("jobs", {"default": (' * 10_000
    assert declared_default("pkg/b.py", hostile, "--jobs", comparable) is None
    assert 1_000 < sum(read) <= 4 * len(hostile) + 200_000  # read, but not 10,000 times over
    table = "".join(f'("opt{i}", {{"default": {i}, "help": "x" * 300}}),\n' for i in range(5_000))
    assert declared_default("pkg/c.py", table, "--opt4999", comparable) == "4999"
    assert declared_default("pkg/c.py", table, "--opt0", comparable) == "0"


def test_a_huge_or_malformed_config_file_is_no_error(repo_factory):
    junk = "[core\nrender_variant_limit\n" + "x = [" * 50_000 + "\n" + "=" * 200_000 + "\nrender_variant_limit = 5\n"
    assert declared_default("pkg/a.cfg", junk, "render_variant_limit", comparable) == "5"
    assert declared_default("pkg/a.py", '("jobs", {"default": (' * 10_000, "--jobs", comparable) is None
    root = repo_factory({"pkg/__init__.py": "", "pkg/defaults.toml": junk, "docs/variants.rst": VARIANTS}, date=JAN)
    (root / "pkg/defaults.toml").write_text(junk.replace("= 5", "= 6") + "\x00\xff" * 10)
    commit(root, "six", date=FEB)
    assert [f.line for f in check_docs(repo=root).findings] == [17]
