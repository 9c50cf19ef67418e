"""A module turned into a package (`fitting.py` deleted and `fitting/__init__.py` added in one
commit: no rename record) keeps its history: a doc naming `pkg.fitting.fit_sandia`, edited many
times after that commit, is stale and blamed on it."""

from __future__ import annotations

import pytest
from conftest import commit, git

from noface_ctx.freshness.check import check_docs

DATES = [f"2025-{m:02d}-01T12:00:00+00:00" for m in range(1, 13)]

MODULE = '''"""Fit diode models to IV curves."""
import math


def fit_sandia(voltage, current, v_oc, i_sc):
    """Fit the Sandia single diode model."""
    return math.log(i_sc) * v_oc / max(voltage) + current[0]


def fit_cec(celltype, v_mp, i_mp):
    """Fit the CEC model."""
    return celltype, v_mp * i_mp
'''
PACKAGE_INIT = '''"""IV curve fitting, one submodule per model family."""
from solar.fitting import sde, sdm  # noqa: F401
'''
SDE = '''"""Single diode equation fits."""


def fit_sandia_simple(curve, *, vlim=0.2, ilim=0.1):
    """A simple fit by linear regressions over the curve's ends."""
    low = [p for p in curve if p[0] < vlim]
    high = [p for p in curve if p[1] < ilim]
    return len(low), len(high)
'''
SDM = '''"""Single diode model parameter fits."""


def fit_desoto(specs, reference):
    """Solve the De Soto equations at reference conditions."""
    return {key: specs[key] / reference for key in sorted(specs)}
'''
API = """API reference
=============

.. currentmodule:: solar

Fitting
-------

.. autosummary::
   :toctree: generated/

   fitting.fit_sandia
   fitting.fit_cec
   fitting.sdm.fit_desoto

Notes{}
"""


@pytest.mark.parametrize("edits", [3, 10])  # the doc's earlier versions read back reach the module, or stop short
def test_a_function_of_a_module_turned_into_a_package_is_blamed_on_that_commit(repo_factory, edits):
    root = repo_factory({"solar/__init__.py": "", "solar/fitting.py": MODULE, "docs/api.rst": API.format("")},
                        date=DATES[0])
    git(root, "rm", "-q", "solar/fitting.py")
    for name, text in (("__init__.py", PACKAGE_INIT), ("sde.py", SDE), ("sdm.py", SDM)):
        (root / "solar/fitting").mkdir(exist_ok=True)
        (root / "solar/fitting" / name).write_text(text)
    commit(root, "port the fits into a fitting package", date=DATES[1])
    package_commit = git(root, "rev-parse", "--short=10", "HEAD").strip()
    for n in range(2, 2 + edits):  # later edits of the doc that leave the entries as they were
        (root / "docs/api.rst").write_text(API.format("." * n))
        (root / "solar/fitting/sdm.py").write_text(SDM + f"\nVERSION = {n}\n")
        commit(root, f"docs: edit {n}", date=DATES[n])
    report = check_docs(repo=root)
    got = {f.line: f.message for f in report.findings if f.path == "docs/api.rst"}
    assert set(got) == {12, 13}  # `fitting.sdm.fit_desoto` exists
    assert all(f"removed in {package_commit}" in message for message in got.values()), got
