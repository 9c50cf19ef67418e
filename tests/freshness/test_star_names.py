"""Bare lowercase names a reader knows are the repository's (issue 25, recall, held-out6): a doctest's
call of a name only its `from pkg.mod import *` binds (sympy's `mprint(I)` under `from
sympy.physics.mechanics import *`, `nsimplify(6.28, tolerance=0.01)` under `from sympy import *`),
and a literal word (``mprint``) on a page whose examples import from the module that had it. A
star import of another package binds nothing of the repository's, and a plain word is only ever
judged as a removed name no code holds."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

PRINTING = "def vprint(expr):\n    print(expr)\n\n\nmprint = vprint\n"
INIT = "from .printing import vprint, mprint\n\n__all__ = ['vprint', 'mprint']\n"


def _found(root):
    return {(f.path, f.line, f.code) for f in check_docs(repo=root).findings}


def _mechanics(docs: dict[str, str]) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/mech/__init__.py": INIT, "pkg/mech/printing.py": PRINTING, **docs}


def _remove_alias(root) -> None:
    (root / "pkg/mech/printing.py").write_text("def vprint(expr):\n    print(expr)\n")
    (root / "pkg/mech/__init__.py").write_text("from .printing import vprint\n\n__all__ = ['vprint']\n")
    commit(root, "remove the mprint alias", date=FEB)


def test_a_call_only_a_star_import_binds_is_the_modules_name(repo_factory):
    tutorial = ("Disc\n====\n\nThe inertia::\n\n  >>> from pkg.mech import *\n  >>> inertia = 3\n"
                "  >>> mprint(inertia)\n  3\n  >>> vprint(inertia)\n  3\n")
    root = repo_factory(_mechanics({"docs/disc.rst": tutorial}), date=JAN)
    assert _found(root) == set()
    _remove_alias(root)
    assert _found(root) == {("docs/disc.rst", 8, "stale-ref")}


def test_a_star_import_of_another_package_binds_nothing_of_ours(repo_factory):
    # `mprint` could be numpy's here: nothing says the repository's module had it
    tutorial = ("Disc\n====\n\n::\n\n  >>> from numpy import *\n  >>> from pkg.mech import *\n"
                "  >>> mprint(3)\n  3\n")
    root = repo_factory(_mechanics({"docs/disc.rst": tutorial}), date=JAN)
    _remove_alias(root)
    assert _found(root) == set()


def test_a_literal_word_is_a_name_of_the_module_the_page_imports_from(repo_factory):
    page = ("Printing\n========\n\nUse ``vprint`` or ``mprint`` to print, as in the ``example`` below::\n\n"
            "  >>> from pkg.mech import vprint\n  >>> vprint(3)\n  3\n")
    other = "Other\n=====\n\nA page importing nothing prints with ``mprint``.\n"
    root = repo_factory(_mechanics({"docs/printing.rst": page, "docs/other.rst": other}), date=JAN)
    assert _found(root) == set()
    _remove_alias(root)
    assert _found(root) == {("docs/printing.rst", 4, "stale-ref")}


def test_a_literal_word_still_in_the_code_is_not_judged(repo_factory):
    # the alias moved to another module the page does not import from: the word is still code
    page = ("Printing\n========\n\nUse ``mprint`` to print::\n\n  >>> from pkg.mech import vprint\n")
    root = repo_factory(_mechanics({"docs/printing.rst": page, "pkg/legacy.py": "from pkg.mech.printing import vprint\n"}),
                        date=JAN)
    (root / "pkg/legacy.py").write_text("from pkg.mech.printing import vprint\n\nmprint = vprint\n")
    _remove_alias(root)
    assert _found(root) == set()


SIMPLIFY = "def nsimplify(expr, constants=(), tolerance=None, full=False):\n    return expr\n"


def test_a_keyword_passed_to_a_star_bound_function_is_checked(repo_factory):
    # sympy's `nsimplify(6.28, [pi], tolerance=0.01)` under `from sympy import *` after `tolerance` became `tol`
    root = repo_factory({
        "pkg/__init__.py": "from .simplify import *\n", "pkg/simplify/__init__.py": "from .simplify import nsimplify\n",
        "pkg/simplify/simplify.py": SIMPLIFY,
        "pkg/core/__init__.py": "", "pkg/core/expr.py": (
            "class Expr:\n    def nsimplify(self, constants=(), tolerance=None, full=False):\n        return self\n"),
        "docs/evalf.rst": ("Evalf\n=====\n\n::\n\n    >>> from pkg import *\n\nRational forms::\n\n"
                           "    >>> nsimplify(6.28, [3.14], tolerance=0.01)\n    2*pi\n"),
    }, date=JAN)
    assert _found(root) == set()
    (root / "pkg/simplify/simplify.py").write_text(SIMPLIFY.replace("tolerance", "tol"))
    commit(root, "nsimplify: tol", date=FEB)
    assert {(p, c) for p, _, c in _found(root)} == {("docs/evalf.rst", "changed-ref")}


def test_an_automodule_is_the_module_context_of_what_follows(repo_factory):
    # sympy's numberfields.rst: `.. currentmodule:: ...minpoly`, later `.. automodule:: ...subfield`
    # then `.. autofunction:: primitive_element`, a function minpoly.py had until it moved to subfield.py
    minpoly = "def minimal_polynomial(ex):\n    return ex\n"
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/minpoly.py": minpoly + "\n\ndef primitive_element(ex):\n    return ex\n",
        "pkg/subfield.py": "def field_isomorphism(a, b):\n    return a\n",
        "docs/fields.rst": (".. currentmodule:: pkg.minpoly\n\n.. autofunction:: minimal_polynomial\n\n"
                            ".. automodule:: pkg.subfield\n\n.. autofunction:: field_isomorphism\n\n"
                            ".. autofunction:: primitive_element\n"),
    }, date=JAN)
    (root / "pkg/minpoly.py").write_text(minpoly)
    (root / "pkg/subfield.py").write_text("def field_isomorphism(a, b):\n    return a\n\n\ndef primitive_element(ex):\n"
                                          "    return ex\n")
    with (root / "docs/fields.rst").open("a") as fh:
        fh.write("\nBoth are exact.\n")
    commit(root, "move primitive_element to subfield", date=FEB)
    assert _found(root) == set()
    (root / "pkg/subfield.py").write_text("def field_isomorphism(a, b):\n    return a\n")
    commit(root, "remove primitive_element", date="2025-03-01T12:00:00+00:00")
    assert _found(root) == {("docs/fields.rst", 9, "stale-ref")}


def test_a_section_titled_by_a_lowercase_name_documents_it(repo_factory):
    # sympy's mechanics api/printing.rst: sections `mprint`, `mpprint`, each "the same as :obj:`...vprint`"
    page = ("Printing\n========\n\nmprint\n======\n\nThis function is the same as :obj:`pkg.mech.printing.vprint`.\n\n"
            "Overview\n========\n\nnothing\n-------\n\nA word title no code has.\n")
    root = repo_factory(_mechanics({"docs/api.rst": page}), date=JAN)
    assert _found(root) == set()
    _remove_alias(root)
    assert _found(root) == {("docs/api.rst", 4, "stale-ref")}
