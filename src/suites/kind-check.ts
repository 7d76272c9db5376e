/**
 * Task-layer check of tasks routed by kind (src/suites/harness/kind-adapter.ts): the members of the
 * task record that the code a kind routes to reads on every run. An evaluator that loads the task's
 * JSON again (`configs = json.load(f)`) and reads `configs["eval"]["reference_url"]` raises KeyError
 * (or TypeError through a null) on a task that lacks it, so that task is never graded.
 */
import { rel } from '../core/paths.js';
import type { PythonProject } from '../lang/python/types.js';
import { field, type PyNode } from '../lang/python/tree.js';
import type { JsonValueRef } from '../lang/json/parse.js';
import { joinPointer } from '../lang/json/parse.js';
import { memberPath, type KindTarget } from './harness/kind-sites.js';
import { passedRecord } from './harness/kind-adapter.js';
import { readsOnEveryPath, type ReadMatcher } from './reads.js';
import type { VerifierEntry } from './types.js';
import { refusedTaskValues } from './value-chains.js';

export interface KindFieldProblem {
  kind: 'missingTaskField' | 'refusedValue';
  at: { start: number; end: number };
  pointer: string;
  data: Record<string, string>;
}

/** Member paths of a loaded task document the function reads on every run, with the first read of each. */
function requiredPaths(python: PythonProject, file: string, qualname: string, roots?: ReadonlyMap<string, readonly string[]>): Map<string, { text: string; line: number }> {
  const out = new Map<string, { text: string; line: number }>();
  const a = python.analysis(file);
  const fn = a?.functionByQualname(qualname);
  const body = fn ? field(fn.node, 'body') : undefined;
  if (!a || !fn || !body) return out;
  const key = (n: PyNode): string | undefined => {
    if (n.type !== 'subscript') return undefined;
    const p = memberPath(a, fn, n, 0, false, roots);
    return p && p.length ? JSON.stringify(p) : undefined;
  };
  const mentions = (n: PyNode): boolean => (n.type === 'identifier' && memberPath(a, fn, n, 0, false, roots) !== undefined) || n.namedChildren.some(mentions);
  const m: ReadMatcher = { key, mentions };
  for (const n of readsOnEveryPath(body, m, true)) {
    const k = key(n)!;
    if (!out.has(k)) out.set(k, { text: a.src(n).replace(/\s+/g, ' '), line: a.line(n) });
  }
  return out;
}

const memo = new WeakMap<PythonProject, Map<string, Map<string, { text: string; line: number }>>>();

function requiredOf(python: PythonProject, file: string, qualname: string, passes: KindTarget['passes']) {
  let m = memo.get(python);
  if (!m) memo.set(python, (m = new Map()));
  const k = `${file}\0${qualname}\0${JSON.stringify(passes ?? [])}`;
  let r = m.get(k);
  if (!r) m.set(k, (r = requiredPaths(python, file, qualname, passes && new Map(passes.map((p) => [p.param, p.path])))));
  return r;
}

/** What a missing member does to a Python evaluator (the message's `effect`). */
const PY_EFFECT = 'raises KeyError or TypeError before it compares anything, so the task is never graded (or the crash is scored as the agent\'s failure)';

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Members the entry's bound code reads from the task that the task lacks (the shortest missing path of each read):
 *  from the task document it loads again, or from a parameter the dispatch hands the record or a member of it. */
export function kindFieldProblems(entry: VerifierEntry, python: PythonProject): KindFieldProblem[] {
  const b = entry.binding;
  const task = entry.task;
  if (!b || !task.json || typeof task.json !== 'object') return [];
  const out: KindFieldProblem[] = [];
  const seen = new Set<string>();
  const where = (line: number) => `${rel(task.suite.root, b.file)}:${line}`;
  for (const [k, read] of requiredOf(python, b.file, b.qualname, passedRecord(entry))) {
    const p = JSON.parse(k) as string[];
    let v: unknown = task.json;
    let pointer = task.pointer ?? '';
    let ref: JsonValueRef | undefined = task.values.get(pointer);
    for (let i = 0; i < p.length; i++) {
      const name = p[i]!;
      const here = p.slice(0, i + 1).join('.');
      // a member a JS/TS task record computes (not a literal): not known
      if (v === undefined) break;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        const at = p.slice(0, i).join('.');
        if (!seen.has(at)) out.push({ kind: 'missingTaskField', at: ref!, pointer: ref!.pointer, data: { fn: b.qualname, read: read.text, where: where(read.line), state: `\`${at}\` is ${kindOf(v)} in this task`, effect: PY_EFFECT } });
        seen.add(at);
        break;
      }
      if (!Object.hasOwn(v, name)) {
        if (!seen.has(here)) out.push({ kind: 'missingTaskField', at: ref!, pointer: ref!.pointer, data: { fn: b.qualname, read: read.text, where: where(read.line), state: `this task has no \`${here}\``, effect: PY_EFFECT } });
        seen.add(here);
        break;
      }
      v = (v as Record<string, unknown>)[name];
      pointer = joinPointer(pointer, name);
      ref = task.values.get(pointer) ?? ref;
    }
  }
  out.push(...refusedValues(entry, python));
  return out;
}

/** Task values the bound code's `if`/`elif` chain with a raising `else` refuses (src/suites/value-chains.ts). */
function refusedValues(entry: VerifierEntry, python: PythonProject): KindFieldProblem[] {
  const passes = passedRecord(entry);
  return refusedTaskValues(entry, python, passes && new Map(passes.map((p) => [p.param, p.path]))).map((p) => ({ kind: 'refusedValue', ...p }));
}
