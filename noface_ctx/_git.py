"""Every `git` subprocess goes through here. NUL-separated output so odd file names survive.

A repository handed over as a directory brings its own `.git/config`, and git runs programs that
config names even for read-only commands: `core.fsmonitor` (ls-files, diff), clean/smudge filters
(`filter.*`, when diff hashes a work-tree file), `diff.*.textconv` and `diff.external` (diffs),
`gpg.program` (log with `log.showSignature`), `core.sshCommand` and remote helpers (the lazy
fetch of a partial clone). `argv` turns every one of them off on the command line, which wins
over every config file: no command here runs a program the repository chose.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from noface_ctx._state import Memo, memo
from noface_ctx.errors import NofaceError

# Inside a pre-commit hook git exports GIT_INDEX_FILE, GIT_DIR, ... for the outer repository;
# inheriting them would make our calls read the wrong index or repository.
_STRIP_ENV = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")

_COMMIT_MARK = "\x01"


class GitError(NofaceError):
    """A git command failed, or git is not installed (the CLI exits 2 with the message)."""


# `-c` settings that keep a read-only command from running anything a config file names.
_SAFE_CONFIG = (
    "core.quotepath=off",
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "protocol.allow=never",  # no transport at all: a partial clone's lazy fetch fails instead
    "credential.helper=",
    "log.showSignature=false",
    "gpg.program=false", "gpg.ssh.program=false", "gpg.x509.program=false",
    # not a safety setting: a grep of a commit's blobs reads them under one lock, so a thread per core cost
    "grep.threads=1",  # django's cold check-docs 12 % more grep CPU, and no time where two greps already run
)
# subcommand -> options that keep it from running diff drivers or text conversions
_SAFE_OPTIONS = {"diff": ("--no-ext-diff", "--no-textconv"), "log": ("--no-ext-diff", "--no-textconv"),
                 "show": ("--no-ext-diff", "--no-textconv"), "grep": ("--no-textconv",)}
_FILTER_KEYS = ("clean", "smudge", "process")


def env() -> dict[str, str]:
    """The environment of every git call: none of an outer hook's GIT_DIR & co., no optional
    locks (a read never rewrites the index), no lazy fetch (git >= 2.44), no prompt."""
    out = {k: v for k, v in os.environ.items() if k not in _STRIP_ENV}
    out.setdefault("GIT_OPTIONAL_LOCKS", "0")
    out["GIT_NO_LAZY_FETCH"] = "1"
    out["GIT_TERMINAL_PROMPT"] = "0"
    return out


_env = env


def argv(root: str | Path, *args: str) -> list[str]:
    """`git -C root` with every program-running setting turned off (`_SAFE_CONFIG`, the
    repository's filter drivers emptied), then `args`, with `_SAFE_OPTIONS` after a subcommand."""
    safe = [f for setting in (*_SAFE_CONFIG, *_filter_overrides(root)) for f in ("-c", setting)]
    if args and args[0] in _SAFE_OPTIONS:
        args = (args[0], *_SAFE_OPTIONS[args[0]], *args[1:])
    return ["git", "--no-pager", "-C", str(root), *safe, *args]


# (root, .git/config's stat) -> the `-c` settings that empty the filter drivers its config defines
_FILTERS: Memo[tuple[str, tuple[int, int]], tuple[str, ...]] = memo("git.filter_drivers", maxsize=32)


def _filter_overrides(root: str | Path) -> tuple[str, ...]:
    """Filter drivers (`filter.NAME.clean` / `smudge` / `process`) defined in any config git
    reads for `root`, emptied and made optional: `git diff` against the work tree would run them
    on files `.gitattributes` marks. Read once per repository while its `.git/config` is unchanged."""
    try:
        st = os.stat(os.path.join(root, ".git", "config"))
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = (0, 0)
    key = (str(root), stamp)
    known = _FILTERS.get(key)
    if known is not None:
        return known
    try:
        proc = subprocess.run(
            ["git", "--no-pager", "-C", str(root), *(f for s in _SAFE_CONFIG for f in ("-c", s)),
             "config", "-z", "--name-only", "--get-regexp", r"^filter\..+\.(clean|smudge|process)$"],
            capture_output=True, stdin=subprocess.DEVNULL, env=env(),
        )
        names = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    except OSError:
        names = []
    drivers = sorted({n[len("filter."):n.rfind(".")] for n in names if n.startswith("filter.") and n.count(".") >= 2})
    found = tuple(f"filter.{d}.{k}=" for d in drivers for k in _FILTER_KEYS) + tuple(
        f"filter.{d}.required=false" for d in drivers)
    return _FILTERS.put(key, found)


def run(root: str | Path, *args: str, check: bool = True) -> str:
    """Run `git -C root args...` and return stdout (decoded, surrogate-escaped)."""
    try:
        proc = subprocess.run(argv(root, *args), capture_output=True, env=_env())
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if check and proc.returncode != 0:
        raise GitError(proc.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return proc.stdout.decode("utf-8", "surrogateescape")


def write_behind(stdin: IO[bytes], requests: bytes) -> threading.Thread:
    """Write `requests` to a batch's stdin from a started thread (join it after reading the answers)."""
    def write() -> None:
        try:
            stdin.write(requests)
            stdin.flush()
        except (OSError, ValueError):  # git went away: the answers read meanwhile end
            pass
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def toplevel(path: str | Path) -> Path | None:
    """The work tree root containing `path`, or None when it is not inside a git work tree."""
    try:
        out = run(path, "rev-parse", "--show-toplevel", check=True).strip()
    except GitError:
        return None
    return Path(out) if out else None


def ls_files(root: str | Path) -> list[str]:
    """Tracked files plus untracked files that are not ignored, repo-relative, sorted."""
    out = run(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
    return sorted({p for p in out.split("\0") if p})


def _iter_z(root: str | Path, args: list[str], errors: list[str] | None = None) -> Iterator[str]:
    """Stream the NUL-separated tokens of `git -C root args...`; when git fails, the first line
    it wrote on stderr is appended to `errors` (stderr is discarded without it)."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            argv(root, *args),
            stdout=subprocess.PIPE,
            stderr=err if errors is not None else subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
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
            if errors is not None and proc.wait() != 0:
                err.seek(0)
                said = [ln.strip() for ln in err.read(4096).decode("utf-8", "replace").splitlines() if ln.strip()]
                errors.append(next((ln for ln in said if ln.startswith(("fatal", "error"))), said[0] if said else
                                   f"git {args[0]} exited with {proc.returncode}")[:200])
        finally:
            proc.stdout.close()
            proc.wait()


def grep_words(root: str | Path, revs: Iterable[str], words: Iterable[str], exclude: Iterable[str] = (),
               paths: Iterable[str] | None = None) -> dict[str, set[str]]:
    """`word -> {paths}` where each whole word occurs in any of `revs`.

    `exclude` holds pathspec patterns to skip, e.g. "*.md"; `paths`, when given, limits the
    search to those files (taken literally). Identifiers are searched as one alternation
    (`-E`): git tries each `-e` pattern on every line, so 70 fixed strings over 5 MB took 30 s
    where one alternation takes 0.2 s; other words (with dots, dashes) as fixed strings. At most
    two `git grep` calls.
    """
    words = sorted(set(words))
    revs = [r for r in revs if r]
    if not words or not revs:
        return {}
    scope = ["."] if paths is None else [f":(literal){p}" for p in paths]
    if not scope:
        return {}
    tail = [*revs, "--", *scope, *(f":(exclude){p}" for p in exclude)]
    plain = [w for w in words if _IDENTIFIER.fullmatch(w)]
    other = [w for w in words if not _IDENTIFIER.fullmatch(w)]
    hits: dict[str, set[str]] = {}
    if plain:
        _grep_hits(_grep(root, "-z", "-o", "-w", "-I", "-E", "-e", "(" + "|".join(plain) + ")", *tail), hits)
    if other:
        _grep_hits(_grep(root, "-z", "-o", "-w", "-F", "-I", *(a for w in other for a in ("-e", w)), *tail), hits)
    return hits


_UNREAD_OBJECT = re.compile(r"unable to read ([0-9a-f]{40,64})")
_UNREAD: dict[str, set[str]] = {}  # root -> objects a `git grep` could not read, until `unread` takes them


def _grep(root: str | Path, *args: str) -> str:
    """`git grep args...`'s output; the objects it could not read (a partial clone's blobs it
    never fetched: git says so and goes on) are noted for `unread`."""
    try:
        proc = subprocess.run(argv(root, "grep", *args), capture_output=True, stdin=subprocess.DEVNULL, env=_env())
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    note_unread(root, _UNREAD_OBJECT.findall(proc.stderr.decode("utf-8", "replace")))
    return proc.stdout.decode("utf-8", "surrogateescape")


def note_unread(root: str | Path, objects: Iterable[str]) -> None:
    """Note objects a search could not read (a partial clone's blobs), for `unread`."""
    _UNREAD.setdefault(os.path.abspath(root), set()).update(objects)


def unread(root: str | Path) -> set[str]:
    """The objects `git grep` could not read in `root` since the last call (taken)."""
    return _UNREAD.pop(os.path.abspath(root), set())


_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")  # git's word characters: nothing an ERE reads as an operator


def _grep_hits(out: str, hits: dict[str, set[str]]) -> None:
    """Add `git grep -z -o` output lines (`rev:path`, NUL, `word`) to `hits` (word -> paths)."""
    for line in out.splitlines():
        where, _, word = line.partition("\0")
        _rev, _, path = where.partition(":")
        if word:
            hits.setdefault(word, set()).add(path)


def head(root: str | Path) -> tuple[str | None, bool]:
    """(the commit HEAD points at or None when there is none yet, whether the clone is shallow),
    from one `git rev-parse`."""
    lines = run(root, "rev-parse", "--is-shallow-repository", "--verify", "-q", "HEAD", check=False).split()
    shallow = bool(lines) and lines[0] == "true"
    return (lines[1] if len(lines) > 1 else None), shallow


def dirty_files(root: str | Path) -> set[str]:
    """Tracked files whose work tree or staged content differs from HEAD (none without commits; `git mv`: both paths)."""
    return {p for p in run(root, "diff", "--name-only", "-z", "--no-renames", "HEAD", check=False).split("\0") if p}


def staged_deletions(root: str | Path) -> set[str]:
    """Files deleted (or renamed away) in the index relative to HEAD: pre-commit never passes these."""
    out = run(root, "diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=D", "HEAD", check=False)
    return {p for p in out.split("\0") if p}


def start(root: str | Path, *args: str) -> subprocess.Popen[bytes]:
    """Start `git -C root args...` without waiting (stdout piped, stderr dropped), so a slow
    listing such as `ls-files --others` can run while the caller works; read `.stdout`, then `.wait()`."""
    try:
        return subprocess.Popen(
            argv(root, *args),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=_env(),
        )
    except FileNotFoundError:
        raise GitError("git is not installed") from None


def is_ignored(root: str | Path, path: str) -> bool | None:
    """Whether git ignores `path` (tracked files never are); None when `root` is not a work tree."""
    try:
        proc = subprocess.run(argv(root, "check-ignore", "-q", "--", path),
                              capture_output=True, stdin=subprocess.DEVNULL, env=_env())
    except FileNotFoundError:
        return None
    return {0: True, 1: False}.get(proc.returncode)


def iter_history(root: str | Path, since: str | None = None, problems: list[str] | None = None
                 ) -> Iterator[tuple[str, int, str, list[tuple[str, str, str]]]]:
    """Stream `(sha, commit_time, subject, [(status, path, old_path), ...])` oldest first: one
    `git log --first-parent -m --name-status -M` pass over HEAD's mainline (only the commits
    after `since` when given). A merge lists what it changed against its first parent, so every
    version of a file on the mainline is some commit's; `old_path` is set for renames.

    A pass git stops part-way (a partial clone lacking a blob rename detection reads: `fatal:
    unable to read <id>`) is not the end of history: the next commit is read without rename
    detection (no blob read), then the pass goes on (`_RETRIES` times; then without it). Each
    stop is appended to `problems`, "lost: " first when even that failed (the rest unread)."""
    start, renames, failures = since, True, 0
    while True:
        errors: list[str] = []
        one = not renames and failures <= _RETRIES
        last = start
        for commit in _log_pass(root, start, renames, one, errors):
            last = commit[0]
            yield commit
        if errors and problems is not None:
            where = f"after {last[:10]}" if last else "at its first commit"
            problems.append(f"{'' if renames else 'lost: '}git log stopped {where} ({errors[0]})")
        if errors and renames:
            failures, renames = failures + 1, False
        elif not errors and not renames and one and last != start:
            renames = True
        else:
            return
        start = last


_RETRIES = 5  # passes restarted with rename detection after a stop


def _log_pass(root: str | Path, start: str | None, renames: bool, one: bool,
              errors: list[str]) -> Iterator[tuple[str, int, str, list[tuple[str, str, str]]]]:
    """One `git log` pass of `iter_history` after `start` (`one`: its first commit only). git
    works out a commit's changes before it prints the commit: one it printed is whole."""
    args = ["log", "--reverse", "--first-parent", "-m", "-z", "--name-status", "-M" if renames else "--no-renames",
            f"--format={_COMMIT_MARK}%H %ct %s"]
    args += [f"{start}..HEAD" if start else "HEAD"]
    current: tuple[str, int, str, list[tuple[str, str, str]]] | None = None
    pending: list[str] = []
    for token in _iter_z(root, args, errors):
        token = token.lstrip("\n")
        if token.startswith(_COMMIT_MARK):
            if current is not None:
                yield current
                if one:
                    return
            sha, when, subject = [*token[1:].split(" ", 2), ""][:3]
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
        return subprocess.run(argv(root, "merge-base", "--is-ancestor", old, new),
                              capture_output=True, stdin=subprocess.DEVNULL, env=_env()).returncode == 0
    except FileNotFoundError:
        return False


def _request(rev: str, path: str) -> bytes:
    return (f"{rev}:{path}\n" if path else f"{rev}\n").encode("utf-8", "surrogateescape")


def _answer(stdout: IO[bytes]) -> tuple[str, str] | None:
    """One answer of `git cat-file --batch`: (object id, text) of a blob, else None."""
    header = stdout.readline().split()
    if len(header) != 3:
        return None  # "<request> missing" (or the end of the stream)
    data = stdout.read(int(header[2]) + 1)[:-1]
    if header[1] != b"blob":
        return None
    return header[0].decode("ascii", "replace"), data.decode("utf-8", "replace")


class Blobs:
    """File contents at revisions (`rev:path`), read through one `git cat-file --batch` process."""

    def __init__(self, root: str | Path) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None

    def read(self, rev: str, path: str) -> str | None:
        """The text of `path` at `rev`, or None when it is not there."""
        found = self.read_object(rev, path)
        return found[1] if found is not None else None

    def read_object(self, rev: str, path: str) -> tuple[str, str] | None:
        """(the blob's object id, its text) of `path` at `rev` (of the object `rev` itself when
        `path` is empty), or None when it is not there."""
        stdin, stdout = self.pipes()
        stdin.write(_request(rev, path))
        stdin.flush()
        return _answer(stdout)

    def read_many(self, wanted: Iterable[tuple[str, str]]) -> list[tuple[str, str] | None]:
        """`read_object` of each `(rev, path)`, in order, without a round trip each (`write_behind`)."""
        wanted, (stdin, stdout) = list(wanted), self.pipes()
        writer = write_behind(stdin, b"".join(_request(rev, path) for rev, path in wanted))
        try:
            return [_answer(stdout) for _ in wanted]
        finally:
            writer.join()

    def pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        """The `git cat-file --batch` process's (stdin, stdout), started when first asked."""
        if self._proc is None:
            self._proc = subprocess.Popen(argv(self.root, "cat-file", "--batch"), stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env())
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def close(self) -> None:
        if self._proc is not None:
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc.wait()
            self._proc = None
