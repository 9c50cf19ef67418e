"""One agent turn as a process: the prompt on stdin, stdout and stderr streamed into bounded
buffers, and the wait on the agent itself, never on its pipes.

- **Bounded output.** Of stdout the first `MAX_STDOUT_BYTES` and the last `TAIL_BYTES` are
  kept (the last lines hold `ISSUE_COMPLETE` / `BLOCKED:` and stream-json's result), with one
  marker line between them saying how many bytes were dropped; of stderr the last
  `MAX_STDERR_BYTES`. An agent printing 300 MB costs tens of MB, not a gigabyte.
- **The agent's exit ends the turn.** The agent runs in a session of its own. Once it exits,
  what is already in its pipes is read (for at most `DRAIN_SECONDS`) and the turn ends, even
  when a background child it left still holds stdout open: its `ISSUE_COMPLETE` counts.
- **Timeout and interruption.** Past `timeout` the agent's whole process group is killed (exit
  code 124, "timed out"); Ctrl-C kills it too before the interrupt goes on.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from noface_ctx.errors import UsageError

__all__ = ["DRAIN_SECONDS", "MAX_STDERR_BYTES", "MAX_STDOUT_BYTES", "TAIL_BYTES", "AgentResult", "run_agent"]

MAX_STDOUT_BYTES = 16 * 1024 * 1024  # parsed whole afterwards (stream-json: ~10x in objects)
TAIL_BYTES = 1024 * 1024
MAX_STDERR_BYTES = 64 * 1024
DRAIN_SECONDS = 2.0  # after the agent exits: the longest we keep reading what its children write
_QUIET = 0.05  # after the agent exits: a pause this long with nothing to read ends the turn
_CHUNK = 65536
TIMEOUT_CODE = 124


@dataclass(frozen=True)
class AgentResult:
    """What one turn of the agent gave: exit code, stdout and stderr (bounded), bytes dropped."""

    returncode: int
    stdout: str
    stderr: str
    dropped: int = 0  # stdout bytes between the kept head and tail


class _Capture:
    """The first `head` bytes and the last `tail` bytes of a stream, and how many fell between."""

    def __init__(self, head: int, tail: int) -> None:
        self.head, self.tail = head, tail
        self.first = bytearray()
        self.last = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.head - len(self.first)
        if room > 0:
            self.first += data[:room]
            data = data[room:]
        if not data:
            return
        self.last += data
        if len(self.last) > self.tail:
            cut = len(self.last) - self.tail
            del self.last[:cut]
            self.dropped += cut

    def text(self) -> tuple[str, int]:
        """The text kept and how many bytes were left out of it."""
        if not self.dropped:
            return (self.first + self.last).decode("utf-8", "replace"), 0
        # whole lines only on both sides of the marker (a cut stream-json event would not parse)
        end = self.first.rfind(b"\n") + 1
        head = self.first[:end].decode("utf-8", "replace")
        nl = self.last.find(b"\n")
        tail = self.last[nl + 1:] if nl >= 0 else self.last
        dropped = self.dropped + (len(self.first) - end) + (nl + 1 if nl >= 0 else 0)
        marker = f"[noface-ctx: {dropped} bytes of agent output not kept]\n"
        return head + marker + tail.decode("utf-8", "replace"), dropped


def run_agent(agent: Sequence[str], prompt: str, *, cwd: Path, timeout: float, env: Mapping[str, str],
              max_stdout: int = MAX_STDOUT_BYTES, tail: int = TAIL_BYTES) -> AgentResult:
    """Run `agent` once with `prompt` on stdin (see the module docstring)."""
    try:
        proc = subprocess.Popen(list(agent), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env={**os.environ, **env}, start_new_session=True)
    except FileNotFoundError:
        raise UsageError(f"--agent: command not found: {agent[0]}") from None
    except PermissionError:
        raise UsageError(f"--agent: not executable: {agent[0]}") from None
    out, err = _Capture(max_stdout, tail), _Capture(0, MAX_STDERR_BYTES)
    try:
        timed_out = _pump(proc, prompt.encode("utf-8", "replace"), out, err, timeout)
    except BaseException:
        _kill(proc)
        raise
    finally:
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
    stdout, dropped = out.text()
    if timed_out:
        _kill(proc)
        return AgentResult(TIMEOUT_CODE, stdout, f"timed out after {timeout:.0f}s", dropped)
    code = proc.returncode if proc.returncode is not None else TIMEOUT_CODE
    return AgentResult(code, stdout, err.text()[0], dropped)


def _pump(proc: subprocess.Popen[bytes], data: bytes, out: _Capture, err: _Capture, timeout: float) -> bool:
    """Feed stdin and read both pipes until the agent has exited and its pipes are quiet (or
    `DRAIN_SECONDS` passed since); True when `timeout` passed first."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + timeout
    sel = selectors.DefaultSelector()
    pending = memoryview(data)
    if pending:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    exited_at: float | None = None
    try:
        while True:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and (now - exited_at > DRAIN_SECONDS or not sel.get_map()):
                return False
            if now > deadline:
                return True
            if not sel.get_map():  # every pipe closed, the agent still running: wait on it alone
                try:
                    proc.wait(timeout=max(0.0, deadline - now))
                except subprocess.TimeoutExpired:
                    return True
                continue
            events = sel.select(_QUIET if exited_at is not None else min(0.5, max(0.0, deadline - now)))
            if exited_at is not None and not events:
                return False  # the agent is gone and nothing more is waiting: a lingering child is not waited for
            for key, _mask in events:
                if key.fileobj is proc.stdin:
                    pending = _feed(sel, proc, pending)
                    continue
                chunk = os.read(key.fd, _CHUNK)
                if chunk:
                    key.data.add(chunk)
                else:
                    sel.unregister(key.fileobj)
    finally:
        sel.close()


def _feed(sel: selectors.BaseSelector, proc: subprocess.Popen[bytes], pending: memoryview) -> memoryview:
    """Write what stdin takes now; close it when all is written or the agent stopped reading."""
    assert proc.stdin is not None
    try:
        written = os.write(proc.stdin.fileno(), pending[:_CHUNK])
        pending = pending[written:]
    except BlockingIOError:
        return pending
    except (BrokenPipeError, OSError):
        pending = pending[:0]
    if not pending:
        sel.unregister(proc.stdin)
        try:
            proc.stdin.close()
        except OSError:
            pass
    return pending


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the agent's process group (its children with it) and reap the agent."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
