"""Spider2-V task d9310e1b (dbt): the real get_dbt_job_info (desktop_env/evaluators/getters/dbt.py) builds the
text the real check_include_exclude (desktop_env/evaluators/metrics/general.py) searches, both run in place
(the dbt-cloud CLI and the settings file stubbed). A job scheduled every 12 hours passes the task's
include rule "1", as a job every hour does.

    python3 test/corpora/checks/spider2v_include_exclude.py
"""
import glob
import io
import json
import os
import types
from typing import Dict, List

from _corpus import function, suite

S2V = suite("spider2v")
task_path = glob.glob(os.path.join(S2V, "evaluation_examples", "examples", "dbt", "d9310e1b*", "*.json"))[0]
task = json.load(open(task_path, encoding="utf-8"))
ev = task["evaluator"]


def fake_cli(interval):
    def run(argv, **_):
        data = [{"id": 1, "name": "p"}] if argv[1] == "project" else [
            {"id": 7, "name": ev["result"]["name"], "run_generate_sources": True, "schedule": {"time": {"type": "every_hour", "interval": interval}}}]
        return types.SimpleNamespace(stdout=json.dumps({"data": data}))
    return types.SimpleNamespace(run=run, PIPE=-1)


def fake_open(path, *_a, **_k):
    return io.StringIO(json.dumps({"account_id": "1", "token": "t", "cloud_host": "h"}))


metrics = {"Dict": Dict, "List": List}
check = function(S2V, "desktop_env/evaluators/metrics/general.py", "check_include_exclude", metrics)
for interval in (1, 12):
    ns = {"Dict": Dict, "json": json, "os": types.SimpleNamespace(environ={}), "subprocess": fake_cli(interval), "open": fake_open}
    get = function(S2V, "desktop_env/evaluators/getters/dbt.py", "get_dbt_job_info", ns)
    text = get(None, ev["result"])
    print(f"job every {interval} h: get_dbt_job_info -> {text!r}; check_include_exclude(include={ev['expected']['rules']['include']}) -> {check(text, ev['expected']['rules'])}")
