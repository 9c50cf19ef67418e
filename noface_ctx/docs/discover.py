"""Docs the default globs would miss: documentation sites outside `docs/` and `doc/`, folders of prose
(`prose_folders`), and agent guides.

A repository may publish its docs from another folder (`docsv/` with a VitePress config, `website/`
with Docusaurus, `guide/` with an mdBook) and keep guides for coding agents beside the code
(`src/pkg/AGENTS.md`). With the default `[context] doc_globs`, those would be neither read for
prompts nor judged by `check-docs`, in silence. A folder counts as a doc site only when it holds a
site generator's own marker file, found from the scan's paths (nothing is read or run); a top folder
holding sphinx-gallery sections (`GALLERY_HEADER.rst`: matplotlib's `galleries/`, whose
`users_explain/` is the user guide) is one too; a folder named like a test folder never is (test
fixtures carry Sphinx projects). A `doc_globs` the user
wrote is taken as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from noface_ctx.datatypes import RepoFiles
from noface_ctx.docs.prose_folders import prose_folders

# A file (or folder) at the top of a doc site, and the generator it names.
SITE_MARKERS = {
    "mkdocs.yml": "MkDocs",
    "mkdocs.yaml": "MkDocs",
    ".vitepress": "VitePress",
    ".vuepress": "VuePress",
    "docusaurus.config.js": "Docusaurus",
    "docusaurus.config.ts": "Docusaurus",
    "book.toml": "mdBook",
    "antora.yml": "Antora",
}
SPHINX_INDEX = ("index.rst", "index.md", "contents.rst")  # beside conf.py: a Sphinx project
AGENT_GUIDES = ("AGENTS.md", "CLAUDE.md")
GALLERY_HEADER = "GALLERY_HEADER.rst"  # a sphinx-gallery section's header: rst pages live beside its scripts
_TEST_DIR = re.compile(r"^(?:tests?|testing|fixtures?|test_?data)$", re.I)
_COVERED = ("docs", "doc")  # already read by the default globs
MAX_DEPTH = 2  # a site folder at `site/` or `packages/site/`


def doc_sites(paths: Iterable[str]) -> dict[str, str]:
    """{site folder: why} for every documentation site outside `docs/` and `doc/` (sorted)."""
    listed = set(paths)
    found: dict[str, str] = {}
    asked: set[tuple[str, ...]] = set()  # what the folders' loop below depends on: a path's first three parts and its depth
    for path in sorted(listed):
        parts = path.split("/")
        place = (*parts[:MAX_DEPTH + 1], str(min(len(parts), MAX_DEPTH + 2)))
        for depth in range(1, min(MAX_DEPTH, len(parts) - 1) + 1) if place not in asked else ():
            folder, name = "/".join(parts[:depth]), parts[depth]
            if parts[0] in _COVERED or any(_TEST_DIR.match(p) or p.startswith(".") for p in parts[:depth]):
                break
            why = SITE_MARKERS.get(name)
            if why is None and name == "conf.py" and depth == len(parts) - 1:
                if any(f"{folder}/{index}" in listed for index in SPHINX_INDEX):
                    why = "Sphinx"
            if why is not None and folder not in found and not any(folder.startswith(f + "/") for f in found):
                found[folder] = f"{why} site ({folder}/{name})"
        asked.add(place)  # (a path sharing it finds nothing more: `found` only grows)
        top = parts[0]
        if parts[-1] == GALLERY_HEADER and 1 < len(parts) <= MAX_DEPTH + 3 and top not in found and top not in _COVERED \
                and not any(_TEST_DIR.match(p) or p.startswith(".") for p in parts) and f"{top}/__init__.py" not in listed:
            found[top] = f"sphinx-gallery sources ({path})"  # its galleries and the pages beside them, under one folder
    return dict(sorted(found.items()))


def discovered_globs(repo_files: RepoFiles) -> tuple[str, ...]:
    """The globs the default `doc_globs` gain in this repository: its doc sites and agent guides."""
    paths = [f.path for f in repo_files.files] + [e.path for e in repo_files.excluded]
    globs = [f"{site}/**/*.{ext}" for site in doc_sites(paths) for ext in ("md", "rst", "ipynb")]
    globs += [f"{folder}/**/*.{ext}" for folder in prose_folders(paths) for ext in ("md", "rst")]  # `questions/*.md`
    if any(p.rpartition("/")[2] in AGENT_GUIDES for p in paths):
        globs += [f"**/{name}" for name in AGENT_GUIDES]
    return tuple(globs)
