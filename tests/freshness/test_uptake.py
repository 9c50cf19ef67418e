"""A doc older than a name can still be born stale for it: a rename updates the guide, then an example
written on a branch before the rename is merged into it with the old name (astropy's custom-fitter
example typed `~astropy.modeling.ParametricModel` two months after the class became `FittableModel`).
The name is looked for before the version that took it up, as before a doc's birth, and blamed on the
rename; a sentence telling the rename in prose (``pkg.core.ParamModel`` as a literal) is the doc's account."""

from __future__ import annotations

from conftest import commit, write_tree

from noface_ctx.freshness.check import check_docs

CORE = "class Base:\n    pass\n"
GUIDE = "Models\n======\n\nEvery model derives from :class:`pkg.core.Base`.\n"
EXAMPLE = '''
A fitter
--------

.. code-block:: python

    def fit(model, data):
        """Fit a model.

        model : `~pkg.core.ParamModel`
        """
        return model
'''
MEMBER = "\n.. code-block:: python\n\n    item = self.registry.ParamModel(data)\n"  # a user's object's method
ACCOUNT = "\nThe class ``pkg.core.ParamModel`` was renamed ``pkg.core.FitModel`` in 2.0.\n"


def _history(root, taken_up: str) -> None:
    """The guide (June 2023) predates ParamModel (added in 2024 with a mention, renamed FitModel with the
    guide updated, then the module changed fourteen times: more versions than its own history is read back
    for); five weeks after the rename the guide takes the old name up again, then is edited twice. Sixty
    commits: the grid's step is 8, and the uptake's grid commits 56, 48 and 32 (ParamModel's)."""
    code, day = CORE, iter(range(1, 1000))

    def step(message: str, core: str | None = None, guide: str | None = None, util: int = 0) -> None:
        write_tree(root, {**({"pkg/core.py": core} if core else {}), **({"docs/guide.rst": guide} if guide else {}),
                          **({"pkg/util.py": f"VERSION = {util}\n"} if util else {})})
        n = next(day)
        commit(root, message, date=f"2024-{1 + n // 28:02}-{1 + n % 28:02}T12:00:00+00:00")

    for n in range(1, 29):
        step(f"util ({n})", util=n)
    code += "\n\nclass ParamModel(Base):\n    n_params = 1\n"
    step("add ParamModel", code, GUIDE + "\nSee :class:`pkg.core.ParamModel`.\n")
    for n in range(9):
        code += f"\n\ndef helper_{n}():\n    return {n}\n"
        step(f"a helper ({n})", code)
    code = code.replace("ParamModel", "FitModel")
    step("Rename ParamModel to FitModel", code, GUIDE + "\nSee :class:`pkg.core.FitModel`.\n")
    for n in range(14):
        code += f"\n\ndef later_{n}():\n    return {n}\n"
        step(f"a later helper ({n})", code)
    step("util (29)", util=29)
    step("util (30)", util=30)
    guide = GUIDE + "\nSee :class:`pkg.core.FitModel`.\n" + taken_up
    step("merge the fitter example", guide=guide)
    step("docs: wording", guide=guide.replace("Every model", "Each model"))
    step("docs: more wording", guide=guide.replace("Every model", "Any model"))


def test_an_example_taking_up_a_renamed_class_is_stale(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/core.py": CORE, "docs/guide.rst": GUIDE},
                        date="2023-06-01T12:00:00+00:00")
    _history(root, EXAMPLE)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/guide.rst", 16)}, got
    assert "`pkg.core.ParamModel`" in got["docs/guide.rst", 16]
    assert "Rename ParamModel to FitModel" in got["docs/guide.rst", 16] and "FitModel`?" in got["docs/guide.rst", 16]


def test_a_literal_telling_the_rename_is_not_flagged(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/core.py": CORE, "docs/guide.rst": GUIDE},
                        date="2023-06-01T12:00:00+00:00")
    _history(root, ACCOUNT)
    assert not check_docs(repo=root).findings


def test_a_method_of_an_unknown_object_taken_up_is_not_flagged(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/core.py": CORE, "docs/guide.rst": GUIDE},
                        date="2023-06-01T12:00:00+00:00")
    _history(root, MEMBER)
    assert not check_docs(repo=root).findings
