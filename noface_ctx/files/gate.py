"""Repository scan and exclusions → `RepoFiles` (candidates plus every exclusion with its reason).

Candidates are what git lists (tracked plus untracked-not-ignored); without git the tree is walked
honouring `.gitignore`. Rules are applied in a fixed order so each file is reported once, under the
most important reason: secret, forbidden (manifest), path rules, then size / binary / data.

Secrets are refused whatever else says otherwise: an `explicit` request, the manifest, a config.
Content checks (credentials, binary, generated headers) are cached in `<cache_dir>/scan.json`
keyed by (path, size, mtime_ns), so a warm scan only stats files.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import stat
import time
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import NamedTuple

import pathspec

from noface_ctx import git
from noface_ctx.cachefile import read_json as cache_json
from noface_ctx.config import Config, cache_dir
from noface_ctx.datatypes import Excluded, ExclusionCategory, FileEntry, FileKind, Manifest, RepoFiles
from noface_ctx.errors import InputError
from noface_ctx.files.secrets import content_secret, find_secret, is_secret_path, secret_path_kind
from noface_ctx.files.walk import ignored, walk_cached

__all__ = ["EXTENSION_LANGUAGE", "admitted", "check_path", "file_kind", "find_secret", "is_secret_path", "scan_repo"]

# --------------------------------------------------------------------------- file kinds

EXTENSION_LANGUAGE: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".zig": "zig", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
}
# Source files without a grammar here: still "code" (line windows instead of definitions).
_OTHER_CODE = {
    ".sh", ".bash", ".zsh", ".fish", ".ps1", ".kt", ".kts", ".swift", ".scala", ".php", ".cs",
    ".fs", ".lua", ".pl", ".pm", ".r", ".m", ".mm", ".ex", ".exs", ".erl", ".hrl", ".hs", ".ml",
    ".mli", ".clj", ".cljs", ".dart", ".jl", ".nim", ".v", ".sv", ".vhd", ".groovy", ".gradle",
    ".vue", ".svelte", ".astro", ".html", ".htm", ".css", ".scss", ".sass", ".less", ".pyx",
    ".pxd", ".cu", ".proto", ".graphql", ".tf", ".sol", ".elm", ".cmake", ".mk", ".bzl",
}
CODE_EXTENSIONS = frozenset(EXTENSION_LANGUAGE) | frozenset(_OTHER_CODE)
DOC_EXTENSIONS = frozenset({".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".rdoc", ".textile"})
_CODE_NAMES = {"Makefile", "GNUmakefile", "Dockerfile", "Rakefile", "Gemfile", "Justfile", "CMakeLists.txt"}


def _ext(name: str) -> str:
    """Lower-case extension with its dot ("" for `Makefile` or `.bashrc`), like os.path.splitext."""
    name = name[name.rfind("/") + 1:]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 and name[:dot].strip(".") else ""


def file_kind(path: str) -> tuple[FileKind, str | None]:
    """("code" | "doc" | "other", tree-sitter language or None) from the file name alone."""
    info = _name_info(path[path.rfind("/") + 1:])
    return info.kind, info.language


def _kind_of(name: str, ext: str) -> tuple[FileKind, str | None]:
    if name in _CODE_NAMES:
        return "code", None
    if ext in CODE_EXTENSIONS:
        return "code", EXTENSION_LANGUAGE.get(ext)
    if ext in DOC_EXTENSIONS:
        return "doc", None
    return "other", None


# --------------------------------------------------------------------------- path rules

EXCLUDED_DIRS = frozenset({
    "vendor", "node_modules", "dist", "build", ".cache", ".git", "__pycache__", ".venv", "venv",
    ".tox", ".mypy_cache", ".pytest_cache", ".noface", ".ruff_cache", ".nox", ".eggs",
    ".beads",  # the issue tracker's own data: the issue is already in the prompt
})
# `build/` and `dist/` are also names of real packages (pypa/build has `src/build/`): a
# directory holding `__init__.py` is source, not output.
_PACKAGE_NAMED_DIRS = frozenset({"build", "dist"})
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


class _NameInfo(NamedTuple):
    """Everything the base name alone decides; computed once per distinct name."""

    ext: str
    secret: str | None  # kind of credential file
    binary: bool  # by extension
    by_name: tuple[ExclusionCategory, str] | None  # lockfile / generated-by-name
    kind: FileKind
    language: str | None


_NAMES: dict[str, _NameInfo] = {}


def _name_info(name: str) -> _NameInfo:
    info = _NAMES.get(name)
    if info is None:
        if len(_NAMES) > 200_000:
            _NAMES.clear()
        ext = _ext(name)
        by_name: tuple[ExclusionCategory, str] | None = None
        if name in LOCKFILES:
            by_name = ("lockfile", "lockfile")
        elif _GENERATED_NAME_RE.search(name):
            by_name = ("generated", "generated or minified file (by name)")
        info = _NAMES[name] = _NameInfo(ext, secret_path_kind(name), ext in BINARY_EXTENSIONS, by_name,
                                        *_kind_of(name, ext))
    return info


# --------------------------------------------------------------------------- rules for one repo


class _Rules:
    """Everything that decides a path's fate without reading it."""

    def __init__(self, config: Config, manifest: Manifest | None, explicit: Iterable[str]) -> None:
        self.root = Path(config.root)
        self.max_size = config.max_file_size_kb * 1024
        self.small = min(self.max_size, DATA_LIMIT)  # at or under this, no size rule applies
        self.manifest = manifest
        self.explicit = {_norm(p) for p in explicit}
        self.memo: dict[str, Excluded | None] = {}
        self.packages: dict[str, bool] = {}
        self.last: _LastScan | None = None  # the latest scan under these rules, reused while nothing changed
        patterns = [p for p in config.context.exclude if p.strip()]
        self.config_spec = pathspec.GitIgnoreSpec.from_lines(patterns) if patterns else None
        m = manifest
        self.forbidden = bool(m and m.forbidden)
        # Manifest primary/read entries lift path, size and data rules (never secret or binary).
        self.overrides = tuple(e for e in (*m.primary, *m.read) if e.path != "./") if m else ()

    def _overridden(self, path: str) -> bool:
        return any(e.matches(path) for e in self.overrides)

    def before_stat(self, path: str) -> Excluded | None:
        try:
            return self.memo[path]
        except KeyError:
            why = self.memo[path] = self._before_stat(path)
            return why

    def _before_stat(self, path: str) -> Excluded | None:
        slash = path.rfind("/")
        info = _name_info(path[slash + 1:])
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
        if parts[-1] not in _PACKAGE_NAMED_DIRS:
            return False
        d = "/".join(parts)
        if d not in self.packages:
            self.packages[d] = (self.root / d / "__init__.py").is_file()
        return self.packages[d]

    def after_stat(self, path: str, size: int) -> Excluded | None:
        if size <= self.small or (self.overrides and self._overridden(path)):
            return None
        if size > DATA_LIMIT and _name_info(path[path.rfind("/") + 1:]).ext in DATA_EXTENSIONS:
            return Excluded(path, f"data file over {DATA_LIMIT // 1024} KiB ({size // 1024} KiB)", "data")
        if size > self.max_size and path not in self.explicit:
            return Excluded(path, f"over max_file_size_kb ({size // 1024} KiB > {self.max_size // 1024} KiB)", "size")
        return None


