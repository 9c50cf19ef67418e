"""The gate's rules that need no file content: file kinds by name, path rules, size rules.

`Rules` holds one repository's configuration and manifest and memoises each path's verdict;
`name_info` decides everything the base name alone can (kind, grammar, secret, binary, lockfile).
The kinds come from `noface_ctx._filetypes`, the one table of extensions.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from noface_ctx._filetypes import CODE_EXTENSIONS, CODE_FILE_NAMES, DOC_EXTENSIONS, GRAMMAR_BY_EXTENSION
from noface_ctx._state import Memo, memo
from noface_ctx.config import Config
from noface_ctx.datatypes import Excluded, ExclusionCategory, FileEntry, FileKind, Manifest, RepoFiles
from noface_ctx.files.secrets import secret_path_kind

if TYPE_CHECKING:
    import pathspec

__all__ = [
    "BINARY_EXTENSIONS", "DATA_EXTENSIONS", "DATA_LIMIT", "EXCLUDED_DIRS", "LOCKFILES", "NOFACE_DIR",
    "PACKAGE_NAMED_DIRS", "SOURCE_MARKERS", "LastScan", "NameInfo", "Rules", "Stamp", "file_kind", "holds_source", "name_info", "norm_path",
]

# --------------------------------------------------------------------------- file kinds


def _ext(name: str) -> str:
    """Lower-case extension with its dot ("" for `Makefile` or `.bashrc`), like os.path.splitext."""
    name = name[name.rfind("/") + 1:]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 and name[:dot].strip(".") else ""


def file_kind(path: str) -> tuple[FileKind, str | None]:
    """("code" | "doc" | "other", tree-sitter language or None) from the file name alone."""
    info = name_info(path[path.rfind("/") + 1:])
    return info.kind, info.language


def _kind_of(name: str, ext: str) -> tuple[FileKind, str | None]:
    if name in CODE_FILE_NAMES:
        return "code", None
    if ext in CODE_EXTENSIONS:
        return "code", GRAMMAR_BY_EXTENSION.get(ext)
    if ext in DOC_EXTENSIONS:
        return "doc", None
    return "other", None


# --------------------------------------------------------------------------- path rules by name

EXCLUDED_DIRS = frozenset({
    "vendor", "node_modules", "dist", "build", ".cache", ".git", "__pycache__", ".venv", "venv",
    ".tox", ".mypy_cache", ".pytest_cache", ".noface", ".ruff_cache", ".nox", ".eggs",
    ".beads",  # the issue tracker's own data: the issue is already in the prompt
})
# `build/` and `dist/` are also names of real packages (pypa/build has `src/build/`) and of doc
# sources (alembic's and SQLAlchemy's Sphinx pages live in `docs/build/`, beside their `conf.py`):
# a directory holding `__init__.py` or a Sphinx `conf.py` is source, not output.
PACKAGE_NAMED_DIRS = frozenset({"build", "dist"})
SOURCE_MARKERS = ("__init__.py", "conf.py")


def holds_source(directory: str | Path) -> bool:
    """Whether a package-named directory (`build/`, `dist/`) is source: a package or a Sphinx doc tree."""
    return any(os.path.isfile(os.path.join(directory, marker)) for marker in SOURCE_MARKERS)
LOCKFILES = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
    "Cargo.lock", "go.sum", "poetry.lock", "uv.lock", "pdm.lock", "composer.lock", "Gemfile.lock",
    "Pipfile.lock", "mix.lock", "Podfile.lock", "pubspec.lock", "packages.lock.json", "flake.lock",
})
_GENERATED_NAME_RE = re.compile(
    r"(\.pb\.go|_pb2\.pyi?|_pb2_grpc\.py|\.pb\.h|\.pb\.cc|\.min\.js|\.min\.css|\.map)$|_generated\.[^/]+$"
)
BINARY_EXTENSIONS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff", ".psd",
    ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".war",
    ".whl", ".egg", ".exe", ".dll", ".so", ".dylib", ".a", ".o", ".obj", ".lib", ".class", ".pyc",
    ".pyo", ".pyd", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg",
    ".flac", ".avi", ".mov", ".mkv", ".webm", ".sqlite", ".sqlite3", ".db", ".bin", ".npy", ".npz",
    ".pkl", ".pickle", ".h5", ".hdf5", ".parquet", ".onnx", ".pt", ".pth", ".safetensors", ".wasm",
    ".mo", ".xls", ".xlsx", ".doc", ".docx", ".ppt", ".pptx", ".odt", ".dmg", ".iso", ".svgz",
})
DATA_EXTENSIONS = frozenset({".json", ".csv", ".tsv", ".jsonl", ".ndjson", ".xml", ".sql"})
DATA_LIMIT = 64 * 1024
NOFACE_DIR = ".noface/"


class NameInfo(NamedTuple):
    """Everything the base name alone decides; computed once per distinct name."""

    ext: str
    secret: str | None  # kind of credential file
    binary: bool  # by extension
    by_name: tuple[ExclusionCategory, str] | None  # lockfile / generated-by-name
    kind: FileKind
    language: str | None


_NAMES: Memo[str, NameInfo] = memo("files.name_info", maxsize=200_000)


def name_info(name: str) -> NameInfo:
    """What the base name `name` alone decides (kind, secret, binary, lockfile...), memoised."""
    info = _NAMES.get(name)
    if info is None:
        ext = _ext(name)
        by_name: tuple[ExclusionCategory, str] | None = None
        if name in LOCKFILES:
            by_name = ("lockfile", "lockfile")
        elif _GENERATED_NAME_RE.search(name):
            by_name = ("generated", "generated or minified file (by name)")
        info = _NAMES.put(name, NameInfo(ext, secret_path_kind(name), ext in BINARY_EXTENSIONS, by_name,
                                         *_kind_of(name, ext)))
    return info


# --------------------------------------------------------------------------- rules for one repo


class Rules:
    """Everything that decides a path's fate without reading it."""

    def __init__(self, config: Config, manifest: Manifest | None, explicit: Iterable[str]) -> None:
        self.root = Path(config.root)
        self.max_size = config.max_file_size_kb * 1024
        self.small = min(self.max_size, DATA_LIMIT)  # at or under this, no size rule applies
        self.manifest = manifest
        self.explicit = {norm_path(p) for p in explicit}
        self.memo: dict[str, Excluded | None] = {}
        self.packages: dict[str, bool] = {}
        self.last: LastScan | None = None  # the latest scan under these rules, reused while nothing changed
        self.key = ""  # what a stored scan must have been made under (`_last_scan.rules_key`)
        self.unsaved = 0  # paths classified since `last` was last stored
        self.stored_racy: frozenset[str] = frozenset()  # the racy paths of the scan last stored
        patterns = [p for p in config.context.exclude if p.strip()]
        self.config_spec = gitignore_spec(patterns) if patterns else None
        m = manifest
        self.forbidden = bool(m and m.forbidden)
        # Manifest primary/read entries lift path, size and data rules (never secret or binary).
        self.overrides = tuple(e for e in (*m.primary, *m.read) if e.path != "./") if m else ()

    def _overridden(self, path: str) -> bool:
        return any(e.matches(path) for e in self.overrides)

    def before_stat(self, path: str) -> Excluded | None:
        """The rules that need only the path (secret, forbidden, binary, directories, names, config)."""
        try:
            return self.memo[path]
        except KeyError:
            why = self.memo[path] = self._before_stat(path)
            return why

    def _before_stat(self, path: str) -> Excluded | None:
        slash = path.rfind("/")
        info = name_info(path[slash + 1:])
        if info.secret is not None:
            return Excluded(path, f"secret: {info.secret} (never sent)", "secret")
        if self.forbidden and self.manifest is not None and self.manifest.is_forbidden(path):
            src = f" ({self.manifest.source})" if self.manifest.source else ""
            return Excluded(path, f"forbidden by the issue manifest{src}", "forbidden")
        if info.binary:
            return Excluded(path, f"binary file ({info.ext})", "binary")
        if self.overrides and self._overridden(path):
            return None
        if slash > 0:
            parts = path[:slash].split("/")
            if not EXCLUDED_DIRS.isdisjoint(parts):
                for i, part in enumerate(parts):
                    if part in EXCLUDED_DIRS and not self._is_package(parts[: i + 1]):
                        return Excluded(path, f"in {part}/ (built-in exclusion)", "path")
        if info.by_name is not None:
            return Excluded(path, info.by_name[1], info.by_name[0])
        if self.config_spec is not None and self.config_spec.match_file(path):
            return Excluded(path, "matches [context] exclude", "config")
        return None

    def _is_package(self, parts: list[str]) -> bool:
        if parts[-1] not in PACKAGE_NAMED_DIRS:
            return False
        d = "/".join(parts)
        if d not in self.packages:
            self.packages[d] = holds_source(self.root / d)
        return self.packages[d]

    def after_stat(self, path: str, size: int) -> Excluded | None:
        """The size rules (data files, `max_file_size_kb`), once the path passed `before_stat`."""
        if size <= self.small or (self.overrides and self._overridden(path)):
            return None
        if size > DATA_LIMIT and name_info(path[path.rfind("/") + 1:]).ext in DATA_EXTENSIONS:
            return Excluded(path, f"data file over {DATA_LIMIT // 1024} KiB ({size // 1024} KiB)", "data")
        if size > self.max_size and path not in self.explicit:
            return Excluded(path, f"over max_file_size_kb ({size // 1024} KiB > {self.max_size // 1024} KiB)", "size")
        return None


Stamp = tuple[int, ...]  # (size, mtime_ns, mode) of a file; a symlink adds its target's; None when gone


class LastScan(NamedTuple):
    """The latest scan under one `Rules`, reused while no listed path changed its stamp."""

    paths: list[str]
    stamps: list[Stamp | None]
    pruned: list[Excluded]
    racy: frozenset[str]  # files changed so recently that an equal stat could hide a new content
    result: RepoFiles | None  # None when read from the cache file (`_last_scan`): rebuilt by the next scan
    outcome: dict[str, FileEntry | Excluded]  # each path's verdict, reused while its stamp holds


def norm_path(path: str) -> str:
    """A requested path with `\\` as `/`, normalised (`""` for the repository itself); absolute paths kept."""
    text = path.strip().replace("\\", "/")
    if os.path.isabs(text):
        return text
    norm = posixpath.normpath(text)
    return "" if norm == "." else norm


def gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """A `.gitignore`-style spec of `lines`: pathspec is imported only when a run needs one (a
    repository in git with no `exclude` patterns never does; the import is about 0.03 s of CPU)."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)
