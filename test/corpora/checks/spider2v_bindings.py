"""Spider2-V: which getters and metrics the tasks bind. DesktopEnv (desktop_env/envs/desktop_env.py) calls
`getattr(getters, "get_" + type)` for each evaluator result/expected and `getattr(metrics, func)` for each
func; this prints how many tasks bind each name given on the command line (all when none).

    python3 test/corpora/checks/spider2v_bindings.py [name...]
"""
import sys

from _corpus import evaluators, suite

S2V = suite("spider2v")
count = {}
for _path, ev in evaluators(S2V):
    names = set()
    funcs = ev.get("func", [])
    for f in funcs if isinstance(funcs, list) else [funcs]:
        names.add(f"metric {f}")
    for part in ("result", "expected"):
        val = ev.get(part)
        for g in val if isinstance(val, list) else [val]:
            if isinstance(g, dict) and "type" in g:
                names.add(f"getter get_{g['type']}")
    for n in names:
        count[n] = count.get(n, 0) + 1
wanted = sys.argv[1:]
for n in sorted(count):
    if not wanted or n.split(" ", 1)[1] in wanted:
        print(f"{n}: {count[n]} tasks")
