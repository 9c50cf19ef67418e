"""Bounded work on hostile input: every parser of repository or user data goes through here.

The repository, its issues, `bd` output and stdin are untrusted. Each reader here has a size
limit (bytes read, never more) and a nesting limit, checked without deep recursion, so a hostile
file ends in one `InputError` line (exit 2) within milliseconds instead of a RecursionError,
MemoryError or minutes of work:

- `loads_json` / `read_json`: JSON text up to `MAX_JSON_BYTES`, nested at most `MAX_DEPTH`
  (deeper text stops the C scanner with a RecursionError in linear time; the result is then
  walked iteratively, so no later recursive code sees more than `MAX_DEPTH` levels).
- `check_depth`: the same nesting check for any parsed value (TOML, YAML).
- `load_yaml`: YAML on a safe loader that refuses aliases (the "billion laughs" bomb), nesting
  beyond `MAX_DEPTH` and more than `MAX_YAML_NODES` nodes.
- `read_head`: at most `limit` bytes of a file, and whether it was cut.
- `decode_text`: bytes to text with invalid UTF-8 replaced, so nothing later can fail to encode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from noface_ctx.errors import InputError

MAX_DEPTH = 64
MAX_JSON_BYTES = 32 * 1024 * 1024
MAX_YAML_BYTES = 256 * 1024
MAX_YAML_NODES = 20_000

def loads_json(data: str | bytes, where: str, *, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_DEPTH) -> object:
    """Parse JSON from an untrusted source; `InputError` naming `where` for anything wrong."""
    if len(data) > max_bytes:
        raise InputError(f"JSON larger than {max_bytes // (1024 * 1024)} MB; refused", where=where)
    try:
        value = json.loads(data)  # the C scanner stops deep nesting with a RecursionError, in linear time
    except RecursionError:
        raise InputError("JSON nested too deeply; refused", where=where) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start})", where=where) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})", where=where) from None
    check_depth(value, where, max_depth, what="JSON ")
    return value


def read_json(path: str | Path, where: str | None = None, *, max_bytes: int = MAX_JSON_BYTES) -> object:
    """`loads_json` of a file, reading at most `max_bytes` + 1 bytes."""
    label = where or str(path)
    try:
        data, cut = read_head(path, max_bytes)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where=label) from None
    if cut:
        raise InputError(f"JSON larger than {max_bytes // (1024 * 1024)} MB; refused", where=label)
    return loads_json(data, label, max_bytes=max_bytes)


def check_depth(value: object, where: str, limit: int = MAX_DEPTH, *, what: str = "") -> None:
    """`InputError` when a parsed value nests lists/dicts deeper than `limit` (iterative walk)."""
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        children: Any
        if isinstance(v, dict):
            children = v.values()
        elif isinstance(v, (list, tuple)):
            children = v
        else:
            continue
        if d >= limit:
            raise InputError(f"{what}nested deeper than {limit} levels; refused", where=where)
        stack.extend((c, d + 1) for c in children if isinstance(c, (dict, list, tuple)))


def read_head(path: str | Path, limit: int) -> tuple[bytes, bool]:
    """At most `limit` bytes of `path`, and True when the file holds more."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    return data[:limit], len(data) > limit


def decode_text(data: bytes) -> str:
    """UTF-8 text with invalid bytes replaced (never a lone surrogate)."""
    return data.decode("utf-8", "replace")


class YamlLimitError(ValueError):
    """YAML the bounded loader refuses (aliases, too deep, too many nodes, too big)."""


def load_yaml(text: str, *, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_YAML_NODES,
              max_bytes: int = MAX_YAML_BYTES) -> object:
    """`yaml.safe_load` without aliases, nesting beyond `max_depth` or more than `max_nodes` nodes.

    Raises `YamlLimitError` for what it refuses and `yaml.YAMLError` for malformed YAML."""
    if len(text) > max_bytes:
        raise YamlLimitError(f"larger than {max_bytes // 1024} KB")
    loader = _bounded_loader()(text)
    loader.max_depth, loader.max_nodes = max_depth, max_nodes
    try:
        return loader.get_single_data()
    except RecursionError:
        raise YamlLimitError(f"nested deeper than {max_depth} levels") from None
    finally:
        loader.dispose()


_LOADER: Any = None


def _bounded_loader() -> Any:
    """The `SafeLoader` subclass that counts nodes and depth and refuses aliases (made once)."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class BoundedSafeLoader(yaml.SafeLoader):
        max_depth = MAX_DEPTH
        max_nodes = MAX_YAML_NODES
        _depth = 0
        _nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise YamlLimitError("aliases (*name) are not allowed")
            self._nodes += 1
            if self._nodes > self.max_nodes:
                raise YamlLimitError(f"more than {self.max_nodes} nodes")
            self._depth += 1
            try:
                if self._depth > self.max_depth:
                    raise YamlLimitError(f"nested deeper than {self.max_depth} levels")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    _LOADER = BoundedSafeLoader
    return _LOADER
