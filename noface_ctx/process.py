"""The process around a command: its standard streams, its crash log, and how it ends."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import NoReturn

__all__ = ["leave", "safe_streams", "write_crash_log"]


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
        from noface_ctx.cache_location import user_cache_base

        base = user_cache_base()
        base.mkdir(parents=True, exist_ok=True)
        path = base / f"crash-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
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
