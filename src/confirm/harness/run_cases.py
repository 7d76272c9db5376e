"""vaudit control-case harness: runs MANY control cases in one interpreter.

Request (JSON on stdin): {"cases": [case, ...]}. Each case is one of
  {"id", "op": "call", "modules": [{"name", "filename", "source"}], "entry": {"module", "qualname"},
   "self": spec|null, "args": [spec...], "kwargs": {name: spec}, "timeoutMs", "env": {...},
   "servers": [{"port", "status", "body", "contentType", "stall"}], "traceFiles": [filename...]}
  {"id", "op": "compile", "source", "mode": "eval"|"exec", "filename"}
  {"id", "op": "regex", "pattern", "flags": int}
  {"id", "op": "lambda", "source", "args": [spec...], "timeoutMs"}   # eval(source)(*args), as verifiers do
  A "lambda" case may carry "imports": module names bound in its globals (as the verifier's module gives them).
  "call" and "lambda" cases may carry "clock": seconds since the epoch. The host clock the code reads
  (time.time/time_ns/localtime/gmtime/ctime/strftime, datetime.datetime.now/today/utcnow, datetime.date.today)
  then says that instant, from before the verifier's modules are imported until the case ends.
Module sources are executed unmodified (a sliced module keeps every selected line at its original
line number) under their real file names, so traced line numbers are the file's own.

Answer: one JSON line per case on stdout, written as soon as the case ends:
  {"id", "status": "returned"|"raised"|"deadline"|"unavailable"|"error", "value": json,
   "exception": {"type","message","file","line"} (escaped), "events": [{"type","message","file","line","func"}]
   (every exception raised in traced files, first event per exception object, even if later swallowed),
   "lines": {filename: [line, ...]}, "ms": float, "calls": [...], "detail": str}

Doubles (specs) provide application STATE only: {"$double": "object", "attrs": {...}},
{"$double": "callable", "returns": spec | "raises": {"type","message"} | "sequence": [spec...]},
{"$double": "response", "status", "text"}, {"$double": "self", "attrs": {...}} (the flagged method's
own class supplies every method not given as state), {"$tuple": [...]}, {"$set": [...]}.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out
# The harness's parts, next to this script (shipped with it in src/confirm/harness/):
#   case_context.py  module doubles, fixtures, routes, verdict reading
#   vaudit_specs.py  decoded values and state doubles, the verifier's modules, stub servers
#   vaudit_guard.py  the control-case guard (audit hook), its refusal channel, reaping strays
#   vaudit_clock.py  a case's fixed host clock
#   vaudit_case.py   one case: in this process, and forked under the guard with its bound
#   vaudit_warm.py   the warm runner (zygotes)
from vaudit_case import ANSWERS, run_forked  # noqa: E402
from vaudit_guard import GUARD_POLICY, trusted_setup  # noqa: E402
from vaudit_warm import Zygote, warm_key  # noqa: E402


def main():
    trusted_setup()
    req = json.load(sys.stdin)
    GUARD_POLICY.update(req.get("guard") or {})
    # From here on, stdin is a pipe that never answers (like a terminal nobody types into): a tool
    # the verifier starts with inherited stdin waits, as it would on the real host.
    r, w = os.pipe()
    os.dup2(r, 0)
    main.keep = w
    # The answer channel is a private copy of stdout; fd 1 itself (inherited by every case process
    # and every tool it starts) goes to /dev/null, so case output cannot reach the channel.
    answers = ANSWERS[0] = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    sys.stdout = open(os.devnull, "w")
    cases = [c for c in req.get("cases", []) if isinstance(c, dict)]
    keys = [warm_key(c) if req.get("warm", True) else None for c in cases]
    zygote, dropped = None, {}
    for i, case in enumerate(cases):
        key = keys[i]
        if zygote is not None and (zygote.key != key or not zygote.ok):
            if not zygote.ok:
                dropped[zygote.key] = zygote.why
            zygote.stop()
            zygote = None
        # a zygote for two or more consecutive cases that share their set-up (harness.ts orders them)
        if zygote is None and key is not None and key not in dropped and i + 1 < len(cases) and keys[i + 1] == key:
            zygote = Zygote(cases, i, key)
            if not zygote.ok:
                dropped[key] = zygote.why
                zygote = None
        try:
            res = run_forked(case, zygote, i) if zygote is not None else None
            if zygote is not None and not zygote.ok:
                dropped[key] = zygote.why
            if res is None:
                res = run_forked(case)
                if key is not None and key in dropped:
                    res["warm"] = "ran cold: its zygote was %s" % dropped[key]
        except BaseException as e:
            res = {"id": case.get("id"), "status": "error", "detail": "%s: %s" % (type(e).__name__, e)}
        line = (json.dumps(res) + "\n").encode()
        view = memoryview(line)
        while view:
            n = os.write(answers, view)
            view = view[n:]
    if zygote is not None:
        zygote.stop()


if __name__ == "__main__":
    main()
