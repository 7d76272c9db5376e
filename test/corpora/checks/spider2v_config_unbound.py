"""Spider2-V set-up helpers (desktop_env/configs) that read a name which may be unbound, run in place with stubs:

  general.py:25   get_browser returns `browser`, bound by the loop's first successful connect; every call site's
                  `trial` argument (the loop count) is listed, then the function runs with a connect that
                  always fails (trial=15, the default) and with trial=0.
  general.py:194  download_file_to_local raises with `{e}` after three failed downloads; run with a requests.get
                  that always raises RequestException.
  snowflake.py:48 snowflake_execute_script's finally reads `cursor`; snowflake.py:77 snowflake_delete_user's
                  except reads `username`: both run with a client whose cursor() raises (what a closed
                  SnowflakeConnection does) and with a working one; then the action lists of every task's
                  snowflake_init step (execute_script closes the shared client at line 49).

    python3 test/corpora/checks/spider2v_config_unbound.py
"""
import ast
import glob
import json
import logging
import os
import types

from _corpus import function, line_of, suite

S2V = suite("spider2v")
GEN = "desktop_env/configs/general.py"
SF = "desktop_env/configs/snowflake.py"
log = logging.getLogger("check")
log.disabled = True


def run(f, *a, **k):
    try:
        return f"returns {f(*a, **k)!r}"
    except Exception as exc:  # noqa: BLE001 - we report what escapes
        return f"raises {type(exc).__name__}: {exc} at {':'.join(map(str, line_of(exc)))}"


# general.py:25
calls = []
for path in glob.glob(os.path.join(S2V, "**", "*.py"), recursive=True):
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "get_browser":
            trial = [ast.unparse(a) for a in node.args[2:]] + [ast.unparse(k.value) for k in node.keywords if k.arg == "trial"]
            calls.append(trial[0] if trial else "default 15")
print(f"get_browser call sites: {len(calls)}; trial given: {sorted(set(calls))}")


class FailingChromium:
    def connect_over_cdp(self, url):
        raise ConnectionError("refused")


p = types.SimpleNamespace(chromium=FailingChromium())
get_browser = function(S2V, GEN, "get_browser", {"time": types.SimpleNamespace(sleep=lambda s: None), "logger": log})
print(f"get_browser(p, url) with connect always failing: {run(get_browser, p, 'http://x')}")
print(f"get_browser(p, url, trial=0): {run(get_browser, p, 'http://x', trial=0)}")

# general.py:194
import requests  # noqa: E402


def failing_get(url, **kw):
    raise requests.ConnectionError("refused")


fake_requests = types.SimpleNamespace(get=failing_get, RequestException=requests.RequestException)
dl = function(S2V, GEN, "download_file_to_local", {"os": os, "uuid": __import__("uuid"), "platform": __import__("platform"), "requests": fake_requests})
ctl = types.SimpleNamespace(cache_dir="/tmp")
print(f"download_file_to_local(ctl, 'http://x/t.csv', use_cache=False) with every get failing: {run(dl, ctl, 'http://x/t.csv', 'p.csv', use_cache=False)}")


# snowflake.py:48, :77
class Cursor:
    sfqid = "q1"

    def execute(self, s):
        return self

    def fetchone(self):
        return ["ME"]

    def fetchall(self):
        return []

    def close(self):
        pass


class Client:
    def __init__(self, closed):
        self.closed = closed

    def cursor(self):
        if self.closed:
            raise RuntimeError("Connection is closed")
        return Cursor()

    def close(self):
        self.closed = True


ns = {"logger": log, "os": os, "re": __import__("re"), "remove_comments": lambda s: s, "Dict": dict, "Any": object, "SnowflakeConnection": object}
exe = function(S2V, SF, "snowflake_execute_script", ns)
dele = function(S2V, SF, "snowflake_delete_user", ns)
for closed in (False, True):
    print(f"client.cursor() {'raises' if closed else 'works'}: snowflake_execute_script -> {run(exe, Client(closed), sql_command='SELECT 1')}; "
          f"snowflake_delete_user -> {run(dele, Client(closed), username='U1')}")
shared = Client(False)
exe(shared, sql_command="SELECT 1")
print(f"after execute_script on the shared client, a following delete_user -> {run(dele, shared, username='U1')}")

seqs = {}
for path in glob.glob(os.path.join(S2V, "evaluation_examples", "examples", "**", "*.json"), recursive=True):
    try:
        task = json.load(open(path, encoding="utf-8"))
    except ValueError:
        continue
    if not isinstance(task, dict):
        continue
    ev = task.get("evaluator") if isinstance(task.get("evaluator"), dict) else {}
    for step in (task.get("config") or []) + (ev.get("postconfig") or []):
        if isinstance(step, dict) and step.get("type") == "snowflake_init":
            acts = tuple(a.get("type") for a in step.get("parameters", {}).get("actions", []))
            seqs[acts] = seqs.get(acts, 0) + 1
print("snowflake_init action lists in the tasks: " + "; ".join(f"{list(k)} x{v}" for k, v in sorted(seqs.items())))
after = sum(v for k, v in seqs.items() if "execute_script" in k and k.index("execute_script") < len(k) - 1)
print(f"steps with an action after execute_script: {after}")
