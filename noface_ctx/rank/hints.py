"""What an issue names explicitly: identifiers, dotted paths, files and stack frames.

Also the one place in `rank/` that decides whether a word looks like code (`looks_like_code`).
Whether a path is a test file is decided for the whole package by `filetypes.is_test_path`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from noface_ctx._filetypes import CODE_HINT_EXTENSIONS, extension_pattern, is_test_path

_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?')
_PYTEST_FRAME = re.compile(r"^([\w./\\-]+\.\w{1,4}):(\d+):", re.M)
_EXT = extension_pattern(CODE_HINT_EXTENSIONS)  # from filetypes: now also .pyw, .ex, .vue, .jsonl, .xml, .lock, ...
_FILE = re.compile(rf"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.{_EXT})(?![\w])")
_DOTTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(\s*\()?")
_BACKTICK = re.compile(r"`([^`\n]{1,80})`")
_TEST_TITLE = re.compile(r"\b(unit ?tests?|test suite|test file|tests for|flaky|failing tests?|add(ing)? tests?)\b", re.I)
# `from pkg.mod import Name` / `import pkg.mod as m` on a line of its own (also after `>>>`)
_IMPORT_LINE = re.compile(r"^[ \t]*(?:>>>[ \t]*)?(?:from[ \t]+[\w.]+[ \t]+import[ \t][^\n]*|import[ \t]+[\w., \t]+)$", re.M)
# `SomeError: message` on a line of its own (the last line of a traceback, a logged error)
_EXCEPTION_LINE = re.compile(r"^[ \t]*(?:[\w.]+\.)?\w*(?:Error|Exception|Warning)[ \t]*:[ \t]*(\S[^\n]*)$", re.M)
_MESSAGE_BREAK = re.compile(r"[\"'`{}()\[\]<>:=]|\d+(?:\.\d+)*")
MAX_MESSAGES = 5
_NOT_A_STATEMENT = re.compile(r"(?:>>>|#|File |class\s|def\s|<\?xml)")
_WORD = re.compile(r"[A-Za-z_]\w*")
_CODE_MARK = re.compile(r"\w\(|=|[\w)\]]\.[A-Za-z_]")
MAX_CODE_LINES = 40
_HUMP = re.compile(r"[a-z][A-Z]")
_HUMP_OR_ACRONYM = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")


@dataclass(frozen=True, slots=True)
class Hints:
    """What the issue names explicitly: identifiers, dotted paths, files and stack frames."""

    names: frozenset[str] = frozenset()
    dotted: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    frames: tuple[tuple[str, int, str], ...] = ()
    about_tests: bool = False
    messages: tuple[str, ...] = ()  # literal text of exception messages (`ValueError: ...`)
    code_lines: tuple[str, ...] = ()  # lines of code quoted in the issue (not imports, not frames' source)


def extract_hints(text: str) -> Hints:
    """Identifiers that look like code (snake_case, CamelCase, `x()`, backticks, a.b.c) and more."""
    frames = [(p, int(n), f or "") for p, n, f in _FRAME.findall(text)]
    frames += [(p, int(n), "") for p, n in _PYTEST_FRAME.findall(text)]
    # Windows paths read with `/`, so `C:\\site-packages\\pkg\\mod.py` names no bare `mod.py`
    # (a path under an absolute root is matched through its frame, as on POSIX)
    files = list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text.replace("\\", "/"))))
    file_set = set(files)
    named = _IMPORT_LINE.sub("", text)  # a repro's imports name the API it used, not the code to fix
    dotted = [d for d in dict.fromkeys(_DOTTED.findall(named)) if d not in file_set and not _is_file(d)]
    names: set[str] = set()
    ticked = {w for span in _BACKTICK.findall(named) for w in _WORD.findall(span)}
    for m in _IDENT.finditer(named):
        word = m.group(1)
        if len(word) < 3:
            continue
        if m.group(2) or word in ticked or looks_like_code(word):
            names.add(word)
    names.update(f for _, _, f in frames if f and not f.startswith("<"))
    for d in dotted:
        names.update(p for p in d.split(".") if len(p) >= 3 and (looks_like_code(p) or p in ticked))
        names.add(d.rsplit(".", 1)[1])
    title = text.split("\n", 1)[0]
    about_tests = title_names_tests(title) or any(is_test_path(f) for f in files)
    return Hints(frozenset(names), tuple(dotted), tuple(files), tuple(frames), about_tests, _messages(text),
                 _code_lines(text))


def looks_like_code(word: str, *, edge_underscores: bool = False, acronym_humps: bool = True) -> bool:
    """Whether an identifier is shaped like code rather than a prose word.

    snake_case (a `_` inside the word) or camelCase (a lower-case letter then a capital) count;
    with `acronym_humps`, so does an acronym before a word (`HTTPServer`); with
    `edge_underscores`, so does a leading or trailing `_` (`_private`, `__init__`).
    """
    core = word if edge_underscores else word.strip("_")
    if "_" in core:
        return True
    return (_HUMP_OR_ACRONYM if acronym_humps else _HUMP).search(core) is not None


def title_names_tests(title: str) -> bool:
    """Whether an issue title says the work is about tests (unit tests, a flaky test, ...)."""
    return _TEST_TITLE.search(title) is not None


def _messages(text: str) -> tuple[str, ...]:
    """The longest literal run (three words or more) of each exception message in the issue:
    `ValueError: Imaginary coordinates are not permitted.` gives `Imaginary coordinates are not
    permitted`; quotes, brackets and numbers, where a formatted message varies, split a message."""
    found: list[str] = []
    for m in _EXCEPTION_LINE.finditer(text):
        runs = [r.strip(" .,;!?") for r in _MESSAGE_BREAK.split(m.group(1))]
        runs = [r for r in runs if len(r.split()) >= 3]
        if runs:
            found.append(max(runs, key=len))
    return tuple(dict.fromkeys(found))[:MAX_MESSAGES]


def _code_lines(text: str) -> tuple[str, ...]:
    """Lines of the issue that look like a statement of code (`opts = cur_model._meta`): three
    identifiers or more and a call, an assignment or an attribute (`a.b`); not an import, a
    `class`/`def` header, a prompt (`>>>`) or the source line a traceback prints under its frame
    (frames count on their own)."""
    lines = text.splitlines()
    under_frame = {k + 1 for k, line in enumerate(lines) if _FRAME.search(line)}
    found: list[str] = []
    for k, line in enumerate(lines):
        stripped = line.strip().strip("`")
        if k in under_frame or len(stripped) < 15 or not _CODE_MARK.search(stripped):
            continue
        if _NOT_A_STATEMENT.match(stripped) or _IMPORT_LINE.match(stripped) or len(_WORD.findall(stripped)) < 3:
            continue
        found.append(stripped)
    return tuple(dict.fromkeys(found))[:MAX_CODE_LINES]


def _is_file(dotted: str) -> bool:
    return re.fullmatch(rf".*\.{_EXT}", dotted) is not None and dotted.count(".") == 1
