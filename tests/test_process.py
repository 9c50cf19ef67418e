"""Work done in forked processes: the answer is the same as when done here, and a child that
fails is made up for here."""

from __future__ import annotations

import os

import pytest

from noface_ctx import _process

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forking is POSIX only")


def _note_pid(path: str, fail_in_child: int | None = None) -> None:
    if fail_in_child is not None and os.getpid() != fail_in_child:
        os._exit(3)  # the child dies before doing the work
    with open(path, "a") as f:
        f.write(f"{os.getpid()}\n")


def _square_with_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def _raise(x: int) -> int:
    if x:
        raise ValueError("no")
    return 0


def test_start_forked_does_the_work_in_another_process(tmp_path, monkeypatch):
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)  # other tests' idle threads aside
    out = tmp_path / "pids"
    wait = _process.start_forked(_note_pid, str(out))
    assert wait is not None
    wait()
    wait()  # waiting twice is waiting once
    assert out.read_text().split() != [str(os.getpid())] and len(out.read_text().split()) == 1


def test_a_failed_child_is_made_up_for_here(tmp_path, monkeypatch):
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)
    out = tmp_path / "pids"
    wait = _process.start_forked(_note_pid, str(out), os.getpid())
    assert wait is not None
    wait()
    assert out.read_text().split() == [str(os.getpid())]  # only here: the child exited first


def test_no_fork_while_other_threads_run(tmp_path, monkeypatch):
    monkeypatch.setattr(_process.threading, "active_count", lambda: 2)
    assert _process.start_forked(_note_pid, str(tmp_path / "pids")) is None
    assert _process.in_forks((_square_with_pid, (3,))) is None


def test_in_forks_answers_each_call_from_another_process(monkeypatch):
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)
    collectors = _process.in_forks((_square_with_pid, (3,)), (_square_with_pid, (4,)))
    assert collectors is not None
    (nine, pid_a), (sixteen, pid_b) = collectors[0](), collectors[1]()
    assert (nine, sixteen) == (9, 16)
    assert os.getpid() not in (pid_a, pid_b)
    raising = _process.in_forks((_raise, (1,)))
    assert raising is not None
    with pytest.raises(ValueError, match="no"):  # the call made again here says why
        raising[0]()


def _slow_in_child(path: str, parent: int) -> None:
    import time

    with open(path, "a") as f:
        f.write(f"{os.getpid()}\n")
    if os.getpid() != parent:
        time.sleep(30)


def test_a_child_ends_quietly_on_ctrl_c_and_its_work_is_made_up_for(tmp_path, monkeypatch, capfd):
    import signal
    import time

    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)
    out = tmp_path / "pids"
    wait = _process.start_forked(_slow_in_child, str(out), os.getpid())
    assert wait is not None
    for _ in range(500):
        if out.exists() and out.read_text():
            break
        time.sleep(0.01)
    child = int(out.read_text().split()[0])
    os.kill(child, signal.SIGINT)  # what Ctrl-C sends the whole process group
    started = time.monotonic()
    wait()
    assert time.monotonic() - started < 10  # not the child's 30 s of work
    assert out.read_text().split() == [str(child), str(os.getpid())]  # made up for here
    assert "Traceback" not in capfd.readouterr().err
