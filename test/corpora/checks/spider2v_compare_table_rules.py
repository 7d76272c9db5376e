"""Spider2-V: the rule types the tasks give compare_table (desktop_env/evaluators/metrics/table.py), and the
inner rule types of any sheet_fuzzy rule (the branch where `metric` is bound for four types only).

    python3 test/corpora/checks/spider2v_compare_table_rules.py
"""
from _corpus import evaluators, suite

S2V = suite("spider2v")
types = {}
for _path, ev in evaluators(S2V):
    funcs = ev.get("func") if isinstance(ev.get("func"), list) else [ev.get("func")]
    opts = ev.get("options", {})
    opts = opts if isinstance(opts, list) else [opts] * len(funcs)
    for fn, o in zip(funcs, opts):
        if fn != "compare_table" or not isinstance(o, dict):
            continue
        for r in o.get("rules", []):
            types[r.get("type")] = types.get(r.get("type"), 0) + 1
            for inner in r.get("rules", []) if r.get("type") == "sheet_fuzzy" else []:
                types[f"sheet_fuzzy/{inner.get('type')}"] = types.get(f"sheet_fuzzy/{inner.get('type')}", 0) + 1
print("compare_table rule types: " + ", ".join(f"{k}: {v}" for k, v in sorted(types.items())) + f"; sheet_fuzzy rules: {types.get('sheet_fuzzy', 0)}")
