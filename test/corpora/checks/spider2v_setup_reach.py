"""Spider2-V: which task set-up steps (a task's "config", and its evaluator's "postconfig", both run by
SetupController.setup, desktop_env/controllers/setup.py:205-221) reach the network helpers of
desktop_env/configs that have no timeout:

  general.py:179  download_file_to_local  <- bigquery_init action create_table whose data_from_csv starts with
                                             'http' (configs/bigquery.py:78-80)
  general.py:279  copyfile_from_host_to_guest_setup <- step copyfile_from_host_to_guest; script_and_execute
                                             with a local src (general.py:206-211); gcp_upload_keyfile
                                             (google_cloud.py:97); bigquery_init / snowflake_init action
                                             copy_keyfile (bigquery.py:96, snowflake.py:197)
  googledrive.py:117 googledrive_upload with an 'http' src <- googledrive_init action upload

Counts tasks (and steps) for each; prints an example task.

    python3 test/corpora/checks/spider2v_setup_reach.py
"""
import glob
import json
import os

from _corpus import suite

S2V = suite("spider2v")
hits = {}


def hit(key, path):
    tasks = hits.setdefault(key, {})
    tasks[path] = tasks.get(path, 0) + 1


for path in sorted(glob.glob(os.path.join(S2V, "evaluation_examples", "examples", "**", "*.json"), recursive=True)):
    try:
        task = json.load(open(path, encoding="utf-8"))
    except ValueError:
        continue
    if not isinstance(task, dict):
        continue
    rel = os.path.relpath(path, S2V)
    ev = task.get("evaluator") if isinstance(task.get("evaluator"), dict) else {}
    for where, steps in (("config", task.get("config") or []), ("postconfig", ev.get("postconfig") or [])):
        for step in steps:
            if not isinstance(step, dict):
                continue
            t, p = step.get("type"), step.get("parameters") or {}
            if t == "copyfile_from_host_to_guest":
                hit(f"general.py:279 copyfile_from_host_to_guest_setup ({where} step copyfile_from_host_to_guest)", rel)
            elif t == "script_and_execute":
                if str(p.get("src", "")).startswith("http"):
                    hit(f"(general.py:279 not reached) script_and_execute, http src ({where})", rel)
                else:
                    hit(f"general.py:279 copyfile_from_host_to_guest_setup ({where} step script_and_execute, local src)", rel)
            elif t == "gcp_upload_keyfile":
                hit(f"general.py:279 copyfile_from_host_to_guest_setup ({where} step gcp_upload_keyfile)", rel)
            elif t in ("bigquery_init", "snowflake_init", "googledrive_init"):
                for a in p.get("actions", []) or []:
                    at = a.get("type")
                    if at == "copy_keyfile":
                        hit(f"general.py:279 copyfile_from_host_to_guest_setup ({where} {t} action copy_keyfile)", rel)
                    elif t == "bigquery_init" and at == "create_table" and "data_from_csv" in a:
                        if str(a["data_from_csv"]).startswith("http"):
                            hit(f"general.py:179 download_file_to_local ({where} bigquery_init create_table, http data_from_csv)", rel)
                        else:
                            hit(f"(general.py:179 not reached) bigquery_init create_table, local data_from_csv ({where})", rel)
                    elif t == "googledrive_init" and at == "upload":
                        kind = "http" if str(a.get("src", "")).startswith("http") else "local"
                        if kind == "http":
                            hit(f"googledrive.py:117 googledrive_upload ({where} googledrive_init upload, http src)", rel)
                        else:
                            hit(f"(googledrive.py:117 not reached) googledrive_init upload, local src ({where})", rel)
for key in ("general.py:179 download_file_to_local (any http data_from_csv)", "googledrive.py:117 googledrive_upload (any http src)"):
    if not any(k.startswith(key.split(" (")[0]) and "not reached" not in k for k in hits):
        print(f"{key}: 0 tasks")
for key in sorted(hits):
    tasks = hits[key]
    print(f"{key}: {len(tasks)} tasks, {sum(tasks.values())} steps; e.g. {sorted(tasks)[0]}")
