"""Issue 24: a SIGKILLed command leaves no forked worker behind holding the caller's pipes (a
pre-commit or CI wrapper would wait for them forever)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import noface_ctx

PACKAGE_ROOT = Path(noface_ctx.__file__).resolve().parents[1]

# Busy workers (sleeping), an idle pool worker blocked on its queue after answering, and a
# `start_forked` child; the parent prints their pids and waits to be killed.
_PROGRAM = """
import multiprocessing, sys, time
if {fallback}:
    sys.platform = "darwin"  # as on a system without prctl: the getppid() watch must do it
from noface_ctx._process import in_forks, start_forked
child = start_forked(time.sleep, 120)  # first: `in_forks` starts the pool's thread, after which nothing forks
busy = in_forks((time.sleep, (120,)), (abs, (1,)))
assert child is not None and busy is not None
time.sleep(0.5)
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")  # a zombie no one reaps here has let go of everything


@pytest.mark.skipif(sys.platform == "win32", reason="fork only")
@pytest.mark.parametrize("fallback", [False, True], ids=["pdeathsig", "getppid-watch"])
def test_workers_die_with_a_killed_parent_and_release_its_stdout(tmp_path, fallback):
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _PROGRAM.format(fallback=fallback)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    pids = [int(p) for p in line.split()]
    assert len(pids) >= 3, line  # two pool workers and the start_forked child
    assert all(_alive(p) for p in pids)

    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    closed = threading.Event()

    def drain() -> None:
        proc.stdout.read()  # returns only when every holder of the pipe is gone
        closed.set()

    threading.Thread(target=drain, daemon=True).start()
    released = closed.wait(5)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if _alive(p)]
    for p in left:  # never leave them behind on a failure
        os.kill(p, signal.SIGKILL)
    assert released, "a worker still held the caller's stdout 5 s after its parent was killed"
    assert left == []
