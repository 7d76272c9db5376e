"""stagehand: every swallowed-error-verdict line of the gate, checked on the code.

Each listed line opens a `catch (…) {` whose block returns an object with `_success: false`, closing a
`try` whose block returns the verdict object (`_success: <expression>`); and the harness scores
`_success` alone (index.eval.ts: `score: output._success ? 1 : 0`), so whatever the catch caught
(a TypeError in the eval's own code, a network failure, the agent's failed act()) scores 0.
Prints one line per gate line and exits 1 on any that does not hold.
"""
import os
import re
import sys

from _corpus import suite
from _gate import gate_lines

ROOT = suite("stagehand")


def block_from(text, start):
    """The text of the brace block that opens at or after `start`."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i : j + 1]
    return text[i:]


def try_block_before(text, catch_at):
    """The block of the try this catch closes: from the `}` before `catch` back to its `{`."""
    close = text.rindex("}", 0, catch_at)
    depth = 0
    for j in range(close, -1, -1):
        if text[j] == "}":
            depth += 1
        elif text[j] == "{":
            depth -= 1
            if depth == 0:
                return text[j : close + 1] if text[:j].rstrip().endswith("try") else ""
    return ""


def main():
    harness = open(os.path.join(ROOT, "packages/evals/index.eval.ts"), encoding="utf-8").read()
    m = re.search(r"score:\s*output\._success\s*\?\s*1\s*:\s*0", harness)
    if not m:
        sys.exit("index.eval.ts does not score output._success")
    print(f"packages/evals/index.eval.ts:{harness[: m.start()].count(chr(10)) + 1}: score: output._success ? 1 : 0")
    bad = 0
    lines = gate_lines("stagehand", "swallowed-error-verdict")
    for rel, line in lines:
        text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
        starts = [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]
        at = starts[line - 1]
        rest = text[at:]
        c = re.match(r"\s*\}?\s*catch\s*(\([^)]*\))?\s*\{", rest)
        catch_block = block_from(text, at) if c else ""
        try_block = try_block_before(text, at + rest.index("catch")) if c else ""
        ok = bool(c) and re.search(r"_success:\s*false", catch_block) is not None and re.search(r"\b_success\b\s*[:,}]", try_block) is not None
        print(f"{rel}:{line}: catch returns _success: false after a try that returns the verdict: {'holds' if ok else 'DOES NOT HOLD'}")
        bad += not ok
    print(f"swallowed-error-verdict: {len(lines)} gate lines checked, {bad} do not hold")
    sys.exit(1 if bad else 0)


main()
