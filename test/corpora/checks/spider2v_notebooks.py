"""Spider2-V compare_ipynb_files (desktop_env/evaluators/metrics/jupyterlab.py), run in place for each task that
binds it, against a result notebook that is an empty JSON object and one that keeps only the first top-level
key of the expected notebook: both pass, since zip stops at the shorter list of items. The suite does not
ship the tasks' gold notebooks, so a stand-in notebook (one code cell) takes their place.

    python3 test/corpora/checks/spider2v_notebooks.py
"""
import io
import json
import os
import tempfile

from _corpus import evaluators, function, suite

S2V = suite("spider2v")
compare = function(S2V, "desktop_env/evaluators/metrics/jupyterlab.py", "compare_ipynb_files", {"io": io, "json": json})
for path, ev in evaluators(S2V):
    funcs = ev["func"] if isinstance(ev["func"], list) else [ev["func"]]
    if "compare_ipynb_files" not in funcs:
        continue
    i = funcs.index("compare_ipynb_files")
    expected = ev["expected"][i] if isinstance(ev["expected"], list) else ev["expected"]
    stand_in = {"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "print(42)"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    first_key = dict(list(stand_in.items())[:1])
    with tempfile.TemporaryDirectory() as d:
        gold = os.path.join(d, "gold.ipynb")
        json.dump(stand_in, open(gold, "w", encoding="utf-8"))
        out = []
        for name, nb in (("{}", {}), ("first key only", first_key)):
            p = os.path.join(d, "result.ipynb")
            json.dump(nb, open(p, "w", encoding="utf-8"))
            out.append(f"{name} -> {compare(p, gold)}")
    print(f"{os.path.relpath(path, S2V)}: gold {expected['path']} (absent: a stand-in with one code cell): " + "; ".join(out))
