"""`.noface.toml` → `Config`: its keys, their defaults and ranges, and where caches go (the TOML
text read and each value checked, `file:line` errors and suggestions: `_config_toml.py`).

noface's own tables (`[project]`, `[agents]`, `[passes]`, `[tracker]`, `[monowiki]`) are read
leniently so every existing noface config keeps working: unknown keys there are warnings.
`[context]` belongs to this package, so a misspelt key there is an error (it could otherwise
let files through or silently change a budget).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noface_ctx import _cachefile as cachefile
from noface_ctx import _write_gate as write_gate
from noface_ctx._cache_location import repo_key, user_cache_base
from noface_ctx._config_toml import STR_LIST, Locator, checked, read_toml, suggest
from noface_ctx._filetypes import RECORD_DIRS
from noface_ctx._model_choice import DEFAULT_MODEL, choose_model
from noface_ctx._state import Memo, memo
from noface_ctx.errors import ConfigError, UsageError

CONFIG_NAME = ".noface.toml"

DEFAULT_DOC_GLOBS = (
    "docs/**/*.md",
    "docs/**/*.rst",
    "docs/**/*.txt",
    "doc/**/*.md",
    "doc/**/*.rst",
    "docs/**/*.ipynb",  # notebooks rendered into the docs (seaborn's tutorial): markdown cells as prose, code as examples
    "doc/**/*.ipynb",
    "*.md",
    "*.rst",
)


@dataclass(frozen=True, slots=True)
class ContextConfig:
    """The `[context]` table: everything this package decides. See README for each key."""

    budget_tokens: int = 16000
    docs_share: float = 0.35
    exclude: tuple[str, ...] = ()
    doc_globs: tuple[str, ...] = DEFAULT_DOC_GLOBS
    embeddings: bool = True
    embedding_model: str = DEFAULT_MODEL  # ONNX, torch-free; a repository may name only packaged models (_model_choice)
    bm25_weight: float = 0.5  # 0.5/0.5 suits the ONNX MiniLM-L3 default (0.4/0.6 suited MiniLM-L6): docs/benchmarks-embeddings.md
    embedding_weight: float = 0.5
    link_boost: float = 1.0
    doc_min_score: float = 0.35  # absolute relevance in [0, 1] a doc needs (the `rank/docs.py` docstring)
    instruction_min_score: float = 0.6  # the same for runbooks, checklists, how-tos
    stale_after_days: int = 180  # age against the repository's latest commit, with a changed symbol
    fail_on_changes: bool = False  # `check-docs`: a changed symbol a doc names is an error, not a warning
    fail_on_age: bool = False
    record_dirs: tuple[str, ...] = RECORD_DIRS  # folders of release notes/changelogs: never ranked or judged
    cache_dir: str = ""  # "" = user cache: $NOFACE_CTX_CACHE_DIR or $XDG_CACHE_HOME/noface-ctx/<repo key>
    split_large_sources: bool = True  # source files over max_file_size_kb still give single definitions
    request_log: str = ".noface/requests.jsonl"
    notes_dirs: tuple[str, ...] = ()  # folders of notes agents write: they decay with age (docs/trust.md)
    notes_half_life_days: float = 14.0  # of repository time; agent notes (frontmatter `source: agent`) too


@dataclass(frozen=True, slots=True)
class Config:
    """A validated `.noface.toml`. Nothing after `load_config` sees a raw dict."""

    root: Path
    source: Path | None = None
    project_name: str = ""
    build_cmd: str = ""
    test_cmd: str = ""
    vault: str = ""
    proactive_search: bool = True
    resolve_wikilinks: bool = True
    expand_neighbors: bool = True
    neighbor_depth: int = 1
    max_context_docs: int = 5
    max_file_size_kb: int = 100
    api_docs_slug: str = ""
    sync_api_docs: bool = False
    context: ContextConfig = field(default_factory=ContextConfig)
    agents: Mapping[str, Any] = field(default_factory=dict)
    passes: Mapping[str, Any] = field(default_factory=dict)
    tracker: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.project_name or self.root.name

    def with_context(self, **changes: object) -> Config:
        """A copy with some `[context]` values replaced (e.g. a `--budget` override)."""
        values: dict[str, Any] = changes  # checked by the dataclass: a key `[context]` lacks is a TypeError
        return dataclasses.replace(self, context=dataclasses.replace(self.context, **values))


# key -> (Config attribute, expected type); types: bool, int, float, str, "str_list"
_PROJECT = {"name": ("project_name", str), "build": ("build_cmd", str), "test": ("test_cmd", str)}
_MONOWIKI = {
    "vault": ("vault", str),
    "proactive_search": ("proactive_search", bool),
    "resolve_wikilinks": ("resolve_wikilinks", bool),
    "expand_neighbors": ("expand_neighbors", bool),
    "neighbor_depth": ("neighbor_depth", int),
    "max_context_docs": ("max_context_docs", int),
    "max_file_size_kb": ("max_file_size_kb", int),
    "api_docs_slug": ("api_docs_slug", str),
    "sync_api_docs": ("sync_api_docs", bool),
}
_SCALARS: dict[str, type] = {"int": int, "float": float, "bool": bool, "str": str}
_CONTEXT_TYPES: dict[str, object] = {
    f.name: (STR_LIST if f.type == "tuple[str, ...]" else _SCALARS[str(f.type)])
    for f in dataclasses.fields(ContextConfig)
}
_OPAQUE_TABLES = ("agents", "passes", "tracker")
_KNOWN_TABLES = ("project", "monowiki", "context", *_OPAQUE_TABLES)

# Value ranges: key -> (min, max) inclusive; None = unbounded.
_RANGES: dict[str, tuple[float | None, float | None]] = {
    "budget_tokens": (200, None),
    "docs_share": (0.0, 1.0),
    "bm25_weight": (0.0, None),
    "embedding_weight": (0.0, None),
    "link_boost": (0.0, None),
    "doc_min_score": (0.0, 1.0),
    "instruction_min_score": (0.0, 1.0),
    "stale_after_days": (0, None),
    "notes_half_life_days": (0.1, None),
    "neighbor_depth": (0, 10),
    "max_context_docs": (0, 100),
    "max_file_size_kb": (1, None),
}


# (root, configured cache_dir, user base) -> the dir in use, and -> why there is no persistent cache
_CACHE_DIRS: Memo[tuple[str, str, str], Path] = memo("config.cache_dirs", maxsize=None)
_CACHE_WARNINGS: Memo[tuple[str, str, str], str] = memo("config.cache_warnings", maxsize=None)


def cache_dir(config: Config) -> Path:
    """Where indexes, embeddings and other caches go; created on first use.

    `[context] cache_dir` (relative to the repo; `load_config` refuses one outside the repository
    and the user cache) wins; else `user_cache_base() / repo_key(root)`. When that cannot be
    created or written (read-only home), a private temp dir for this process only is used, with
    one warning (`cache_warnings()`): no persistent cache, never a crash. Once per directory and
    process: temp files of killed writers are swept, and, for a cache inside the repository, the
    files git tracks there are listed so `cachefile` never reads them. A `.gitignore` holding `*`
    is dropped into a new `<repo>/.noface/` so our files never become candidates.
    """
    key = (str(config.root), config.context.cache_dir, str(user_cache_base()))
    known = _CACHE_DIRS.get(key)
    if known is not None:
        return known
    target = Path("~")  # (named in the warning when even the user's home cannot be found)
    write_gate.add_repository(config.root)
    try:
        if config.context.cache_dir:  # not resolved here: the gate refuses links inside the repository
            target = config.root / config.context.cache_dir
        else:
            target = user_cache_base() / repo_key(config.root)
        target = write_gate.make_dirs(target, root=config.root, confine=True)
        write_gate.refuse_links_under(target)
        probe = target / f".probe-{__import__('os').getpid()}"
        write_gate.append(probe, b"")
        probe.unlink()
        noface_dir = config.root / ".noface"
        if target.is_relative_to(noface_dir):
            write_gate.create_new(noface_dir / ".gitignore", b"*\n", root=config.root)
    except (OSError, RuntimeError) as exc:  # RuntimeError: Path.home() without a HOME
        import atexit
        import shutil
        import tempfile

        fallback = Path(tempfile.mkdtemp(prefix="noface-ctx-")).resolve()
        write_gate.add_private(fallback)
        atexit.register(shutil.rmtree, fallback, True)
        refused = isinstance(exc, write_gate.WriteRefused)
        why = f"refused ({exc})" if refused else f"is not writable ({getattr(exc, 'strerror', None) or exc})"
        _CACHE_WARNINGS.put(key, (
            f"cache directory {target} {why}; "
            "running without a persistent cache"
        ))
        return _CACHE_DIRS.put(key, fallback)
    cachefile.prepare_dir(target, config.root)
    return _CACHE_DIRS.put(key, target)


def cache_warnings(config: Config | None = None) -> list[str]:
    """Why `config`'s cache (or any, for None) is not persistent: empty when it is."""
    if config is None:
        return _CACHE_WARNINGS.values()
    got = _CACHE_WARNINGS.get((str(config.root), config.context.cache_dir, str(user_cache_base())))
    return [got] if got else []


