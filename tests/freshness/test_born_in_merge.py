"""A doc born in the merge that also brought in the removal of a name it uses: on the merged
branch, one commit removed the name and a later one wrote the doc (webargs' #62 removed `Arg` a
week before it wrote framework_support.rst with `from webargs import Arg`; both reached the first
parent in one merge). The doc was written after the removal: born stale, blamed on the branch's
commit that removed the name, however many times the doc is edited later — also when the package
only re-exported the name from its own module (`from kit.core import Arg` in `kit/__init__.py`)
and its files have moved since (a src layout). Not stale: a doc written by the very commit that
removed the name (a note written with the removal), nor a name the package took from another."""

from __future__ import annotations

from conftest import commit, git, write_tree

from noface_ctx.freshness.check import check_docs

CORE = '''"""Request arguments."""


class Arg:
    def __init__(self, kind=str):
        self.kind = kind


def parse(args, request):
    return {name: arg.kind(request[name]) for name, arg in args.items()}
'''
INIT = "from kit.core import Arg, parse\n\n__all__ = ['Arg', 'parse']\n"
GUIDE = """Framework support
=================

.. code-block:: python

    from kit import Arg, parse

    args = {"name": Arg(str)}
"""


def _history(root, *, one_commit: bool = False, outside: bool = False) -> None:
    """Work on main, a branch that removes Arg (and writes the guide, in the same commit or a
    later one), merged with --no-ff; then the package moves under src/ and the guide is edited."""
    for month in range(2, 9):
        with (root / "kit/core.py").open("a") as fh:
            fh.write(f"\n\ndef early_{month}():\n    return {month}\n")
        commit(root, f"an early helper ({month})", date=f"2015-{month:02}-01T12:00:00+00:00")
    git(root, "checkout", "-q", "-b", "fields")
    (root / "kit/core.py").write_text((root / "kit/core.py").read_text().replace(
        "class Arg:\n    def __init__(self, kind=str):\n        self.kind = kind\n", "class Field:\n    pass\n"))
    (root / "kit/__init__.py").write_text("from kit.core import Field, parse\n\n__all__ = ['Field', 'parse']\n")
    if not one_commit:
        commit(root, "fields replace Arg", date="2015-09-20T12:00:00+00:00")
        (root / "kit/core.py").open("a").write("\n\ndef port():\n    return 1\n")
        commit(root, "port the parsers", date="2015-09-22T12:00:00+00:00")
    write_tree(root, {"docs/frameworks.rst": GUIDE.replace("Arg", "JSONDecoder") if outside else GUIDE})
    commit(root, "fields replace Arg; docs" if one_commit else "docs for frameworks", date="2015-09-27T10:00:00+00:00")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge the fields branch", "fields", date="2015-09-27T12:00:00+00:00")
    (root / "src").mkdir()
    git(root, "mv", "kit", "src/kit")
    commit(root, "src layout", date="2019-01-01T12:00:00+00:00")
    for n in range(8):
        with (root / "docs/frameworks.rst").open("a") as fh:
            fh.write(f"\nA note ({n}).\n")
        commit(root, f"guide note {n}", date=f"2020-{n + 1:02}-01T12:00:00+00:00")


def _repo(repo_factory, init: str = INIT):
    return repo_factory({"kit/__init__.py": init, "kit/core.py": CORE}, date="2015-01-01T12:00:00+00:00")


def test_a_doc_written_on_a_branch_after_its_removal_is_born_stale(repo_factory):
    root = _repo(repo_factory)
    _history(root)
    assert (root / "src/kit/__init__.py").is_file()
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/frameworks.rst", 6)}
    message = got["docs/frameworks.rst", 6]
    assert "`Arg`" in message and "fields replace Arg" in message and "merged" in message


def test_a_doc_written_by_the_commit_removing_the_name_is_not_born_stale(repo_factory):
    # negative: one branch commit removed Arg and wrote the guide (its account of the change)
    root = _repo(repo_factory)
    _history(root, one_commit=True)
    assert not check_docs(repo=root).findings


def test_a_name_the_package_took_from_another_is_not_followed(repo_factory):
    # negative: `kit` re-exported the standard library's JSONDecoder until the branch dropped it, then
    # the guide was written importing it from `kit`: a name of another package, never this one's
    root = _repo(repo_factory, "from json import JSONDecoder\n" + INIT)
    _history(root, outside=True)
    assert not check_docs(repo=root).findings


def test_a_demo_script_converted_into_the_doc_defines_nothing_it_lost(repo_factory):
    # negative: the branch deletes examples/plot_make.py (a keyword on a line of its own) and then
    # writes the doc from it; a demo shows the API, it is not where `speed_factor` was defined
    root = repo_factory({"kit/__init__.py": "from kit.core import make\n", "kit/core.py": "def make(**options):\n    return options\n",
                         "examples/plot_make.py": "import kit\n\nmade = kit.make(\n    speed_factor=2,\n)\n"},
                        date="2015-01-01T12:00:00+00:00")
    for month in range(2, 9):
        (root / "kit/core.py").open("a").write(f"\n\ndef early_{month}():\n    return {month}\n")
        commit(root, f"an early helper ({month})", date=f"2015-{month:02}-01T12:00:00+00:00")
    git(root, "checkout", "-q", "-b", "gallery")
    git(root, "rm", "-q", "examples/plot_make.py")
    commit(root, "drop the gallery", date="2015-09-20T12:00:00+00:00")
    write_tree(root, {"docs/make.rst": "Make\n====\n\n.. doctest::\n\n    >>> import kit\n"
                                      "    >>> made = kit.make(\n    ...     speed_factor=2,\n    ... )\n"})
    commit(root, "the gallery's example as a doc", date="2015-09-27T10:00:00+00:00")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge the gallery branch", "gallery", date="2015-09-27T12:00:00+00:00")
    for n in range(3):
        (root / "docs/make.rst").open("a").write(f"\nA note ({n}).\n")
        commit(root, f"doc note {n}", date=f"2020-{n + 1:02}-01T12:00:00+00:00")
    assert not check_docs(repo=root).findings
