"""Spider2-V desktop_env/evaluators/metrics/dbt.py, imported in place (duckdb stubbed by sqlite3): the bound
metric check_local_database normalises check_type with validate_check_type before it reaches
check_local_duckdb, so for every subset of the six check types `tables1`/`views1` are bound when read
(dbt.py:139,147,155,164): no NameError, the verdict on two equal databases is 1. The same subsets given to
check_local_duckdb directly (no task binds it) hit the unbound names, which its `except Exception` turns into 0.

    python3 test/corpora/checks/spider2v_check_type.py
"""
import importlib.util
import itertools
import logging
import os
import sqlite3
import sys
import tempfile
import types

from _corpus import suite

S2V = suite("spider2v")
sys.modules.setdefault("duckdb", types.SimpleNamespace(connect=sqlite3.connect))
try:
    import yaml  # noqa: F401 - dbt.py imports it (check_yaml_file); not used by the functions run here
except ImportError:
    sys.modules["yaml"] = types.SimpleNamespace()
spec = importlib.util.spec_from_file_location("s2v_dbt", os.path.join(S2V, "desktop_env", "evaluators", "metrics", "dbt.py"))
dbt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dbt)

errors = []
dbt.logger = types.SimpleNamespace(info=lambda msg, *a: errors.append(f"{msg} {a}"))

with tempfile.TemporaryDirectory() as d:
    paths = [os.path.join(d, f"{n}.db") for n in ("result", "expected")]
    for p in paths:
        c = sqlite3.connect(p)
        c.execute("create table t (a int)")
        c.execute("insert into t values (1)")
        c.execute("create view v as select a from t")
        c.commit()
        c.close()
    kinds = ["table", "view", "table-schema", "view-schema", "table-schema-content", "view-schema-content"]
    subsets = [list(s) for n in range(1, len(kinds) + 1) for s in itertools.combinations(kinds, n)]
    verdicts = {}
    for s in subsets:
        errors.clear()
        v = dbt.check_local_database(paths[0], paths[1], db_type="duckdb", check_type=s)
        key = (v, any("NameError" in e or "referenced before assignment" in e for e in errors))
        verdicts[key] = verdicts.get(key, 0) + 1
    print(f"check_local_database on two equal databases, {len(subsets)} check_type subsets: " + ", ".join(f"verdict {v}{' after an unbound name' if ne else ''}: {n}" for (v, ne), n in sorted(verdicts.items())))
    errors.clear()
    v = dbt.check_local_duckdb(paths[0], paths[1], check_type=["table-schema"], table_targets=[], view_targets=[], connect_func=sqlite3.connect)
    print(f"check_local_duckdb directly with check_type ['table-schema']: verdict {v}; logged: {errors[0] if errors else None}")
