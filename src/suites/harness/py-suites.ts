/**
 * The `python-data` adapter: tasks written as Python data (a module-level list, tuple or dict of
 * dict displays, `Task(...)` calls or dataclass instances) that the harness loads as tasks (see
 * py-tasks.ts). Each record is a task at its position in the `.py` file; each name a record gives to a
 * lookup of the harness (an export of a module, a key of a registry) is a verifier entry routed there.
 */
import * as path from 'node:path';
import type { SourceFile } from '../../core/source.js';
import { isObject, joinPointer, type JsonDocument, type JsonValueRef } from '../../lang/json/parse.js';
import type { PythonProject } from '../../lang/python/types.js';
import type { SuiteAdapter } from '../adapter.js';
import type { EntryRoute, Suite, Task, VerifierEntry } from '../types.js';
import { pyDataDocument } from './py-data.js';
import { pythonTaskContainers, type PyLookup, type PyTaskContainer } from './py-tasks.js';

export const PYTHON_DATA_ADAPTER_ID = 'python-data';

/** Registered for its id (summaries, binding): its suites are built from Python code, not detected in JSON. */
export const pythonDataAdapter: SuiteAdapter = {
  id: PYTHON_DATA_ADAPTER_ID,
  description: 'Tasks written as Python data (module-level lists/dicts of dicts, Task(...) calls, dataclass instances) that the harness code loads as tasks and routes by a member (getattr on a module, a registry key).',
  detect: () => false,
  load: () => ({ suites: [], problems: [] }),
  // entries are bound when they are built
  bind: () => undefined,
};

/** The values a member path reaches in a record (`actions/*\/name`): each string with its ref. */
function valuesAt(doc: JsonDocument, pointer: string, value: unknown, p: readonly string[]): JsonValueRef[] {
  if (p.length === 0) {
    const ref = doc.values.get(pointer);
    return typeof value === 'string' && ref ? [ref] : [];
  }
  const [head, ...rest] = p;
  if (head === '*') return Array.isArray(value) ? value.flatMap((v, i) => valuesAt(doc, joinPointer(pointer, i), v, rest)) : [];
  return isObject(value) && head! in value ? valuesAt(doc, joinPointer(pointer, head!), value[head!], rest) : [];
}

const rel = (root: string, f: string) => path.relative(root, f).split(path.sep).join('/');

function entryFor(task: Task, lookup: PyLookup, ref: JsonValueRef, index: number, root: string): VerifierEntry {
  const name = String(ref.value);
  const entry: VerifierEntry = { task, index, kind: lookup.path[lookup.path.length - 1]!, pointer: ref.pointer, ref, fields: {}, embedded: [] };
  const known = lookup.names.has(name);
  const binding = lookup.names.get(name);
  const r: EntryRoute = {
    role: lookup.kind === 'export' ? 'module' : 'key',
    name,
    target: lookup.kind === 'export' ? `${rel(root, lookup.target)}:${name}` : lookup.target,
    ref,
    via: lookup.via,
  };
  if (binding) entry.binding = binding;
  if (!known && !lookup.accepted.has(name)) {
    if (lookup.kind === 'export') r.missingExport = true;
    else r.unbound = [...lookup.names.keys()].sort().join(', ');
  }
  entry.routes = [r];
  return entry;
}

function tasksOf(c: PyTaskContainer, file: SourceFile, doc: JsonDocument, root: string): Task[] {
  const records: Array<{ pointer: string; value: Record<string, unknown>; key?: string }> = [];
  if (Array.isArray(doc.value)) doc.value.forEach((v, i) => { if (isObject(v)) records.push({ pointer: joinPointer('', i), value: v }); });
  else if (isObject(doc.value)) for (const [k, v] of Object.entries(doc.value)) if (isObject(v)) records.push({ pointer: joinPointer('', k), value: v, key: k });
  const out: Task[] = [];
  records.forEach((rec, i) => {
    const idv = c.idMember ? rec.value[c.idMember] : undefined;
    const task: Task = {
      suite: undefined as unknown as Suite, file, json: rec.value, family: 'task', pointer: rec.pointer,
      id: rec.key ?? (typeof idv === 'string' || typeof idv === 'number' ? String(idv) : `${c.name}[${i}]`),
      fields: {}, values: doc.values, entries: [], initializers: [],
    };
    for (const name of Object.keys(rec.value)) {
      const ref = doc.values.get(joinPointer(rec.pointer, name));
      if (ref) task.fields[name] = ref;
    }
    for (const lookup of c.lookups) {
      for (const ref of valuesAt(doc, rec.pointer, rec.value, lookup.path)) task.entries.push(entryFor(task, lookup, ref, task.entries.length, root));
    }
    out.push(task);
  });
  return out;
}

function commonDir(files: string[]): string {
  let dir = path.dirname(files[0]!);
  for (const f of files) while (!f.startsWith(dir + path.sep) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Suites of the Python task containers the harness loads: one per container. */
export function pythonDataSuites(python: PythonProject, files: readonly SourceFile[], root: string): Suite[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const suites: Suite[] = [];
  for (const c of pythonTaskContainers(python)) {
    const file = byPath.get(c.file);
    const a = python.analysis(c.file);
    const doc = a ? pyDataDocument(python, a, c.name) : undefined;
    if (!file || !doc) continue;
    const tasks = tasksOf(c, file, doc, root);
    if (!tasks.length) continue;
    const suite: Suite = { adapter: PYTHON_DATA_ADAPTER_ID, root: commonDir([c.file, c.via.file, ...c.lookups.map((l) => l.via.file)]), tasks };
    for (const t of tasks) t.suite = suite;
    suites.push(suite);
  }
  return suites;
}
