"""`changes.changed_defaults` for many docs in a forked worker (`defaults_apart`): a first run over
a large repository reads every doc's stated defaults and the code's defaults at the docs'
commits, seconds of pure Python the run's main thread would otherwise spend while the other
core idles (django: about 2.5 s of CPU). The worker is forked before the run's searches start
their threads, reads through its own `git cat-file` and read-only sqlite connections, and sends
its findings back over a pipe in memory (nothing written). Few docs, an index in memory, no
process to fork (threads running), or a worker that failed or died: the same call is made
here, so the answer never depends on where it was made."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from noface_ctx import _git as git
from noface_ctx._process import start_server
from noface_ctx.datatypes import ChangedRef, Doc
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.removals_split import FORK_AFTER, file_of, read_only

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

Found = dict[str, list[ChangedRef]]
Plans = Sequence[tuple[Doc, Commit]]
Tree = TypeVar("Tree")  # the work tree the findings read (`changes.Worktree`)


def defaults_apart(find: Callable[[Plans, HistoryIndex, Tree, Codebase], Callable[[], Found]], plans: Plans,
                   index: HistoryIndex, tree: Tree, code: Codebase) -> Callable[[], Found] | None:
    """`find(plans, index, tree, code)` started in a forked worker where it pays (see the module
    docstring): call the answer for the findings. None where it was not forked: the caller
    makes the call itself."""
    stored = file_of(index.db)
    started = start_server(_serve, find, plans, index, tree, code, stored, code.words.stored_in(),
                           keep_inherited=True) if len(plans) >= FORK_AFTER and stored else None
    if started is None:
        return None
    conn, process = started

    def answer() -> Found:
        try:
            reply = conn.recv()
        except (EOFError, OSError):
            reply = ("died",)
        finally:
            conn.close()
            process.join()
        if reply[0] != "found":
            return find(plans, index, tree, code)()
        git.note_unread(index.root, reply[2])  # a partial clone's blobs it could not read
        return dict(reply[1])

    return answer


def _serve(conn: Connection, find: Callable[[Plans, HistoryIndex, Tree, Codebase], Callable[[], Found]], plans: Plans,
           index: HistoryIndex, tree: Tree, code: Codebase, history_file: str, words_file: str) -> None:
    """The worker: the findings, through a `git cat-file` and sqlite connections of its own
    (the caller's are never used here), sent once. Its copy of the caller's `git cat-file`
    pipes is closed first: held open here, that process would not see the caller end it."""
    index.versions.blobs.close()  # (the process is the caller's: only this copy of its pipes is closed)
    index.versions.blobs = git.Blobs(index.root)
    index.db = read_only(history_file)
    if words_file:
        code.words.read_through(read_only(words_file))
    try:
        found = find(plans, index, tree, code)()
    except Exception:  # the caller makes the same call and meets the same error itself
        conn.send(("failed",))
    else:
        conn.send(("found", found, sorted(git.unread(index.root))))
    finally:
        index.versions.blobs.close()