def _confine(config: Config, key: str, value: str) -> None:
    """`ConfigError` when a path the repository's config names resolves (links included) outside
    both the repository and the user cache: a cloned repository must not read or write elsewhere."""
    if not value:
        return
    root = config.root.resolve()
    target = Path(value)
    target = (target if target.is_absolute() else config.root / target).resolve()
    allowed = [root]
    try:
        allowed.append(user_cache_base().resolve())
    except (OSError, RuntimeError):
        pass
    if not any(target == a or target.is_relative_to(a) for a in allowed):
        where = _display(config.source, config.root)
        locate = Locator(config.source.read_text(encoding="utf-8", errors="replace") if config.source else "", where)
        raise ConfigError(
            f"[context] {key}: {value!r} resolves outside the repository and the user cache ({target}); refused",
            where=locate("context", key),
        )


def load_config(repo: str | Path = ".", path: str | Path | None = None, *, embedding_model: str | None = None) -> Config:
    """Read `<repo>/.noface.toml` (or `path`). A missing file means defaults. The embedding model
    is `embedding_model` when given (the user's `--embedding-model`), else the user's own choice,
    else one the repository may name (`_model_choice`)."""
    root = Path(repo).resolve()
    if not root.is_dir():
        raise ConfigError("repository directory does not exist", where=str(repo))
    explicit = path is not None
    cfg_path = Path(path) if path is not None else root / CONFIG_NAME
    if not cfg_path.is_file():
        if explicit:
            raise ConfigError("config file not found", where=str(path))
        return parse_config("", root=root, embedding_model=embedding_model)
    try:
        if cfg_path.stat().st_size > _MAX_CONFIG_BYTES:
            raise ConfigError(f"larger than {_MAX_CONFIG_BYTES // 1024} KB; refused", where=str(cfg_path))
        raw_text = cfg_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", where=str(cfg_path)) from None
    config = parse_config(raw_text, root=root, source=cfg_path, embedding_model=embedding_model)
    _confine(config, "cache_dir", config.context.cache_dir)
    _confine(config, "request_log", config.context.request_log)
    return config


