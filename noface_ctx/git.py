"""Every `git` subprocess goes through here. NUL-separated output so odd file names survive."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterable, Iterator

# Inside a pre-commit hook git exports GIT_INDEX_FILE, GIT_DIR, ... for the outer repository;
# inheriting them would make our calls read the wrong index or repository.
_STRIP_ENV = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")

_COMMIT_MARK = "\x01"


class GitError(RuntimeError):
    pass


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _STRIP_ENV}
    env.setdefault("GIT_OPTIONAL_LOCKS", "0")
    return env


def run(root: str | Path, *args: str, check: bool = True) -> str:
    """Run `git -C root args...` and return stdout (decoded, surrogate-escaped)."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotepath=off", *args],
            capture_output=True,
            env=_env(),
        )
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if check and proc.returncode != 0:
        raise GitError(proc.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return proc.stdout.decode("utf-8", "surrogateescape")


def toplevel(path: str | Path) -> Path | None:
    """The work tree root containing `path`, or None when it is not inside a git work tree."""
    try:
        out = run(path, "rev-parse", "--show-toplevel", check=True).strip()
    except GitError:
        return None
    return Path(out) if out else None


def is_repo_root(path: str | Path) -> bool:
    top = toplevel(path)
    return top is not None and top.resolve() == Path(path).resolve()


def ls_files(root: str | Path) -> list[str]:
    """Tracked files plus untracked files that are not ignored, repo-relative, sorted."""
    out = run(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
    return sorted({p for p in out.split("\0") if p})


def deleted_files(root: str | Path) -> set[str]:
    """Tracked files missing from the work tree (ls-files --cached still lists them)."""
    out = run(root, "ls-files", "-z", "--deleted")
    return {p for p in out.split("\0") if p}


def is_shallow(root: str | Path) -> bool:
    try:
        return run(root, "rev-parse", "--is-shallow-repository").strip() == "true"
    except GitError:
        return False


def has_commits(root: str | Path) -> bool:
    return bool(run(root, "rev-parse", "--verify", "-q", "HEAD", check=False).strip())


def iter_log_files(root: str | Path, *args: str) -> Iterator[tuple[int, list[str]]]:
    """Stream `(commit_time, [paths])` newest first from one `git log --name-only` pass."""
    if not has_commits(root):
        return
    proc = subprocess.Popen(
        ["git", "-C", str(root), "-c", "core.quotepath=off", "log",
         f"--format=%x00{_COMMIT_MARK}%ct", "--name-only", "-z", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    assert proc.stdout is not None
    current: tuple[int, list[str]] | None = None
    buf = b""
    try:
        while chunk := proc.stdout.read(1 << 16):
            buf += chunk
            *tokens, buf = buf.split(b"\0")
            for raw in tokens:
                current = yield from _consume(raw, current)
        if buf:
            current = yield from _consume(buf, current)
        if current is not None:
            yield current
    finally:
        proc.stdout.close()
        proc.wait()


def _consume(raw: bytes, current: tuple[int, list[str]] | None):
    token = raw.decode("utf-8", "surrogateescape").lstrip("\n")
    if token.startswith(_COMMIT_MARK):
        if current is not None:
            yield current
        return (int(token[1:]), [])
    if token and current is not None:
        current[1].append(token)
    return current


def last_commit_times(root: str | Path, paths: Iterable[str] | None = None) -> dict[str, int]:
    """Last commit time per path, in one streamed `git log` pass (not one call per file)."""
    wanted = set(paths) if paths is not None else None
    times: dict[str, int] = {}
    for when, files in iter_log_files(root, "--no-renames", "HEAD"):
        for f in files:
            if f not in times and (wanted is None or f in wanted):
                times[f] = when
        if wanted is not None and len(times) == len(wanted):
            break
    return times
