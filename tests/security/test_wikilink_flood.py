"""A doc holding 100,000 broken wikilinks costs what a plain doc does: each doc lists at most
LINK_WARNINGS_PER_DOC of its unresolved links (with suggestions) and counts the rest in one line.
At 0bb2697 every link was listed, each with a fuzzy "did you mean" search over every slug, and each
warning was de-duplicated against a list: 74 s for one such doc."""

from __future__ import annotations

from noface_ctx import build_prompt
from noface_ctx.docs.load import LINK_WARNINGS_PER_DOC
from tests.conftest import make_repo

N_LINKS = 100_000


def test_a_doc_of_broken_wikilinks_is_listed_briefly_and_counted(tmp_path):
    flood = "# Flood\n\n" + " ".join(f"[[page{i}]]" for i in range(N_LINKS)) + "\n"
    repo = make_repo(tmp_path / "r", {
        ".noface.toml": '[monowiki]\nvault = "docs"\nmax_file_size_kb = 2000\n',
        "docs/flood.md": flood,
        "docs/page-guide.md": "# Page guide\n\nHow pages link. See [[missing-guide]].\n",
        "app.py": "def render_page(name):\n    return name\n",
    })
    prompt = build_prompt({"id": "t-1", "title": "Render page links", "description": "render_page breaks"},
                          repo=repo, embed=False)
    flood_lines = [w for w in prompt.warnings if w.startswith("docs/flood.md")]
    assert len(flood_lines) == LINK_WARNINGS_PER_DOC + 1
    assert flood_lines[-1] == f"docs/flood.md: {N_LINKS - LINK_WARNINGS_PER_DOC} more unresolved wikilink(s) not listed"
    assert flood_lines[0] == "docs/flood.md:3: unresolved wikilink [[page0]]"
    # another doc's single broken link is still listed in full
    assert any(w.startswith("docs/page-guide.md:3: unresolved wikilink [[missing-guide]]") for w in prompt.warnings)
