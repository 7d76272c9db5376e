"""Spider2-V DesktopEnv.evaluate (desktop_env/envs/desktop_env.py), run in place on a stub env with two
metrics: when a result getter raises FileNotFoundError, the except (lines 304-307) returns 0 only for
conj 'and'; for conj 'or' it falls through to the metric call at lines 312-314 with `result_state` unbound (first
metric) or still holding the previous metric's result (later ones). Then: which tasks have a metric list with
conj 'or', which result getters they bind, and what get_vm_file (getters/file.py) does for a missing file.

    python3 test/corpora/checks/spider2v_evaluate_or.py
"""
import logging
import os
import types
import typing

from _corpus import evaluators, function, line_of, suite

S2V = suite("spider2v")
log = logging.getLogger("check")
log.disabled = True
evaluate = function(S2V, "desktop_env/envs/desktop_env.py", "DesktopEnv.evaluate", {"logger": log})


def getter(name, missing):
    def get(env, config):
        if missing:
            raise FileNotFoundError(name)
        return name
    return get


def env(conj, missing_idx, seen):
    def metric(result, expected):
        seen.append(result)
        return 0.0
    return types.SimpleNamespace(
        setup_controller=types.SimpleNamespace(setup=lambda steps: None),
        evaluator={"func": ["m", "m"], "result": [{}, {}], "expected": [{"type": "gold"}, {"type": "gold"}]},
        action_history=[], metric=[metric, metric], metric_conj=conj, metric_options=[{}, {}],
        result_getter=[getter(f"result{i}", i == missing_idx) for i in range(2)],
        expected_getter=[lambda e, c: "gold", lambda e, c: "gold"])


for conj, missing in (("and", 0), ("or", 0), ("or", 1)):
    seen = []
    try:
        out = f"returns {evaluate(env(conj, missing, seen))!r}"
    except Exception as exc:  # noqa: BLE001
        out = f"raises {type(exc).__name__}: {exc} at {':'.join(map(str, line_of(exc)))}"
    print(f"conj={conj}, result getter {missing} raises FileNotFoundError: {out}; metrics saw {seen}")

for path, ev in evaluators(S2V):
    if isinstance(ev.get("func"), list) and ev.get("conj", "and") == "or":
        print(f"conj 'or' task {os.path.relpath(path, S2V)}: result getters {[r.get('type') for r in ev['result']]}")

get_vm_file = function(S2V, "desktop_env/evaluators/getters/file.py", "get_vm_file", {"os": os, **{n: getattr(typing, n) for n in ("Dict", "Any", "List", "Set", "Union", "Optional")}})
missing_env = types.SimpleNamespace(cache_dir="/tmp", controller=types.SimpleNamespace(get_file=lambda p: None))
print(f"get_vm_file for a file missing on the VM (controller.get_file -> None): returns {get_vm_file(missing_env, {'path': '/home/user/x.ipynb', 'dest': 'x.ipynb'})!r}")
