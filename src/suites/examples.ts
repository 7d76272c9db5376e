/** Builders for rule documentation examples in the reference task format. */

/** One task file at `tasks/<Family>/<name>.json`, pretty-printed like real suites. */
export function taskFile(family: string, name: string, task: Record<string, unknown>): Record<string, string> {
  return { [`tasks/${family}/${name}.json`]: JSON.stringify(task, null, 2) + '\n' };
}

/** The launch initializer most GUI tasks start with. */
export function launch(app: string, ...args: string[]): Record<string, unknown> {
  return { func: 'launch', command: [app, ...args], wait: 5 };
}

/** A minimal OSWorld-family package: a dispatcher (`desktop_env.py`), a metrics and a getters package. */
function osworldPackage(): Record<string, string> {
  return {
    'desktop_env/__init__.py': '',
    'desktop_env/envs/__init__.py': '',
    'desktop_env/envs/desktop_env.py':
      'from desktop_env.evaluators import metrics, getters\n\n\nclass DesktopEnv:\n    def load(self, evaluator):\n        self.metric = getattr(metrics, evaluator["func"])\n        self.result_getter = getattr(getters, "get_{:}".format(evaluator["result"]["type"]))\n        exp = evaluator.get("expected")\n        self.expected_getter = getattr(getters, "get_{:}".format(exp["type"])) if exp else None\n\n    def evaluate(self, evaluator):\n        result_state = self.result_getter(self, evaluator["result"])\n        options = evaluator.get("options", {})\n        if self.expected_getter is None:\n            return self.metric(result_state, **options)\n        expected_state = self.expected_getter(self, evaluator["expected"])\n        return self.metric(result_state, expected_state, **options)\n',
    'desktop_env/evaluators/__init__.py': '',
    'desktop_env/evaluators/metrics/__init__.py': 'from .table import compare_table, compare_csv\nfrom .general import check_include_exclude, check_file_existence\n\n\ndef infeasible():\n    pass\n',
    'desktop_env/evaluators/metrics/table.py':
      'def compare_table(result, expected=None, **options):\n    rules = options.get("rules", [])\n    if result is None:\n        return 0.0\n    with open(result) as r, open(expected) as e:\n        ok = r.read() == e.read()\n    return 1.0 if ok and not rules else float(ok)\n\n\ndef compare_csv(result, expected, strict=True):\n    with open(result) as r, open(expected) as e:\n        a, b = r.read(), e.read()\n    return float(a == b if strict else a.strip() == b.strip())\n',
    'desktop_env/evaluators/metrics/general.py':
      'import os\n\n\ndef check_include_exclude(result, rules):\n    if result is None:\n        return 0.0\n    ok = all(r in result for r in rules["include"]) and not any(r in result for r in rules["exclude"])\n    return float(ok)\n\n\ndef check_file_existence(result):\n    return float(result is not None and os.path.exists(result))\n',
    'desktop_env/evaluators/getters/__init__.py': 'from .file import get_vm_file, get_local_file\nfrom .misc import get_rule\n',
    'desktop_env/evaluators/getters/file.py':
      'def get_vm_file(env, config):\n    return env.controller.fetch(config["path"])\n\n\ndef get_local_file(env, config):\n    return config["path"]\n',
    'desktop_env/evaluators/getters/misc.py': 'def get_rule(env, config):\n    return config["rules"]\n',
  };
}

/** One OSWorld-family task file at `evaluation_examples/examples/<app>/<id>.json`. */
function osworldTask(evaluator: unknown, app = 'calc', id = 'task-1'): Record<string, string> {
  return { [`evaluation_examples/examples/${app}/${id}.json`]: JSON.stringify({ id, instruction: 'Fill the table.', config: [], evaluator }, null, 2) + '\n' };
}

/** The OSWorld-family package and one task. */
export function osworldTaskFiles(evaluator: unknown, app = 'calc', id = 'task-1'): Record<string, string> {
  return { ...osworldPackage(), ...osworldTask(evaluator, app, id) };
}
