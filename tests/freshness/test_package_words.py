"""A plain lowercase word a page without examples writes as a literal (cattrs' dumping.rst: "provide an
argument to ``dumps``"): read as a public top-level name of the repository's package and judged only
as a removed name (defined in the package at the doc's last commit, nothing in the code has it now),
blamed on the removal. A word the package never had stays a word."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CONVERTERS = "class Converter:\n    def dumps(self, obj):\n        return obj\n\n    def loads(self, obj, cl):\n        return obj\n"
INIT = "from .converters import Converter\n\n_c = Converter()\ndumps = _c.dumps\n"


def _found(root):
    return {(f.path, f.line, f.code) for f in check_docs(repo=root).findings}


def _rename(root) -> None:
    (root / "pkg/converters.py").write_text(CONVERTERS.replace("dumps", "unstructure").replace("loads", "structure"))
    (root / "pkg/__init__.py").write_text(INIT.replace("dumps", "unstructure"))
    commit(root, "dumps/loads to un/structure", date=FEB)


def test_a_word_the_package_had_is_a_removed_name(repo_factory):
    page = "Dumping\n=======\n\nSimply provide an argument to ``dumps`` and ``pkg`` will produce a result.\n"
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/converters.py": CONVERTERS, "docs/dumping.rst": page,
                         "tests/__init__.py": "", "tests/test_x.py": "def test_x():\n    pass\n"}, date=JAN)
    assert _found(root) == set()
    _rename(root)
    sha = git(root, "rev-parse", "--short", "HEAD").strip()
    findings = check_docs(repo=root).findings
    assert {(f.path, f.line, f.code) for f in findings} == {("docs/dumping.rst", 4, "stale-ref")}
    assert "dumps" in findings[0].message and sha[:7] in findings[0].message, findings[0].message  # blamed on the rename


def test_a_word_the_package_never_had_stays_a_word(repo_factory):
    # ``loads`` is a method of the class, never a name of the package; ``jsonify`` no code's at all
    page = "Loading\n=======\n\nCall ``loads`` on a converter, or ``jsonify`` the result first.\n"
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/converters.py": CONVERTERS, "docs/loading.rst": page}, date=JAN)
    _rename(root)
    assert _found(root) == set()


def test_a_word_the_package_still_has_is_not_judged(repo_factory):
    page = "Dumping\n=======\n\nProvide an argument to ``dumps``.\n"
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/converters.py": CONVERTERS, "docs/dumping.rst": page}, date=JAN)
    (root / "pkg/__init__.py").write_text(INIT + "\n__all__ = ['Converter', 'dumps']\n")
    commit(root, "export list", date=FEB)
    assert _found(root) == set()


def test_a_word_kept_elsewhere_in_the_code_is_not_judged(repo_factory):
    # the alias left the package's namespace but a module still defines it: the word is still code
    page = "Dumping\n=======\n\nProvide an argument to ``dumps``.\n"
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/converters.py": CONVERTERS, "docs/dumping.rst": page}, date=JAN)
    (root / "pkg/__init__.py").write_text("from .converters import Converter\n")
    commit(root, "no module-level alias", date=FEB)
    assert _found(root) == set()
