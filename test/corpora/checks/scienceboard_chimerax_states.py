"""ScienceBoard sci/ChimeraX/task.py TaskMixin._eval_states and _eval_info, run in place on witness entries
(VER-001…VER-004), and how many shipped ChimeraX `states` entries take each branch.

    python3 test/corpora/checks/scienceboard_chimerax_states.py
"""
import glob
import json
import os
import re
from typing import Any, Callable, Dict, List, Union

from _corpus import function, line_of, suite

SB = suite("scienceboard")
ns = {"Dict": Dict, "Any": Any, "List": List, "Union": Union, "Callable": Callable, "json": json, "re": re}
function(SB, "sci/base/utils.py", "getitem", ns)
error_factory = function(SB, "sci/base/utils.py", "error_factory", {"os": os, "Any": Any, "Callable": Callable})
eval_states = function(SB, "sci/ChimeraX/task.py", "TaskMixin._eval_states", ns)
eval_info = function(SB, "sci/ChimeraX/task.py", "TaskMixin._eval_info", ns)


def run(fn, *args):
    try:
        return repr(fn(None, *args))
    except Exception as e:  # noqa: BLE001 - the point is which exception and where
        f, line = line_of(e)
        return f"{type(e).__name__} at {f}:{line}"


# VER-001 (line 89): `value: null` with `find`: raw_keys is unbound in that branch
entry = {"key": "lambda k: k", "find": "lambda k, v: k.startswith('m')", "value": None}
print("line 89 find + value null:", run(eval_states, entry, {"m1": 1}))
print("line 89 same, through @error_factory(False):", repr(error_factory(False)(eval_states)(None, entry, {"m1": 1})))
# VER-003 (line 90): two keys match `find`; only meta_keys[0] is graded, in dict order
entry = {"key": "lambda k: k", "find": "lambda k, v: k.startswith('model')", "value": "2olx"}
print("line 90 find, two matches:", run(eval_states, entry, {"model#1": "2olx", "model#2": "1abc"}), "/ reordered:", run(eval_states, entry, {"model#2": "1abc", "model#1": "2olx"}))
# line 98: a key lambda without find filters the keys and grades raw_keys[0]
entry = {"key": "lambda k: k.startswith('model')", "value": "2olx"}
print("line 98 key lambda, two matches:", run(eval_states, entry, {"model#1": "2olx", "model#2": "1abc"}), "/ reordered:", run(eval_states, entry, {"model#2": "1abc", "model#1": "2olx"}))
# VER-002 (line 104): a plain key with value null tests raw_key (None), not key
entry = {"key": "models.target", "value": None}
print("line 104 plain key, value null, key present:", run(eval_states, entry, {"models.target": "present"}))


# VER-004 (line 135): set(info_list) == set(value)
class Manager:
    def __init__(self, log):
        self.log = log

    def _call(self, _):
        return [self.log], None


class Task:
    manager = Manager("Distance 1.5\n")


print("line 135 value [a, a] against one line a:", run(lambda _self, *a: eval_info(Task(), *a), {"key": "x", "value": ["Distance 1.5", "Distance 1.5"]}, {}))

# which branch the shipped tasks take
shapes = {}
for path in sorted(glob.glob(os.path.join(SB, "tasks", "*", "ChimeraX", "*.json"))):
    for e in json.load(open(path, encoding="utf-8")).get("evaluate", []):
        if e.get("type") != "states":
            continue
        null = "value" in e and e["value"] is None
        kind = "find" if "find" in e else "key lambda" if e["key"].startswith("lambda") else "plain key"
        shapes[f"{kind}{', value null' if null else ''}"] = shapes.get(f"{kind}{', value null' if null else ''}", 0) + 1
print("shipped states entries:", ", ".join(f"{k}: {v}" for k, v in sorted(shapes.items())))
