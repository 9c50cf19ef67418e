"""A doc is warned of a signature change only when it uses what changed (issue 25, held-out6
precision at sympy's pinned commit): a parameter made positional-only does not concern a doc
passing it by position; a class whose new base descends from the old one keeps its calls; a
cross-reference's parentheses call nothing; another language's syntax in a table is no Python
call; a bare call means a module's function, not a method of the same name elsewhere; a class whose
constructor sets attributes by computed names loses none."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"


def _signature_warnings(root):
    return [(f.path, f.line) for f in check_docs(repo=root).findings if f.code == "changed-ref"]


def test_a_parameter_made_positional_only_warns_only_a_doc_passing_it_by_keyword(repo_factory):
    # sympy's intro tutorial: "use ``row_del`` or ``col_del``" and ``M.row_del(1)``, when
    # row_del(self, row) became row_del(self, row, /)
    code = "class Matrix:\n    def row_del(self, row):\n        return row\n"
    root = repo_factory({
        "pkg/__init__.py": "from pkg.matrix import Matrix\n", "pkg/matrix.py": code,
        "docs/matrices.rst": ("Matrices\n========\n\nTo delete a ``row``, use ``row_del``::\n\n"
                              "    >>> M = Matrix()\n    >>> M.row_del(1)\n    1\n"),
        "docs/keyword.rst": "Keyword\n=======\n\nDelete one with ``Matrix.row_del(row=1)``.\n",
    }, date=JAN)
    (root / "pkg/matrix.py").write_text(code.replace("(self, row)", "(self, row, /)"))
    commit(root, "row_del: positional-only", date=FEB)
    assert [p for p, _ in _signature_warnings(root)] == ["docs/keyword.rst"]


def test_a_class_given_a_base_descending_from_its_old_one_keeps_its_calls(repo_factory):
    # sympy's `im(expr)`, `principal_branch(z, period)` when `class im(Function)` became
    # `class im(DefinedFunction)` with `class DefinedFunction(Function)`; a class losing a base
    # still warns a doc calling it
    code = ("class Function:\n    pass\n\n\nclass DefinedFunction(Function):\n    pass\n\n\n"
            "class Other:\n    pass\n\n\nclass im(Function):\n    pass\n\n\nclass arg(Function):\n    pass\n")
    root = repo_factory({
        "pkg/__init__.py": "from pkg.functions import im, arg\n", "pkg/functions.py": code,
        "docs/im.rst": "Parts\n=====\n\nThe imaginary part is ``im(expr)``.\n",
        "docs/arg.rst": "Arg\n===\n\nThe argument is ``arg(expr)``.\n",
    }, date=JAN)
    (root / "pkg/functions.py").write_text(
        code.replace("class im(Function)", "class im(DefinedFunction)").replace("class arg(Function)", "class arg(Other)"))
    commit(root, "im is a DefinedFunction, arg an Other", date=FEB)
    assert [p for p, _ in _signature_warnings(root)] == ["docs/arg.rst"]


def test_a_cross_references_parentheses_call_nothing(repo_factory):
    # sympy's custom-functions.md: "number theory functions like {func}`~.primepi()`" when the
    # class primepi became a function primepi(n); the guide writes `n` hundreds of lines below
    code = "class Function:\n    pass\n\n\nclass primepi(Function):\n    pass\n"
    far = "\n".join(f"Paragraph {i} says nothing." for i in range(120))
    root = repo_factory({
        "pkg/__init__.py": "from pkg.ntheory import primepi\n", "pkg/ntheory.py": code,
        "docs/custom.md": f"# Custom\n\nFunctions like {{func}}`~.primepi()` are classes.\n\n{far}\n\nWhen `n` is an integer.\n",
    }, date=JAN)
    (root / "pkg/ntheory.py").write_text("def primepi(n):\n    return n\n")
    commit(root, "primepi is a function", date=FEB)
    assert _signature_warnings(root) == []


def test_another_languages_syntax_in_a_table_is_no_python_call(repo_factory):
    # sympy's Autolev conversion table: ``Cross(a>, b>)`` beside ``cross(a, b)``
    code = "class Vector:\n    pass\n\n\nclass Cross(Vector):\n    pass\n"
    table = ("+--------------------+----------------+\n| Autolev            | SymPy          |\n"
             "+====================+================+\n| ``Cross(a>, b>)``  | ``cross(a, b)``|\n"
             "+--------------------+----------------+\n")
    root = repo_factory({
        "pkg/__init__.py": "from pkg.vector import Cross\n", "pkg/vector.py": code,
        "docs/autolev.rst": f"Autolev\n=======\n\n{table}",
    }, date=JAN)
    (root / "pkg/vector.py").write_text("class Expr:\n    pass\n\n\nclass Cross(Expr):\n    pass\n")
    commit(root, "Cross is an Expr", date=FEB)
    assert _signature_warnings(root) == []


def test_a_bare_call_means_the_modules_function_not_a_method_of_that_name(repo_factory):
    # sympy's polys basics: ``>>> sqf_list(f)`` is polytools' function, not PolyElement.sqf_list
    # in rings.py (which lost `all`, its receiver `f` now `self`); a change of the function still warns
    tools = "def sqf_list(f, *gens, **args):\n    return f\n"
    rings = "class PolyElement:\n    def sqf_list(f, all=False):\n        return f\n"
    root = repo_factory({
        "pkg/__init__.py": "from pkg.polytools import sqf_list\n", "pkg/polytools.py": tools, "pkg/rings.py": rings,
        "docs/basics.rst": "Basics\n======\n\nSquare-free factors::\n\n    >>> sqf_list(f)\n    (1, [])\n",
    }, date=JAN)
    (root / "pkg/rings.py").write_text(rings.replace("sqf_list(f, all=False)", "sqf_list(self)"))
    commit(root, "rings: no all", date=FEB)
    assert _signature_warnings(root) == []
    (root / "pkg/polytools.py").write_text(tools.replace("(f, *gens", "(f, g, *gens"))
    commit(root, "sqf_list needs g", date="2025-03-01T12:00:00+00:00")
    assert _signature_warnings(root) == [("docs/basics.rst", 6)]


def test_a_member_of_a_class_setting_attributes_by_computed_names_is_not_gone(repo_factory):
    # sympy's vector basics: ``N.i`` on ``N = CoordSys3D('N')``, whose `i` property was replaced
    # by `setattr(obj, vector_names[0], v1)` in __new__; a class whose constructor builds none
    # (a `__setstate__` restoring pickled ones) still has its removed member found
    old = ("class CoordSys3D:\n    def __init__(self, name):\n        self.name = name\n\n"
           "    @property\n    def i(self):\n        return 1\n\n\nclass Frame:\n    def __init__(self, name):\n"
           "        self.name = name\n\n    @property\n    def x(self):\n        return 1\n")
    new = ("class CoordSys3D:\n    def __init__(self, name, vector_names=('i', 'j', 'k')):\n        self.name = name\n"
           "        setattr(self, vector_names[0], 1)\n\n\nclass Frame:\n    def __init__(self, name):\n"
           "        self.name = name\n\n    def __setstate__(self, state):\n        for key, value in state.items():\n"
           "            setattr(self, key, value)\n")  # restores known attributes: builds none
    doc = ("Basics\n======\n\n::\n\n    >>> from pkg.coords import CoordSys3D, Frame\n    >>> N = CoordSys3D('N')\n"
           "    >>> N.i\n    N.i\n    >>> F = Frame('F')\n    >>> F.x\n    1\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/coords.py": old, "docs/basics.rst": doc}, date=JAN)
    (root / "pkg/coords.py").write_text(new)
    commit(root, "base vectors set by name", date=FEB)
    assert [(f.path, f.code, f.line) for f in check_docs(repo=root).findings] == [("docs/basics.rst", "stale-ref", 11)]


def test_a_class_answering_attributes_by_name_still_loses_a_removed_method(repo_factory):
    # xarray's DataArray answers its coordinates in __getattr__; its API page's
    # `DataArray.swap_dims` is still gone once the method is renamed
    code = ("class Data:\n    def __getattr__(self, name):\n        return name\n\n"
            "    def swap_dims(self, dims):\n        return dims\n")
    root = repo_factory({
        "pkg/__init__.py": "from pkg.data import Data\n", "pkg/data.py": code,
        "docs/api.rst": "API\n===\n\n.. currentmodule:: pkg\n\n.. autosummary::\n\n   Data.swap_dims\n",
    }, date=JAN)
    (root / "pkg/data.py").write_text(code.replace("swap_dims", "exchange_dims"))
    commit(root, "rename swap_dims", date=FEB)
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("docs/api.rst", "stale-ref")]


def test_a_method_directive_in_a_class_body_is_not_read_in_the_automodule(repo_factory):
    # matplotlib's cm_api.rst: `.. automodule:: matplotlib.cm`, then `.. class:: ScalarMappable`
    # whose body holds `.. automethod:: get_cmap`, after the module's own get_cmap was removed
    code = "class Mappable:\n    def get_cmap(self):\n        return None\n"
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/cm.py": code + "\n\ndef get_cmap(name):\n    return name\n",
        "docs/cm.rst": ("cm\n==\n\n.. automodule:: pkg.cm\n   :members:\n\n.. class:: Mappable()\n\n"
                        "   .. automethod:: get_cmap\n"),
    }, date=JAN)
    (root / "pkg/cm.py").write_text(code)
    commit(root, "remove cm.get_cmap", date=FEB)
    assert check_docs(repo=root).findings == ()
