"""The vault read from a repository: frontmatter fields, drafts, links resolved, monowiki.yml, doc globs, duplicate slugs."""

from __future__ import annotations

from pathlib import Path

import pytest

from noface_ctx import _git as git
from noface_ctx.config import load_config
from noface_ctx.datatypes import FileEntry, RepoFiles
from noface_ctx.docs.load import (
    glob_match,
    load_docs,
)

TOML_VAULT = '[monowiki]\nvault = "{vault}"\n'


def repo_files(root: Path, *, drop: tuple[str, ...] = ()) -> RepoFiles:
    """What the scan stage would hand over: every tracked file except `drop`."""
    paths = [p for p in git.ls_files(root) if p not in drop]
    files = tuple(FileEntry(p, (root / p).stat().st_size, "doc" if p.endswith(".md") else "other") for p in paths)
    return RepoFiles(str(root), files, (), True)


def load(root: Path, **kw):
    return load_docs(load_config(root), repo_files(root, **kw))


def doc(title_line: str = "", body: str = "Body.\n", **front) -> str:
    if not front:
        return body
    lines = ["---", *(f"{k}: {v}" for k, v in front.items()), "---", ""]
    return "\n".join(lines) + body


def test_frontmatter_fields_and_file_stem_fallback(repo_factory):
    root = repo_factory(
        {
            ".noface.toml": TOML_VAULT.format(vault="vault"),
            "vault/design/Auth Design.md": doc(
                body="# Auth\n\nText.\n",
                title='"Authentication design"',
                aliases="[auth, login-flow]",
                tags="[design, auth]",
                type="design",
                date="2025-01-02",
                updated="2025-03-04",
                summary="How login works.",
            ),
            "vault/design/context-injection.md": "# Context injection\n\nNo frontmatter here.\n",
            "vault/custom.md": doc(slug="My Custom Slug", title="Custom"),
        }
    )
    docs = load(root)
    assert docs.vault == "vault"
    auth = docs.get("auth-design")
    assert auth is not None and auth.path == "vault/design/Auth Design.md"
    assert auth.title == "Authentication design"
    assert auth.aliases == ("auth", "login-flow")
    assert auth.tags == ("design", "auth")
    assert (auth.doc_type, auth.date, auth.updated) == ("design", "2025-01-02", "2025-03-04")
    assert auth.description == "How login works."
    assert auth.frontmatter["date"] == "2025-01-02"  # YAML dates become JSON-safe strings
    assert auth.text.startswith("---\n")  # the full file, so line numbers match the file
    plain = docs.get("context-injection")  # the directory is not part of the slug
    assert plain is not None and plain.title == "context-injection" and plain.frontmatter == {}
    assert docs.get("my-custom-slug").title == "Custom"
    assert docs.warnings == ()


def test_malformed_frontmatter_warns_with_line_and_keeps_doc(repo_factory):
    root = repo_factory(
        {
            ".noface.toml": TOML_VAULT.format(vault="notes"),
            "notes/broken.md": "---\ntitle: Broken\nbad: : value\n---\n# Broken\n\nStill here.\n",
            "notes/list.md": "---\n- a\n- b\n---\nBody\n",
            "notes/open.md": "---\ntitle: never closed\n",
        }
    )
    docs = load(root)
    broken = docs.get("broken")
    assert broken is not None and broken.title == "broken"
    assert broken.sections[0].heading == "Broken" and broken.sections[0].start_line == 5
    joined = "\n".join(docs.warnings)
    assert "notes/broken.md:3: malformed frontmatter (mapping values are not allowed here); ignored" in joined
    assert "notes/list.md:2: frontmatter is not a mapping" in joined
    assert "notes/open.md:1: frontmatter has no closing" in joined
    assert docs.get("open") is not None



