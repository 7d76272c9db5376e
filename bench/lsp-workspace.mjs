// Generated workspaces for the LSP latency/memory bench and tests: a verifier
// module of N lines (realistic shapes: dispatch, swallowing decorator,
// subprocess and HTTP calls, dict scans) and a task file with N entries whose
// key/find/pred fields hold Python lambdas.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function pythonModule(lines) {
  const head = [
    'import json',
    'import subprocess',
    'import requests',
    '',
    '',
    'def error_factory(default):',
    '    def decorator(fn):',
    '        def wrapper(*args, **kwargs):',
    '            try:',
    '                return fn(*args, **kwargs)',
    '            except Exception:',
    '                return default',
    '        return wrapper',
    '    return decorator',
    '',
    '',
    'class Mixin:',
  ];
  const out = [...head];
  for (let i = 0; out.length < lines - 1; i++) {
    out.push(
      '    @error_factory(False)',
      `    def _eval_kind_${i}(self, eval_item, current_states):`,
      `        """Grade entries of kind ${i} (généré, ü)."""`,
      "        key = eval_item['key']",
      "        if callable(key) or key.startswith('lambda'):",
      '            key = eval(key)(current_states)',
      '        found = None',
      '        for k, v in current_states.items():',
      "            if k.endswith(')._name') and v == eval_item.get('value'):",
      '                found = k',
      '                break',
      `        out = subprocess.run(['tool', '--check', str(${i})], capture_output=True, text=True, timeout=30)`,
      "        if 'ok' not in out.stdout:",
      '            return False',
      `        r = requests.get('http://localhost:5000/state/${i}', timeout=5)`,
      '        data = r.json()',
      "        names = set(data.get('names', []))",
      "        return found is not None and names == set(eval_item.get('names', []))",
      '',
    );
  }
  return out.slice(0, lines).join('\n') + '\n';
}

export function taskFile(entries) {
  const evaluate = [];
  for (let i = 0; i < entries; i++) {
    switch (i % 4) {
      case 0:
        evaluate.push({ type: 'states', key: `_state_containers.models._models.(${i},)._name`, value: `m${i}` });
        break;
      case 1:
        evaluate.push({ type: 'states', key: "lambda key: '.'.join(key.split('.')[:-1] + ['_border'])", find: `lambda key, value: key.endswith(')._name') and value == 'Color key ${i}'`, value: null });
        break;
      case 2:
        evaluate.push({ type: 'info', key: `lambda dump: dump['time']['scale_${i}']`, value: 0.05, pred: 'lambda key, value: abs(key - value) < 0.001' });
        break;
      default:
        evaluate.push({ type: 'states', key: `lambda key: key.startswith('model_${i}') and 'é😀' not in key`, value: true });
    }
  }
  const task = {
    type: 'ChimeraX', sort: 'VM', steps: 5,
    instruction: 'Fetch 2OLX from PDB in ChimeraX (übung 😀).',
    initialize: [{ func: 'launch', command: ['chimerax', '--cmd', 'open 2olx'], wait: 7.5 }],
    evaluate,
  };
  return JSON.stringify(task, null, 2) + '\n';
}

/** A temp project: verifier/chimerax/mixin.py (pyLines) and tasks/ChimeraX/big.json (entries). */
export function makeWorkspace({ pyLines = 1000, entries = 200 } = {}) {
  const root = mkdtempSync(path.join(tmpdir(), 'vaudit-lsp-bench-'));
  mkdirSync(path.join(root, '.git'));
  const py = path.join(root, 'verifier', 'chimerax', 'mixin.py');
  const task = path.join(root, 'tasks', 'ChimeraX', 'big.json');
  mkdirSync(path.dirname(py), { recursive: true });
  mkdirSync(path.dirname(task), { recursive: true });
  writeFileSync(path.join(root, 'verifier', '__init__.py'), '');
  writeFileSync(path.join(root, 'verifier', 'chimerax', '__init__.py'), '');
  const pyText = pythonModule(pyLines);
  const taskText = taskFile(entries);
  writeFileSync(py, pyText);
  writeFileSync(task, taskText);
  return { root, py, task, pyText, taskText };
}
