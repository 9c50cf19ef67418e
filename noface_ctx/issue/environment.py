"""What an issue template asks for besides the problem: environment reports and instructions.

Issue trackers' templates ask for `pip list`, `show_versions()` output, the operating system and
the library's version, and leave their own instructions in HTML comments. Those lines name every
dependency of the reporter's machine and no code of the repository, yet a ranker weighs them like
the description (`print_versions.py` ranked first for a question about `Dataset.update`).
`without_environment` drops them from the text retrieval ranks against (`query_text`); the
prompt still shows the issue as written.
"""

from __future__ import annotations

import re

from noface_ctx._wording import is_manifest_text
from noface_ctx.datatypes import Issue

__all__ = ["query_text", "without_environment"]


def query_text(issue: Issue) -> str:
    """The text retrieval ranks against: every prose field of `issue`, without MANIFEST comments
    and without the environment reports an issue template asks for."""
    parts = [issue.description, issue.design, issue.acceptance_criteria, issue.notes]
    parts += [c for c in issue.comments if not is_manifest_text(c)]
    parts = [without_environment(p) for p in parts]
    if issue.labels:
        parts.append(" ".join(issue.labels))
    return "\n\n".join(p for p in [issue.title, *parts] if p)

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_DETAILS = re.compile(r"<details>\s*<summary>(?P<summary>.*?)</summary>.*?(?:</details>|\Z)", re.S | re.I)
# a markdown heading, or a line that is only bold text (`**Environment info**`, `**Versions**:`)
_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s*(?P<hash>.*?)\s*#*|\*\*(?P<bold>[^*\n]+)\*\*:?)\s*$")
_ENVIRONMENT = re.compile(
    r"\b(?:versions?|environment|operating system|os|platform|installation|system info(?:rmation)?|"
    r"show_versions|pip (?:list|freeze)|conda list|installed packages|dependencies)\b",
    re.I,
)
_KEY = re.compile(r"^\s*[-*]?\s*[\w .()/-]{1,40}:(?:\s|$)")
_HAS_VERSION = re.compile(r"\d+\.\d+")
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_VERSION = r"v?\d+(?:\.\d+)+[\w.+-]*"
# one installed package per line: `attrs==19.3.0` (pip freeze), `attrs    19.1.0` (pip list),
# `numpy: 1.18.5` / `netCDF4: None` (show_versions); an exception (`KeyError: None`) is kept
_PACKAGE_LINE = re.compile(
    rf"^\s*[-*]?\s*(?:[A-Za-z][\w.-]*\s*==\s*{_VERSION}"
    rf"|[A-Za-z][\w.-]*\s{{2,}}{_VERSION}"
    rf"|[a-z][\w.-]*:\s+(?:None|{_VERSION}))(?:\s.*)?$"
)


def without_environment(text: str) -> str:
    """`text` without HTML comments, environment `<details>` blocks, sections headed like an
    environment report (Versions, Environment, Operating system, ...) and package/version lines."""
    if not text:
        return text
    text = _COMMENT.sub("", text)
    text = _DETAILS.sub(lambda m: "" if _ENVIRONMENT.search(m.group("summary")) else m.group(0), text)
    kept: list[str] = []
    skipping = fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)  # `# a comment` in code is no heading
        if heading:
            skipping = _ENVIRONMENT.search(heading.group("hash") or heading.group("bold") or "") is not None
            if skipping:
                continue
        if skipping and not fenced and _is_prose(line):
            skipping = False  # the report had no heading after it: the description goes on
        if skipping or _PACKAGE_LINE.match(line):
            continue
        kept.append(line)
    return "\n".join(kept) + ("\n" if text.endswith("\n") else "")


def _is_prose(line: str) -> bool:
    """A sentence, not a report line: five words or more, no `key:` in front, no version number."""
    return len(line.split()) >= 5 and not _KEY.match(line) and not _HAS_VERSION.search(line)