_GENERATED_HEADER_RE = re.compile(r"(?i)code generated .*do not edit|generated by .*do not edit|^\W*@generated\b")


def _content_verdict(path: str, data: bytes) -> tuple[str, str]:
    """("", "") when fine, else (category, detail) from the bytes: secret, binary, generated."""
    if b"\0" in data[:8192]:
        return "binary", "NUL byte"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "binary", "not UTF-8"
    kind = content_secret(path, text)
    if kind is not None:
        return "secret", kind
    head = text[:2048].splitlines()[:10]
    if any(_GENERATED_HEADER_RE.search(line) for line in head):
        return "generated", "header says generated"
    return "", ""


def _content_excluded(path: str, verdict: str, detail: str) -> Excluded | None:
    if verdict == "secret":
        return Excluded(path, f"secret: contains a {detail} (never sent)", "secret")
    if verdict == "binary":
        return Excluded(path, f"binary file ({detail})", "binary")
    if verdict == "generated":
        return Excluded(path, "generated file (header says generated, do not edit)", "generated")
    return None


# --------------------------------------------------------------------------- scan cache


class _ScanCache:
    """(path, size, mtime_ns) → content verdict, in `<cache_dir>/scan.json`.

    Entries are `[size, mtime_ns]` for a clean file, `[size, mtime_ns, category, detail]` otherwise.
    The parsed file is also kept in memory while its own mtime is unchanged.
    """

    VERSION = 3  # bump whenever a content rule changes
    _loaded: dict[str, tuple[tuple[int, int], dict[str, list]]] = {}

    def __init__(self, config: Config) -> None:
        self.path: Path | None = None
        self.entries: dict[str, list] = {}
        self.dirty = False
        try:
            self.path = cache_dir(config) / "scan.json"
            st = self.path.stat()
            memo = self._loaded.get(str(self.path))
            if memo is not None and memo[0] == (st.st_mtime_ns, st.st_size):
                self.entries = memo[1]
                return
            raw = cache_json(self.path)
            if isinstance(raw, dict) and raw.get("version") == self.VERSION and isinstance(raw.get("entries"), dict):
                self.entries = raw["entries"]
        except (OSError, ValueError, InputError):
            pass  # missing, corrupt, nested too deep or tracked by git: start empty

    def get(self, path: str, size: int, mtime: int) -> tuple[str, str] | None:
        e = self.entries.get(path)
        if e is None or len(e) < 2 or e[0] != size or e[1] != mtime:
            return None
        return (e[2], e[3]) if len(e) == 4 else ("", "")

    def put(self, path: str, size: int, mtime: int, verdict: tuple[str, str]) -> None:
        self.entries[path] = [size, mtime, *verdict] if verdict[0] else [size, mtime]
        self.dirty = True

    def save(self, keep: set[str]) -> None:
        if self.path is None:
            return
        if len(self.entries) > len(keep) or not keep.issuperset(self.entries):
            self.entries = {k: v for k, v in self.entries.items() if k in keep}
            self.dirty = True
        if not self.dirty:
            return
        tmp = self.path.with_name(f"scan.json.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({"version": self.VERSION, "entries": self.entries}), encoding="utf-8")
            os.replace(tmp, self.path)
            st = self.path.stat()
            self._loaded[str(self.path)] = ((st.st_mtime_ns, st.st_size), self.entries)
        except OSError:
            tmp.unlink(missing_ok=True)


# --------------------------------------------------------------------------- scanning

_RULES_MEMO: dict[tuple, _Rules] = {}


def _rules_for(config: Config, manifest: Manifest | None, explicit: Collection[str]) -> _Rules:
    """Rules with their per-path verdicts kept for the life of the process (the same repo is
    often scanned several times: a preview, then signals)."""
    key = (str(config.root), config.max_file_size_kb, config.context.exclude, manifest, frozenset(explicit))
    rules = _RULES_MEMO.get(key)
    if rules is None:
        if len(_RULES_MEMO) >= 8:
            _RULES_MEMO.clear()
        rules = _RULES_MEMO[key] = _Rules(config, manifest, explicit)
    return rules


def scan_repo(config: Config, manifest: Manifest | None = None, *, explicit: Collection[str] = ()) -> RepoFiles:
    """List candidate files and record every exclusion once, with its reason and category.

    `explicit` paths may exceed `max_file_size_kb` (an explicit request); nothing lifts a secret.
    When no listed path changed its stat since this process last scanned with the same rules,
    that scan's `RepoFiles` is returned again (a warm rescan only lists and stats files).
    """
    root = Path(config.root)
    warnings: list[str] = []
    rules = _rules_for(config, manifest, explicit)
    seen: set[str] = set()
    prefix = str(root) + os.sep
    pruned: list[Excluded] = []
    others, tracked = None, None
    try:
        others = git.start(root, "ls-files", "-z", "--others", "--exclude-standard")
        tracked = git.run(root, "ls-files", "-z", "--cached")
    except git.GitError:
        if others is not None:
            others.communicate()
    if others is not None and tracked is not None:
        paths = _unique(tracked.split("\0"), seen)
        stamps = _stamps(prefix, paths)  # while git lists untracked files
        untracked = others.communicate()[0].decode("utf-8", "surrogateescape")
        more = _unique(sorted(untracked.split("\0")) if others.returncode == 0 else (), seen)
        paths += more
        stamps += _stamps(prefix, more)
    else:
        warnings.append(f"not a git repository: {root} (walked the tree honouring .gitignore files)")
        walked, pruned = walk_cached(root, RACY_NS, EXCLUDED_DIRS, _PACKAGE_NAMED_DIRS)
        paths = _unique(walked, seen)
        stamps = _stamps(prefix, paths)
    last = rules.last
    if last is not None and last.paths == paths and last.stamps == stamps and last.pruned == pruned \
            and not last.racy and last.result.has_git == (tracked is not None):
        return last.result
    return _full_scan(config, rules, prefix, paths, stamps, pruned, tracked is not None, warnings)


def _unique(paths: Iterable[str], seen: set[str]) -> list[str]:
    out = []
    for path in paths:
        if path and path not in seen and not path.startswith(NOFACE_DIR):
            seen.add(path)
            out.append(path)
    return out


Stamp = tuple  # (size, mtime_ns, mode) of a file; a symlink adds its target's; None when gone


def _stamps(prefix: str, paths: list[str]) -> list[Stamp | None]:
    """One cheap `lstat` per path: what decides whether an earlier scan still holds."""
    out: list[Stamp | None] = []
    lstat, islink = os.lstat, stat.S_ISLNK
    for path in paths:
        try:
            st = lstat(prefix + path)
        except OSError:
            out.append(None)
            continue
        if islink(st.st_mode):
            try:
                target = os.stat(prefix + path)
                out.append((st.st_size, st.st_mtime_ns, st.st_mode, target.st_size, target.st_mtime_ns, target.st_mode))
            except OSError:
                out.append((st.st_size, st.st_mtime_ns, st.st_mode))
        else:
            out.append((st.st_size, st.st_mtime_ns, st.st_mode))
    return out


class _LastScan(NamedTuple):
    paths: list[str]
    stamps: list[Stamp | None]
    pruned: list[Excluded]
    racy: frozenset[str]  # files changed so recently that an equal stat could hide a new content
    result: RepoFiles
    outcome: dict[str, FileEntry | Excluded]  # each path's verdict, reused while its stamp holds


RACY_NS = 2_000_000_000  # files modified this recently get their content hashed into the fingerprint


def _full_scan(config: Config, rules: _Rules, prefix: str, paths: list[str], stamps: list[Stamp | None],
               pruned: list[Excluded], has_git: bool, warnings: list[str]) -> RepoFiles:
    """Classify every path; a path whose stamp is unchanged since the last scan keeps its verdict."""
    cache = _ScanCache(config)
    excluded: list[Excluded] = list(pruned)
    files: list[FileEntry] = []
    last = rules.last
    before = dict(zip(last.paths, last.stamps)) if last is not None else {}
    outcome: dict[str, FileEntry | Excluded] = {}
    for path, stamp in zip(paths, stamps):
        kept = last.outcome.get(path) if last is not None and path not in last.racy else None
        if kept is not None and stamp is not None and before.get(path) == stamp:
            entry, why = (kept, None) if isinstance(kept, FileEntry) else (None, kept)
        else:
            entry, why = _classify(prefix, path, rules, cache, warnings)
        if why is not None:
            excluded.append(why)
            outcome[path] = why
        elif entry is not None:
            files.append(entry)
            outcome[path] = entry
    cache.save(set(paths))
    files.sort(key=lambda f: f.path)
    excluded.sort(key=lambda e: e.path)
    since = time.time_ns() - RACY_NS
    racy = frozenset(p for p, st in zip(paths, stamps) if st is not None and st[1] >= since)
    digest = hashlib.sha1(repr((has_git, paths, stamps, [(e.path, e.category) for e in excluded])).encode())
    for path in sorted(racy):  # an equal stat does not prove an equal content yet: hash the content
        try:
            digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + _content_digest(prefix + path))
        except OSError:
            digest.update(path.encode("utf-8", "surrogateescape") + b"\0?")
    result = RepoFiles(root=prefix[:-1], files=tuple(files), excluded=tuple(excluded), has_git=has_git,
                       warnings=tuple(warnings), fingerprint=digest.hexdigest())
    rules.last = _LastScan(paths, stamps, pruned, racy, result, outcome)
    return result


