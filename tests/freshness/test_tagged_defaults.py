"""A default a doc states by a "(default)" tag ending a list item under a lead sentence naming one
parameter ("The values for ``boundary`` can be: * ``None``: ... (default)."): checked against the
code's default like any stated default."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = '''def convolve(array, kernel, boundary=None, fill_value=0.0):
    """Convolve `array` with `kernel`."""
    return array


def convolve_fft(array, kernel, boundary="fill"):
    return array
'''
DOC = """Convolution
===========

The :func:`~pkg.convolution.convolve` function takes an
optional ``boundary=`` argument. The values for ``boundary`` can be:

* ``None``: set the result values to zero where the kernel extends beyond the
  edge of the array (default).

* ``'fill'``: set values outside the array boundary to a constant.

* ``'wrap'``: assume that the boundaries are periodic.
"""


def _findings(root):
    return {(f.path, f.line): f.message for f in check_docs(repo=root).findings}


def test_a_value_tagged_default_in_a_list_is_stale_once_the_code_changes_that_default(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/convolution.py": CODE, "docs/using.rst": DOC}, date=JAN)
    assert _findings(root) == {}
    (root / "pkg/convolution.py").write_text(CODE.replace("boundary=None,", 'boundary="fill",'))
    commit(root, "convolve fills by default", date=FEB)
    change = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = _findings(root)
    assert list(got) == [("docs/using.rst", 7)] and change in got["docs/using.rst", 7] and "`boundary`" in got["docs/using.rst", 7]


def test_a_tagged_default_that_still_is_the_codes_is_no_finding(repo_factory):
    # the tagged value is the default now: nothing to say, however the page was edited
    root = repo_factory({"pkg/__init__.py": "", "pkg/convolution.py": CODE.replace("boundary=None,", 'boundary="fill",'),
                         "docs/using.rst": DOC.replace("edge of the array (default).", "edge of the array.").replace(
                             "a constant.", "a constant (default).")}, date=JAN)
    (root / "docs/using.rst").write_text((root / "docs/using.rst").read_text() + "\nMore.\n")
    commit(root, "docs: more", date=FEB)
    assert _findings(root) == {}
