"""Spider2-V: task config steps that pass "setting_file" to a setup function that reads only "settings_file".

For every config step of every task (evaluation_examples/examples/**.json) whose parameters hold
"setting_file", finds the function SetupController.setup dispatches it to (desktop_env/controllers/
setup.py:209-222: `_{type}_setup`, else `{type}_setup` in desktop_env/configs), reads which keys that
function takes from its config (ast, in place) and the default of config.get('settings_file', …), and
prints one line per step: file:line, type, whether the function ever reads "setting_file", and whether
the value equals the default it falls back to.

    python3 test/corpora/checks/spider2v_setting_file.py
"""
import ast
import glob
import json
import os

from _corpus import suite

S2V = suite("spider2v")

functions = {}
for path in glob.glob(os.path.join(S2V, "desktop_env", "configs", "*.py")):
    tree = ast.parse(open(path, encoding="utf-8").read())
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name.endswith("_setup"):
            keys = {}
            for n in ast.walk(fn):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and isinstance(n.func.value, ast.Name) and n.func.value.id == "config" and n.args and isinstance(n.args[0], ast.Constant):
                    keys[n.args[0].value] = n.args[1].value if len(n.args) > 1 and isinstance(n.args[1], ast.Constant) else None
                if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == "config" and isinstance(n.slice, ast.Constant):
                    keys.setdefault(n.slice.value, None)
            functions[fn.name] = (os.path.relpath(path, S2V), keys)

steps = 0
for path in sorted(glob.glob(os.path.join(S2V, "evaluation_examples", "examples", "**", "*.json"), recursive=True)):
    text = open(path, encoding="utf-8").read()
    try:
        task = json.loads(text)
    except ValueError:
        continue
    if not isinstance(task, dict):
        continue
    lines = text.split("\n")
    seen = 0
    for step in task.get("config", []):
        params = step.get("parameters", {}) if isinstance(step, dict) else {}
        if "setting_file" not in params:
            continue
        # the line of this step's "setting_file" member (the n-th in the file)
        at = [i + 1 for i, l in enumerate(lines) if '"setting_file"' in l][seen]
        seen += 1
        steps += 1
        fname = f"{step['type']}_setup"
        where, keys = functions.get(fname, ("?", {}))
        print(f"{os.path.relpath(path, S2V)}:{at} type={step['type']} -> {where} {fname}: reads setting_file: {'setting_file' in keys}, "
              f"reads settings_file: {'settings_file' in keys}, value == its default: {params['setting_file'] == keys.get('settings_file')}")
print(f"{steps} steps pass setting_file")
