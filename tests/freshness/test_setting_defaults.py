"""Defaults a paragraph states away from the name (issue 25, rule 5): a setting the paragraph names by a role
(:rc:`axes3d.trackballborder`) with "A border width of about 0.2 appears to work well; this is the default." a few
sentences later, its default registered as `_Param("axes3d.trackballborder", default=0.2)`; a parameter in emphasis
(`*pad_inches*, which defaults to 0.1 inches`) whose None default the body replaces with a setting's value."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import code_default, comparable
from noface_ctx.freshness.option_defaults import config_file, declared_default
from noface_ctx.freshness.setting_defaults import setting_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

RCSETUP = '''from .params import _Param, validate_float

_params = [
    _Param(
        "axes3d.trackballsize",
        default=0.667,
        validator=validate_float,
    ),
    _Param(
        "axes3d.trackballborder",
        default=0.2,
        validator=validate_float,
    ),
    _Param(
        "savefig.pad_inches",
        default=0.1,
        validator=validate_float,
    ),
    _Param(
        "savefig.directory",
        default="~",
    ),
]
'''

SAVE = '''from .rcsetup import rcParams


def print_figure(filename, dpi=None, *, bbox_inches=None, pad_inches=None):
    """Save the figure."""
    if bbox_inches:
        if pad_inches in [None, "layout"]:
            pad_inches = rcParams['savefig.pad_inches']
    return filename, dpi, pad_inches
'''

STUB = "def print_figure(filename: str, dpi: float | None = ..., *, pad_inches: float | None = ...) -> None: ...\n"

ROTATION = """Rotation with the mouse
=======================

The size of the virtual trackball can be adjusted by setting :rc:`axes3d.trackballsize`.
A size of about 2/3 appears to work reasonably well; this is the default.

The arcball has a noticeable edge; the edge can be made
less abrupt by specifying a border width, :rc:`axes3d.trackballborder`.
Beyond the border, the style works like the original: it controls roll only.
A border width of about 0.2 appears to work well; this is the default.
"""

SAVING = """Saving figures
==============

The most common use is ``bbox_inches='tight'``.  This option trims the figure
so that it is tight around all the artists, with a small pad that can be specified by *pad_inches*, which defaults to
0.1 inches.
"""


def _repo(repo_factory):
    return repo_factory({"mpl/__init__.py": "", "mpl/rcsetup.py": RCSETUP, "mpl/backend.py": SAVE,
                         "mpl/backend.pyi": STUB, "doc/rotation.rst": ROTATION, "doc/saving.rst": SAVING}, date=JAN)


def test_a_paragraph_states_the_default_of_the_one_setting_it_names_by_a_role():
    found = setting_statements(ROTATION.split("\n"), str)
    assert found == [(("axes3d.trackballborder",), 10, "0.2")]  # "about 2/3" is no value to compare
    assert setting_statements(SAVING.split("\n"), str) == [(("pad_inches",), 5, "0.1")]
    two = ROTATION.replace("roll only.", "roll only, unlike :rc:`axes3d.trackballsize`.")
    assert setting_statements(two.split("\n"), str) == []  # two settings: which one is unclear
    named = ROTATION.replace("Beyond the border,", "Beyond ``border``,")
    assert setting_statements(named.split("\n"), str) == []  # the sentence before names code: `defaults` reads it


def test_a_registered_setting_and_a_parameter_deferring_to_it_give_the_registered_default():
    assert code_default(RCSETUP, "axes3d.trackballborder") == "0.2"  # not the next registration's default
    assert code_default(RCSETUP, "pad_inches") == "0.1"  # the one key ending in the parameter's name
    assert code_default(SAVE, "pad_inches") is None  # None, replaced with the setting's value: not its default
    assert code_default(STUB, "pad_inches") is None  # a stub's `= ...` says there is one, not which
    assert code_default(SAVE.replace("rcParams['savefig.pad_inches']", "0.2"), "pad_inches") == "None"


def test_a_changed_setting_default_flags_the_paragraph_stating_it(repo_factory):
    root = _repo(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "mpl/rcsetup.py").write_text(RCSETUP.replace("default=0.2,", "default=0.3,"))
    commit(root, "a wider arcball border by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("doc/rotation.rst", 10, "changed-ref")]
    assert found[0].message.startswith(f"default of `axes3d.trackballborder` (mpl/rcsetup.py) changed in {head}")


def test_a_changed_setting_default_flags_the_parameter_deferring_to_it(repo_factory):
    root = _repo(repo_factory)
    (root / "mpl/rcsetup.py").write_text(RCSETUP.replace("default=0.1,", "default=0.05,"))
    commit(root, "a smaller pad by default", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("doc/saving.rst", 5, "changed-ref")]
    assert "`pad_inches` (mpl/rcsetup.py)" in found[0].message


RC = """## the default settings, commented out
#axes3d.trackballborder: 0.2  # trackball border width
#savefig.pad_inches:  0.1       # padding to be used, when bbox is set to 'tight'
"""


def test_a_shipped_rc_file_lists_the_defaults_in_its_commented_lines():
    assert config_file("mpl/mpl-data/matplotlibrc") and config_file("pkg/default.cfg")
    assert not config_file("mpl/mpl-data/classic.mplstyle") and not config_file("mpl/rc.py")
    assert declared_default("mpl/mpl-data/matplotlibrc", RC, "axes3d.trackballborder", comparable) == "0.2"
    assert declared_default("mpl/mpl-data/matplotlibrc", RC, "pad_inches", comparable) == "0.1"  # the one `*.pad_inches`


def test_a_default_the_rc_file_changed_flags_the_doc_when_the_registration_came_later(repo_factory):
    # the doc was written when only the rc file held the defaults; a registration table came after it
    root = repo_factory({"mpl/__init__.py": "", "mpl/mpl-data/matplotlibrc": RC, "mpl/backend.py": SAVE,
                         "doc/rotation.rst": ROTATION, "doc/saving.rst": SAVING}, date=JAN)
    (root / "mpl/rcsetup.py").write_text(RCSETUP)
    commit(root, "register the settings in code", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "mpl/rcsetup.py").write_text(RCSETUP.replace("default=0.1,", "default=0.05,"))
    (root / "mpl/mpl-data/matplotlibrc").write_text(RC.replace("pad_inches:  0.1", "pad_inches:  0.05"))
    commit(root, "a smaller pad by default", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("doc/saving.rst", 5, "changed-ref")]
    assert "`pad_inches` (mpl/mpl-data/matplotlibrc)" in found[0].message