def _classify(prefix: str, path: str, rules: _Rules, cache: _ScanCache | None,
              warnings: list[str]) -> tuple[FileEntry | None, Excluded | None]:
    """One path through every rule: (entry, None), (None, exclusion) or (None, None) if gone."""
    why = rules.before_stat(path)
    if why is not None:
        return None, why
    full = prefix + path
    try:
        st = os.lstat(full)
        if stat.S_ISLNK(st.st_mode):
            why = _link_target_verdict(prefix, path, rules)
            if why is not None:
                return None, why
            st = os.stat(full)
    except OSError:
        return None, None  # deleted from the work tree, or a dangling link
    if not stat.S_ISREG(st.st_mode):
        return None, None  # submodule or directory link
    why = rules.after_stat(path, st.st_size)
    if why is not None:
        if why.category != "size" or not _splittable(path, st.st_size):
            return None, why
        # A big source file may still give single definitions (`split_large_sources`): its
        # bytes must pass the same content rules as any other file's.
        verdict = _cached_verdict(full, path, st, cache, warnings)
        if verdict is None:
            return None, None
        return None, (_content_excluded(path, *verdict) if verdict[0] else why)
    verdict = _cached_verdict(full, path, st, cache, warnings)
    if verdict is None:
        return None, None
    if verdict[0]:
        return None, _content_excluded(path, *verdict)
    info = _name_info(path[path.rfind("/") + 1:])
    return FileEntry(path=path, size=st.st_size, kind=info.kind, language=info.language), None


