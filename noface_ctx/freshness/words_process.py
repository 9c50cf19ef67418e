"""`version_words.VersionWords` in a process of its own (`WordsProcess`).

A first run over a large repository reads thousands of blobs for its searches and splits them
into words (django: 16,000 blobs, about 3 s of CPU). In a thread that work holds the
interpreter lock the run's own steps need (`changes.changed_symbols` runs meanwhile), so only
one core works; in a forked worker it has the other core. The worker answers `grep_many` over a
pipe: the asks and answers (lists, sets and dicts of strings) are sent in memory, never written
anywhere, and what it read is kept there for the run's next search. It is forked before the
search starts its threads (`start`); where no process can be forked (other threads run, not
POSIX), or the worker failed or died, the search is answered here by the same code, so the
answer never depends on where it was made.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from noface_ctx import _git as git
from noface_ctx._process import start_server
from noface_ctx.freshness.version_words import Ask, Hits, VersionWords

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

_STOP_WAIT_S = 2.0  # how long the end of a run waits for the worker to go before killing it
WORKERS = 2  # each reads the blobs of its share (`version_words.share`): while the run waits, both cores work


class WordsProcess:
    """`VersionWords(root)`'s `grep_many` and `close`, answered by a forked worker once `start`
    has forked it, else here. Safe to share between threads: one search asks at a time."""

    def __init__(self, root: str | Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._here: VersionWords | None = None  # the reader of this process, made when first needed
        self._conns: list[Connection] = []  # one per worker, the k-th reading share k of `WORKERS`
        self._tried = False
        self._pid = os.getpid()  # a process forked from this one never asks this one's worker

    @property
    def forked(self) -> bool:
        """Whether the workers answer (started, and none failed)."""
        return bool(self._conns)

    def start(self) -> None:
        """Fork the workers, once a run, before the caller starts threads (a fork copies the
        locks they hold); none when one cannot be forked (the searches are answered here)."""
        with self._lock:
            if self._tried or os.getpid() != self._pid:
                return
            self._tried = True
            for share in range(WORKERS):
                started = start_server(_serve, self.root, share)
                if started is None:
                    self._conns = []  # (those started end with their pipes)
                    return
                self._conns.append(started[0])
                weakref.finalize(self, _stop, *started)

    def grep_many(self, asks: Sequence[Ask], exclude: Sequence[str] = ()) -> list[Hits]:
        """`VersionWords.grep_many(asks, exclude)`: the workers' answers joined, or this process's."""
        asks = [(sha, set(words), list(paths) if paths is not None else None) for sha, words, paths in asks]
        with self._lock:
            if self._conns and asks and os.getpid() == self._pid:
                try:
                    for conn in self._conns:
                        conn.send(("grep", asks, tuple(exclude)))
                    replies = [conn.recv() for conn in self._conns]
                except (OSError, EOFError, ValueError):  # a worker died: answered here from now on
                    self._conns = []
                else:
                    if all(reply[0] == "found" for reply in replies):
                        out: list[Hits] = [{} for _ in asks]
                        for reply in replies:
                            git.note_unread(self.root, reply[2])  # a partial clone's blobs it could not read
                            for hits, found in zip(out, reply[1], strict=True):
                                for word, paths in found.items():
                                    hits.setdefault(word, set()).update(paths)
                        return out
            return self._reader().grep_many(asks, exclude)  # a worker failed: the same call, here

    def close(self) -> None:
        """End the `git cat-file` processes reading the blobs (the workers' or this one's); what
        was read is kept, the workers stay for the next search."""
        with self._lock:
            if self._conns and os.getpid() == self._pid:
                try:
                    for conn in self._conns:
                        conn.send(("close",))
                except (OSError, ValueError):
                    self._conns = []
            if self._here is not None:
                self._here.close()

    def _reader(self) -> VersionWords:
        if self._here is None:
            self._here = VersionWords(self.root)
        return self._here


def _serve(conn: Connection, root: str | Path, share: int) -> None:
    """The worker: answer each request, for the blobs of its `share`, until the caller's end closes."""
    reader = VersionWords(root)
    try:
        while True:
            try:
                request = conn.recv()
            except (EOFError, OSError):
                return
            if request[0] == "close":
                reader.close()
                continue
            if request[0] != "grep":
                return
            try:
                found = reader.grep_many(request[1], request[2], (share, WORKERS))
            except Exception:  # the caller makes the same call and meets the same error itself
                conn.send(("failed",))
                continue
            conn.send(("found", found, sorted(git.unread(root))))
    finally:
        reader.close()


def _stop(conn: Connection, process: BaseProcess) -> None:
    """End the worker: its pipe closed, it ends its `git cat-file` and exits (killed when it
    does not within `_STOP_WAIT_S`)."""
    try:
        conn.close()
    except OSError:
        pass
    process.join(_STOP_WAIT_S)
    if process.is_alive():
        process.kill()
        process.join()
