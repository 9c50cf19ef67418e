"""Issue 24, High 2 and the Medium on MCP `build_prompt`: an issue id names an issue, never a
file (`noface_ctx._issue_sources`). Ids a tracker lists (`.beads/issues.jsonl`) such as
`/abs/private/notes.md`, `../private/notes.md` or `secrets.txt` are never opened; a file in
`--issues-dir` or named to the MCP server passes the NEED_CODE gate first. Each test fails on
0bb2697; the property test at the end draws random ids and link layouts."""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import commit, make_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noface_ctx.cli import main
from noface_ctx.config import load_config
from noface_ctx.errors import NofaceError

PRIVATE = "PRIVATE-NOTES-7f3a the user's own notes, never for an agent"
SECRET = "SECRET-FILE-91c2 db password opensesame"  # no credential format: only the gate stops it
FILES = {
    ".noface.toml": "[context]\nembeddings = false\n",
    "src/cart.py": "def add_item(cart, item):\n    cart.append(item)\n    return cart\n",
    "docs/cart.md": "# Cart\n\nThe cart keeps items.\n",
    "secrets.txt": SECRET + "\n",
    "issue.md": "# add_item drops duplicates\n\nadd_item should keep duplicates.\n",
}


def _world(tmp: Path) -> tuple[Path, Path]:
    """A repository and, beside it, the user's private notes."""
    private = tmp / "private"
    private.mkdir(parents=True)
    (private / "notes.md").write_text(f"# Notes\n\n{PRIVATE}\n")
    return make_repo(tmp / "repo", FILES), private


def _agent(tmp: Path) -> tuple[str, Path]:
    """An agent that keeps every prompt it is given and completes at once."""
    seen = tmp / "prompts.txt"
    script = tmp / "agent.py"
    script.write_text("import sys\n"
                      f"open({str(seen)!r}, 'a').write(sys.stdin.read())\n"
                      "print('ISSUE_COMPLETE')\n")
    return shlex.join([sys.executable, str(script)]), seen


