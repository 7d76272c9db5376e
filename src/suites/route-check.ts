/**
 * Task-layer checks of routed tasks in any suite shape: the module a task names must exist and export
 * what the harness takes from it, and a task id must not repeat in its file (the harness's lookup
 * then runs one of them only, or the second overrides the first).
 */
import * as path from 'node:path';
import type { Task } from './types.js';
import type { JsonValueRef } from '../lang/json/parse.js';
import type { SourceFile } from '../core/source.js';
import type { PythonProject } from '../lang/python/types.js';
import { harnessKeysBy } from './keyed-records.js';

export type RouteProblemKind = 'unknownModule' | 'unknownExport' | 'unknownKey' | 'duplicateTask' | 'unknownKind' | 'ignoredKind';

export interface RouteProblem {
  kind: RouteProblemKind;
  at: { start: number; end: number };
  pointer: string;
  data: Record<string, string | number>;
}

const where = (v: { file: string; line: number } | undefined, root: string) => (v ? `${path.relative(root, v.file).split(path.sep).join('/')}:${v.line}` : 'the harness');

/** Problems of one task's routes. */
export function routeProblems(task: Task): RouteProblem[] {
  const out: RouteProblem[] = [];
  for (const e of task.entries) {
    for (const r of e.routes ?? []) {
      const via = where(r.via, task.suite.root);
      if (r.role === 'kind' && r.unbound) out.push({ kind: r.unbound === 'raise' ? 'unknownKind' : 'ignoredKind', at: r.ref, pointer: r.ref.pointer, data: { name: r.name, via } });
      if (r.role === 'key' && r.unbound !== undefined) out.push({ kind: 'unknownKey', at: r.ref, pointer: r.ref.pointer, data: { name: r.name, target: r.target, via, keys: r.unbound } });
      if (r.role !== 'module') continue;
      if (r.unbound) out.push({ kind: 'unknownModule', at: r.ref, pointer: r.ref.pointer, data: { name: r.name, target: r.target.replace(/:[^:/]*$/, ''), via } });
      else if (r.missingExport) out.push({ kind: 'unknownExport', at: r.ref, pointer: r.ref.pointer, data: { name: r.name, target: r.target, export: r.target.split(':').pop() ?? '', via } });
    }
  }
  return out;
}

/** The member holding a task's id (the value equal to it), else the record. */
function idRef(task: Task): JsonValueRef | undefined {
  const member = Object.values(task.fields).find((r) => task.json && typeof task.json === 'object' && String((task.json as Record<string, unknown>)[r.pointer.split('/').pop()!]) === task.id);
  return member ?? task.values.get(task.pointer ?? '');
}

const routers = new WeakMap<readonly Task[], Map<string, Set<string>>>();

/** Files of the harness sites that route the tasks of a task file. */
function routersOf(siblings: readonly Task[], file: string): ReadonlySet<string> {
  let byFile = routers.get(siblings);
  if (!byFile) {
    byFile = new Map();
    for (const t of siblings) {
      let set = byFile.get(t.file.path);
      if (!set) byFile.set(t.file.path, (set = new Set()));
      for (const e of t.entries) for (const r of e.routes ?? []) if (r.via) set.add(r.via.file);
    }
    routers.set(siblings, byFile);
  }
  return byFile.get(file) ?? new Set();
}

const firstById = new WeakMap<readonly Task[], Map<string, Task>>();

/** A record's content for comparison: members sorted, `//…` comment members left out. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.keys(v as Record<string, unknown>)
      .filter((k) => !k.startsWith('//'))
      .sort()
      .map((k) => [k, canonical((v as Record<string, unknown>)[k])]);
  }
  return v;
}

/** Two records with the same members and values: whichever the harness keeps, the task is graded as written. */
const sameRecord = (a: Task, b: Task) => a.json !== undefined && JSON.stringify(canonical(a.json)) === JSON.stringify(canonical(b.json));

/** A task whose id an earlier task of the same file already has. An exact copy of the earlier record is
 *  left alone only when the harness keys the records by the id member (`{t["id"]: t for t in tasks}`,
 *  `acc[t.name] = t`): then the two are one entry and the task is graded once, as written. A harness
 *  that iterates the records runs the copy too and counts the task twice. */
export function duplicateProblem(task: Task, code: { readonly files: ReadonlyMap<string, SourceFile>; readonly python: PythonProject }): RouteProblem | undefined {
  if (!task.pointer) return undefined;
  const siblings = task.suite.tasks;
  let first = firstById.get(siblings);
  if (!first) {
    first = new Map();
    for (const t of siblings) {
      const k = `${t.file.path}\0${t.id}`;
      if (t.pointer && !first.has(k)) first.set(k, t);
    }
    firstById.set(siblings, first);
  }
  const earlier = first.get(`${task.file.path}\0${task.id}`);
  if (!earlier || earlier === task) return undefined;
  const at = idRef(task);
  if (!at) return undefined;
  const copy = sameRecord(task, earlier);
  const member = at.pointer === task.pointer ? undefined : at.pointer.split('/').pop();
  // an exact copy of a record the harness keys by its id: the map holds one entry, the task is graded as written
  if (copy && member !== undefined && harnessKeysBy(code, member, task.file.path, routersOf(siblings, task.file.path))) return undefined;
  const line = task.file.source.positionAt(idRef(earlier)?.start ?? 0).line;
  return { kind: 'duplicateTask', at, pointer: at.pointer, data: { id: task.id, line } };
}
