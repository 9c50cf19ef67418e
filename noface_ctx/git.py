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


# --------------------------------------------------------------------------- freshness helpers


def _iter_z(root: str | Path, args: list[str]) -> Iterator[str]:
    """Stream the NUL-separated tokens of `git -C root args...` (stderr discarded)."""
    proc = subprocess.Popen(
        ["git", "-C", str(root), "-c", "core.quotepath=off", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    assert proc.stdout is not None
    buf = b""
    try:
        while chunk := proc.stdout.read(1 << 16):
            buf += chunk
            *tokens, buf = buf.split(b"\0")
            for raw in tokens:
                yield raw.decode("utf-8", "surrogateescape")
        if buf:
            yield buf.decode("utf-8", "surrogateescape")
    finally:
        proc.stdout.close()
        proc.wait()


def last_commits(root: str | Path, paths: Iterable[str]) -> dict[str, tuple[str, int, str]]:
    """`path -> (sha, commit_time, first_parent_sha or "")` of the last commit touching each path.

    One streamed `git log --name-only` pass that stops once every path is found.
    """
    wanted = set(paths)
    found: dict[str, tuple[str, int, str]] = {}
    if not wanted:
        return found
    current: tuple[str, int, str] | None = None
    args = ["log", f"--format={_COMMIT_MARK}%H %ct %P", "--name-only", "-z", "--no-renames", "HEAD"]
    if len(wanted) <= 500:  # let git skip the rest of each commit's tree; every commit that
        # touches a path is still listed (--full-history: no merge simplification)
        args += ["--full-history", "--", *(f":(literal){p}" for p in sorted(wanted))]
    for token in _iter_z(root, args):
        token = token.lstrip("\n")
        if token.startswith(_COMMIT_MARK):
            sha, when, *parents = token[1:].split()
            current = (sha, int(when), parents[0] if parents else "")
        elif token and current is not None and token in wanted and token not in found:
            found[token] = current
            if len(found) == len(wanted):
                break
    return found


def iter_numstat(
    root: str | Path, paths: Iterable[str] | None = None, since: int | None = None
) -> Iterator[tuple[int, list[tuple[int, int, str]]]]:
    """Stream `(commit_time, [(added, deleted, path), ...])` newest first, in one `git log --numstat`.

    `paths` limits the log to those files (one call for all of them); `since` is a unix time.
    Binary changes count as 0 lines.
    """
    args = ["log", "-z", "--numstat", "--no-renames", f"--format={_COMMIT_MARK}%ct"]
    if since is not None:
        args.append(f"--since=@{int(since)}")
    args.append("HEAD")
    wanted = sorted(set(paths)) if paths is not None else None
    if wanted is not None:
        if not wanted:
            return
        args += ["--", *wanted]
    current: tuple[int, list[tuple[int, int, str]]] | None = None
    for token in _iter_z(root, args):
        token = token.lstrip("\n")
        if token.startswith(_COMMIT_MARK):
            if current is not None:
                yield current
            current = (int(token[1:]), [])
        elif token and current is not None:
            added, deleted, path = (token.split("\t", 2) + ["", ""])[:3]
            current[1].append((int(added) if added.isdigit() else 0, int(deleted) if deleted.isdigit() else 0, path))
    if current is not None:
        yield current


def grep_words(root: str | Path, revs: Iterable[str], words: Iterable[str], exclude: Iterable[str] = (),
               paths: Iterable[str] | None = None) -> dict[str, set[str]]:
    """`word -> {paths}` where each whole word occurs in any of `revs` (one `git grep` call).

    `exclude` holds pathspec patterns to skip, e.g. "*.md"; `paths`, when given, limits the
    search to those files (taken literally).
    """
    words = sorted(set(words))
    revs = [r for r in revs if r]
    if not words or not revs:
        return {}
    args = ["grep", "-z", "-o", "-w", "-F", "-I"]
    for w in words:
        args += ["-e", w]
    scope = ["."] if paths is None else [f":(literal){p}" for p in paths]
    if not scope:
        return {}
    args += [*revs, "--", *scope, *(f":(exclude){p}" for p in exclude)]
    out = run(root, *args, check=False)
    hits: dict[str, set[str]] = {}
    for line in out.splitlines():
        where, _, word = line.partition("\0")
        _rev, _, path = where.partition(":")
        if word:
            hits.setdefault(word, set()).add(path)
    return hits


def changed_files(root: str | Path, old: str, new: str = "HEAD") -> set[str] | None:
    """Paths that differ between two revisions (deleted, added or changed; renames as both
    paths), or None when git cannot tell (an unknown revision)."""
    try:
        out = run(root, "diff", "--name-only", "-z", "--no-renames", old, new)
    except GitError:
        return None
    return {p for p in out.split("\0") if p}


def head(root: str | Path) -> tuple[str | None, bool]:
    """(the commit HEAD points at or None when there is none yet, whether the clone is shallow),
    from one `git rev-parse`."""
    lines = run(root, "rev-parse", "--is-shallow-repository", "--verify", "-q", "HEAD", check=False).split()
    shallow = bool(lines) and lines[0] == "true"
    return (lines[1] if len(lines) > 1 else None), shallow


def tree_paths(root: str | Path, rev: str) -> set[str]:
    """Every file path in `rev`'s tree (empty when `rev` does not exist)."""
    out = run(root, "ls-tree", "-r", "-z", "--name-only", rev, check=False)
    return {p for p in out.split("\0") if p}


def renames_since(root: str | Path, rev: str) -> dict[str, str]:
    """`old -> new` for files renamed between `rev` and the work tree (`git diff -M`)."""
    tokens = run(root, "diff", "-M", "-z", "--name-status", rev, check=False).split("\0")
    renames: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        status = tokens[i]
        if status.startswith(("R", "C")) and i + 2 < len(tokens):
            if status.startswith("R"):
                renames[tokens[i + 1]] = tokens[i + 2]
            i += 3
        else:
            i += 2
    return renames


def diff_since(root: str | Path, rev: str, paths: Iterable[str]) -> str:
    """`git diff -U0 rev -- paths` against the work tree, as text ("" when nothing changed)."""
    paths = sorted(set(paths))
    if not paths:
        return ""
    return run(root, "diff", "-U0", "--no-color", "--no-ext-diff", rev, "--", *paths, check=False)


def dirty_files(root: str | Path) -> set[str]:
    """Tracked files whose work tree or staged content differs from HEAD (none without commits)."""
    return {p for p in run(root, "diff", "--name-only", "-z", "HEAD", check=False).split("\0") if p}


def staged_deletions(root: str | Path) -> set[str]:
    """Files deleted (or renamed away) in the index relative to HEAD: pre-commit never passes these."""
    out = run(root, "diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=D", "HEAD", check=False)
    return {p for p in out.split("\0") if p}


def start(root: str | Path, *args: str) -> subprocess.Popen[bytes]:
    """Start `git -C root args...` without waiting (stdout piped, stderr dropped), so a slow
    listing such as `ls-files --others` can run while the caller works; read `.stdout`, then `.wait()`."""
    try:
        return subprocess.Popen(
            ["git", "-C", str(root), "-c", "core.quotepath=off", *args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=_env(),
        )
    except FileNotFoundError:
        raise GitError("git is not installed") from None


def is_ignored(root: str | Path, path: str) -> bool | None:
    """Whether git ignores `path` (tracked files never are); None when `root` is not a work tree."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", "--", path],
                              capture_output=True, env=_env())
    except FileNotFoundError:
        return None
    return {0: True, 1: False}.get(proc.returncode)


def iter_history(root: str | Path, since: str | None = None) -> Iterator[tuple[str, int, str, list[tuple[str, str, str]]]]:
    """Stream `(sha, commit_time, subject, [(status, path, old_path), ...])` oldest first: one
    `git log --first-parent -m --name-status -M` pass over HEAD's mainline (only the commits
    after `since` when given). A merge lists what it changed against its first parent, so every
    version of a file on the mainline is some commit's; `old_path` is set for renames."""
    args = ["log", "--reverse", "--first-parent", "-m", "-z", "--name-status", "-M",
            f"--format={_COMMIT_MARK}%H %ct %s"]
    args += [f"{since}..HEAD" if since else "HEAD"]
    current: tuple[str, int, str, list[tuple[str, str, str]]] | None = None
    pending: list[str] = []
    for token in _iter_z(root, args):
        token = token.lstrip("\n")
        if token.startswith(_COMMIT_MARK):
            if current is not None:
                yield current
            sha, when, subject = (token[1:].split(" ", 2) + [""])[:3]
            current, pending = (sha, int(when), subject, []), []
            continue
        if current is None or not token:
            continue
        pending.append(token)
        status = pending[0]
        if status[:1] in "RC" and len(pending) == 3:
            current[3].append((status[0], pending[2], pending[1] if status[0] == "R" else ""))
            pending = []
        elif status[:1] not in "RC" and len(pending) == 2:
            current[3].append((status[:1], pending[1], ""))
            pending = []
    if current is not None:
        yield current


def is_ancestor(root: str | Path, old: str, new: str = "HEAD") -> bool:
    try:
        return subprocess.run(["git", "-C", str(root), "merge-base", "--is-ancestor", old, new],
                              capture_output=True, env=_env()).returncode == 0
    except FileNotFoundError:
        return False


class Blobs:
    """File contents at revisions (`rev:path`), read through one `git cat-file --batch` process."""

    def __init__(self, root: str | Path) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None

    def read(self, rev: str, path: str) -> str | None:
        """The text of `path` at `rev`, or None when it is not there."""
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "-C", str(self.root), "cat-file", "--batch"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(),
            )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(f"{rev}:{path}\n".encode("utf-8", "surrogateescape"))
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            return None
        data = self._proc.stdout.read(int(header[2]) + 1)[:-1]
        return data.decode("utf-8", "replace")

    def close(self) -> None:
        if self._proc is not None:
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc.wait()
            self._proc = None
