"""The writer gate: every file noface_ctx writes (logs, caches, locks, `.gitignore`, sqlite
databases, ledgers) is opened, created or handed to a library through here.

A repository is hostile input, and so is every name in it: a committed `.noface/runs.jsonl ->
~/.bashrc`, a `.noface/cache/code -> /elsewhere` directory link, a dangling `.noface/.gitignore`
link. The rules, for any path written:

- the path is walked from `/` one directory at a time, each opened with `O_NOFOLLOW`
  (`openat`, so a directory swapped for a link between two checks is not followed either);
- a **symbolic link inside a repository** (the one given as `root`, and every repository
  `add_repository` registered: `config.cache_dir` registers its own) is never followed, in any
  component; links elsewhere (the user's own `~/.cache -> /data/cache`) are;
- the **file itself** is never a link, never a FIFO or device, and, inside a repository, never a
  file with other hard links (a hard link to `~/.bashrc` would be written through);
- with `confine=True` (a path a repository's config or a default names: the run log, the request
  log, the cache directory) the real location must be inside the repository, the user cache or a
  private directory of this process (`add_private`); a path the user typed (`--log FILE`) or an
  API caller's own directory is not confined, the link rules still hold.

A refusal is `WriteRefused`, an `OSError`: optional writes (caches) already carry on without
caching on any `OSError`; required ones (the run log) turn it into a one-line error, exit 2.
Functions: `make_dirs`, `open_file`, `append`, `create_new`, `write_atomic`, `checked_file` (for
APIs that take a path: sqlite, file locks, numpy), `connect_sqlite`.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import threading
from pathlib import Path
from typing import BinaryIO

from noface_ctx._cache_location import user_cache_base

__all__ = ["WriteRefused", "add_private", "add_repository", "append", "checked_file", "connect_sqlite",
           "create_new", "make_dirs", "open_file", "open_stream", "refuse_links_under", "temp_name", "write_atomic"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW
_FILE_FLAGS = os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK  # NONBLOCK: a FIFO never blocks the open
# Repositories (resolved roots) whose links are never followed, and private dirs of this process.
# A security fact, not a memo: it only grows, under its lock, and `state.clear_all()` does not reach it.
_REPOSITORIES: set[Path] = set()
_PRIVATE: set[Path] = set()
_LOCK = threading.Lock()


class WriteRefused(OSError):
    """A write the gate refuses; `str()` is one line naming the path and why."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(errno.EPERM, why, str(path))
        self.why = why

    def __str__(self) -> str:
        return f"{self.filename}: {self.why}"


def add_repository(root: Path | str) -> None:
    """Never follow a link inside `root` when writing (called with every repository served)."""
    real = Path(os.path.realpath(root))
    with _LOCK:
        _REPOSITORIES.add(real)


def add_private(directory: Path | str) -> None:
    """A directory this process made for itself (the temp cache): a confined write may go there."""
    real = Path(os.path.realpath(directory))
    with _LOCK:
        _PRIVATE.add(real)


def _repositories(root: Path | str | None) -> list[Path]:
    with _LOCK:
        found = list(_REPOSITORIES)
    if root is not None:
        found.append(Path(os.path.realpath(root)))
    return found


def _areas(root: Path | str | None) -> list[Path]:
    """Where a confined write may land: the repositories, the user cache, private dirs."""
    areas = _repositories(root)
    with _LOCK:
        areas.extend(_PRIVATE)
    try:
        areas.append(Path(os.path.realpath(user_cache_base())))
    except RuntimeError:  # no home directory: no user cache
        pass
    return areas


def _inside(path: Path, bases: list[Path]) -> bool:
    return any(path == b or path.is_relative_to(b) for b in bases)


# --------------------------------------------------------------------------- the walk


def _walk(path: Path, *, root: Path | str | None, create: bool, confine: bool) -> tuple[int, Path]:
    """Open the directory `path` names, one component at a time from `/`, creating missing ones
    when `create`: (its fd, its real path). `WriteRefused` on a link inside a repository, a
    component that is not a directory, or (with `confine`) a real location outside the areas."""
    path = Path(path) if Path(path).is_absolute() else Path.cwd() / path
    repos = _repositories(root)
    real = Path("/")
    fd = os.open("/", _DIR_FLAGS)
    try:
        for name in path.parts[1:]:
            if name == "..":
                real = real.parent
                nfd = os.open(real, _DIR_FLAGS)
            else:
                nfd, real = _step(fd, real, name, path, repos, create)
            os.close(fd)
            fd = nfd
        if confine and not _inside(real, _areas(root)):
            raise WriteRefused(path, f"resolves outside the repository and the user cache ({real}); refused")
        return fd, real
    except BaseException:
        os.close(fd)
        raise


