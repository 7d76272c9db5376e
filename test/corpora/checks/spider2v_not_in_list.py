"""Spider2-V is_not_in_list (desktop_env/evaluators/metrics/general.py), run in place for each task that binds it,
with the task's own rules (get_rule returns config["rules"] as-is) and two states of the get_bigquery_datasets
shape (a list of dataset ids, getters/bigquery.py:113-115): one that still holds the dataset the task wants gone
and one without it.

    python3 test/corpora/checks/spider2v_not_in_list.py
"""
import os

from _corpus import evaluators, function, suite

S2V = suite("spider2v")
metric = function(S2V, "desktop_env/evaluators/metrics/general.py", "is_not_in_list", {})
for path, ev in evaluators(S2V):
    if ev.get("func") != "is_not_in_list":
        continue
    rules = ev["expected"]["rules"]
    excluded = rules["exclude"]
    name = excluded[0] if isinstance(excluded, list) else excluded
    kept = ["sales", name]
    gone = ["sales"]
    print(f"{os.path.relpath(path, S2V)}: exclude={excluded!r}; state {kept} -> {metric(kept, rules)}; state {gone} -> {metric(gone, rules)}")
