"""Import paths a shell command names (`gunicorn app -k pkg.workers.Worker`, `python -m pkg.tool`,
`uvicorn pkg.main:app`, `celery -A proj.app worker`, `DJANGO_SETTINGS_MODULE=proj.settings`).

Command-line tools take dotted import paths everywhere; a doc's shell block (a fence without a
language, or `bash`/`sh`/`shell`/`console`) names the repository's modules and classes that way.
`shell_refs(block, lang)` reads each command line (in a session with prompts, only the prompted
lines: the rest is output) and answers a whole token `a.b.C` as a reference to `a.b.C` and
`a.b:obj` as one to the module `a.b`, bound like an import of `a` (`Reference.binds`): a root that
is no importable package of the repository is skipped (`codebase.Codebase.importable`), and a
command states no signature. Tokens that are files (`app.py`, `pkg.sock`), hosts (`www.x.org`),
paths or URLs are not import paths.
"""

from __future__ import annotations

import re

from noface_ctx.freshness.references import IDENT, KNOWN_EXTS, Reference

SHELL_LANGS = frozenset({"", "bash", "sh", "shell", "console", "zsh", "shell-session", "sh-session", "shellsession"})
_PROMPT = re.compile(r"^\s*(?:\(\S+\)\s*)?[$%]\s+")  # `$ cmd`, `% cmd`, `(venv) $ cmd`
_COMMAND = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\.{0,2}/)?[a-z][\w.+-]*(?:\s|$)")  # a program first, env settings before it
_TOKEN = re.compile(rf"(?:(?<=^)|(?<=[\s='\"]))({IDENT}(?:\.{IDENT})+)(?::({IDENT}(?:\.{IDENT})*))?(?=$|[\s'\"])")
_NOT_MODULES = frozenset("""com org net io edu gov local localhost sock pid log lock out err tmp bak pem crt cert
whl egg tar gz tgz bz2 xz zip so dll dylib exe db sqlite sqlite3 pyc""".split())  # hosts, files the command handles


def shell_refs(block: list[tuple[int, str]], lang: str) -> list[Reference]:
    """The import paths the command lines of a shell block name, as `method` references bound
    like an import of their root (see the module docstring)."""
    if lang not in SHELL_LANGS:
        return []
    prompted = any(_PROMPT.match(raw) for _, raw in block)
    out: list[Reference] = []
    for lineno, raw in block:
        prompt = _PROMPT.match(raw)
        if prompted and prompt is None:
            continue  # a session's output
        line = raw[prompt.end():] if prompt else raw.strip()
        if not _COMMAND.match(line) or "noface-ctx: ignore" in line:
            continue
        line = line.split(" #", 1)[0]
        program = next((w for w in line.split() if not re.match(r"[A-Z_][A-Z0-9_]*=", w)), "")
        for m in _TOKEN.finditer(line):
            dotted = m.group(1)
            parts = dotted.split(".")
            if parts[-1].lower() in _NOT_MODULES or parts[-1].lower() in KNOWN_EXTS or m.group(0) == program:
                continue  # a file, a host, the program itself (`python3.11`)
            if m.start() > 0 and line[m.start() - 1] == "=" and not re.search(r"(?:^|\s)[A-Z_][A-Z0-9_]*=$|--[\w-]+=$", line[:m.start()]):
                continue
            out.append(Reference(m.group(0), dotted, "method", lineno, True, "python", parts[0]))
    return out
