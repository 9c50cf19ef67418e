"""A bare name the code only ever held as a parameter of functions the doc never names is no API that
went away (`parameter_only`): a page template's "Using `packagename`" is a placeholder, however many
setup helpers took a `packagename` argument before they moved out. A doc naming the function (or the
class whose constructor takes it) still loses the parameter; a name also defined otherwise is a
definition as before."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.parameter_only import parameter_only, taking

HELPERS = '''"""Setup helpers."""


def generate_version_py(packagename, version, release=None):
    if packagename.lower() == "pkg":
        packagename = "Pkg"  # a local rebinding: still no name of the module
    return packagename + version


class Limits:
    def __init__(self, *, max_keepalive=None,  # kept alive
                 timeout=5):
        self.timeout = timeout
'''
TEMPLATE = """A description of the package
=============================

Using `packagename`
===================

This section is for the detailed documentation.
"""


def _stale_after_the_helpers_go(repo_factory, doc: str) -> list[str]:
    root = repo_factory({"pkg/__init__.py": "VERSION = '1'\n", "pkg/setup_helpers.py": HELPERS, "docs/template.rst": doc},
                        date="2024-01-01T12:00:00+00:00")
    (root / "pkg/setup_helpers.py").unlink()
    commit(root, "Remove files that moved to a helpers package", date="2024-02-01T12:00:00+00:00")
    return check_docs(repo=root).lines()


def test_a_placeholder_that_was_only_a_parameter_is_not_a_removed_api(repo_factory):
    assert _stale_after_the_helpers_go(repo_factory, TEMPLATE) == []


def test_a_parameter_of_a_function_the_doc_names_is_still_a_removed_name(repo_factory):
    doc = TEMPLATE + "\nCall ``generate_version_py`` with ``packagename``, the package's name.\n"
    got = _stale_after_the_helpers_go(repo_factory, doc)
    assert any(line.startswith("docs/template.rst:4: stale-ref: references `packagename`") for line in got), got


def test_a_name_also_defined_at_module_level_is_a_removed_name(repo_factory):
    root = repo_factory({"pkg/__init__.py": "VERSION = '1'\n",
                         "pkg/setup_helpers.py": HELPERS + "\npackagename = 'pkg'\n", "docs/template.rst": TEMPLATE},
                        date="2024-01-01T12:00:00+00:00")
    (root / "pkg/setup_helpers.py").unlink()
    commit(root, "Remove files that moved to a helpers package", date="2024-02-01T12:00:00+00:00")
    got = check_docs(repo=root).lines()
    assert any(line.startswith("docs/template.rst:4: stale-ref: references `packagename`") for line in got), got


def test_which_functions_take_a_parameter_and_what_else_defines_it():
    assert taking(HELPERS, "packagename")[0] == {"generate_version_py"}
    assert taking(HELPERS, "max_keepalive")[0] == {"__init__", "Limits"}  # the class names its constructor
    assert taking(HELPERS, "release")[0] == {"generate_version_py"}
    assert taking("def f(x=packagename):\n    pass\n", "packagename")[0] == set()  # a default's word is no parameter
    assert parameter_only(HELPERS, "packagename", "Using `packagename`")
    assert not parameter_only(HELPERS, "packagename", "generate_version_py(packagename)")
    assert not parameter_only(HELPERS, "max_keepalive", "`Limits` takes `max_keepalive`")
    assert parameter_only(HELPERS, "max_keepalive", "takes `max_keepalive`")
    assert not parameter_only(HELPERS, "Limits", "`Limits`")  # a class
    assert not parameter_only(HELPERS + "packagename = 'x'\n", "packagename", "Using `packagename`")


CONTEXT = '''"""The context of a command."""


class Context:
    auto_envvar_prefix: str | None

    def __init__(self, command, auto_envvar_prefix=None):
        self.command = command
        self.auto_envvar_prefix = auto_envvar_prefix
'''
PROMPTS = """# Prompts

## Defaults from the environment

The `auto_envvar_prefix` option for the context lets the program read values from the environment.
"""


def test_a_parameter_kept_as_an_attribute_is_a_removed_name_when_renamed(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from .core import Context\n", "pkg/core.py": CONTEXT,
                         "docs/prompts.md": PROMPTS, "CHANGES.rst": "1.0\n---\n\n- Add ``auto_envvar_prefix``.\n",
                         "docs/options.md": "# Options\n\nValues come from `auto_envvar_prefix` too.\n"},
                        date="2024-01-01T12:00:00+00:00")
    (root / "pkg/core.py").write_text(CONTEXT.replace("auto_envvar_prefix", "envvar_prefix"))
    commit(root, "Rename the auto_envvar_prefix setting to envvar_prefix", date="2024-02-01T12:00:00+00:00")
    got = check_docs(repo=root).lines()
    assert any(line.startswith("docs/prompts.md:5: stale-ref: references `auto_envvar_prefix`") for line in got), got


def test_an_attribute_or_a_class_annotation_is_a_definition_beside_the_parameter():
    assert not parameter_only(CONTEXT, "auto_envvar_prefix", "The `auto_envvar_prefix` option")
    annotated_only = CONTEXT.replace("        self.auto_envvar_prefix = auto_envvar_prefix\n", "")
    assert not parameter_only(annotated_only, "auto_envvar_prefix", "The `auto_envvar_prefix` option")
    assigned_only = CONTEXT.replace("    auto_envvar_prefix: str | None\n", "")
    assert not parameter_only(assigned_only, "auto_envvar_prefix", "The `auto_envvar_prefix` option")
    neither = assigned_only.replace("        self.auto_envvar_prefix = auto_envvar_prefix\n", "")
    assert parameter_only(neither, "auto_envvar_prefix", "The `auto_envvar_prefix` option")
    assert parameter_only(neither + "\n\ndef g(x):\n    if x == auto_envvar_prefix:\n        pass\n",
                          "auto_envvar_prefix", "The `auto_envvar_prefix` option")  # a comparison is no definition