def _cached_verdict(full: str, path: str, st: os.stat_result, cache: _ScanCache | None,
                    warnings: list[str]) -> tuple[str, str] | None:
    """The content verdict of one file (read once, then cached by size and mtime); None if unreadable."""
    verdict = cache.get(path, st.st_size, st.st_mtime_ns) if cache is not None else None
    if verdict is None:
        try:
            data = _read_bytes(full)
        except OSError as exc:
            warnings.append(f"{path}: cannot read ({exc.__class__.__name__}); skipped")
            return None
        verdict = _content_verdict(path, data)
        if cache is not None:
            cache.put(path, st.st_size, st.st_mtime_ns, verdict)
    return verdict


SPLIT_SOURCE_BYTES = 2_000_000  # = index.MAX_SOURCE_BYTES: sized-out sources up to this are split


def _splittable(path: str, size: int) -> bool:
    """A source file with a grammar, excluded only for its size, that may still be split."""
    return size <= SPLIT_SOURCE_BYTES and _name_info(path[path.rfind("/") + 1:]).language is not None


def _link_target_verdict(prefix: str, path: str, rules: _Rules) -> Excluded | None:
    """The gate's rules applied to what a symlink points at, under the link's own path.

    A link is judged by its target as well as by its name: outside the repository, a secret
    name (`src/settings.py -> ../.env`), a forbidden file, or any path rule of the target.
    """
    real, top = os.path.realpath(prefix + path), os.path.realpath(prefix)
    if os.path.commonpath([real, top]) != top:
        return Excluded(path, "symlink pointing outside the repository", "path")
    target = Path(real).relative_to(top).as_posix()
    if target == path:
        return None
    if target.startswith(NOFACE_DIR) or target == ".git" or target.startswith(".git/"):
        return Excluded(path, f"symlink to {target} (never sent)", "path")
    why = rules.before_stat(target)
    if why is None:
        return None
    return Excluded(path, f"symlink to {target}: {why.reason}", why.category)


