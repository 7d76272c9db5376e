"""webarena-infinity: every missing-timeout and unguarded-state-read line of the gate, checked on the code.

- missing-timeout: the line calls requests.<verb>(...) with no timeout= keyword, inside a function of a
  per-task verifier module that verify() runs (verify itself or a module function it calls);
- unguarded-state-read: the line calls <response>.json() where <response> holds a requests.<verb>(...)
  reply, with no enclosing try in its function;
- and the harness (evaluation/tasks.py run_task) calls verify_fn(server_url) synchronously inside a
  try whose `except Exception` sets passed = False: a hang blocks the run (asyncio.wait_for cannot
  interrupt a blocking call) and a parse error becomes the agent's failure.
Prints one line per checked gate line and exits 1 on any line that does not hold.
"""
import ast
import os
import sys

from _corpus import suite
from _gate import gate_lines

ROOT = suite("webarena-infinity")
VERBS = {"get", "post", "put", "patch", "delete", "head", "request"}


def parse(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return ast.parse(f.read())


def functions(tree):
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def reached_from_verify(tree):
    """Module functions verify() runs, transitively through plain calls by name."""
    fns = functions(tree)
    seen, todo = set(), ["verify"]
    while todo:
        name = todo.pop()
        if name in seen or name not in fns:
            continue
        seen.add(name)
        for n in ast.walk(fns[name]):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                todo.append(n.func.id)
    return {name: fns[name] for name in seen}


def enclosing(fns, line):
    for f in fns.values():
        if f.lineno <= line <= f.end_lineno:
            return f
    return None


def requests_call(n):
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in VERBS and isinstance(n.func.value, ast.Name) and n.func.value.id == "requests"


def in_try(fn, line):
    return any(isinstance(t, ast.Try) and t.body[0].lineno <= line <= t.body[-1].end_lineno for t in ast.walk(fn))


def check_harness():
    tree = parse("evaluation/tasks.py")
    run_task = next(n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef) and n.name == "run_task")
    for t in ast.walk(run_task):
        if isinstance(t, ast.Try) and any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "verify_fn" for b in t.body for c in ast.walk(b)):
            h = t.handlers[0]
            src = ast.unparse(h)
            if "Exception" in ast.unparse(h.type) and "passed" in src and "False" in src:
                return f"evaluation/tasks.py:{t.lineno}-{h.end_lineno}: verify_fn(server_url) runs in a try whose `except Exception` scores passed=False"
    sys.exit("harness: no try around verify_fn with except Exception -> passed=False")


def main():
    print(check_harness())
    total = 0
    for rule in ("missing-timeout", "unguarded-state-read"):
        bad = 0
        lines = gate_lines("webarena-infinity", rule)
        for rel, line in lines:
            tree = parse(rel)
            fns = reached_from_verify(tree)
            fn = enclosing(fns, line)
            calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and n.lineno == line] if fn else []
            if rule == "missing-timeout":
                ok = any(requests_call(c) and not any(k.arg == "timeout" for k in c.keywords) for c in calls)
                what = "requests call without timeout= in " + (fn.name if fn else "?")
            else:
                holders = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) and requests_call(n.value) for t in n.targets if isinstance(t, ast.Name)} if fn else set()
                ok = any(isinstance(c.func, ast.Attribute) and c.func.attr == "json" and isinstance(c.func.value, ast.Name) and c.func.value.id in holders for c in calls) and not in_try(fn, line)
                what = "<reply>.json() outside any try in " + (fn.name if fn else "?")
            print(f"{rel}:{line} {rule}: {what}: {'holds' if ok else 'DOES NOT HOLD'}")
            bad += not ok
        print(f"{rule}: {len(lines)} gate lines checked, {bad} do not hold")
        total += bad
    sys.exit(1 if total else 0)


main()
