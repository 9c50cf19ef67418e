#!/usr/bin/env python3
"""A scripted stand-in for a coding agent: replays a transcript, one turn per call.

Usage (as `noface-ctx run --agent`):  python examples/stand_in_agent.py TRANSCRIPT [--stream-json]

The transcript is a text file whose turns are separated by lines reading `--- turn ---`. The
orchestrator runs the agent once per turn with the prompt on stdin and `NOFACE_TURN` (1-based) in
the environment; this script prints that turn's text (the last turn's when past the end). With
`--stream-json` it prints the text the way Claude Code's `--output-format stream-json` does
(a system event, one assistant message, a result event).

It checks what it was given, as a real agent would notice: after a turn that asked for context, the next
prompt must hold a `CONTEXT YOU REQUESTED:` block, else it prints `BLOCKED: ...`. A line
`EXPECT: some text` in a turn is not printed; the turn is `BLOCKED` unless the prompt contains it.
Offline, no model: for tests and the README demo.
"""

from __future__ import annotations

import json
import os
import sys

SEPARATOR = "--- turn ---"


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print("usage: stand_in_agent.py TRANSCRIPT [--stream-json]", file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as fh:
        turns = [t.strip("\n") for t in fh.read().split(SEPARATOR)]
    prompt = sys.stdin.read()
    turn = int(os.environ.get("NOFACE_TURN", "1") or 1)
    script = turns[min(turn, len(turns)) - 1]
    lines = []
    for line in script.splitlines():
        if line.startswith("EXPECT:"):
            wanted = line[len("EXPECT:"):].strip()
            if wanted not in prompt:
                lines = [f"BLOCKED: the context I asked for did not arrive (no {wanted!r} in the prompt)"]
                break
            continue
        lines.append(line)
    asked = turn > 1 and "NEED_" in turns[min(turn - 1, len(turns)) - 1]
    if asked and "CONTEXT YOU REQUESTED:" not in prompt:
        lines = ["BLOCKED: my requests were not answered"]
    text = "\n".join(lines)
    if "--stream-json" in argv:
        events = [
            {"type": "system", "subtype": "init", "session_id": "stand-in"},
            {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}},
            {"type": "result", "subtype": "success", "result": text, "session_id": "stand-in"},
        ]
        print("\n".join(json.dumps(e) for e in events))
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
