"""Property test for issue 10's gate: random small repositories with planted secret files
(by name and by content, split keys included), forbidden files and files outside the
repository, each reached directly and through symlinks with innocent names (in code dirs and in
the vault), fed through `build_prompt` (with and without a manifest) and through the request
resolver (NEED_CODE / NEED_DOC on every planted path and link). No planted marker may appear in
any output text or JSON."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noface_ctx import build_prompt, parse_signals, resolve_requests
from tests.conftest import make_repo, write_tree
from tests.security.fakesecrets import aws_key, pem_block, pem_body, pem_header

_COUNTER = itertools.count()

# kind -> how a planted file is written; every file holds its own marker
KINDS = ("env", "pem_name", "ssh_name", "aws_content", "pem_content", "split_pem", "split_aws", "forbidden", "outside")
LINK_DIRS = ("src", "docs", "src/sub")
INNOCENT = ("settings", "config", "helpers", "notes", "utils", "alias_mod")


def _planted_text(kind: str, marker: str) -> tuple[str, str]:
    """(file name, content) for one planted item."""
    if kind == "env":
        return ".env", f"DB_PASSWORD={marker}\n"
    if kind == "pem_name":
        return "server.pem", f"{marker}\n"
    if kind == "ssh_name":
        return "id_rsa", f"{marker}\n"
    if kind == "aws_content":
        return "keys_module.py", f"ACCESS = '{aws_key()}'  # {marker}\n\ndef settings_value():\n    return ACCESS\n"
    if kind == "pem_content":
        return "certs.md", f"# Certs {marker}\n\n{pem_block()}"
    if kind == "split_pem":
        body = pem_body()
        pieces = " ".join(f'"{body[i:i + 32]}"' for i in range(0, len(body), 32))
        return "embedded_key.py", f'# {marker}\nKEY = ("{pem_header()}\\n" {pieces})\n'
    if kind == "split_aws":
        key = aws_key()
        return "aws_ids.js", f'// {marker}\nconst id = ["{key[:5]}", "{key[5:]}"].join("");\n'
    if kind == "forbidden":
        return "forbidden_mod.py", f"def helpers_value():\n    return '{marker}'\n"
    return "outside_file.py", f"def settings_value():\n    return '{marker}'\n"


@st.composite
def repo_specs(draw):
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4, unique=True))
    plants = []
    for kind in kinds:
        where = draw(st.sampled_from(("", "src", "docs", "config")))
        n_links = draw(st.integers(0, 2))
        links = [(draw(st.sampled_from(LINK_DIRS)), draw(st.sampled_from(INNOCENT)),
                  draw(st.sampled_from((".py", ".md", ".txt", ".js")))) for _ in range(n_links)]
        plants.append((kind, where, links))
    dir_link = draw(st.booleans())  # a directory link to the outside folder, inside the code tree
    return plants, dir_link


def _build(base: Path, spec) -> tuple[Path, dict[str, str], list[str], list[str]]:
    """(repo root, {marker: kind}, planted paths and links (repo-relative), forbidden paths)."""
    plants, dir_link = spec
    outside = base / "outside"
    outside.mkdir()
    files: dict[str, str] = {
        ".noface.toml": '[monowiki]\nvault = "docs"\n',
        "src/app.py": "from helpers import settings_value\n\ndef run():\n    return settings_value()\n",
        "docs/design.md": "---\ntitle: Design\n---\n# Design\n\nsettings helpers config notes utils alias_mod.\n",
    }
    markers: dict[str, str] = {}
    targets: list[tuple[str, Path, str]] = []  # (kind, absolute target, repo path or "")
    forbidden: list[str] = []
    for kind, where, _links in plants:
        marker = f"PLANTED-{kind.upper()}-{next(_COUNTER)}-MARK"
        markers[marker] = kind
        name, content = _planted_text(kind, marker)
        if kind == "outside":
            path = outside / name
            path.write_text(content)
            targets.append((kind, path, ""))
            continue
        rel = f"{where}/{name}" if where else name
        files[rel] = content
        targets.append((kind, base / "repo" / rel, rel))
        if kind == "forbidden":
            forbidden.append(rel)
    root = base / "repo"
    root.mkdir()
    write_tree(root, files)
    planted: list[str] = [t[2] for t in targets if t[2]]
    for (kind, target, _rel), (_k, _w, links) in zip(targets, plants, strict=True):
        for d, stem, ext in links:
            link = root / d / f"{stem}{ext}"
            if link.exists() or link.is_symlink():
                continue
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.path.relpath(target, link.parent) if kind != "outside" else target, link)
            planted.append(link.relative_to(root).as_posix())
    if dir_link:
        os.symlink(outside, root / "src" / "vendor_ext")
        planted += [f"src/vendor_ext/{p.name}" for p in outside.iterdir()]
    make_repo(root, {})
    return root, markers, planted, forbidden


def _issue(planted: list[str], forbidden: list[str], with_manifest: bool) -> dict:
    names = " ".join(planted)
    issue = {"id": "p-1", "title": "settings helpers config",
             "description": f"Fix settings_value and helpers_value; see {names} and the design notes."}
    if with_manifest:
        forb = ", ".join(forbidden) or "nothing/here.py"
        issue["comments"] = [{"text": f"MANIFEST: primary=[src/app.py] forbidden=[{forb}]"}]
    return issue


def _leaks(text: str, markers: dict[str, str], *, forbidden_counts: bool) -> list[str]:
    return [m for m, kind in markers.items() if m in text and (kind != "forbidden" or forbidden_counts)]


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(spec=repo_specs())
def test_no_planted_marker_reaches_any_output(tmp_path_factory, spec):
    base = tmp_path_factory.mktemp("gate")
    try:
        root, markers, planted, forbidden = _build(base, spec)
        requests = "".join(f"NEED_CODE: {p}\nNEED_DOC: {p}\n" for p in planted)
        requests += "".join(f"NEED_DOC: {Path(p).stem}\n" for p in planted)
        for with_manifest in (False, True):
            issue = _issue(planted, forbidden, with_manifest)
            prompt = build_prompt(issue, repo=root, embed=False, budget=6000)
            out = prompt.text + "\n" + json.dumps(prompt.to_dict())
            assert not _leaks(out, markers, forbidden_counts=with_manifest), (spec, planted)
            answer = resolve_requests(parse_signals(requests), repo=root, issue=issue if with_manifest else None,
                                      budget=20000, log=False)
            assert not _leaks(answer.text, markers, forbidden_counts=with_manifest), (spec, planted)
    finally:
        shutil.rmtree(base, ignore_errors=True)
