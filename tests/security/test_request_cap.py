"""Issue 24: agent output with thousands of NEED_* lines is answered in time linear in its size:
at most `MAX_REQUESTS` are looked up, the rest are listed as not answered with one line saying
so, and tokens are counted once per piece, not once per round."""

from __future__ import annotations

import noface_ctx.signals._answer as answer_mod  # private: spies count the lookups and the tokenising
import noface_ctx.signals._resolve as resolve_mod  # private: as above
import noface_ctx.signals.respond as respond
from noface_ctx.signals.parse import parse_signals_detailed
from noface_ctx.signals.respond import resolve_requests
from tests.conftest import make_repo, run_cli

MAX_REQUESTS = getattr(respond, "MAX_REQUESTS", 20)


def _repo(tmp_path):
    files = {f"src/m{i}.py": "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n\n" for j in range(30)) for i in range(10)}
    files["docs/guide.md"] = "# Guide\n\n" + "".join(f"## Part {j}\n\nText {j}.\n\n" for j in range(20))
    return make_repo(tmp_path / "repo", files)


def _output(n: int) -> str:
    return "\n".join(f"NEED_CODE: src/m{i % 10}.py:{i % 50 + 1}-{i % 50 + 9}" if i % 2 else f"NEED_DOC: guide#part-{i}"
                     for i in range(n)) + "\n"


def test_thousands_of_requests_are_capped_and_the_rest_listed(tmp_path, monkeypatch):
    root = _repo(tmp_path)
    looked_up = []
    real = resolve_mod.Resolver.resolve
    monkeypatch.setattr(resolve_mod.Resolver, "resolve", lambda self, req: looked_up.append(req) or real(self, req))
    counted = []
    real_count = answer_mod.count_tokens
    monkeypatch.setattr(answer_mod, "count_tokens", lambda text: counted.append(len(text)) or real_count(text))

    parsed = parse_signals_detailed(_output(3000))
    answer = resolve_requests(parsed, repo=root, budget=4000, log=False)
    assert len(looked_up) == MAX_REQUESTS
    assert answer.tokens <= 4000
    asked = len(parsed.requests) + len(parsed.rejected)
    assert len(answer.items) == asked  # every request has its fate
    not_answered = [i for i in answer.items if "over the cap" in i.reason]
    assert len(not_answered) == asked - MAX_REQUESTS
    assert f"… {asked - MAX_REQUESTS} more requests not answered" in answer.text
    assert f"over the cap of {MAX_REQUESTS} requests per turn" in answer.text
    # tokens are counted for the pieces looked up, not again for every request or every round
    assert len(counted) < 60 * MAX_REQUESTS, len(counted)


def test_repeated_requests_are_answered_once(tmp_path):
    root = _repo(tmp_path)
    line = "NEED_CODE: src/m1.py:1-5\n"
    code, out, err = run_cli(root, "signals", "--resolve", "--json", stdin=line * 50 + "NEED_DOC: guide#part-3\n")
    assert code == 0, err
    import json

    data = json.loads(out)
    served = [i for i in data["items"] if i["outcome"] in ("served", "partial")]
    assert len(served) == 2  # parse or the cap keeps one of the 50 identical lines
    assert data["text"].count("src/m1.py") <= 3
