"""Shared by the gate's check scripts: find a real suite and take functions out of its code in place.

The scripts never copy corpus code: `function(suite, path, qualname)` parses the file where it lies and
compiles the one definition with its own line numbers (so a traceback names the real file and line),
in a namespace the caller fills with what the function reads.
"""
import ast
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def suite(name):
    root = os.environ.get("VAUDIT_CORPORA") or os.path.join(HERE, "..", "..", "..", "..", "shared", "corpora")
    path = os.path.join(os.path.abspath(root), name)
    if not os.path.isdir(path):
        sys.exit(f"no corpus {name} at {path} (set VAUDIT_CORPORA)")
    return path


def definition(path, qualname):
    """The ast node of a def or class in a file, by qualified name (`Class.method`, `outer.inner`)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    node = tree
    for part in qualname.split("."):
        node = next(n for n in ast.iter_child_nodes(node) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and n.name == part)
    return node


def function(root, rel, qualname, namespace, keep_decorators=False):
    """Compile one function of `root/rel` in place into `namespace` and return it."""
    path = os.path.join(root, rel)
    node = definition(path, qualname)
    if not keep_decorators:
        node.decorator_list = []
    module = ast.Module(body=[node], type_ignores=[])
    exec(compile(module, path, "exec"), namespace)
    return namespace[node.name]


def line_of(exc):
    """(file, line) of the innermost frame of a raised exception."""
    tb = exc.__traceback__
    while tb.tb_next:
        tb = tb.tb_next
    return os.path.basename(tb.tb_frame.f_code.co_filename), tb.tb_lineno


def evaluators(root):
    """(path, evaluator) of every OSWorld-family task under root/evaluation_examples/examples (JSON objects
    with an "evaluator" object; other JSON files are skipped)."""
    import glob
    import json

    for path in sorted(glob.glob(os.path.join(root, "evaluation_examples", "examples", "**", "*.json"), recursive=True)):
        try:
            task = json.load(open(path, encoding="utf-8"))
        except ValueError:
            continue
        ev = task.get("evaluator") if isinstance(task, dict) else None
        if isinstance(ev, dict):
            yield path, ev
