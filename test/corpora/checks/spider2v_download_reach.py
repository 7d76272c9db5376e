"""Spider2-V: does grading ever download? SetupController._download_setup (desktop_env/controllers/setup.py)
runs while grading only from the getters that call it when their config's `src` starts with 'http'
(get_vm_script_output, get_validate_correct_url: `if src.startswith('http')`) and from a postconfig step
of type "download" (DesktopEnv.evaluate runs the postconfig through SetupController.setup). Walks every
task's evaluator (result, expected, postconfig, in lists too) and prints what it finds.

    python3 test/corpora/checks/spider2v_download_reach.py
"""
from _corpus import evaluators, suite

S2V = suite("spider2v")
GETTERS = {"vm_script_output", "validate_correct_url"}
tasks = 0
srcs = {}
downloads = 0
for _path, ev in evaluators(S2V):
    tasks += 1
    for part in ("result", "expected"):
        for getter in ev.get(part, []) if isinstance(ev.get(part), list) else [ev.get(part)]:
            if isinstance(getter, dict) and getter.get("type") in GETTERS:
                src = str(getter.get("src"))
                srcs[src.startswith("http")] = srcs.get(src.startswith("http"), 0) + 1
    for step in ev.get("postconfig", []) or []:
        if isinstance(step, dict) and step.get("type") == "download":
            downloads += 1
print(f"{tasks} tasks with an evaluator; getters that may download: {srcs.get(True, 0)} with an http src, {srcs.get(False, 0)} with a local src; postconfig download steps: {downloads}")
