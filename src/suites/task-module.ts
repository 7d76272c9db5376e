/**
 * The per-task verifier adapter: each task JSON names the module (or one
 * function of it) that grades it, e.g.
 * `{"id": "t1", "verify": "checks/task_1.py"}`, `{"verifier": "checks/t1.py:check"}`,
 * `{"grader": {"module": "checks/t1.js", "export": "grade"}}`.
 * The path is resolved against the task file's folder, the suite root (the
 * parent of the nearest `tasks` folder) and the project root. The named module
 * (or function) is the task's verifier entrypoint.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { AdapterLoadOptions, AdapterLoadResult, DetectedDocument, SuiteAdapter } from './adapter.js';
import type { Suite, Task, VerifierEntry } from './types.js';
import { suiteRootOf } from './reference.js';
import { isObject, joinPointer } from '../lang/json/parse.js';

/** Members that name a task's verifier. */
const VERIFY_KEYS = ['verify', 'verifier', 'verify_module', 'verifier_module', 'eval', 'evaluator', 'grader', 'checker', 'check', 'judge'];
const MODULE_PATH = /^[^\s:]+\.(py|js|mjs|cjs|ts|mts|cts)(?::{1,2}([A-Za-z_$][\w$]*))?$/;

/** The module path and export a member value names, if it names one. */
function named(v: unknown): { module: string; export?: string } | undefined {
  if (typeof v === 'string') {
    const m = MODULE_PATH.exec(v.trim());
    return m ? { module: v.trim().replace(/:{1,2}[A-Za-z_$][\w$]*$/, ''), export: m[2] } : undefined;
  }
  if (isObject(v)) {
    const mod = [v.module, v.file, v.path].find((x): x is string => typeof x === 'string' && MODULE_PATH.test(x.trim()));
    if (!mod) return undefined;
    const exp = [v.function, v.func, v.export, v.entry].find((x): x is string => typeof x === 'string' && /^[A-Za-z_$][\w$]*$/.test(x));
    const inner = named(mod)!;
    return { module: inner.module, export: exp ?? inner.export };
  }
  return undefined;
}

function verifierMember(v: Record<string, unknown>): string | undefined {
  return VERIFY_KEYS.find((k) => named(v[k]) !== undefined);
}

export const taskModuleAdapter: SuiteAdapter = {
  id: 'task-module',
  description: 'Tasks whose JSON names their own verifier module or function ("verify": "checks/task_1.py").',
  detect(doc) {
    return isObject(doc.value) && verifierMember(doc.value) !== undefined;
  },
  load(docs: DetectedDocument[], options: AdapterLoadOptions): AdapterLoadResult {
    const byRoot = new Map<string, Suite>();
    for (const { file, doc } of docs) {
      const json = doc.value as Record<string, unknown>;
      const key = verifierMember(json)!;
      const root = suiteRootOf(file.path, options.root);
      let suite = byRoot.get(root);
      if (!suite) byRoot.set(root, (suite = { adapter: 'task-module', root, tasks: [] }));
      const stem = path.basename(file.path).replace(/\.json$/i, '');
      const task: Task = {
        suite, file, json,
        id: typeof json.id === 'string' && json.id ? json.id : stem,
        family: typeof json.family === 'string' ? json.family : 'task',
        fields: {}, values: doc.values, entries: [], initializers: [],
      };
      for (const name of Object.keys(json)) {
        const ref = doc.values.get(joinPointer('', name));
        if (ref) task.fields[name] = ref;
      }
      const pointer = joinPointer('', key);
      const ref = doc.values.get(pointer)!;
      const n = named(json[key])!;
      const candidates = [path.dirname(file.path), root, options.root].map((d) => path.resolve(d, n.module));
      const hit = candidates.find((c) => existsSync(c));
      const entry: VerifierEntry = { task, index: 0, kind: key, pointer, ref, fields: {}, embedded: [] };
      if (hit) entry.target = { file: hit, export: n.export };
      task.entries.push(entry);
      suite.tasks.push(task);
    }
    const suites = [...byRoot.values()].sort((a, b) => (a.root < b.root ? -1 : 1));
    for (const s of suites) s.tasks.sort((a, b) => (a.file.relPath < b.file.relPath ? -1 : 1));
    return { suites, problems: [] };
  },
};
