"""A Python object role read as Sphinx reads it (issue 25): a target without a leading `.` means
the name as written or the name in the doc's `currentmodule`, never the same last name defined
somewhere else in the repository; a re-export or a name of another package still resolves."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CALIBRATION = '''def calibration_curve(y_true, y_prob):
    """The fraction of positives per bin."""
    return y_true, y_prob


class CalibrationDisplay:
    def from_predictions(self, y_true, y_prob):
        return calibration_curve(y_true, y_prob)
'''
EXTMATH = '''def density(w):
    """The density of a sparse vector."""
    return w.nnz / w.size


def safe_sparse_dot(a, b):
    return a @ b
'''
FILES = {
    "pkg/__init__.py": "",
    "pkg/calibration.py": CALIBRATION,
    "pkg/metrics/__init__.py": "from pkg.metrics._ranking import roc_curve\n\n__all__ = ['roc_curve']\n",
    "pkg/metrics/_ranking.py": "def roc_curve(y_true, y_score):\n    return y_true\n",
    "pkg/utils/__init__.py": "",
    "pkg/utils/extmath.py": EXTMATH,
    "examples/plot_text.py": "from pkg.utils.extmath import density\n\nprint(density(None))\n",
    "benchmarks/bench_graph.py": "density = 0.01\n",
    "docs/calibration.rst": ("Calibration\n===========\n\n.. currentmodule:: pkg.calibration\n\n"
                             "The display uses :func:`calibration_curve` to bin the predictions,\n"
                             "as :func:`numpy.histogram` does, and :class:`~numpy.ndarray` holds them.\n"),
    "docs/utilities.rst": ("Utilities\n=========\n\n.. currentmodule:: pkg.utils\n\n"
                           "- :func:`extmath.density`: the density of a sparse vector.\n"
                           "- :func:`extmath.safe_sparse_dot`: a dot product.\n"
                           "- :func:`numpy.dot` is another package's.\n"),
}


def _findings(root):
    return {(f.path, f.line): f.message for f in check_docs(repo=root).findings}


def test_a_role_in_its_module_context_is_not_resolved_by_a_name_defined_elsewhere(repo_factory):
    root = repo_factory(FILES, date=JAN)
    assert _findings(root) == {}
    # moved to pkg.metrics without a re-export; the display imports it where it calls it
    (root / "pkg/calibration.py").write_text(
        "class CalibrationDisplay:\n    def from_predictions(self, y_true, y_prob):\n"
        "        from pkg.metrics import calibration_curve\n\n        return calibration_curve(y_true, y_prob)\n")
    (root / "pkg/metrics/_ranking.py").write_text((root / "pkg/metrics/_ranking.py").read_text() + "\n\n"
                                                  + CALIBRATION.split("\n\n\n", 1)[0] + "\n")
    (root / "pkg/metrics/__init__.py").write_text(
        "from pkg.metrics._ranking import calibration_curve, roc_curve\n\n"
        "__all__ = ['calibration_curve', 'roc_curve']\n")
    # removed; a gallery script still imports it and a benchmark names a variable after it
    (root / "pkg/utils/extmath.py").write_text(EXTMATH.split("\n\n\n", 1)[1])
    commit(root, "move calibration_curve to metrics; drop extmath.density", date=FEB)
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = _findings(root)
    assert set(got) == {("docs/calibration.rst", 6), ("docs/utilities.rst", 6)}
    assert "calibration_curve" in got["docs/calibration.rst", 6] and sha in got["docs/calibration.rst", 6]
    assert "moved to `pkg.metrics.calibration_curve`" in got["docs/calibration.rst", 6]  # where it went
    assert "density" in got["docs/utilities.rst", 6] and sha in got["docs/utilities.rst", 6]


def test_a_role_still_resolves_through_a_reexport_of_its_module(repo_factory):
    files = dict(FILES)
    files["docs/metrics.rst"] = ("Metrics\n=======\n\n.. currentmodule:: pkg.metrics\n\n"
                                 "Plot :func:`roc_curve` (see :func:`_ranking.roc_curve`).\n")
    root = repo_factory(files, date=JAN)
    (root / "pkg/metrics/_ranking.py").write_text("def roc_curve(y_true, y_score, *, drop=True):\n    return y_true\n")
    commit(root, "roc_curve drops intermediate thresholds", date=FEB)
    assert _findings(root) == {}
    # the same word star-imported from a sibling: still the module's
    (root / "pkg/metrics/__init__.py").write_text("from pkg.metrics._ranking import *  # noqa\n")
    commit(root, "star import", date="2025-03-01T12:00:00+00:00")
    assert _findings(root) == {}


def test_a_module_is_removed_when_its_last_file_left_not_when_its_package_stopped_importing_it(repo_factory):
    # astropy: `cosmology/__init__.py` stopped importing `flrw` in 2023; in 2025 the package moved
    # to `_src/flrw/` behind a deprecated `flrw.py`, and that file was deleted months later: only
    # then did the doc's ``astropy.cosmology.flrw`` stop resolving
    root = repo_factory({"pkg/__init__.py": "from . import flrw\nfrom .flrw import FlatMixin\n",
                         "pkg/flrw/__init__.py": "class FlatMixin:\n    pass\n",
                         "docs/dev.rst": "Developers\n==========\n\nSubclass ``FlatMixin`` in ``pkg.flrw``.\n"},
                        date=JAN)
    (root / "pkg/__init__.py").write_text("from .flrw import FlatMixin\n")
    commit(root, "no need to import the flrw module", date=FEB)
    assert _findings(root) == {}
    (root / "pkg/_src").mkdir()
    git(root, "mv", "pkg/flrw", "pkg/_src/flrw")
    (root / "pkg/_src/__init__.py").write_text("")
    (root / "pkg/__init__.py").write_text("from ._src.flrw import FlatMixin\n")
    (root / "pkg/flrw.py").write_text("from pkg._src.flrw import *  # noqa: deprecated\n")
    commit(root, "flrw moves to _src; a deprecated shim", date="2025-03-01T12:00:00+00:00")
    assert _findings(root) == {}
    (root / "pkg/flrw.py").unlink()
    commit(root, "no more flrw", date="2025-04-01T12:00:00+00:00")
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = _findings(root)
    assert list(got) == [("docs/dev.rst", 4)] and f"removed in {sha}" in got["docs/dev.rst", 4]


def test_a_cross_reference_in_a_docstring_of_an_example_is_checked(repo_factory):
    # astropy's custom-fitter example: "updated_model : `~astropy.modeling.ParametricModel`" in the
    # docstrings of a literal block, years after the class became FittableModel
    doc = ("Fitters\n=======\n\nFirst define a statistic::\n\n"
           "    def chi_line(measured_vals, updated_model, x):\n"
           '        """\n        Chi^2 statistic.\n\n        Parameters\n        ----------\n'
           "        updated_model : `~pkg.core.ParametricModel`\n"
           "            model with parameters set by the optimizer\n"
           "        x : `numpy.ndarray`\n"
           '        """\n        return updated_model(x) - measured_vals\n')
    root = repo_factory({"pkg/__init__.py": "from pkg.core import ParametricModel\n",
                         "pkg/core.py": "class ParametricModel:\n    pass\n", "docs/fitters.rst": doc}, date=JAN)
    assert _findings(root) == {}
    (root / "pkg/core.py").write_text("class FittableModel:\n    pass\n")
    (root / "pkg/__init__.py").write_text("from pkg.core import FittableModel\n")
    commit(root, "Rename ParametricModel to FittableModel", date=FEB)
    rename = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/fitters.rst").write_text(doc + "\nA fitter takes a statistic.\n")
    commit(root, "docs: a sentence more", date="2025-03-01T12:00:00+00:00")
    got = _findings(root)
    assert list(got) == [("docs/fitters.rst", 12)] and f"removed in {rename}" in got["docs/fitters.rst", 12]
