"""A method called on a class's instance made in the same expression (`Spec("x").is_empty()`,
the commonest doctest shape for a method: held-out12, packaging's
`SpecifierSet(">=2.0,<1.0").is_unsatisfiable()`) is a reference to the method, as
`s = Spec("x"); s.is_empty()` is."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.examples import example_refs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

SPEC = ("class Spec:\n    def __init__(self, text):\n        self.text = text\n\n"
        "    def is_empty(self):\n        return not self.text\n\n    @property\n    def size(self):\n        return 1\n\n\n"
        "def make_spec(text):\n    return Spec(text)\n")
DOCS = {
    "pkg/__init__.py": "from pkg.spec import Spec, make_spec\n",
    "docs/doctest.rst": "Specs\n=====\n\n    >>> from pkg import Spec\n    >>> Spec(\"a,b\").is_empty()\n    False\n",
    "docs/attr.md": "# Size\n\n```python\nfrom pkg import Spec\nprint(Spec(\"x\").size + 1)\n```\n",
    "docs/others.md": ("# Others\n\n```python\nimport json\nfrom pkg import make_spec\njson.loads(\"{}\").get(\"is_empty\")\n"
                       "make_spec(\"x\").is_empty()\n```\n"),
}


def _flagged(root):
    return {f.path: f.message for f in check_docs(repo=root).findings}


def test_a_method_renamed_on_an_instance_made_in_the_expression_is_flagged(repo_factory):
    root = repo_factory({"pkg/spec.py": SPEC, **DOCS}, date=JAN)
    assert _flagged(root) == {}  # while it exists: nothing
    (root / "pkg/spec.py").write_text(SPEC.replace("def is_empty", "def is_void").replace("def size", "def length"))
    commit(root, "is_empty is is_void, size is length", date=FEB)
    found = _flagged(root)
    # a function's result (`make_spec(...)`, its type unknown) and an external call's (`json.loads`) give nothing
    assert sorted(found) == ["docs/attr.md", "docs/doctest.rst"]
    assert "`Spec(...).is_empty()`" in found["docs/doctest.rst"] and "`Spec.is_void`" in found["docs/doctest.rst"]
    assert "`Spec(...).size`" in found["docs/attr.md"]


def test_only_the_first_link_of_a_chain_and_only_a_class_made():
    block = [(1, "Spec(a).first().second()"), (2, "spec_of(a).first()"), (3, "Spec(a)"), (4, "xr.Dataset(d).to_netcdf(p)")]
    refs = [(r.ref, r.name) for r in example_refs(block, "python", set(), {}, {"xr": "xarray"}) if r.kind == "method"]
    assert ("Spec(...).first()", "Spec.first") in refs and ("Dataset(...).to_netcdf()", "Dataset.to_netcdf") not in refs
    assert ("xr.Dataset(...).to_netcdf()", "xarray.Dataset.to_netcdf") in refs
    assert not any(name.endswith((".second", "spec_of.first")) for _, name in refs)
