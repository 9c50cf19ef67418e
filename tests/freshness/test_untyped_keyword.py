"""A keyword renamed where the doc's receiver has no type (issue 25): `ax.view_init(elev=30, azim=45)` after
`ax = plt.figure().add_subplot(projection='3d')` is a call of the one `view_init` the repository defines; and a
signature a page writes after a span, the Python docs' way (`` `axes3d.Axes3D` (fig[, rect, elev, azim, ...]) ``)."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.references import Reference, signature_after

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

AXES = '''class Axes3D:
    """3D Axes."""

    def __init__(self, fig, rect=None, *args, elev=30, azim=-60, roll=0, **kwargs):
        self.fig = fig
        self.view_init(elev, azim, roll)

    def view_init(self, elev=None, azim=None, roll=None, vertical_axis="z"):
        """Set the view angles."""
        self.elev, self.azim, self.roll = elev, azim, roll
'''

ANGLES = """View angles
===========

All three angles can be set programmatically::

    import mpl.pyplot as plt
    ax = plt.figure().add_subplot(projection='3d')
    ax.view_init(elev=30, azim=45, roll=15)
"""

API = """mplot3d API
===========

.. currentmodule:: mpl.toolkits

`axes3d.Axes3D` (fig[, rect, elev, azim, roll, ...])    3D Axes object.
"""


def _rename_azim(root):
    (root / "mpl/toolkits/axes3d.py").write_text(AXES.replace("azim", "azimuth"))
    commit(root, "Spell out azim", date=FEB)


def _repo(repo_factory, extra=None):
    files = {"mpl/__init__.py": "", "mpl/pyplot.py": "def figure():\n    return None\n",
             "mpl/toolkits/__init__.py": "", "mpl/toolkits/axes3d.py": AXES,
             "doc/view_angles.rst": ANGLES, "doc/api.rst": API, **(extra or {})}
    return repo_factory(files, date=JAN)


def test_a_keyword_renamed_in_the_one_method_an_untyped_receiver_calls_is_flagged(repo_factory):
    root = _repo(repo_factory)
    assert check_docs(repo=root).findings == ()
    _rename_azim(root)
    found = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(found) == {("doc/view_angles.rst", 8), ("doc/api.rst", 6)}
    assert found["doc/view_angles.rst", 8].startswith("passes `azim` to `ax.view_init()`, which no longer takes it")
    assert found["doc/api.rst", 6].startswith("passes `azim` to `axes3d.Axes3D(fig, rect=..., elev=..., azim=..., roll=...)`")
    assert found["doc/api.rst", 6].endswith("(renamed to `azimuth`?)")  # the parameter in its place now


def test_a_method_defined_in_two_files_is_not_read_as_either(repo_factory):
    other = "class Camera:\n    def view_init(self, elev=None, azim=None):\n        return elev, azim\n"
    root = _repo(repo_factory, {"mpl/camera.py": other})
    _rename_azim(root)
    assert [f.path for f in check_docs(repo=root).findings] == ["doc/api.rst"]  # which view_init: unknown


def test_parameters_written_after_a_span_are_a_signature_only_when_they_read_as_one():
    ref = Reference("axes3d.Axes3D", "axes3d.Axes3D", "method", 6)
    assert signature_after(ref, " (fig[, rect, elev, ...])    3D Axes object.").ref == "axes3d.Axes3D(fig, rect=..., elev=...)"
    assert signature_after(ref, " (see below)").ref == "axes3d.Axes3D"  # prose
    assert signature_after(ref, " (fig)").ref == "axes3d.Axes3D"  # one word: a remark as well as a parameter
    assert signature_after(ref, " is the class (fig, rect)").ref == "axes3d.Axes3D"  # not right after the span
