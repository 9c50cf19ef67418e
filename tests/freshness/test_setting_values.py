"""A setting's value a doc writes that the setting no longer accepts (issue 25, real history): matplotlib's
view_angles.rst kept "(``mouserotationstyle: Shoemake``)" when the setting's values became azel, trackball,
sphere, arcball; stale whatever the doc's last commit, blamed on the commit that took the value out."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.setting_values import accepted, stated_values

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"

RCSETUP = '''_validators = {
    "axes3d.mouserotationstyle": ["azel", "trackball", "arcball", "Shoemake"],
    "axes3d.trackballsize": validate_float,
}
'''

DOC = """Rotation with the mouse
=======================

The style is set by :rc:`axes3d.mouserotationstyle`. In its simplest form (``mouserotationstyle: trackball``),
the trackball rotates around an in-plane axis.

Ken Shoemake's ARCBALL is also available (``mouserotationstyle: Shoemake``).
"""


def test_the_values_a_setting_accepts_are_its_literal_list():
    assert accepted(RCSETUP, "mouserotationstyle") == ("azel", "trackball", "arcball", "Shoemake")
    param = '_Param(\n    "axes3d.mouserotationstyle",\n    default="arcball",\n    validator=["azel", "arcball"],\n)\n'
    assert accepted(param, "axes3d.mouserotationstyle") == ("azel", "arcball")
    assert accepted(RCSETUP, "trackballsize") is None  # a function validates it: no list
    assert stated_values(DOC) == [("mouserotationstyle", "trackball", 4), ("mouserotationstyle", "Shoemake", 7)]


def test_a_value_the_setting_no_longer_accepts_is_stale_whatever_the_doc_last_commit(repo_factory):
    root = repo_factory({"mpl/__init__.py": "", "mpl/rcsetup.py": RCSETUP, "doc/view_angles.rst": DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "mpl/rcsetup.py").write_text(RCSETUP.replace('"arcball", "Shoemake"', '"sphere", "arcball"'))
    commit(root, "rename arcball to sphere, Shoemake to arcball", date=FEB)
    renamed = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "doc/view_angles.rst").write_text(DOC.replace("In its simplest", "In the simplest"))
    commit(root, "doc: wording", date=MAR)  # edited after the rename, the literal kept
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("doc/view_angles.rst", 7)]
    assert found[0].message.startswith("`mouserotationstyle: Shoemake`: not a value the setting accepts (mpl/rcsetup.py)")
    assert f"taken out in {renamed}" in found[0].message


def test_a_value_never_accepted_is_no_finding(repo_factory):
    doc = DOC.replace("mouserotationstyle: Shoemake", "mouserotationstyle: Bell")  # never one of its values
    root = repo_factory({"mpl/__init__.py": "", "mpl/rcsetup.py": RCSETUP, "doc/view_angles.rst": doc}, date=JAN)
    assert check_docs(repo=root).findings == ()
