"""A name is judged as the code it means (issue 25, precision): another package's name spelled
like a removed one of the repository (numpy through a vendored copy, asdf's class, the value
``NaN``) is none of the repository's; a dotted name resolves along its module path and an
example's call through the example's own imports (read from doctest blocks too); a table of
removed names says they are gone; a flag passed into `**kwargs` is no parameter."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"


def _found(root):
    return {(f.path, f.line, f.code) for f in check_docs(repo=root).findings}


def test_a_vendored_copy_of_numpy_is_not_numpy(repo_factory):
    # scikit-learn ships `externals/array_api_compat/numpy/` and once had `utils.random.choice`
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/random.py": "def choice(a):\n    return a[0]\n\n\ndef shuffle(a):\n    return a\n",
        "pkg/externals/__init__.py": "", "pkg/externals/compat/__init__.py": "",
        "pkg/externals/compat/numpy/__init__.py": "from numpy import *\n",
        "docs/repro.rst": ("Repro\n=====\n\n.. code-block:: python\n\n    import numpy as np\n\n"
                           "    y = np.random.choice(['a', 'b'], size=3)\n"),
        "docs/ours.rst": "Ours\n====\n\nPick one with ``pkg.random.choice(a)``.\n",
    }, date=JAN)
    (root / "pkg/random.py").write_text("def shuffle(a):\n    return a\n")
    commit(root, "drop the choice backport", date=FEB)
    assert _found(root) == {("docs/ours.rst", 4, "stale-ref")}


def test_nan_is_a_value_not_a_removed_name(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/consts.py": "NaN = float('nan')\nINF = 1e300\n",
                         "docs/masking.rst": "Masking\n=======\n\nUnlike the floating point ``NaN``, a mask is kept.\n"},
                        date=JAN)
    (root / "pkg/consts.py").write_text("INF = 1e300\n")
    commit(root, "no NaN constant", date=FEB)
    assert _found(root) == set()


def test_a_dotted_name_means_the_definition_along_its_module_path(repo_factory):
    # astropy's `astropy.stats.histogram` beside a units helper named `histogram`
    stats = "def histogram(a, bins=10):\n    return a\n"
    helper = "def histogram(a, bins=None, range=None):\n    return a\n"
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/stats/__init__.py": "from . import histogram as _hist\nfrom .histogram import *\n",
        "pkg/stats/histogram.py": stats, "pkg/units/__init__.py": "", "pkg/units/helpers.py": helper,
        "docs/hist.rst": "Bins\n====\n\nSee :func:`pkg.stats.histogram` and its ``bins``.\n",
    }, date=JAN)
    (root / "pkg/units/helpers.py").write_text(helper.replace("bins=None", "nbins=None"))
    commit(root, "helper: nbins", date=FEB)
    assert _found(root) == set()
    (root / "pkg/stats/histogram.py").write_text(stats.replace("bins=10", "nbins=10"))
    commit(root, "stats: nbins", date="2025-03-01T12:00:00+00:00")
    assert {(p, c) for p, _, c in _found(root)} == {("docs/hist.rst", "changed-ref")}


TABLE = "class Table:\n    def __init__(self, data=None, names=None):\n        self.names = names\n"
VOTABLE = "class Table:\n    def __init__(self, votable, id=None, names=None):\n        self.id = id\n"


def test_an_example_call_means_what_its_doctest_imports(repo_factory):
    # astropy's masking.rst imports astropy.table.Table in a doctest block (no `::` before it);
    # io.votable's deprecated `Table` changing is none of its concern
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/table/__init__.py": "from .table import Table\n", "pkg/table/table.py": TABLE,
        "pkg/votable/__init__.py": "", "pkg/votable/tree.py": VOTABLE,
        "docs/masking.rst": ("Masking\n=======\n\nA table with masked columns:\n\n  >>> from pkg.table import Table\n"
                             "  >>> t = Table([[1], [2]], names=('a', 'b'))\n\nThat is all.\n"),
    }, date=JAN)
    (root / "pkg/votable/tree.py").write_text(VOTABLE.replace("id=None, names=None", "*, ID=None"))
    commit(root, "votable: ID", date=FEB)
    assert _found(root) == set()
    (root / "pkg/table/table.py").write_text(TABLE.replace("names=None", "colnames=None").replace("= names", "= colnames"))
    commit(root, "table: colnames", date="2025-03-01T12:00:00+00:00")
    assert {p for p, _, _ in _found(root)} == {"docs/masking.rst"}


def test_another_packages_class_in_a_doctest_under_a_directive(repo_factory):
    # astropy's models.rst: ``AsdfFile.tree`` and, under `.. doctest-requires:: asdf`, an example
    # importing asdf's `AsdfFile` (astropy's own asdf module, which defined one, was removed)
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/io/__init__.py": "", "pkg/io/asdf.py": "class AsdfFile:\n    tree = None\n",
        "docs/models.rst": ("Models\n======\n\nAssign the model to ``AsdfFile.tree``:\n\n.. doctest-requires:: asdf\n\n"
                            "    >>> from asdf import AsdfFile\n    >>> f = AsdfFile()\n    >>> f.tree['model'] = 1\n"
                            "    >>> f.write_to('model.asdf')\n"),
    }, date=JAN)
    (root / "pkg/io/asdf.py").unlink()
    commit(root, "bye bye asdf", date=FEB)
    assert _found(root) == set()


def test_a_table_of_removed_names_says_they_are_gone(repo_factory):
    # astropy's testhelpers.rst "Conversion Guide": a column headed "Removed"
    helper = "def raises(exc):\n    return exc\n\n\ndef other():\n    return 1\n"
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/helper.py": helper,
        "docs/guide.rst": ("Guide\n=====\n\nSome functionality has been removed.\n\n"
                           "=========================  ==================\n"
                           "Removed                    Use this\n"
                           "=========================  ==================\n"
                           "``pkg.helper.raises``      ``pytest.raises``\n"
                           "=========================  ==================\n"),
        "docs/testing.rst": "Testing\n=======\n\nCheck errors with ``pkg.helper.raises``.\n",
    }, date=JAN)
    (root / "pkg/helper.py").write_text("def other():\n    return 1\n")
    commit(root, "remove raises", date=FEB)
    assert _found(root) == {("docs/testing.rst", 4, "stale-ref")}


def test_a_flag_passed_into_kwargs_is_no_parameter(repo_factory):
    # astropy's `extend_bit_flag_map('ST_DQ', CR=1, CLOUDY=4)`; a constant `CR` elsewhere was removed
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/fits.py": "CR = 3\nOTHER = 4\n",
        "pkg/bitmask.py": "def extend_map(name, base=None, **kwargs):\n    return dict(kwargs)\n",
        "docs/bitmask.rst": ("Bit flags\n=========\n\nMake a map:\n\n    >>> from pkg.bitmask import extend_map\n"
                             "    >>> DQ = extend_map('DQ', CR=1, CLOUDY=4)\n"),
    }, date=JAN)
    (root / "pkg/fits.py").write_text("OTHER = 4\n")
    commit(root, "no CR", date=FEB)
    assert _found(root) == set()


def test_a_default_an_example_relies_on_is_no_concern_of_a_sentence_about_other_names(repo_factory):
    # astropy's matplotlib_integration.rst calls `quantity_support()` in a doctest; "By default,
    # the format and scale used for the plots is taken from ..." is about `time_support`
    code = 'def quantity_support(format="latex"):\n    return format\n\n\ndef time_support(format=None):\n    return format\n'
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/units.py": code,
        "docs/plots.rst": ("Plots\n=====\n\nTurn it on:\n\n    >>> from pkg.units import quantity_support\n"
                           "    >>> quantity_support()\n\nBy default, the format and scale used for the plots is taken\n"
                           "from the first time plotted with :func:`pkg.units.time_support`.\n"),
    }, date=JAN)
    (root / "pkg/units.py").write_text(code.replace('format="latex"', "format=None"))
    commit(root, "quantity_support: format None", date=FEB)
    assert _found(root) == set()
