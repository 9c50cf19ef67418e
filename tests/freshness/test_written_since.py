"""No laundering for a dotted path (`written_since`): a module's name the doc wrote while the module
defined it stays stale after the module loses it, however many later commits edit the doc (trio's
`trio.current_default_thread_limiter()`, written in 2019, moved to `trio.to_thread` a month later, the
page edited thirty times since). A path the doc took up after the module lost the name, or a name the
module only held as a parameter, is not blamed on that removal."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.references import Reference
from noface_ctx.freshness.written_since import judged, tells_history, written_from

THREADS = '''def run_sync(fn, *args, limiter=None):
    return fn(*args)


def current_limiter():
    return None


def configure(spare_limit=3):
    return spare_limit
'''
INIT = "from ._threads import run_sync, current_limiter, configure\n"
DOC = """Threads
=======

Limiting the threads:

.. code-block:: python

   def get_limiter(user):
       global_limiter = pkg.current_limiter()
       return global_limiter

"""


def _day(i: int) -> str:
    return f"2025-{1 + i // 28:02d}-{1 + i % 28:02d}T12:00:00+00:00"


def _moved_then_edited(repo_factory, late: str = "") -> tuple[list[str], str]:
    """`current_limiter` leaves the package's top level for `pkg.to_thread` (and `configure` goes), then the
    doc and the package are edited fourteen times; `late` is added to the doc at the last edit."""
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/_threads.py": THREADS, "docs/threads.rst": DOC}, date=_day(0))
    (root / "pkg/__init__.py").write_text("from ._threads import run_sync\nfrom . import to_thread\n")
    (root / "pkg/to_thread.py").write_text("from ._threads import current_limiter\n")
    (root / "pkg/_threads.py").write_text(THREADS.split("\n\n\ndef configure")[0] + "\n")
    commit(root, "Add a to_thread module for worker threads", date=_day(1))
    moved = git(root, "rev-parse", "--short=10", "HEAD").strip()
    text = DOC
    for i in range(14):
        text += f"\nNote {i}: threads are shared.\n" + (late if i == 13 else "")
        (root / "docs/threads.rst").write_text(text)
        (root / "pkg/__init__.py").write_text(f"from ._threads import run_sync\nfrom . import to_thread\nVERSION = {i}\n")
        commit(root, f"docs: note {i}", date=_day(2 + i))
    return check_docs(repo=root).lines(), moved


def test_a_path_written_while_its_module_defined_the_name_is_stale_after_many_edits(repo_factory):
    got, moved = _moved_then_edited(repo_factory)
    assert [line.split(" (moved to")[0] for line in got] == [
        f"docs/threads.rst:9: stale-ref: references `pkg.current_limiter()` which no longer exists, removed in {moved} "
        "(2025-01-02, \"Add a to_thread module for worker threads\")"], got


def test_a_path_taken_up_after_the_removal_or_only_a_parameter_is_not_blamed_on_it(repo_factory):
    late = "\n.. code-block:: python\n\n   pkg.never_was()\n   pkg.spare_limit\n"
    got, _moved = _moved_then_edited(repo_factory, late)
    assert not any("never_was" in line or "spare_limit" in line for line in got), got
    assert any("pkg.current_limiter()" in line for line in got), got


def test_a_paragraph_telling_the_names_history_or_a_version_note_is_not_judged(repo_factory):
    history = ("\nUsers familiar with older versions will wonder what happened to\n``pkg.current_limiter``: see\n"
               "``pkg.to_thread``.\n\n.. deprecated:: 1.7\n\n   Until 1.6, ``pkg.configure`` set this up.\n")
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/_threads.py": THREADS,
                         "docs/threads.rst": DOC.replace("       global_limiter = pkg.current_limiter()\n", "") + history},
                        date=_day(0))
    (root / "pkg/__init__.py").write_text("from ._threads import run_sync\nfrom . import to_thread\n")
    (root / "pkg/to_thread.py").write_text("from ._threads import current_limiter\n")
    commit(root, "Add a to_thread module for worker threads", date=_day(1))
    for i in range(14):
        with (root / "docs/threads.rst").open("a") as fh:
            fh.write(f"\nNote {i}: threads are shared.\n")
        (root / "pkg/__init__.py").write_text(f"from ._threads import run_sync\nfrom . import to_thread\nVERSION = {i}\n")
        commit(root, f"docs: note {i}", date=_day(2 + i))
    assert check_docs(repo=root).lines() == []
    lines = ["Intro.", "", "It used to be", "``pkg.a``.", "", "Call ``pkg.b``."]
    assert tells_history(lines, 4) and not tells_history(lines, 6) and not tells_history(lines, 9)


def test_the_doc_version_that_wrote_a_path_and_which_paths_are_judged(repo_factory):
    root = repo_factory({"pkg/__init__.py": INIT, "docs/a.rst": "intro\n"}, date=_day(0))
    for i, text in enumerate(["intro\npkg.current_limiter()\n", "intro\npkg.current_limiter()\nmore\n", "x\npkg.current_limiter()\n"]):
        (root / "docs/a.rst").write_text(text)
        commit(root, f"edit {i}", date=_day(1 + i))
    index = HistoryIndex(root, None)
    index.update(git(root, "rev-parse", "HEAD").strip())
    last = index.last_touch("docs/a.rst")
    assert last is not None
    versions = index.earlier("docs/a.rst", last.seq)
    assert written_from(index, "docs/a.rst", last, "pkg.current_limiter", versions).subject == "edit 0"
    assert written_from(index, "docs/a.rst", last, "pkg.other", versions) == last
    index.close()
    scope = ("pkg/__init__.py", "pkg/current_limiter.py")
    assert judged(Reference("pkg.current_limiter()", "pkg.current_limiter", "method", 2), "current_limiter", scope)
    assert not judged(Reference("pkg.Limiter.acquire", "pkg.Limiter.acquire", "method", 2), "acquire", ("pkg/_t.py",))
    assert not judged(Reference("docs/a.rst", "docs/a.rst", "path", 2), "docs/a.rst", ())
    assert not judged(Reference("current_limiter", "current_limiter", "symbol", 2), "current_limiter", ())