def test_drafts_are_skipped_and_links_to_them_explained(repo_factory):
    root = repo_factory(
        {
            ".noface.toml": TOML_VAULT.format(vault="vault"),
            "vault/a.md": "See [[wip]] and [[idea]].\n",
            "vault/wip.md": doc(title="WIP", draft="true"),
            "vault/idea.md": doc(title="Idea", type="draft"),
        }
    )
    docs = load(root)
    assert [d.slug for d in docs] == ["a"]
    assert set(docs.drafts) == {"wip", "idea"}
    assert docs.resolve("wip") is None
    assert sum("links to a draft" in w for w in docs.warnings) == 2



def test_links_resolve_by_slug_alias_path_and_basename(repo_factory):
    root = repo_factory(
        {
            ".noface.toml": TOML_VAULT.format(vault="wiki"),
            "wiki/design/doc-agent.md": doc(title="Doc agent", aliases="[documentation-agent]"),
            "wiki/design/Failure Recovery.md": "# Failure recovery\n",
            "wiki/index.md": (
                "[[doc-agent]] [[Doc Agent|x]] [[design/doc-agent]] [[other/doc-agent]]\n"
                "[[documentation-agent#Overview]] [[design/failure recovery]] [[missing-doc]] [[doc-agnet]]\n"
            ),
        }
    )
    docs = load(root)
    agent = docs.get("doc-agent")
    index = docs.get("index")
    assert [docs.resolve(w.target) for w in index.links[:5]] == [agent] * 5
    assert docs.resolve(index.links[5].target).path == "wiki/design/Failure Recovery.md"
    for target in ("wiki/design/doc-agent.md", "design/doc-agent.md", "design/doc-agent", "DOC-AGENT",
                   "./wiki/design/doc-agent.md", "doc-agent#overview", "documentation-agent"):
        assert docs.resolve(target) is agent, target
    assert docs.resolve("") is None and docs.resolve("nothing-like-it") is None
    assert docs.neighbors(index) == [agent, docs.get("failure-recovery")]
    warnings = [w for w in docs.warnings if "unresolved" in w]
    assert len(warnings) == 2
    assert warnings[0] == "wiki/index.md:2: unresolved wikilink [[missing-doc]]"
    assert warnings[1].startswith("wiki/index.md:2: unresolved wikilink [[doc-agnet]] (did you mean doc-agent")


def test_closest_suggests_slugs_aliases_and_paths(repo_factory):
    root = repo_factory({"docs/freshness.md": doc(title="Freshness", aliases="[staleness]"), "docs/budget.md": "x\n"})
    docs = load(root)
    assert docs.closest("freshnes")[0] == "freshness"
    assert "staleness" in docs.closest("stalenes")
    assert "docs/budget.md" in docs.closest("docs/budgt.md")
    assert docs.closest("zzzzzz") == []


# --------------------------------------------------------------------------- vault resolution


def test_vault_named_by_monowiki_yml_with_ignore_patterns(repo_factory):
    root = repo_factory(
        {
            ".noface.toml": TOML_VAULT.format(vault="./site"),
            "site/monowiki.yml": (
                "site:\n  title: Wiki\n  author: me\n  description: d\n  url: https://x\n"
                "paths:\n  vault: content\n  output: public\n"
                "ignore_patterns:\n  - '^private/'\n  - 'templates/.*\\.md$'\n  - '[bad'\n"
            ),
            "site/content/a.md": "# A\n",
            "site/content/private/secret-plan.md": "# Private\n",
            "site/content/x/templates/t.md": "# Template\n",
            "site/content/.obsidian/workspace.md": "# hidden\n",
            "site/public/a.html": "<p>built</p>\n",
            "site/content/notes.txt": "not markdown\n",
        }
    )
    docs = load(root)
    assert docs.vault == "site/content"
    assert [d.path for d in docs] == ["site/content/a.md"]
    assert any("'[bad' is not a regex" in w for w in docs.warnings)


def test_vault_subfolder_and_vault_itself(repo_factory):
    root = repo_factory({".noface.toml": TOML_VAULT.format(vault="wiki"), "wiki/vault/a.md": "# A\n", "wiki/README.md": "# R\n"})
    docs = load(root)
    assert (docs.vault, [d.slug for d in docs]) == ("wiki/vault", ["a"])
    root2 = repo_factory({".noface.toml": TOML_VAULT.format(vault="notes"), "notes/b.md": "# B\n"}, name="r2")
    assert [d.path for d in load(root2)] == ["notes/b.md"]


