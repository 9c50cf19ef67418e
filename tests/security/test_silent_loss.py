"""Issue 10, PART A, "Nothing dropped without a word": unlisted omissions are counted in the
prompt, `-q` keeps warnings that change the result, check-docs says when it cannot check a
path, and NEED_CODE on a huge file answers at once with a reason that does not ask for the
impossible. (Manifest entries matching no file are PART B.)"""

from __future__ import annotations

import json
import re

import pytest
from conftest import commit
from conftest import run_cli as run

from noface_ctx._pipeline import build_prompt
from noface_ctx._tokens import count_tokens

REPO = {
    "src/shop/cart.py": "def add_item(cart, item):\n    cart.append(item)\n    return cart\n",
    "docs/cart.md": "# Cart design\n\nThe cart keeps items; `add_item` appends.\n",
    "issue.md": "# Cart add_item drops duplicates\n\nadd_item in src/shop/cart.py should keep duplicates.\n",
    ".noface.toml": "[context]\nembeddings = false\n",
}




def _module(i: int) -> str:
    return "\n".join(
        f"def cart_total_{i}_{j}(cart):\n    \"\"\"Total of cart {i} part {j}.\"\"\"\n"
        f"    return sum(x.price * x.qty for x in cart.items if x.qty > {j})\n"
        for j in range(40)
    )


@pytest.fixture
def crowded(repo_factory, tmp_path):
    files = {f"src/cart_{i}.py": _module(i) for i in range(1, 31)}
    files["issue.md"] = "# Cart totals wrong\n\ncart_total is wrong in every src/cart_*.py module\n"
    files[".noface.toml"] = "[context]\nembeddings = false\n"
    repo = repo_factory(files)
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"primary_files": [f"src/cart_{i}.py" for i in range(1, 31)]}))
    return repo, manifest


def test_items_past_the_omitted_cap_are_counted_in_the_prompt(crowded):
    repo, manifest = crowded
    prompt = build_prompt("issue.md", repo=repo, manifest=str(manifest), budget=3000, embed=False)
    unlisted = [s for s in prompt.details["skipped"] if "(not listed:" in s["reason"]]  # over the cap, or weak
    assert any("over the omitted-items cap" in s["reason"] for s in unlisted)
    section = prompt.text.split("OMITTED CONTEXT:")[1]
    m = re.search(r"\.\.\. and (\d+) more items? left out and not listed here", section)
    assert m and int(m.group(1)) == len(unlisted)
    listed = section.count("NEED_CODE: ")
    assert listed + len(unlisted) >= 30  # every manifest file is either listed or counted
    assert count_tokens(prompt.text) <= 3000


def test_nothing_unlisted_means_no_count_line(repo_factory):
    repo = repo_factory(REPO)
    prompt = build_prompt("issue.md", repo=repo, embed=False)
    assert "left out and not listed" not in prompt.text


def test_quiet_keeps_config_and_cache_warnings(repo_factory, tmp_path, monkeypatch):
    repo = repo_factory({**REPO, ".noface.toml": '[project]\nnmae = "shop"\n[context]\nembeddings = false\n'})
    code, out, err = run(repo, "preview", "issue.md", "--no-embed", "-q")
    assert code == 0
    assert "noface-ctx: warning: .noface.toml:2: [project] nmae: unknown key ignored (did you mean 'name'?)" in err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(blocker / "c"))
    code, out, err = run(repo, "preview", "issue.md", "--no-embed", "-q")
    assert code == 0 and "running without a persistent cache" in err


def test_quiet_keeps_issue_source_warnings(repo_factory, monkeypatch):
    good = json.dumps({"id": "shop-2", "title": "Cart add_item drops duplicates", "description": "add_item"})
    repo = repo_factory({**REPO, ".beads/issues.jsonl": "{not json\n" + good + "\n"})
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, out, err = run(repo, "preview", "shop-2", "--no-embed", "-q")
    assert code == 0 and ".beads/issues.jsonl:1: skipped" in err


@pytest.mark.parametrize("path,why", [
    ("docs/nope.md", "no such file"),
    ("../x.md", "outside the repository"),
    ("docs", "cannot check a directory"),
])
def test_check_docs_says_when_it_cannot_check_a_path(repo_factory, tmp_path, path, why):
    repo = repo_factory(REPO)
    (tmp_path / "x.md").write_text("# outside\n")
    code, out, err = run(repo, "check-docs", path)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and why in lines[0] and path in lines[0]


def test_check_docs_through_a_link_outside_is_refused(repo_factory, tmp_path):
    repo = repo_factory(REPO)
    (tmp_path / "out.md").write_text("# outside\n")
    (repo / "docs/link.md").symlink_to(tmp_path / "out.md")
    code, _, err = run(repo, "check-docs", "docs/link.md")
    assert code == 2 and "outside the repository" in err


def test_check_docs_on_a_real_doc_still_works(repo_factory):
    repo = repo_factory(REPO)
    code, out, err = run(repo, "check-docs", "docs/cart.md", "src/shop/cart.py")
    assert code == 0 and err == ""


def test_need_code_on_a_huge_one_line_file(repo_factory):
    repo = repo_factory(REPO)
    with open(repo / "src/blob.js", "wb") as fh:  # 50 MB, one line
        fh.write(b"var x='")
        for _ in range(50):
            fh.write(b"ab" * (512 * 1024))
        fh.write(b"';\n")
    commit(repo, "blob")
    for ask in ("NEED_CODE: src/blob.js", "NEED_CODE: src/blob.js:1-1", "NEED_CODE: src/blob.js::x"):
        code, out, err = run(repo, "signals", "-", "--resolve", "--json", stdin=ask + "\n")
        assert code == 0
        item = json.loads(out)["items"][0]
        assert item["outcome"] == "refused" and "over the 2 MB a request can read" in item["reason"]
        assert "ask again on its own" not in out


def test_a_request_that_cannot_fit_even_alone_is_not_told_to_ask_again(repo_factory):
    repo = repo_factory({**REPO, "src/shop/oneline.py": 'X = "' + "word " * 20000 + '"\n',
                         "src/shop/long.py": "".join(f"VALUE_{i} = {i}\n" for i in range(3000))})
    code, out, err = run(repo, "signals", "-", "--resolve", "--budget", "300", "--json",
                         stdin="NEED_CODE: src/shop/oneline.py\nNEED_CODE: src/shop/cart.py:1-3\n")
    assert code == 0
    items = {i["request"]: i for i in json.loads(out)["items"]}
    one = items["NEED_CODE: src/shop/oneline.py"]
    assert one["outcome"] == "refused" and "ask again" not in one["reason"]
    assert "line 1 alone is longer than an answer of 300 tokens" in one["reason"]
    assert items["NEED_CODE: src/shop/cart.py:1-3"]["outcome"] == "served"
