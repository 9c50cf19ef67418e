"""An environment variable read with a literal fallback: the fallback is the default.

`LOGURU_DIAGNOSE = env("LOGURU_DIAGNOSE", bool, True)`, `TIMEOUT = os.environ.get("PKG_TIMEOUT", "30")`,
`os.getenv("PKG_RETRIES", 5)`: a call whose callee reads the environment (`os.environ.get`, `getenv`, or a
function named for it: `env`, `get_env`, `env_bool`), whose first argument is the variable's name as a string (`PKG_TIMEOUT`: upper case),
and whose other arguments hold exactly one literal (a `default=` keyword's, else the one positional literal:
`bool` is a type, not a value) holds that literal when the variable is not set. `env_fallback` answers it for
a module constant bound to such a call (`constant_defaults`), `env_default` for the variable itself (a doc
stating what ``PKG_TIMEOUT`` defaults to: `coded_defaults`). No fallback (`os.environ.get("X")`,
`os.environ["X"]`), two literals, or a value computed from other names: no default. Read with `ast`, never run.
"""

from __future__ import annotations

import ast
import re

from noface_ctx.freshness.body_tokens import closing

_READER = re.compile(r"(?:[\w.]*\.)?(?:environ\.get|getenv\w*|\w*env\w*)", re.I)  # `os.environ.get`, `env`, `get_env_bool`
_CALL_AFTER = re.compile(r"\s*(?::[^=\n]*)?=\s*([A-Za-z_][\w.]*)\s*\(")  # `NAME: bool = env(`


def env_fallback(text: str, start: int, name: str) -> str:
    """The fallback literal (as written, `True`, `"30"`) of the environment read that the assignment of `name`
    starting at `start` in `text` binds it to, or "" when it binds something else."""
    m = _CALL_AFTER.match(text, start + len(name))
    if m is None or not _READER.fullmatch(m.group(1)):
        return ""
    end = closing(text, m.end() - 1)
    if end < 0:
        return ""
    return _fallback(text[m.start(1):end + 1]) or ""


def env_default(text: str, variable: str) -> str | None:
    """The one fallback every read of environment variable `variable` in `text` gives it, or None (not read so, or
    read with different fallbacks)."""
    if f'"{variable}"' not in text and f"'{variable}'" not in text:
        return None
    found: set[str] = set()
    for m in re.finditer(rf"""([A-Za-z_][\w.]*)\s*\(\s*(["']){re.escape(variable)}\2""", text):
        end = closing(text, m.end(1) + text[m.end(1):m.start(2)].index("(")) if _READER.fullmatch(m.group(1)) else -1
        value = _fallback(text[m.start(1):end + 1], variable) if end > 0 else None
        if value is None:
            return None
        found.add(value)
    return found.pop() if len(found) == 1 else None


def _fallback(call_text: str, variable: str = "") -> str | None:
    """The one literal a call reading the environment falls back to (see the module docstring), or None."""
    try:
        node = ast.parse(call_text, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(node, ast.Call) or not node.args or not isinstance(first := node.args[0], ast.Constant) or not (
            isinstance(first.value, str) and re.fullmatch(r"[A-Z_][A-Z0-9_]*", first.value)) or (variable and first.value != variable):
        return None
    given = [k.value for k in node.keywords if k.arg == "default"]
    values = given or [a for a in node.args[1:] if _literal(a) is not None]
    return _literal(values[0]) if len(values) == 1 else None


def _literal(node: ast.expr) -> str | None:
    """A literal argument as Python writes it (`True`, `5`, `-1.5`, `"30"`), or None (a name, a call, a string holding
    a quote, a backslash or a line break)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        inner = _literal(node.operand)
        return "-" + inner if inner is not None and not inner.startswith('"') else None
    if not isinstance(node, ast.Constant) or isinstance(node.value, bytes):
        return None
    if isinstance(node.value, str):
        return f'"{node.value}"' if not re.search(r"[\"'\\\n]", node.value) else None
    return repr(node.value) if node.value is not Ellipsis else None