def test_missing_vault_warns_and_falls_back_to_doc_globs(repo_factory):
    root = repo_factory({".noface.toml": TOML_VAULT.format(vault="nope"), "docs/a.md": "# A\n"})
    docs = load(root)
    assert docs.vault == "" and [d.path for d in docs] == ["docs/a.md"]
    assert "'nope' is not a directory" in docs.warnings[0]


def test_monowiki_yml_with_bad_vault_path_warns(repo_factory):
    root = repo_factory(
        {
            ".noface.toml": TOML_VAULT.format(vault="wiki"),
            "wiki/monowiki.yml": "paths:\n  vault: gone\n",
            "wiki/vault/a.md": "# A\n",
        }
    )
    docs = load(root)
    assert docs.vault == "wiki/vault" and len(docs) == 1
    assert docs.warnings == ("wiki/monowiki.yml: paths.vault 'gone' is not a directory; using wiki/vault",)


def test_vault_outside_the_repo_is_a_config_error(repo_factory, tmp_path):
    from noface_ctx.errors import ConfigError

    outside = tmp_path / "shared-vault"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "ext.md").write_text("---\ntitle: External\n---\n# External\n")
    root = repo_factory({".noface.toml": TOML_VAULT.format(vault=str(outside))})
    with pytest.raises(ConfigError) as err:
        load(root)
    assert str(err.value).startswith(".noface.toml: [monowiki] vault") and "outside the repository" in str(err.value)


def test_vault_files_the_scan_excluded_are_never_read(repo_factory):
    root = repo_factory({".noface.toml": TOML_VAULT.format(vault="vault"), "vault/a.md": "# A\n", "vault/keys.md": "# K\n"})
    docs = load(root, drop=("vault/keys.md",))
    assert [d.slug for d in docs] == ["a"]


def test_doc_globs_fallback(repo_factory):
    root = repo_factory(
        {
            "README.md": "# Readme\n",
            "docs/guide.rst": "Guide\n=====\n\nText.\n",
            "docs/deep/notes.txt": "# Notes\n",
            "docs/image.png": b"\x89PNG",
            "src/mod.md": "# not matched by the default globs\n",
            "CHANGELOG.md": "# Changelog\n\n- every term of every issue\n",
            "docs/HISTORY.rst": "History\n=======\n",
            "AUTHORS.md": "# Authors\n",
            ".noface.toml": '[context]\ndoc_globs = ["docs/**/*.rst", "docs/**/*.txt", "*.md"]\n',
        }
    )
    docs = load(root)
    assert docs.vault == ""
    # records load (NEED_DOC serves them; ranking skips them); credits and licences do not
    assert [d.path for d in docs] == ["CHANGELOG.md", "README.md", "docs/HISTORY.rst", "docs/deep/notes.txt",
                                      "docs/guide.rst"]
    assert docs.get("guide").sections[0].heading == "Guide"


@pytest.mark.parametrize(
    "path, pattern, ok",
    [
        ("docs/a.md", "docs/**/*.md", True),
        ("docs/x/y/a.md", "docs/**/*.md", True),
        ("docsx/a.md", "docs/**/*.md", False),
        ("a.md", "*.md", True),
        ("sub/a.md", "*.md", False),
        ("doc/a1.rst", "./doc/a?.rst", True),
    ],
)
def test_glob_match(path, pattern, ok):
    assert glob_match(path, pattern) is ok