def _main(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue()


def _jsonl(repo: Path, ids: list[str]) -> None:
    (repo / ".beads").mkdir(exist_ok=True)
    (repo / ".beads" / "issues.jsonl").write_text("".join(
        json.dumps({"id": i, "title": f"Issue {n}", "description": "add_item keeps duplicates", "status": "open"})
        + "\n" for n, i in enumerate(ids)))


def test_run_never_opens_files_named_by_tracker_ids(tmp_path):
    repo, private = _world(tmp_path)
    _jsonl(repo, [str(private / "notes.md"), "../private/notes.md", "secrets.txt"])
    agent, seen = _agent(tmp_path)
    code, out = _main("run", "--repo", str(repo), "--log", str(tmp_path / "log.jsonl"), "--agent", agent)
    prompts = seen.read_text()
    assert PRIVATE not in prompts and SECRET not in prompts
    assert code == 0, out  # each id is the tracker's issue: its title reaches the agent
    assert prompts.count("ISSUE_COMPLETE") >= 3 and "Issue 0" in prompts and "Issue 2" in prompts


def test_run_issues_dir_files_pass_the_need_code_gate(tmp_path):
    repo, private = _world(tmp_path)
    (repo / "issues").mkdir()
    os.symlink("../secrets.txt", repo / "issues" / "a-leak.md")
    agent, seen = _agent(tmp_path)
    code, out = _main("run", "--repo", str(repo), "--issues-dir", str(repo / "issues"), "--agent", agent,
                      "--log", str(tmp_path / "log.jsonl"))
    assert not seen.exists() or SECRET not in seen.read_text()
    assert code == 2 and "issue file refused" in out and "--issues-dir" in out
    (repo / "issues" / "a-leak.md").unlink()
    os.symlink(private / "notes.md", repo / "issues" / "b-out.md")
    code, out = _main("run", "--repo", str(repo), "--issues-dir", str(repo / "issues"), "--agent", agent,
                      "--log", str(tmp_path / "log.jsonl"))
    assert not seen.exists() or PRIVATE not in seen.read_text()
    assert code == 2 and "outside" in out


def test_an_issues_dir_that_is_a_link_out_of_the_repository_is_refused(tmp_path):
    repo, private = _world(tmp_path)
    os.symlink(private, repo / "issues")
    agent, seen = _agent(tmp_path)
    code, out = _main("run", "--repo", str(repo), "--issues-dir", str(repo / "issues"), "--agent", agent,
                      "--log", str(tmp_path / "log.jsonl"))
    assert not seen.exists() or PRIVATE not in seen.read_text()
    assert code == 2 and "symlink leading outside the repository" in out


def test_a_state_json_link_out_of_the_repository_is_ignored(tmp_path):
    from noface_ctx.issue.load import load_issue_with_warnings

    repo, private = _world(tmp_path)
    (private / "state.json").write_text(json.dumps(
        {"issues": {"issue": {"manifest": {"primary_files": ["PRIVATE-ENTRY.py"]}}}}))
    (repo / ".noface").mkdir()
    os.symlink(private / "state.json", repo / ".noface" / "state.json")
    issue, warnings = load_issue_with_warnings("issue.md", repo)
    assert issue.manifest is None or "PRIVATE-ENTRY" not in repr(issue.manifest)
    assert any("state.json: ignored: a symlink" in w for w in warnings)


def test_run_still_reads_the_files_a_user_names(tmp_path):
    repo, private = _world(tmp_path)
    agent, seen = _agent(tmp_path)
    code, out = _main("run", str(private / "notes.md"), "--repo", str(repo), "--agent", agent,
                      "--log", str(tmp_path / "log.jsonl"))
    assert code == 0 and PRIVATE in seen.read_text(), out  # the user's own choice


@pytest.mark.parametrize("ref", ["secrets.txt", "docs/notes.md", "../private/notes.md", "ABS"])
def test_mcp_build_prompt_refuses_what_need_code_refuses(tmp_path, ref):
    from noface_ctx.mcp_server import Workspace

    repo, private = _world(tmp_path)
    os.symlink("../secrets.txt", repo / "docs" / "notes.md")
    commit(repo, "a doc link")
    ref = str(private / "notes.md") if ref == "ABS" else ref
    workspace = Workspace(load_config(str(repo)))
    try:
        got = json.dumps(workspace.build_prompt(issue=ref))
    except NofaceError as exc:
        got = str(exc)
        assert "issue" in got
    assert SECRET not in got and PRIVATE not in got
    assert '"prompt":' not in got  # refused (or an unknown id), never a prompt
    assert "add_item" in json.dumps(workspace.build_prompt(issue="issue.md"))  # a plain issue file still works


# --------------------------------------------------------------------------- property

_PIECES = st.sampled_from(["secrets.txt", "notes.md", "issue.md", "docs", "..", ".", "private", "x.json",
                           "link.md", "", "src", ".git", "~"])
_IDS = st.one_of(
    st.lists(_PIECES, min_size=1, max_size=4).map("/".join),
    st.lists(_PIECES, min_size=1, max_size=3).map(lambda p: "/" + "/".join(p)),
    st.text(alphabet="abc-./_~ 0123", min_size=1, max_size=12),
)
_LINKS = st.lists(st.tuples(st.sampled_from(["link.md", "docs/link.md", "issues/link.md", "issues/n.md"]),
                            st.sampled_from(["PRIVATE", "../secrets.txt", "../../secrets.txt", "issue.md",
                                             "../issue.md", "PRIVATE_DIR"])), max_size=3, unique_by=lambda t: t[0])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=st.lists(_IDS, min_size=1, max_size=4, unique=True), links=_LINKS)
def test_random_issue_ids_never_read_outside_the_gate(ids, links):
    """Whatever ids a tracker lists and whatever links the repository holds, `run` (ids from
    `.beads/issues.jsonl`, files from `--issues-dir`) and MCP `build_prompt` never open the
    user's private files and never put a secret file's text in a prompt."""
    from noface_ctx.mcp_server import Workspace

    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch).resolve()
        repo, private = _world(tmp)
        (repo / "issues").mkdir()
        (repo / "issues" / "ok.md").write_text("# add_item keeps duplicates\n\nIt drops them.\n")
        for where, to in links:
            target = {"PRIVATE": str(private / "notes.md"), "PRIVATE_DIR": str(private)}.get(to, to)
            (repo / where).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, repo / where)
        _jsonl(repo, ids)
        agent, seen = _agent(tmp)
        opened: list[str] = []
        _WATCH.append((str(private), opened))
        try:
            outputs = []
            for extra in ([], ["--issues-dir", str(repo / "issues")]):
                code, out = _main("run", "--repo", str(repo), "--log", str(tmp / "log.jsonl"), "--agent", agent, *extra)
                assert code in (0, 1, 2), out
                outputs.append(out)
            workspace = Workspace(load_config(str(repo)))
            for ref in ids:
                try:
                    outputs.append(json.dumps(workspace.build_prompt(issue=ref)))
                except NofaceError as exc:
                    outputs.append(str(exc))
        finally:
            _WATCH.pop()
        text = "\n".join(outputs) + (seen.read_text() if seen.exists() else "")
        assert PRIVATE not in text and SECRET not in text
        assert opened == []


_WATCH: list[tuple[str, list[str]]] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _WATCH and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        for prefix, seen in _WATCH:
            if path.startswith(prefix):
                seen.append(path)


sys.addaudithook(_audit)
