"""A doc's text without I/O: slugs, frontmatter, wikilink forms, sections (Markdown and reST), instruction docs."""

from __future__ import annotations

import pytest

from noface_ctx.docs.markup import (
    is_instruction_doc,
    parse_wikilinks,
    slugify,
    split_sections,
    strip_frontmatter,
)

# --------------------------------------------------------------------------- slugs + frontmatter


@pytest.mark.parametrize(
    "text, slug",
    [
        ("Hello World", "hello-world"),
        ("C++ Programming", "c-programming"),
        ("Node.js Tips", "nodejs-tips"),
        ("snake_case_name", "snake-case-name"),
        ("  --Trim--  me ", "trim-me"),
        ("Überblick Ärger", "überblick-ärger"),
    ],
)
def test_slugify(text, slug):
    assert slugify(text) == slug
def test_strip_frontmatter():
    assert strip_frontmatter("---\ntitle: x\n---\n# H\n") == "# H\n"
    assert strip_frontmatter("# H\n---\n") == "# H\n---\n"

# --------------------------------------------------------------------------- wikilinks


def test_every_wikilink_form():
    text = (
        "Plain [[Auth Design]], labelled [[auth-design|the auth doc]],\n"
        "heading [[auth-design#Token Refresh]], both [[auth-design#Sessions|sessions]],\n"
        "path [[design/Doc Agent]], with extension [[design/doc-agent.md]], embed ![[diagram]].\n"
        "Inline code `[[not-a-link]]` is not a link, nor is [[#local-heading]].\n"
        "```\n[[in-a-fence]]\n```\n"
        "~~~~python\n[[in-tilde-fence]]\n```\nstill fenced [[nope]]\n~~~~\n"
        "After the fence [[after]].\n"
    )
    links = parse_wikilinks(text, first_line=10)
    got = [(w.target, w.heading, w.label, w.line) for w in links]
    assert got == [
        ("auth-design", "", "", 10),
        ("auth-design", "", "the auth doc", 10),
        ("auth-design", "Token Refresh", "", 11),
        ("auth-design", "Sessions", "sessions", 11),
        ("design/doc-agent", "", "", 12),
        ("design/doc-agent", "", "", 12),
        ("diagram", "", "", 12),
        ("after", "", "", 22),
    ]
    assert links[1].raw == "[[auth-design|the auth doc]]"

# --------------------------------------------------------------------------- sections


def test_markdown_sections_atx_setext_fences_and_line_numbers():
    body = (
        "Intro paragraph.\n\n"
        "# Title\n\nText.\n\n"
        "Setext Two\n----------\n\nMore.\n\n"
        "```bash\n# not a heading\n```\n\n"
        "## Repeat ##\n\nA\n\n"
        "## Repeat\n\nB\n\n"
        "Big\n===\n\n"
        "- list item\n---\n"
    )
    secs = split_sections("s", body, first_line=5)
    assert [(s.heading, s.anchor, s.level) for s in secs] == [
        ("", "", 0),
        ("Title", "title", 1),
        ("Setext Two", "setext-two", 2),
        ("Repeat", "repeat", 2),
        ("Repeat", "repeat-1", 2),
        ("Big", "big", 1),
    ]
    assert secs[0].text == "Intro paragraph." and (secs[0].start_line, secs[0].end_line) == (5, 5)
    assert secs[1].start_line == 7 and secs[1].text == "# Title\n\nText."
    assert "# not a heading" in secs[2].text
    assert secs[-1].text.endswith("- list item\n---")  # a thematic break after a list is not a heading
    assert all(s.doc_slug == "s" for s in secs)


def test_no_preamble_section_when_body_starts_with_heading():
    secs = split_sections("s", "\n# Only\n\nx\n")
    assert [(s.heading, s.start_line, s.end_line) for s in secs] == [("Only", 2, 4)]


def test_rst_sections():
    body = "=======\n Title\n=======\n\nIntro.\n\nPart one\n--------\n\nA.\n\nSub\n~~~\n\nB.\n\nPart two\n--------\n\nC.\n"
    secs = split_sections("r", body, rst=True)
    assert [(s.heading, s.level, s.start_line) for s in secs] == [
        ("Title", 1, 1),
        ("Part one", 2, 7),
        ("Sub", 3, 12),
        ("Part two", 2, 17),
    ]

# --------------------------------------------------------------------------- instruction docs


@pytest.mark.parametrize(
    "doc_type, tags, title, body, expected",
    [
        ("runbook", (), "Deploys", "", True),
        ("", ("checklist",), "Stuff", "", True),
        ("", (), "How to release the app", "", True),
        ("", (), "Release checklist", "", True),
        ("", (), "Ship it", "1. Bump the version.\n2. Tag the commit.\n3. Push the tag.\n4. Upload.\n", True),
        ("", (), "Todo", "- [ ] one\n- [x] two\n- [ ] three\n", True),
        ("design", (), "Architecture", "1. Bump the version.\n2. Tag the commit.\n3. Push the tag.\n", False),
        ("essay", (), "Context", "1. **Issue description** from beads\n2. **Manifest**\n3. **Docs**\n", False),
        ("", (), "Auth design", "Sessions expire after 30 minutes. Tokens rotate.\n", False),
    ],
)
def test_instruction_docs(doc_type, tags, title, body, expected):
    assert is_instruction_doc(doc_type, tags, title, body) is expected