def _content_digest(full: str) -> bytes:
    with open(full, "rb") as fh:
        return hashlib.sha1(fh.read()).digest()


def _read_bytes(full: str) -> bytes:
    with open(full, "rb") as fh:
        return fh.read()


# --------------------------------------------------------------------------- the gate's verdicts


def admitted(repo_files: RepoFiles, path: str, manifest: Manifest | None = None, *,
             single_definitions: bool = False) -> bool:
    """May bytes of `path` enter a prompt, by the verdict the scan (`_classify`) already gave it?

    Only a file the scan listed (inside the repository with symlinks resolved, not secret by
    name of link or target nor by content, not forbidden, not excluded) is admitted; the one
    exception is a source file excluded only for its size, and only as single definitions
    (`single_definitions`), after its content passed the same secret check. The manifest is
    checked again on the path itself: a caller may hold a scan made without it.
    """
    if manifest is not None and manifest.is_forbidden(path):
        return False
    if repo_files.get(path) is not None:
        return True
    if not single_definitions:
        return False
    ex = repo_files.exclusion(path)
    return ex is not None and ex.category == "size"


# --------------------------------------------------------------------------- one path


def check_path(config: Config, path: str, manifest: Manifest | None = None, *,
               explicit: bool = False) -> Excluded | None:
    """The scan's rules for one requested path; None when it may be served.

    Secrets are always refused; `explicit` lifts only the size limit. Missing files return None
    (the caller reports "not found"); paths outside the repository are refused.
    """
    root = Path(config.root)
    rel = _norm(path)
    if os.path.isabs(rel):
        try:
            rel = Path(os.path.realpath(rel)).relative_to(os.path.realpath(root)).as_posix()
        except ValueError:
            return Excluded(path, "outside the repository", "path")
    if not rel:
        return None  # the repository itself: nothing to refuse
    if rel == ".." or rel.startswith("../"):
        return Excluded(path, "outside the repository", "path")
    if rel.startswith(NOFACE_DIR):
        return Excluded(rel, "noface_ctx's own cache directory", "path")
    top = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(root / rel), top]) != top:
        return Excluded(rel, "resolves outside the repository (symlink)", "path")
    rules = _Rules(config, manifest, [rel] if explicit else ())
    why = rules.before_stat(rel)
    if why is None and _git_ignored(root, rel):
        why = Excluded(rel, "ignored by .gitignore", "path")
    if why is not None:
        return why
    return _classify(str(root) + os.sep, rel, rules, None, [])[1]


def _git_ignored(root: Path, rel: str) -> bool:
    answer = git.is_ignored(root, rel)
    if answer is not None:
        return answer
    # not a repository: read .gitignore files along the path
    chain: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    parts = rel.split("/")
    for i in range(len(parts)):
        base = "/".join(parts[:i])
        gi = root / base / ".gitignore"
        if gi.is_file():
            try:
                chain.append((base, pathspec.GitIgnoreSpec.from_lines(gi.read_text(errors="replace").splitlines())))
            except OSError:
                pass
        prefix = "/".join(parts[: i + 1])
        if ignored(chain, prefix + ("/" if i < len(parts) - 1 else "")):
            return True
    return False


def _norm(path: str) -> str:
    text = path.strip().replace("\\", "/")
    if os.path.isabs(text):
        return text
    norm = posixpath.normpath(text)
    return "" if norm == "." else norm
