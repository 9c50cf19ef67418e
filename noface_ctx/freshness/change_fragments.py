"""Change fragments (`fragment`): the one-entry files a changelog tool collects and deletes at each
release (towncrier's `CHANGES/1654.bugfix.rst`, `changelog.d/+orphan.misc.md`, `newsfragments/12.feature`,
`changes/1654.bugfix.1.rst`). A doc naming one shows how fragments are named (or quotes one); no reader is
sent to open it, so a fragment path is never reported missing once a release consumed it.

Not fragments, judged as every path is: any other file of a record folder (`CHANGES/README.rst`,
`changelog.d/template.rst`), a numbered file outside one (`docs/12.feature.rst`), a doc page
(`docs/changes.rst`)."""

from __future__ import annotations

import re

from noface_ctx._filetypes import RECORD_DIRS

# an issue number (or towncrier's `+` orphan), the change's type, a counter, an optional markup suffix
_NAME = re.compile(r"^(?:\d+|\+[\w-]*)\.[a-z][a-z_-]*(?:\.\d+)?(?:\.(?:rst|md|txt|markdown))?$", re.I)
_FOLDERS = frozenset({*RECORD_DIRS, "newsfragments", "news_fragments", "fragments", "changelog_fragments",
                      "changes.d", "changelog.d", "news.d", "unreleased"})


def fragment(path: str) -> bool:
    """True when `path` names a change fragment in a fragment (or record) folder."""
    parts = path.strip("/").split("/")
    return len(parts) >= 2 and _NAME.match(parts[-1]) is not None and parts[-2].lower().replace("-", "_") in _FOLDERS
