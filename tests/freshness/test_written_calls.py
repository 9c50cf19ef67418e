"""A call a doc writes in prose uses the parameters it passes, no others (issue 25, rule 6): a
default it does not pass or an optional parameter appended is no concern of
``weather.fetch(city, days)``; a signature the doc shows (an API directive, every parameter
named, a default written out) states them all, and is told of a change to one of them (a
default: when it writes the old one), not of one only added. A call that no longer fits, or
whose arguments now go to other parameters, is warned whatever it names."""

from __future__ import annotations

import pytest
from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

FETCH = 'def fetch(city, days, units="metric", timeout=30):\n    return city, days, units, timeout\n'

DOCS = {
    # a call in a sentence, passing two positionals named like the parameters
    "docs/tour.rst": "Tour\n====\n\nGet a week of weather with ``weather.fetch(city, days)``.\n",
    # a call in an IPython block, as pvlib's tutorial writes `get_pvgis_tmy(latitude, longitude)[0]`
    "docs/loop.rst": ("Loop\n====\n\nEvery city in turn:\n\n.. ipython:: python\n\n    for city in cities:\n"
                      "        data = weather.fetch(city, 7)[0]\n        print(data)\n"),
    # a code example: the same rules
    "docs/example.md": "# Example\n\n```python\nimport weather\n\nweather.fetch(\"Oslo\", 7)\n```\n",
    # its own value for one keyword
    "docs/units.rst": "Units\n=====\n\nFor Fahrenheit, call ``weather.fetch(city, days, units=\"imperial\")``.\n",
    # four positionals
    "docs/positional.rst": "Positional\n==========\n\nShort form: ``weather.fetch(town, 7, \"imperial\", 10)``.\n",
    # the signature, as an API directive
    "docs/api.rst": ("API\n===\n\n.. currentmodule:: weather\n\n"
                     ".. function:: fetch(city, days, units=\"metric\", timeout=30)\n\n   Fetch a forecast.\n"),
    # the signature, every parameter named
    "docs/summary.md": "# Summary\n\n`weather.fetch(city, days, units, timeout)` returns the forecast.\n",
    # one parameter's default written out: a signature too
    "docs/defaults.rst": "Defaults\n========\n\nThe call ``weather.fetch(city, days, timeout=30)`` waits half a minute.\n",
}

SIGNATURES = {"api.rst", "summary.md", "defaults.rst"}
ALL = {p.rsplit("/", 1)[1] for p in DOCS}


def _repo(repo_factory):
    return repo_factory({"weather/__init__.py": "from weather.forecast import fetch\n",
                         "weather/forecast.py": FETCH, **DOCS}, date=JAN)


def _warned(root) -> set[str]:
    found = check_docs(repo=root).findings
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert all(head in f.message for f in found if f.code == "changed-ref")
    return {f.path.rsplit("/", 1)[1] for f in found}


@pytest.mark.parametrize(("new", "warned"), [
    # a default the calls do not pass: only the docs writing the old one
    (FETCH.replace("timeout=30", "timeout=60"), {"api.rst", "defaults.rst"}),
    # optional parameters appended: no doc states them
    (FETCH.replace("timeout=30)", "timeout=30, *, retries=0, cache=None)"), set()),
    # a default one call passes its own value for: not that call; the directive writes the old one
    (FETCH.replace('units="metric"', 'units="si"'), {"api.rst"}),
], ids=["unpassed-default", "appended-optional", "passed-default"])
def test_a_call_in_prose_is_not_concerned_by_parameters_it_does_not_pass(repo_factory, new, warned):
    root = _repo(repo_factory)
    (root / "weather/forecast.py").write_text(new)
    commit(root, "change fetch", date=FEB)
    assert _warned(root) == warned


@pytest.mark.parametrize(("new", "warned"), [
    # a keyword one call passes, renamed; `tour` and `loop` pass no keyword, `positional` passes it by place
    (FETCH.replace("units", "system"), SIGNATURES | {"units.rst"}),
    # a parameter made keyword-only: four positionals no longer fit, nor the signature naming it fourth;
    # a signature passing it by keyword (`timeout=30`) still does
    (FETCH.replace('units="metric", timeout', 'units="metric", *, timeout'), {"summary.md", "positional.rst"}),
    # a required parameter removed: `fetch(city, 7)` now passes 7 as `units`
    (FETCH.replace("city, days, ", "city, "), ALL),
    # a required parameter added
    (FETCH.replace("days, ", "days, region, "), ALL),
    # a parameter `tour` names at its place renamed; `loop`'s 7 still goes to it
    (FETCH.replace("days", "span"), SIGNATURES | {"tour.rst", "units.rst"}),
], ids=["keyword-renamed", "keyword-only", "required-removed", "required-added", "named-renamed"])
def test_a_call_in_prose_that_no_longer_fits_or_names_the_change_is_warned(repo_factory, new, warned):
    root = _repo(repo_factory)
    (root / "weather/forecast.py").write_text(new)
    commit(root, "change fetch", date=FEB)
    assert _warned(root) == warned
