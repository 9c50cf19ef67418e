"""A default stated without its name, tied to a parameter a later paragraph names in the same words ("capped, by
default to around 100 digits" ... "To force a higher working precision, the ``maxn`` keyword argument"), and a
value the code had before, found past later commits that only touch a line like it and in the one file defining
what the sentence names (issue 25, rule 5)."""

from __future__ import annotations

import pytest
from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.distant_defaults import distant_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"
APR = "2025-04-01T12:00:00+00:00"
MAY = "2025-05-01T12:00:00+00:00"

EVALF = '''class Evaluable:
    def evalf(self, n=15, subs=None, maxn=100, strict=False):
        """Evaluate to `n` digits."""
        return n, subs, maxn, strict
'''

GUIDE = """Numerical evaluation
====================

``N`` and ``evalf`` keep track of errors.

Unfortunately, numerical evaluation cannot tell an expression that is exactly
zero apart from one that is merely very small. The working precision is
therefore capped, by default to around 100 digits. If we try with a large number:

    >>> N(big)
    0.e+85

The lack of digits indicates that ``N`` failed to achieve full accuracy. To force a higher working
precision, the ``maxn`` keyword argument can be used:

    >>> N(big, maxn=500)
    -4.6e-210

Alternatively, the ``strict=True`` option raises an exception instead.
"""


def test_a_value_by_default_is_the_parameter_a_later_sentence_names_in_its_words():
    assert distant_statements(GUIDE.split("\n")) == [(("maxn",), 8, "100", ("evalf", "maxn"))]
    loose = GUIDE.replace("To force a higher working\nprecision, the", "To go further, the")
    assert distant_statements(loose.split("\n")) == []  # no two words shared: whose value is unclear
    titled = GUIDE.replace("The lack of digits", "Accuracy\n--------\n\nThe lack of digits")
    assert distant_statements(titled.split("\n")) == []  # another section's parameter


def test_the_distant_default_is_flagged_when_it_changes(repo_factory):
    root = repo_factory({"num/__init__.py": "", "num/evalf.py": EVALF, "doc/evalf.rst": GUIDE}, date=JAN)
    (root / "num/evalf.py").write_text(EVALF.replace("strict=False", "strict=True"))
    commit(root, "strict by default", date=FEB)
    assert check_docs(repo=root).findings == ()  # the doc states no default of strict
    (root / "num/evalf.py").write_text(EVALF.replace("maxn=100", "maxn=200"))
    commit(root, "a higher cap", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("doc/evalf.rst", 8)]
    assert "`maxn` (num/evalf.py)" in found[0].message


CONVOLVE = '''def convolve(array, kernel, boundary=None, fill_value=0.0):
    """Convolve `array` with `kernel`."""
    return array, kernel, boundary, fill_value
'''

FILTERS = '''def smooth(array, width=3, boundary="wrap"):
    """Smooth `array`."""
    return array, width, boundary
'''

USING = """Convolution
===========

The :func:`~pkg.convolve.convolve` function takes an optional ``boundary=`` argument describing how to
treat the edge of the array. The values for ``boundary`` can be:

* ``None``: set the result values to zero at the edge (default).

* ``'fill'``: set values outside the array to a constant.
"""


@pytest.mark.parametrize("spoken", [False, True])  # a plain word, read where `convolve` is defined; when another doc
def test_a_value_the_code_had_before_is_found_past_lines_that_only_look_like_it(repo_factory, spoken):  # speaks of it,
    word = "boundary"  # every file holding it is searched: of the two, the one defining `convolve` is read
    index = "Edges\n=====\n\nThe boundary is filled by default.\nPass `boundary=None` for zeros.\n" if spoken else "Edges\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/convolve.py": CONVOLVE, "pkg/filters.py": FILTERS,
                         "docs/using.rst": USING, "docs/index.rst": index}, date=JAN)
    filled = CONVOLVE.replace("boundary=None", "boundary='fill'").replace("boundary", word)
    (root / "pkg/convolve.py").write_text(filled)
    commit(root, "fill the edges by default", date=FEB)
    fill = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "pkg/convolve.py").write_text(filled + f"\n\n# with {word}=None only the center is convolved\n")
    commit(root, "a note on the edges", date=MAR)
    (root / "docs/using.rst").write_text(USING.replace("boundary", word) + "\nSee the examples.\n")
    commit(root, "docs: examples", date=APR)
    for path in ("pkg/convolve.py", "pkg/filters.py"):  # both changed since the doc: both hold `boundary`
        (root / path).write_text((root / path).read_text() + "\n# tidied\n")
    commit(root, "tidy", date=MAY)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/using.rst", 7)]
    assert f"changed in {fill}" in found[0].message
    (root / "docs/using.rst").write_text(USING.replace("boundary", word).replace("``None``: set", "``'fill'``: set").replace(
        "* ``'fill'``: set values outside the array to a constant.", "* ``None``: zero at the edge."))
    commit(root, "docs: the right default", date=MAY)
    assert check_docs(repo=root).findings == ()