def test_real_noface_vault_layout(repo_factory):
    """noface's own layout: `[monowiki] vault = "./wiki"`, `wiki/monowiki.yml`, `wiki/vault/design/*.md`."""
    from noface_ctx.files.gate import scan_repo

    root = repo_factory(
        {
            ".noface.toml": (
                '[project]\nname = "noface"\nbuild = "zig build"\n\n[monowiki]\nvault = "./wiki"\n'
                "proactive_search = true\nresolve_wikilinks = true\nexpand_neighbors = true\nmax_context_docs = 5\n"
            ),
            "wiki/monowiki.yml": "site:\n  title: noface\npaths:\n  vault: vault\n  output: docs\n",
            "wiki/docs/context-injection.html": "<html>built output</html>\n",
            "wiki/vault/AGENT.md": "# Agent notes\n\nRead [[design/context-injection]] first.\n",
            "wiki/vault/design/context-injection.md": (
                '---\ntitle: "Context Injection"\ntype: essay\ntags: [design, context, prompts, monowiki]\n---\n\n'
                "# Context Injection\n\nWhat information noface provides to agents and how.\n\n"
                "## Current Design\n\nThe prompt includes the issue and the [[manifests|manifest]].\n\n"
                "## Open Questions\n\n1. **Context Budget** — dynamic?\n2. **Relevance Ranking** — embeddings?\n"
            ),
            "wiki/vault/design/manifests.md": "---\ntitle: Manifests\n---\n# Manifests\n\nSee [[failure-recovery#Retries]].\n",
            "wiki/vault/design/failure-recovery.md": "---\ntitle: Failure recovery\n---\n# Failure recovery\n\n## Retries\n\nBack off.\n",
            "src/loop.zig": "pub fn main() void {}\n",
        }
    )
    config = load_config(root)
    docs = load_docs(config, scan_repo(config))
    assert docs.vault == "wiki/vault"
    assert sorted(d.slug for d in docs) == ["agent", "context-injection", "failure-recovery", "manifests"]
    ci = docs.get("context-injection")
    assert ci.title == "Context Injection" and not ci.is_instruction
    assert [s.anchor for s in ci.sections] == ["context-injection", "current-design", "open-questions"]
    assert docs.neighbors(docs.get("agent")) == [ci]
    assert docs.neighbors(ci) == [docs.get("manifests")]
    assert docs.section(docs.get("failure-recovery"), "Retries").text == "## Retries\n\nBack off."
    assert docs.warnings == ()



def test_long_doc_splits_into_sections(repo_factory):
    parts = [f"## Part {i}\n\n" + f"paragraph {i} " * 200 + "\n" for i in range(6)]
    root = repo_factory({"docs/long.md": "# Long\n\n" + "\n".join(parts)})
    long = load(root).get("long")
    assert len(long.sections) == 7
    assert all(len(s.text) < 3000 for s in long.sections)



def test_duplicate_slugs_fold_into_one_warning_and_verbose_lists_them(repo_factory, capsys):
    from noface_ctx.cli import main
    from noface_ctx.docs.load import slug_collisions

    root = repo_factory({"docs/a/notes.md": "# A\n", "docs/b/notes.md": "# B\n", "docs/c/notes.md": "# C\n",
                         "docs/index.md": "# I\n", "docs/guide/index.md": "# G\n", "issue.md": "# Notes\n\nx\n"})
    docs = load(root)
    assert docs.get("notes").path == "docs/a/notes.md"
    folded = [w for w in docs.warnings if "share a slug" in w]
    assert folded == ["3 doc(s) share a slug with an earlier doc (index ×2, notes ×3): links to those slugs resolve "
                      "to the first (--verbose lists them; a frontmatter `slug:` tells them apart)"]
    assert not any("is also used by" in w for w in docs.warnings)
    listed = slug_collisions(docs.docs)
    assert "docs/b/notes.md: slug 'notes' is also used by docs/a/notes.md; links resolve to that one" in listed
    assert len(listed) == 3
    assert main(["preview", "issue.md", "--repo", str(root), "--no-embed"]) == 0
    err = capsys.readouterr().err
    assert err.count("share a slug") == 1 and "is also used by" not in err
    assert main(["preview", "issue.md", "--repo", str(root), "--no-embed", "--verbose"]) == 0
    assert capsys.readouterr().err.count("is also used by") == 3
