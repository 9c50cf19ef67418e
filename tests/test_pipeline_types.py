"""The type checker sees through the pipeline's stage runner: swapping two arguments of a stage
call in `build_prompt` is a mypy error, as it is for a direct call (issue 29, typed stage calls).

The real `_pipeline.py` is copied with two stage calls' arguments swapped and checked by mypy's
API, so the test follows the wiring as it is, not a model of it."""

from __future__ import annotations

import re
from pathlib import Path

from mypy import api

PIPELINE = Path(__file__).resolve().parents[1] / "noface_ctx" / "_pipeline.py"

# (stage call as written in build_prompt, the same call with two arguments swapped)
SWAPS = [
    (r'run\.stage\("files", scan_repo, cfg, the_issue\.manifest\)',
     'run.stage("files", scan_repo, the_issue.manifest, cfg)'),
    (r'run\.stage\("freshness", assess_docs, docset\.docs, files, ',
     'run.stage("freshness", assess_docs, files, docset.docs, '),
]


def _mypy(path: Path) -> list[str]:
    out, err, _status = api.run(["--strict", "--no-error-summary", "--follow-imports=silent", str(path)])
    assert not err, err
    return [line for line in out.splitlines() if ": error:" in line]


def test_swapped_stage_arguments_are_type_errors(tmp_path):
    source = PIPELINE.read_text(encoding="utf-8")
    swapped = source
    lines = []
    for pattern, replacement in SWAPS:
        match = re.search(pattern, swapped)
        assert match, f"build_prompt no longer calls {pattern!r}: update this test to the new wiring"
        lines.append(swapped.count("\n", 0, match.start()) + 1)
        swapped = swapped[:match.start()] + replacement + swapped[match.end():]
    path = tmp_path / "swapped_pipeline.py"
    path.write_text(swapped, encoding="utf-8")

    errors = _mypy(path)

    for line in lines:  # both arguments of each swapped call are reported, on that call's line
        at_line = [e for e in errors if f"swapped_pipeline.py:{line}: error: Argument" in e]
        assert len(at_line) == 2, (line, errors)
    assert all("[arg-type]" in e for e in errors), errors
    assert "Manifest | None" in "\n".join(errors) and "RepoFiles" in "\n".join(errors)
