"""A move suggestion names a definition the way its users import it: through the nearest public
package that re-exports it, never a private module (`anyio.Event`, not
`anyio._core._synchronization.Event`), and the private module only when nothing public does."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.public_names import private, public_name

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

EVENT = "class Event:\n    def set(self):\n        return None\n"
FILES = {
    "pkg/__init__.py": "from pkg.tools import Event as Event\n",
    "pkg/tools.py": EVENT + "\n\ndef helper():\n    return 1\n",
    "pkg/_core/__init__.py": "",
    "pkg/_core/_sync.py": "def lock():\n    return 1\n",
    "docs/events.rst": "Events\n======\n\nCreate a :class:`pkg.tools.Event` and set it.\n",
}


def _move(root, reexport: str) -> dict[tuple[str, int], str]:
    (root / "pkg/tools.py").write_text("def helper():\n    return 1\n")
    (root / "pkg/_core/_sync.py").write_text("def lock():\n    return 1\n\n\n" + EVENT)
    (root / "pkg/__init__.py").write_text(reexport)
    commit(root, "Event moves to the private core", date=FEB)
    return {(f.path, f.line): f.message for f in check_docs(repo=root).findings}


def test_a_move_into_a_private_module_suggests_the_public_reexport(repo_factory):
    root = repo_factory(FILES, date=JAN)
    assert not check_docs(repo=root).findings
    got = _move(root, "from pkg._core._sync import Event as Event\n")
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert list(got) == [("docs/events.rst", 4)]
    message = got["docs/events.rst", 4]
    assert sha in message and "moved to `pkg.Event`" in message and "_core" not in message


def test_without_a_public_reexport_the_private_module_is_named(repo_factory):
    root = repo_factory(FILES, date=JAN)
    got = _move(root, "")
    assert list(got) == [("docs/events.rst", 4)]
    assert "moved to `pkg._core._sync.Event`" in got["docs/events.rst", 4]


def test_public_name_climbs_past_private_packages_only():
    paths = {"pkg/__init__.py", "pkg/_core/__init__.py", "pkg/_core/_sync.py", "pkg/metrics/__init__.py",
             "pkg/metrics/_ranking.py", "src/lib2/__init__.py", "src/lib2/api.py"}

    def defines(reexports):
        return lambda path, name: (path, name) in reexports

    # the private package re-exports it too: the public one above it is still the name users import
    both = defines({("pkg/_core/__init__.py", "Event"), ("pkg/__init__.py", "Event")})
    assert public_name("pkg/_core/_sync.py", "Event", paths, both) == "pkg.Event"
    assert public_name("pkg/_core/_sync.py", "Event", paths, defines(set())) == "pkg._core._sync.Event"
    ranking = defines({("pkg/metrics/__init__.py", "roc_curve"), ("pkg/__init__.py", "roc_curve")})
    assert public_name("pkg/metrics/_ranking.py", "roc_curve", paths, ranking) == "pkg.metrics.roc_curve"
    assert public_name("src/lib2/api.py", "run", paths, defines({("src/lib2/__init__.py", "run")})) == "lib2.api.run"
    assert private("pkg/_core/_sync.py") and not private("pkg/__main__.py") and not private("pkg/__init__.py")


def test_a_private_top_level_package_is_named_through_the_public_one_importing_from_it(repo_factory):
    # pytest's way: `_pytest/outcomes.py` defines `skip`, `pytest/__init__.py` imports it from there
    files = {"_pkg/__init__.py": "", "_pkg/old.py": EVENT, "_pkg/core.py": "def lock():\n    return 1\n",
             "pkg/__init__.py": "from _pkg.old import Event\n",
             "docs/events.rst": "Events\n======\n\nCreate a :class:`_pkg.old.Event` and set it.\n"}
    root = repo_factory(files, date=JAN)
    assert not check_docs(repo=root).findings
    (root / "_pkg/old.py").write_text("")
    (root / "_pkg/core.py").write_text("def lock():\n    return 1\n\n\n" + EVENT)
    (root / "pkg/__init__.py").write_text("from _pkg.core import Event\n")
    commit(root, "Event moves to the core", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert list(got) == [("docs/events.rst", 4)] and "moved to `pkg.Event`" in got["docs/events.rst", 4]
