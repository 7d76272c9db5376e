"""ScienceBoard GrassGIS: the shipped entries that take the first record of a filter by name
(B-01…B-10, D-03), graded by the real sci/GrassGIS/task.py _eval_info / _eval_db (run in place), on a
state where the named map (or record) appears twice: the verdict flips with the order of the two.

    python3 test/corpora/checks/scienceboard_grass_first_match.py
"""
import copy
import json
import os
from typing import Callable, Dict, Union

from _corpus import function, suite

SB = suite("scienceboard")
ns = {"Callable": Callable, "Dict": Dict, "Union": Union}
eval_info = function(SB, "sci/GrassGIS/task.py", "TaskMixin._eval_info", ns)
eval_db = function(SB, "sci/GrassGIS/task.py", "TaskMixin._eval_db", ns)


def good_value(entry):
    """A value the entry's pred accepts (the right answer), and one it rejects."""
    v = entry["value"]
    if isinstance(v, list) and len(v) == 2 and all(isinstance(x, float) for x in v):
        return (v[0] + v[1]) / 2, 1.0
    if isinstance(v, list):
        return " ".join(v), "none"
    return v, f"not {v}"


def record(entry, value):
    """A layer / window / record the entry's filter selects, holding `value` where its pred reads."""
    pred = entry.get("pred", "")
    field = pred.split("key[0]['")[1].split("']")[0] if "key[0]['" in pred else "value"
    return field, value


def states(entry, good, bad):
    key = entry["key"]
    name = key.split("== '")[1].split("'")[0]
    if "dump['layers']" in key:
        field, _ = record(entry, good)
        return {"layers": [{"name": name, field: good}, {"name": name, field: bad}]}
    if "dump['windows']" in key and "['params']" in key:
        param = key.rsplit("== '", 1)[1].split("'")[0]
        w = lambda v: {"name": name, "_data": ["d.vect", {"params": [{"name": param, "value": v}]}]}
        return {"windows": [w(good), w(bad)]}
    if "dump['windows']" in key:
        field, _ = record(entry, good)
        return {"windows": [{"name": name, field: good}, {"name": name, field: bad}]}
    field, _ = record(entry, good)
    return {"records": [{"name": name, field: good}, {"name": name, field: bad}]}


class Manager:
    def __init__(self, out):
        self.out = out

    def operate_gcmd(self, *_a, **_k):
        return {"stdout": self.out}


class Task:
    def __init__(self, out=None):
        self.manager = Manager(out)


for tid in ["B-01", "B-02", "B-03", "B-04", "B-05", "B-06", "B-07", "B-08", "B-09", "B-10", "D-03"]:
    rel = f"tasks/VM/GrassGIS/{tid}.json"
    task = json.load(open(os.path.join(SB, rel), encoding="utf-8"))
    for i, entry in enumerate(task["evaluate"]):
        good, bad = good_value(entry)
        st = states(entry, good, bad)
        flipped = copy.deepcopy(st)
        for k in flipped:
            flipped[k].reverse()
        if entry["type"] == "db":
            verdicts = [eval_db(Task(s), entry, None) for s in (st, flipped)]
        else:
            verdicts = [eval_info(Task(), entry, s) for s in (st, flipped)]
        print(f"{rel} /evaluate/{i}: the same map twice, right one first: {verdicts[0]}, right one second: {verdicts[1]}")
