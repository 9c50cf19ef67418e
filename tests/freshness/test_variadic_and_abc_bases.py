"""Signature changes no caller notices by a doc's names (issue 25, held-out10's pinned false
findings): `*args`/`**kwargs` replaced by named parameters (a caller never writes `args` or
`kwargs`), and a class whose base moved along a standard-library ABC lineage (`Mapping` →
`MutableMapping`); a base the class lost counts only when the doc writes it as code where it
names the class."""

from __future__ import annotations

from conftest import commit, write_tree

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.definitions import definition
from noface_ctx.freshness.parameters import compatible_change, parameters

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

PARSER = "class Parser:\n    def use_kwargs(self, *args, **kwargs):\n        return args\n"
NAMED = ("class Parser:\n    def use_kwargs(self, argmap, req=None, *, location=None):\n        return argmap\n")
KWARGS_DOC = ("Quickstart\n==========\n\nWhen using `Parser.use_kwargs`, missing values are omitted.\n"
              "Use ``**kwargs`` to handle optional arguments::\n\n    def view(**kwargs):\n        return kwargs\n")


def _found(root):
    return [(f.path, f.line, f.code) for f in check_docs(repo=root).findings]


def test_variadic_parameters_made_explicit_are_no_change_for_a_doc_writing_kwargs(repo_factory):
    # webargs' `use_kwargs(self, *args, **kwargs)` → `use_kwargs(self, argmap, req=None, *, location=None)`;
    # quickstart.rst names `use_kwargs` and its reader's own `**kwargs`
    root = repo_factory({"pkg/core.py": PARSER, "docs/quickstart.rst": KWARGS_DOC}, date=JAN)
    write_tree(root, {"pkg/core.py": NAMED})
    commit(root, "explicit parameters", date=FEB)
    assert _found(root) == []


def test_a_named_parameter_the_doc_names_still_counts(repo_factory):
    # negative: the doc names `location`, a real parameter renamed away
    doc = KWARGS_DOC.replace("missing values are omitted.", "pass ``location`` to choose where to read.")
    root = repo_factory({"pkg/core.py": NAMED, "docs/quickstart.rst": doc}, date=JAN)
    write_tree(root, {"pkg/core.py": NAMED.replace("location=None", "where=None")})
    commit(root, "rename location", date=FEB)
    assert _found(root) == [("docs/quickstart.rst", 4, "changed-ref")]


def test_the_abc_lineage_keeps_a_class_compatible():
    def cls(base):
        return definition(f"class MultiDictProxy({base}):\n    def __init__(self, multidict):\n        pass\n",
                          "MultiDictProxy")
    assert parameters(cls("Mapping")) == [("any", "multidict", "")]
    assert compatible_change(cls("Mapping"), cls("MutableMapping"))
    assert compatible_change(cls("collections.abc.Mapping"), cls("typing.MutableMapping[str, t.Any]"))
    assert compatible_change(cls("Iterable"), cls("Iterator"))
    assert compatible_change(cls("Dict"), cls("dict"))
    assert not compatible_change(cls("Mapping"), cls("Sequence"))  # negative: another lineage
    assert not compatible_change(cls("MutableMapping"), cls("Mapping"))  # negative: setitem lost


PROXY = "from collections.abc import Mapping\n\n\nclass MultiDictProxy(Mapping):\n    def get(self, key):\n        return key\n"
ADVANCED = ("Advanced\n========\n\nSee :class:`MultiDictProxy <pkg.proxy.MultiDictProxy>` for an example.\n\n"
            "Typing\n------\n\nAnnotate with ``typing.Mapping``.\n")


def test_a_base_moved_along_the_abc_lineage_is_no_finding(repo_factory):
    root = repo_factory({"pkg/proxy.py": PROXY, "docs/advanced.rst": ADVANCED}, date=JAN)
    write_tree(root, {"pkg/proxy.py": PROXY.replace("Mapping", "MutableMapping")})
    commit(root, "MutableMapping", date=FEB)
    assert _found(root) == []


def test_a_lost_base_counts_only_as_code_in_the_section_about_the_class(repo_factory):
    # `Mapping` → `Sequence` is a real change of lineage; the doc's `typing.Mapping` is another
    # section's example, not a use of the class's base
    root = repo_factory({"pkg/proxy.py": PROXY, "docs/advanced.rst": ADVANCED}, date=JAN)
    write_tree(root, {"pkg/proxy.py": PROXY.replace("Mapping", "Sequence")})
    commit(root, "Sequence", date=FEB)
    assert _found(root) == []
    # negative: the section about the class says it is a ``Mapping``
    write_tree(root, {"pkg/proxy.py": PROXY,
                      "docs/advanced.rst": ADVANCED.replace("for an example.", "for an example: a ``Mapping``.")})
    commit(root, "docs: a Mapping", date="2025-02-02T12:00:00+00:00")
    write_tree(root, {"pkg/proxy.py": PROXY.replace("Mapping", "Sequence")})
    commit(root, "Sequence again", date="2025-02-03T12:00:00+00:00")
    assert [(p, ln) for p, ln, _ in _found(root)] == [("docs/advanced.rst", 4)]
