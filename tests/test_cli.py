"""The command line: one error boundary, one-line errors with exit code 2, JSON contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from noface_ctx.cli import main

ROOT = Path(__file__).resolve().parents[1]

SMALL_REPO = {
    ".noface.toml": '[project]\nname = "shop"\ntest = "pytest"\n[context]\nembeddings = false\n',
    "docs/cart.md": "---\ntitle: Cart design\n---\n# Cart\nThe cart totals prices with `cart_total()`.\n",
    "shop/cart.py": "def cart_total(items):\n    \"\"\"Sum of item prices.\"\"\"\n    return sum(i.price for i in items)\n",
    "issue.md": "# Fix cart_total rounding\n\n`cart_total()` returns 0.30000000000000004 for two items.\n",
}


def run_cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv), stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


def test_no_command_prints_help_and_exits_2():
    code, _, err = run_cli()
    assert code == 2 and "preview" in err


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["preview"], "the following arguments are required: ISSUE"),
        (["preview", "x", "--budget", "many"], "--budget: invalid int value"),
        (["frobnicate"], "invalid choice"),
        (["preview", "x", "--budget", "-5"], "--budget must be a positive number"),
    ],
)
def test_usage_errors_are_one_line_exit_2(argv, fragment):
    code, out, err = run_cli(*argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("noface-ctx: error:") and fragment in err


def test_unknown_issue_id_is_one_line_exit_2(repo_factory):
    repo = repo_factory(SMALL_REPO)
    code, out, err = run_cli("preview", "nope-42", "--repo", str(repo))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "nope-42" in err and "Traceback" not in err


def test_bad_config_names_file_and_line(repo_factory):
    repo = repo_factory({**SMALL_REPO, ".noface.toml": "[context]\nbudget_tokens = 'x'\n"})
    code, _, err = run_cli("preview", "issue.md", "--repo", str(repo))
    assert code == 2
    assert err.strip() == "noface-ctx: error: .noface.toml:2: [context] budget_tokens: expected an integer, got 'x'"


def test_missing_repo_dir_is_usage_error(tmp_path):
    code, _, err = run_cli("preview", "x", "--repo", str(tmp_path / "absent"))
    assert code == 2 and "not a directory" in err


def test_preview_prints_prompt_and_summary(repo_factory):
    repo = repo_factory(SMALL_REPO)
    code, out, err = run_cli("preview", str(repo / "issue.md"), "--repo", str(repo), "--budget", "3000")
    assert code == 0
    assert "ISSUE:" in out and "Fix cart_total rounding" in out and "CODE CONTEXT:" in out
    assert "shop/cart.py" in out
    assert "tokens" in err  # the summary goes to stderr, never into the prompt


def test_preview_json_is_prompt_to_dict(repo_factory):
    repo = repo_factory(SMALL_REPO)
    code, out, _ = run_cli("preview", str(repo / "issue.md"), "--repo", str(repo), "--json", "--budget", "4000")
    assert code == 0
    data = json.loads(out)
    for key in ("issue", "prompt", "tokens", "docs", "code", "excluded", "omitted", "warnings"):
        assert key in data
    assert {"id", "title"} <= set(data["issue"])
    assert {"total", "budget", "docs", "code"} <= set(data["tokens"])
    assert data["tokens"]["total"] <= data["tokens"]["budget"] == 4000
    for row in data["docs"]:
        assert {"path", "slug", "score", "included", "reason", "stale", "stale_reasons", "tokens"} <= set(row)
    for row in data["code"]:
        assert {"path", "symbol", "start_line", "end_line", "kind", "tokens"} <= set(row)


def test_preview_reads_issue_from_stdin(repo_factory):
    repo = repo_factory(SMALL_REPO)
    code, out, _ = run_cli("preview", "-", "--repo", str(repo), "-q", stdin="# Cart bug\n\ncart_total is wrong\n")
    assert code == 0 and "Cart bug" in out


def test_module_entry_point_on_this_repository(this_repository_cache):
    """`python -m noface_ctx preview` on the example issue shipped in this repository."""
    proc = subprocess.run(
        [sys.executable, "-m", "noface_ctx", "preview", "examples/request-log-rotation.md", "--no-embed", "-q"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Rotate the context-request log" in proc.stdout
    assert "noface_ctx/signals/respond.py" in proc.stdout
    assert ".ci/run" in proc.stdout.split("CONSTRAINTS:")[0]  # listed as forbidden in MANIFEST


def test_the_process_ends_without_teardown_yet_loses_nothing(repo_factory, tmp_path):
    """`python -m noface_ctx` leaves through `cli.leave`: the whole prompt reaches a pipe, the
    exit code is kept, and exit handlers still run (a temp cache dir is removed)."""
    repo = repo_factory(SMALL_REPO)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT),
           "NOFACE_CTX_CACHE_DIR": str(blocker / "cache"), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    proc = subprocess.run([sys.executable, "-m", "noface_ctx", "preview", "issue.md", "--no-embed", "--json",
                           "--repo", str(repo)], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)  # complete: it parses
    assert "def cart_total" in got["prompt"] and "running without a persistent cache" in proc.stdout.decode()
    left = [p.name for p in (tmp_path / "tmp").iterdir() if p.name != "noface-ctx-tiktoken"]
    assert left == []  # the fallback cache dir was removed at exit
    bad = subprocess.run([sys.executable, "-m", "noface_ctx", "preview", "missing.md", "--repo", str(repo)],
                         capture_output=True, env=env, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count(b"\n") == 1 and bad.stdout == b""