def parse_config(raw_text: str, *, root: Path, source: Path | None = None, embedding_model: str | None = None) -> Config:
    """Validate a repository's TOML text into a `Config`; errors name `file:line`. Its
    `embedding_model` counts only when it names a packaged model (`_model_choice.choose_model`)."""
    data, locate = read_toml(raw_text, _display(source, root))
    warnings: list[str] = []
    values: dict[str, Any] = {}

    for table, body in data.items():
        if table not in _KNOWN_TABLES:
            warnings.append(f"{locate(table, None)}: unknown table [{table}] ignored")
            continue
        if not isinstance(body, dict):
            raise ConfigError(f"[{table}] must be a table", where=locate(table, None))

    for table, schema in (("project", _PROJECT), ("monowiki", _MONOWIKI)):
        for key, value in data.get(table, {}).items() if isinstance(data.get(table), dict) else ():
            if key not in schema:
                hint = suggest(key, schema)
                warnings.append(f"{locate(table, key)}: [{table}] {key}: unknown key ignored{hint}")
                continue
            attr, typ = schema[key]
            values[attr] = _check(value, typ, table, key, locate)

    ctx_values: dict[str, Any] = {}
    for key, value in data.get("context", {}).items():
        if key not in _CONTEXT_TYPES:
            raise ConfigError(
                f"[context] {key}: unknown key{suggest(key, _CONTEXT_TYPES)}", where=locate("context", key)
            )
        ctx_values[key] = _check(value, _CONTEXT_TYPES[key], "context", key, locate)
    model, refused = choose_model(ctx_values.get("embedding_model"), locate("context", "embedding_model"), embedding_model)
    ctx_values["embedding_model"] = model
    warnings.extend(refused)

    opaque: dict[str, Any] = {t: dict(data[t]) for t in _OPAQUE_TABLES if isinstance(data.get(t), dict)}
    return Config(
        root=root,
        source=source,
        context=ContextConfig(**ctx_values),
        warnings=tuple(warnings),
        **values,
        **opaque,
    )


def _check(value: object, typ: object, table: str, key: str, locate: Locator) -> object:
    where = locate(table, key)
    value = checked(value, typ, f"[{table}] {key}", where, _RANGES.get(key, (None, None)))
    if key == "record_dirs" and isinstance(value, tuple) and any(
            not v.strip("/") or any(c in v for c in "*?[]") for v in value):
        raise ConfigError(f"[{table}] {key}: folder names only (no globs, none empty), got {list(value)!r}", where=where)
    return value


_MAX_CONFIG_BYTES = 1024 * 1024


def _display(source: Path | None, root: Path) -> str:
    if source is None:
        return CONFIG_NAME
    try:
        return source.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(source)


def find_root(start: str | Path = ".") -> Path:
    """The repository that holds `start`: the git top-level, else (outside git) the nearest
    directory at or above `start` holding `.noface.toml`. Used when no `--repo` is given, so a
    command run from a subdirectory sees the whole repository. Never the current directory by
    default: outside both, `UsageError` (a scratch folder must not silently become a project)."""
    from noface_ctx import _git as git
    here = Path(start).resolve()
    top = git.toplevel(here)
    if top is not None:
        return top.resolve()
    for d in (here, *here.parents):
        if (d / CONFIG_NAME).is_file():
            return d
    raise UsageError(NO_PROJECT, where=str(here))


NO_PROJECT = "not inside a git repository or a noface project; pass --repo or run `noface-ctx init`"
