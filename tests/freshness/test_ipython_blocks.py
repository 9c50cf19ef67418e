"""IPython's Sphinx directive (`.. ipython::`, with or without `python`) is a code example:
prompts stripped, pseudo-decorators and output dropped, so multi-line calls, keywords on
continuation lines and attribute chains are read as in a `.. code-block:: python`."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = '''"""Irradiance models."""


def plane_of_array(tilt, azimuth, zenith, *, albedo=0.25, model="isotropic"):
    return tilt + azimuth + zenith + albedo


def sun_angles(times, latitude):
    return times, latitude


class Site:
    def __init__(self, latitude):
        self.latitude = latitude

    def solar_position(self, times):
        return sun_angles(times, self.latitude)
'''

DOC = """Irradiance
==========

The plane of array irradiance for a whole year:

.. ipython:: python

    import numpy as np
    from solarkit.irradiance import Site
    site = Site(32.2)
    for month in range(12):
        poa = solarkit.irradiance.plane_of_array(
            20,
            180,
            month,
            albedo=0.2,
        )
    np.polyfit([1, 2], [3, 4], 1)
    @savefig poa.png width=6in
    plt.plot(poa)

Solar position, with prompts:

.. ipython::

    In [1]: angles = site.solar_position(
       ...:     times,
       ...: )

    In [2]: angles
    Out[2]: (times, 32.2)
    multiple_output_lines(look_like_calls)

    @suppress
    In [3]: plt.close()
"""


def _refs(text: str) -> set[tuple[int, str, str]]:
    return {(r.line, r.name, r.kind) for r in extract_references(Doc("docs/irradiance.rst", "d", "d", text))}


def test_an_ipython_block_is_read_as_python_with_prompts_and_output_dropped():
    got = _refs(DOC)
    assert (12, "solarkit.irradiance.plane_of_array", "method") in got  # a call opened on one line, argued over five
    assert (16, "albedo", "keyword") in got  # a keyword on a continuation line
    assert (26, "Site.solar_position", "method") in got  # `site = Site(...)` types `site`, across blocks, after `In [1]:`
    assert not [r for r in got if r[1] in ("multiple_output_lines", "savefig", "suppress", "poa.png")]  # output, pseudo-decorators
    assert not [r for r in got if r[1] in ("Out", "In")]


def test_a_renamed_function_and_method_are_flagged_where_an_ipython_block_uses_them(repo_factory):
    root = repo_factory({"solarkit/__init__.py": "", "solarkit/irradiance.py": CODE, "docs/irradiance.rst": DOC},
                        date=JAN)
    renamed = CODE.replace("plane_of_array", "get_total_irradiance").replace("solar_position", "get_solarposition")
    (root / "solarkit/irradiance.py").write_text(renamed)
    commit(root, "rename plane_of_array and Site.solar_position", date=FEB)
    report = check_docs(repo=root)
    got = {f.line: f.message for f in report.findings if f.path == "docs/irradiance.rst"}
    assert set(got) == {12, 26}
    assert all("removed in" in message and "rename plane_of_array" in message for message in got.values())
    assert "renamed to `solarkit.irradiance.get_total_irradiance`?" in got[12]
    assert "renamed to `Site.get_solarposition`?" in got[26]
