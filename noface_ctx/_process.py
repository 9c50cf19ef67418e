"""The process around a command: its standard streams, its crash log, and how it ends."""

from __future__ import annotations

import os
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = ["in_forks", "leave", "safe_streams", "start_forked", "start_server", "write_crash_log"]


def in_forks(*calls: tuple[Callable[..., Any], tuple[Any, ...]]) -> list[Callable[[], Any]] | None:
    """Start the `(function, args)` calls in forked worker processes (one per call, all forked
    at once; a worker free first may take the next call) while the caller works on; call an
    answer's collector to wait for it (a worker that died: the call is made then, here). None
    where no process can be forked (not POSIX, a sandbox without semaphores) or other threads
    run: a fork copies the locks they hold (the MCP server, an orchestrator's workers, a model
    loading)."""
    if threading.active_count() > 1 or not calls:
        return None
    try:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=len(calls), mp_context=multiprocessing.get_context("fork"),
                                   initializer=_worker_setup, initargs=(os.getpid(),))
        futures = [pool.submit(fn, *args) for fn, args in calls]  # with fork, every worker starts at the first
    except (OSError, ValueError, RuntimeError, ImportError):
        return None
    collected: set[int] = set()

    def collector(i: int) -> Callable[[], Any]:
        def collect() -> Any:
            try:
                return futures[i].result()
            except Exception:  # a worker that died, or raised: the call made here says why
                fn, args = calls[i]
                return fn(*args)
            finally:
                collected.add(i)
                if len(collected) == len(calls):  # its threads and workers gone: the caller may fork again
                    pool.shutdown(wait=True, cancel_futures=True)
        return collect

    return [collector(i) for i in range(len(calls))]


def start_forked(fn: Callable[..., object], *args: object) -> Callable[[], None] | None:
    """Start `fn(*args)`, work whose answer is left on disk, in a forked process (no thread is
    started here, so `in_forks` can still fork after it); call the answer to wait for it (a
    child that failed: the call is made then, here). None where no process can be forked or
    other threads run (see `in_forks`)."""
    if threading.active_count() > 1:
        return None
    try:
        import multiprocessing

        child = multiprocessing.get_context("fork").Process(target=_run_as_worker, args=(os.getpid(), fn, *args),
                                                            daemon=True)
        child.start()
    except (OSError, ValueError, RuntimeError, ImportError):
        return None
    waited = False

    def wait() -> None:
        nonlocal waited
        if waited:
            return
        waited = True
        child.join()
        if child.exitcode != 0:
            fn(*args)

    return wait


def start_server(serve: Callable[..., None], *args: object,
                 keep_inherited: bool = False) -> tuple[Connection, BaseProcess] | None:
    """Start `serve(connection, *args)` in a forked worker process that answers requests on a
    pipe (`multiprocessing.connection.Connection`) until the caller's end is closed or the
    caller dies; (the caller's end, the process), or None where no process can be forked or
    other threads run (see `in_forks`). `keep_inherited`: the worker keeps the caller's
    descriptors (a short-lived one reading the caller's sqlite files: sqlite's per-process
    state, copied, names them), else it lets go of them (`_close_inherited`)."""
    if threading.active_count() > 1:
        return None
    try:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        mine, theirs = context.Pipe()
        child = context.Process(target=_serve_as_worker, args=(os.getpid(), mine, serve, theirs, keep_inherited, *args),
                                daemon=True)
        child.start()
    except (OSError, ValueError, RuntimeError, ImportError):
        return None
    theirs.close()
    return mine, child


def _serve_as_worker(parent: int, callers_end: Connection, serve: Callable[..., None], conn: Connection,
                     keep_inherited: bool, *args: Any) -> None:
    _worker_setup(parent)
    callers_end.close()  # the worker's copy of the caller's end: the caller closing its own ends the pipe
    if not keep_inherited:
        _close_inherited(keep=conn.fileno())
    serve(conn, *args)


def _close_inherited(keep: int) -> None:
    """A long-lived worker lets go of the caller's files and pipes (all but the standard streams
    and `keep`): the stdin of a `git cat-file` the caller ends, held open here, would keep it
    waiting for an end of input. The objects copied from the caller are never collected here
    (`gc.freeze`), so none closes a descriptor number this worker has used again."""
    import gc

    gc.freeze()
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2 and fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _gone_on_interrupt() -> None:
    """A child ends at once and quietly on Ctrl-C: the parent is interrupted too and says so in
    one line (a child's traceback would bury it; a child finishing its work first would keep
    the terminal waiting). Work a child leaves half done on disk is a transaction never
    committed."""
    import signal

    signal.signal(signal.SIGINT, lambda _sig, _frame: os._exit(130))


def _die_with_parent(parent: int) -> None:
    """End this worker when `parent` dies, however it dies (SIGKILL included): a worker left
    behind would block forever on its pipe and hold the caller's stdout and stderr open, so a
    pre-commit or CI wrapper waiting for them would hang. On Linux the kernel sends SIGKILL
    (`PR_SET_PDEATHSIG`); elsewhere a daemon thread polls `getppid()`. Either way a parent that
    died before this ran is noticed at once."""
    import signal

    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), name="noface-ctx-parent-watch", daemon=True).start()


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_PARENT_POLL_S = 0.5


def _watch_parent(parent: int) -> None:
    import time

    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(1)


def _worker_setup(parent: int) -> None:
    """What every forked worker does first: go quietly on Ctrl-C, die with its parent."""
    _gone_on_interrupt()
    _die_with_parent(parent)


def _run_as_worker(parent: int, fn: Callable[..., Any], *args: Any) -> None:
    _worker_setup(parent)
    fn(*args)


def leave(code: int) -> NoReturn:
    """End the process with `code`. A command leaves large caches in memory (a repository's
    words, its code index, parsed docs); freeing them one by one at shutdown costs ~0.1 s, a
    tenth of a pre-commit hook. So once the exit handlers have run and the streams are flushed,
    and no other thread is still working, the process ends without that teardown."""
    import atexit
    import threading

    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
        sys.exit(code)  # a thread still working is waited for, as usual
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said on it
            pass
    atexit._run_exitfuncs()  # what a normal exit runs first (a temp cache dir is removed there)
    os._exit(code)


def safe_streams() -> None:
    """Invalid UTF-8 on stdin becomes U+FFFD instead of a crash, and nothing we print (file
    names with undecodable bytes included) can put invalid UTF-8 on stdout/stderr."""
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "replace"), (sys.stderr, "backslashreplace")):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors=errors)
            except (ValueError, OSError):
                pass


def write_crash_log() -> str:
    """The traceback in a new file of the user cache (`crash-<time>-<pid>.log`), else a private
    mkstemp file: never a fixed shared /tmp path another user could plant or read."""
    import tempfile
    import time

    text = traceback.format_exc()
    try:
        from noface_ctx import _write_gate as write_gate
        from noface_ctx._cache_location import user_cache_base

        path = user_cache_base() / f"crash-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
        fd = write_gate.open_file(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, confine=True)
    except (OSError, RuntimeError):
        try:
            fd, name = tempfile.mkstemp(prefix="noface-ctx-crash-", suffix=".log")
            path = Path(name)
        except OSError:
            return "unavailable"
    try:
        os.write(fd, text.encode("utf-8", "backslashreplace"))
    except OSError:
        return "unavailable"
    finally:
        os.close(fd)
    return str(path)
