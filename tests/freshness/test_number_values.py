"""Numbers compare by value where a stated default meets the code's (`number_values`): `threshold=.85` in an
explicit autodoc signature states the code's `threshold=0.85`; a quoted value stays its text."""

from __future__ import annotations

import json

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.number_values import canonical, same_default

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

DATES = '''def fmt(delta, granularity: str = "second", threshold: float = 0.85, level: str = "0.5"):
    """Format a time delta."""
    return str(delta)
'''

API = """Dates
=====

.. autofunction:: fmt(delta, granularity='second', threshold=.85)
"""

QUOTED = """Levels
======

.. autofunction:: fmt(delta, level='.5')
"""


def test_numbers_are_written_in_one_form_and_strings_stay_texts():
    assert {canonical(t) for t in (".85", "0.85", "0.850", "85e-2", "0.85_0")} == {"0.85"}
    assert canonical("1_000") == canonical("1000") == canonical("1.0e3") == canonical("1000.0") == "1000"
    assert canonical("0x10") == "16" and canonical("-.5") == "-0.5" and canonical("-0") == "0"
    assert canonical("1.2.3") == "1.2.3" and canonical("second") == "second" and canonical("1e300") == "1e300"
    assert canonical("0.1") == "0.1" and canonical("12345678901234567891") == "12345678901234567891"  # exact
    assert comparable("``.85``") == comparable("0.85") == "0.85" and comparable("1_000,") == "1000"
    assert comparable("'.85'") == ".85" and comparable('"0.85"') == "0.85" and comparable("'.85'") != comparable("'0.85'")
    assert comparable("None") == "None" and comparable("500kB") == "500kB"  # a name, a size: texts


def _site(repo_factory, doc: str):
    return repo_factory({"pkg/__init__.py": "", "pkg/dates.py": DATES, "docs/conf.py": "", "docs/api.rst": doc}, date=JAN)


def test_a_default_written_with_a_leading_dot_is_the_codes_number(repo_factory):
    root = _site(repo_factory, API)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/dates.py").write_text(DATES.replace("threshold: float = 0.85", "threshold: float = .850"))
    commit(root, "the same value written another way", date=FEB)
    assert check_docs(repo=root).findings == ()  # the same number: no change of default
    (root / "pkg/dates.py").write_text(DATES.replace("threshold: float = 0.85", "threshold: float = 0.9"))
    commit(root, "a higher threshold", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/api.rst", 4)]
    assert found[0].message.startswith("signature of `fmt(delta, granularity='second', threshold=.85)`") and head in found[0].message


def test_a_doc_stating_the_new_number_or_a_string_is_not_flagged(repo_factory):
    root = _site(repo_factory, API.replace("threshold=.85", "threshold=.9"))
    (root / "pkg/dates.py").write_text(DATES.replace("threshold: float = 0.85", "threshold: float = 0.9"))
    commit(root, "a higher threshold", date=FEB)
    assert check_docs(repo=root).findings == ()  # it already states the new value
    root = _site(repo_factory, QUOTED)
    (root / "pkg/dates.py").write_text(DATES.replace('level: str = "0.5"', 'level: str = "0.25"'))
    commit(root, "another level", date=FEB)
    assert check_docs(repo=root).findings == ()  # the string '.5' is not the string "0.5": the doc states no old default


def test_defaults_as_definitions_write_them_are_the_same_number_or_text():
    assert same_default("0 . 85", ". 850") and same_default("1_000", "1000 . 0") and same_default('"x"', '"x"')
    assert not same_default('"0.5"', '".5"') and not same_default("0 . 85", "0 . 9") and not same_default("a", "b")


TEMPS = '''def cell(poa, temp, wind, a, b, irrad_ref=1000):
    """A cell's temperature."""
    return poa + temp + wind + a + b
'''

GUIDE = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["``cell`` works with scalars."]},
    {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
     "source": ["import pkg.temps\n", "params = {'a': 2}\n", "pkg.temps.cell(900, 20, 5, **params)"]}]}, indent=1)


def test_a_default_respelled_is_no_change_for_a_doc_calling_the_function(repo_factory):
    """pvlib's `sapm_cell(..., irrad_ref=1000)` → `1000.`: a tutorial calling it with three arguments is not
    told its signature changed; a new required parameter still is."""
    root = repo_factory({"pkg/__init__.py": "", "pkg/temps.py": TEMPS, "docs/guide.ipynb": GUIDE}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/temps.py").write_text(TEMPS.replace("irrad_ref=1000)", "irrad_ref=1000.)"))
    commit(root, "a float default", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/temps.py").write_text(TEMPS.replace("wind, a, b, irrad_ref=1000)", "wind, model, a, b, irrad_ref=1000.)"))
    commit(root, "a required model", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/guide.ipynb", 21)] and "signature" in found[0].message
