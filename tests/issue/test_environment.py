"""Environment reports an issue template asks for stay out of the text retrieval ranks against."""

from __future__ import annotations

import textwrap

from noface_ctx.datatypes import Issue
from noface_ctx.issue.environment import query_text, without_environment

XARRAY = textwrap.dedent(
    """\
    `ds.update` makes a chunked DataArray compute.

    **Environment**:

    <details><summary>Output of <tt>xr.show_versions()</tt></summary>

    ```
    python: 3.8.3 (default, Jul  2 2020, 11:26:31)
    xarray: 0.16.0
    numpy: 1.18.5
    netCDF4: None
    ```

    </details>
    Dataset constructor with DataArray triggers computation
    Is it intentional that creating a Dataset with a DataArray computes the dask array?
    """
)


def test_a_show_versions_report_goes_and_the_description_after_it_stays():
    kept = without_environment(XARRAY)
    assert "numpy" not in kept and "netCDF4" not in kept and "Environment" not in kept
    assert kept.startswith("`ds.update` makes a chunked DataArray compute.")
    assert "Is it intentional that creating a Dataset with a DataArray computes the dask array?" in kept


def test_template_sections_comments_and_package_lists_go():
    text = textwrap.dedent(
        """\
        <!-- Thanks for reporting! Please fill in the template. -->
        ### Bug summary

        get_backend() clears figures from Gcf.figs

        ### Operating system

        Windows 10

        ### Matplotlib Version

        3.7.0

        ### Additional information

        The figure manager is dropped by `get_backend`.

        ```
        Package        Version
        attrs          19.1.0
        pluggy==0.13.1
        ```
        KeyError: None
        """
    )
    kept = without_environment(text)
    for gone in ("Thanks for reporting", "Windows 10", "3.7.0", "Operating system", "attrs", "pluggy"):
        assert gone not in kept
    for stays in ("get_backend() clears figures", "### Additional information", "The figure manager is dropped",
                  "KeyError: None"):
        assert stays in kept


def test_a_comment_in_code_is_no_heading():
    code = "```python\n# check the versions of both arrays\nx = compare(a, b)\n```\n"
    assert without_environment(code) == code


def test_the_query_text_leaves_reports_out_and_keeps_the_title():
    issue = Issue(id="t-1", title="Versions of the API are mixed up", description=XARRAY,
                  comments=("### Versions\n\nastropy 5.1", "MANIFEST: primary_files: a.py"))
    query = query_text(issue)
    assert query.startswith("Versions of the API are mixed up\n\n")  # a title is never cut
    assert "numpy" not in query and "astropy 5.1" not in query and "MANIFEST" not in query
    assert "computes the dask array" in query
