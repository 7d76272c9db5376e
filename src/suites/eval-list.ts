/**
 * The eval-list adapter: a suite config that lists JS/TS eval modules by name,
 * which a loader imports by that name, e.g. `evals.json`:
 * `{"evals": ["click-button", {"name": "fill-form"}]}` with
 * `evals/click-button.ts` and `evals/fill-form.js` next to it. Each listed
 * module that exists is one task whose verifier entrypoint is the module.
 * Names are resolved in `<config dir>/<key>/`, `<config dir>/`, and a folder
 * the config names in `dir`/`evalDir`/`directory`.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { AdapterLoadOptions, AdapterLoadResult, DetectedDocument, SuiteAdapter } from './adapter.js';
import type { Suite, Task, VerifierEntry } from './types.js';
import { isObject, joinPointer } from '../lang/json/parse.js';

const LIST_KEYS = ['evals', 'evaluations', 'eval_modules', 'evalModules', 'checks', 'tasks'];
const EXTS = ['.ts', '.mts', '.js', '.mjs', '.cjs'];
const NAME = /^[\w./-]+$/;

function nameOf(item: unknown): string | undefined {
  if (typeof item === 'string') return NAME.test(item) ? item : undefined;
  if (isObject(item)) {
    const n = [item.module, item.eval, item.name, item.id].find((x): x is string => typeof x === 'string' && NAME.test(x));
    return n;
  }
  return undefined;
}

function listKey(v: Record<string, unknown>): string | undefined {
  return LIST_KEYS.find((k) => Array.isArray(v[k]) && (v[k] as unknown[]).length > 0 && (v[k] as unknown[]).every((x) => nameOf(x) !== undefined));
}

function resolveModule(dirs: string[], name: string): string | undefined {
  for (const d of dirs) {
    const base = path.resolve(d, name);
    if (EXTS.some((e) => base.endsWith(e)) && existsSync(base)) return base;
    for (const e of EXTS) if (existsSync(base + e)) return base + e;
    for (const e of EXTS) if (existsSync(path.join(base, `index${e}`))) return path.join(base, `index${e}`);
  }
  return undefined;
}

export const evalListAdapter: SuiteAdapter = {
  id: 'eval-list',
  description: 'A suite config listing JS/TS eval modules loaded by name ({"evals": ["click-button", …]} next to evals/click-button.ts).',
  detect(doc) {
    return isObject(doc.value) && listKey(doc.value) !== undefined;
  },
  load(docs: DetectedDocument[], _options: AdapterLoadOptions): AdapterLoadResult {
    const suites: Suite[] = [];
    for (const { file, doc } of docs) {
      const json = doc.value as Record<string, unknown>;
      const key = listKey(json)!;
      const dir = path.dirname(file.path);
      const named = [json.dir, json.evalDir, json.directory].find((x): x is string => typeof x === 'string');
      const dirs = [path.join(dir, key), dir, ...(named ? [path.resolve(dir, named)] : [])];
      const items = json[key] as unknown[];
      const resolved = items.map((it) => resolveModule(dirs, nameOf(it)!));
      if (!resolved.some(Boolean)) continue; // a list of names that are not modules: not an eval suite
      const suite: Suite = { adapter: 'eval-list', root: dir, tasks: [] };
      items.forEach((it, i) => {
        const pointer = joinPointer(joinPointer('', key), i);
        const ref = doc.values.get(pointer);
        if (!ref) return;
        const task: Task = { suite, file, json: it, id: nameOf(it)!, family: 'eval', fields: {}, values: doc.values, entries: [], initializers: [] };
        const entry: VerifierEntry = { task, index: 0, kind: 'eval', pointer, ref, fields: {}, embedded: [] };
        if (resolved[i]) entry.target = { file: resolved[i]! };
        task.entries.push(entry);
        suite.tasks.push(task);
      });
      suites.push(suite);
    }
    return { suites, problems: [] };
  },
};