def _step(fd: int, real: Path, name: str, whole: Path, repos: list[Path], create: bool) -> tuple[int, Path]:
    """Into `name` of the directory `fd` (real path `real`): (its fd, its real path)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd), real / name
    except FileNotFoundError:
        if not create:
            raise
        try:
            os.mkdir(name, 0o777, dir_fd=fd)
        except FileExistsError:  # made meanwhile (by another writer, or planted: checked below)
            pass
        return _step(fd, real, name, whole, repos, create=False)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
    st = os.lstat(name, dir_fd=fd)
    if not stat.S_ISLNK(st.st_mode):
        raise WriteRefused(whole, f"{real / name} is not a directory")
    if _inside(real, repos):
        raise WriteRefused(whole, f"{real / name} is a symbolic link inside the repository; not followed")
    target = Path(os.path.realpath(real / name))  # a link of the user's own (outside every repository)
    return os.open(target, _DIR_FLAGS), target


def make_dirs(directory: Path | str, *, root: Path | str | None = None, confine: bool = False) -> Path:
    """Create `directory` and its parents under the rules; its real path."""
    fd, real = _walk(Path(directory), root=root, create=True, confine=confine)
    os.close(fd)
    return real


def refuse_links_under(directory: Path, depth: int = 4) -> None:
    """`WriteRefused` when a link sits anywhere under `directory` (`depth` levels: a cache's
    layout), so a cache a repository planted links in is given up as a whole, with one warning."""
    todo = [(Path(directory), 0)]
    while todo:
        folder, level = todo.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():
                    raise WriteRefused(entry.path, "is a symbolic link inside the cache directory; not followed")
                if level + 1 < depth and entry.is_dir(follow_symlinks=False):
                    todo.append((Path(entry.path), level + 1))


def open_file(path: Path | str, flags: int = os.O_WRONLY | os.O_CREAT, mode: int = 0o644, *,
              root: Path | str | None = None, confine: bool = False) -> int:
    """An fd for `path` opened with `flags` (never following a link at the file itself), its
    folders created; `WriteRefused` for a link, a FIFO or device, or a hard-linked file in a repository."""
    path = Path(path)
    truncate = bool(flags & os.O_TRUNC)  # only once the file is known to be ours (a hard link is not)
    dfd, real = _walk(path.parent, root=root, create=True, confine=confine)
    try:
        try:
            fd = os.open(path.name, (flags & ~os.O_TRUNC) | _FILE_FLAGS, mode, dir_fd=dfd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO):  # (EEXIST with O_EXCL: the name is taken, link or not)
                raise WriteRefused(path, _what_is(dfd, path.name)) from None
            raise
        try:
            _check_open(fd, path, real, root)
            if truncate:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return fd
    finally:
        os.close(dfd)


def _what_is(dfd: int, name: str) -> str:
    try:
        st = os.lstat(name, dir_fd=dfd)
    except OSError:
        return "cannot be opened for writing"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link; not followed"
    return "is not a regular file; refused"


def _check_open(fd: int, path: Path, real_dir: Path, root: Path | str | None) -> None:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused(path, "is not a regular file; refused")
    if st.st_nlink > 1 and _inside(real_dir, _repositories(root)):
        raise WriteRefused(path, "has other hard links (a file elsewhere may be written through it); refused")


def open_stream(path: Path | str, *, root: Path | str | None = None, confine: bool = False) -> BinaryIO:
    """`path` opened for writing from empty, as a binary file object (numpy writers)."""
    return os.fdopen(open_file(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, root=root, confine=confine), "wb")


def append(path: Path | str, data: bytes, *, root: Path | str | None = None, confine: bool = False) -> None:
    """Append `data` in one `O_APPEND` write (two writers never interleave a line)."""
    fd = open_file(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644, root=root, confine=confine)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def create_new(path: Path | str, data: bytes, *, root: Path | str | None = None, confine: bool = False) -> bool:
    """Write a file that does not exist yet (`O_EXCL`: a name taken, even by a dangling link, is
    left alone); False when the name was taken."""
    try:
        fd = open_file(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, root=root, confine=confine)
    except FileExistsError:
        return False
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)
    return True


def temp_name(path: Path, suffix: str = ".tmp") -> Path:
    """A sibling temp path unique to this process and thread (`cachefile.sweep_tmp` removes
    the ones a killed writer left)."""
    return path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}{suffix}")


def write_atomic(path: Path | str, data: bytes, *, root: Path | str | None = None, confine: bool = False) -> bool:
    """`data` into `path` through a new temp file and a rename in the same checked directory: a
    reader sees the old file or the new one, never a mix; a link at `path` is replaced, never
    written through. False when it cannot be written (the temp file is removed)."""
    path = Path(path)
    tmp = temp_name(path).name
    try:
        dfd, _real = _walk(path.parent, root=root, create=True, confine=confine)
    except OSError:
        return False
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE_FLAGS, 0o644, dir_fd=dfd)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        return True
    except OSError:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        return False
    finally:
        os.close(dfd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def checked_file(path: Path | str, *, root: Path | str | None = None, confine: bool = False,
                 create: bool = True) -> Path:
    """For an API that opens a path itself (sqlite, a file lock, numpy): its folders created
    (with `create`) under the rules, and the file, when it exists, a regular file that is not a
    link (nor, in a repository, hard-linked). Returns the real path to hand over."""
    path = Path(path)
    dfd, real = _walk(path.parent, root=root, create=create, confine=confine)
    try:
        try:
            st = os.lstat(path.name, dir_fd=dfd)
        except FileNotFoundError:
            return real / path.name
        if stat.S_ISLNK(st.st_mode):
            raise WriteRefused(path, "is a symbolic link; not followed")
        if not stat.S_ISREG(st.st_mode):
            raise WriteRefused(path, "is not a regular file; refused")
        if st.st_nlink > 1 and _inside(real, _repositories(root)):
            raise WriteRefused(path, "has other hard links (a file elsewhere may be written through it); refused")
        return real / path.name
    finally:
        os.close(dfd)


def connect_sqlite(path: Path | str, **kwargs: object) -> sqlite3.Connection:
    """`sqlite3.connect` on a checked path: the database and its `-wal`, `-shm` and `-journal`
    files are no links (sqlite's own `nofollow` refuses a link at the database meanwhile)."""
    real = checked_file(path, create=False)  # (a missing folder stays missing, as for sqlite)
    for suffix in ("-wal", "-shm", "-journal"):
        checked_file(real.with_name(real.name + suffix), create=False)
    from urllib.parse import quote

    uri = f"file:{quote(str(real))}?nofollow=1"
    return sqlite3.connect(uri, uri=True, **kwargs)  # type: ignore[call-overload,no-any-return]
