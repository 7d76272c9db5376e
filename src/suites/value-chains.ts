/**
 * Task values an evaluator refuses: an `if`/`elif` chain over a value read from the task document whose
 * `else` raises (`if not locator.strip(): … elif locator.startswith("document."): … elif
 * locator.startswith("func:"): … else: raise ValueError(...)`). A task whose value passes none of the
 * tests makes the evaluator raise before it compares anything, so the task is never graded.
 *
 * Only chains whose every test vaudit can evaluate on a string are used (`not v`, `not v.strip()`,
 * `v == "lit"`, `v in ("a", "b")`, `"x" in v`, `v.startswith(...)`, `v.endswith(...)`, `and`/`or`/`not`
 * of these, `.strip()`/`.lower()` of the value); a chain with any other test says nothing. The chain
 * must run on every call (a statement of the function's body, or of a `for` loop there over the list
 * that holds the value).
 */
import type { FunctionInfo, PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { comparisonOperators, field, named, unparen, type PyNode } from '../lang/python/tree.js';
import { memberPath } from './harness/kind-sites.js';
import { pyStringLiteral } from './harness/py-values.js';
import { rel } from '../core/paths.js';
import { joinPointer, pointerWithin, splitPointer } from '../lang/json/parse.js';
import type { VerifierEntry } from './types.js';

type Test = (s: string) => boolean | undefined;

interface ValueChain {
  /** Member path of the value from the task record; `*` is each item of a list. */
  path: string[];
  /** The chain's tests, in order, and whether the branch each selects raises too. */
  tests: Test[];
  raises: boolean[];
  /** The accepted forms, for the message (`empty`, `"document."…`). */
  shown: string;
  line: number;
  text: string;
}

/** A string literal, or a tuple/list/set of them. */
function literals(a: PythonAnalysis, e0: PyNode): string[] | undefined {
  const e = unparen(e0);
  if (['tuple', 'list', 'set'].includes(e.type)) {
    const xs = named(e).map((k) => pyStringLiteral(a, k));
    return xs.every((x) => x !== undefined) ? (xs as string[]) : undefined;
  }
  const s = pyStringLiteral(a, e);
  return s === undefined ? undefined : [s];
}

/** The subject of a test, through `.strip()`/`.lower()`/`.upper()`, with what those do to a string. */
function subjectOf(a: PythonAnalysis, e0: PyNode, depth = 0): { node: PyNode; map: (s: string) => string } | undefined {
  let e = unparen(e0);
  const maps: Array<(s: string) => string> = [];
  for (;;) {
    if (e.type !== 'call') break;
    const f = field(e, 'function');
    if (f?.type !== 'attribute' || named(field(e, 'arguments') ?? e).length) break;
    const m = a.src(field(f, 'attribute') ?? f);
    const fn = m === 'strip' ? (s: string) => s.trim() : m === 'lower' ? (s: string) => s.toLowerCase() : m === 'upper' ? (s: string) => s.toUpperCase() : undefined;
    if (!fn) break;
    maps.unshift(fn);
    e = unparen(field(f, 'object') ?? f);
  }
  if (e.type !== 'identifier' && e.type !== 'subscript') return undefined;
  const map = (s: string) => maps.reduce((x, f) => f(x), s);
  // `mode = spec["match"].lower()`: the local's one value, normalised the same way
  const defs = e.type === 'identifier' ? (a.reachingDefs(e) ?? []) : [];
  const v = defs.length === 1 && defs[0]!.kind === 'assign' && !defs[0]!.index?.length ? defs[0]!.value : undefined;
  if (v && unparen(v).type === 'call' && depth < 4) {
    const inner = subjectOf(a, v, depth + 1);
    if (inner && inner.node !== unparen(v)) return { node: inner.node, map: (s) => map(inner.map(s)) };
  }
  return { node: e, map };
}

interface Parsed {
  test: Test;
  subject: string;
  node: PyNode;
  shown: string[];
}

/** A test on one string subject, or undefined when vaudit cannot evaluate it. */
function parseTest(a: PythonAnalysis, e0: PyNode): Parsed | undefined {
  const e = unparen(e0);
  if (e.type === 'not_operator') {
    const arg = field(e, 'argument') ?? e;
    const s = subjectOf(a, arg);
    if (s) return { test: (v) => s.map(v) === '', subject: a.src(s.node), node: s.node, shown: ['empty'] };
    const inner = parseTest(a, arg);
    return inner && { ...inner, test: (v) => negate(inner.test(v)), shown: [`not ${inner.shown.join(' or ')}`] };
  }
  if (e.type === 'boolean_operator') {
    const l = parseTest(a, field(e, 'left') ?? e);
    const r = parseTest(a, field(e, 'right') ?? e);
    if (!l || !r || l.subject !== r.subject) return undefined;
    const or = a.text.slice(field(e, 'left')!.end, field(e, 'right')!.start).trim() === 'or';
    return { subject: l.subject, node: l.node, shown: or ? [...l.shown, ...r.shown] : [`${l.shown.join('/')} and ${r.shown.join('/')}`], test: (v) => combine(l.test(v), r.test(v), or) };
  }
  if (e.type === 'call') {
    const f = field(e, 'function');
    const args = named(field(e, 'arguments') ?? e);
    if (f?.type !== 'attribute' || args.length !== 1) return undefined;
    const m = a.src(field(f, 'attribute') ?? f);
    const s = subjectOf(a, field(f, 'object') ?? f);
    const lits = literals(a, args[0]!);
    if (!s || !lits || (m !== 'startswith' && m !== 'endswith')) return undefined;
    return { subject: a.src(s.node), node: s.node, shown: lits.map((x) => (m === 'startswith' ? `"${x}…"` : `"…${x}"`)), test: (v) => lits.some((x) => (m === 'startswith' ? s.map(v).startsWith(x) : s.map(v).endsWith(x))) };
  }
  if (e.type === 'comparison_operator') {
    const ops = comparisonOperators(e);
    const [l, r] = named(e);
    if (ops.length !== 1 || !l || !r) return undefined;
    const op = ops[0]!;
    if (op === '==' || op === '!=') {
      const [sideS, sideL] = pyStringLiteral(a, l) !== undefined ? [r, l] : [l, r];
      const s = subjectOf(a, sideS);
      const lit = pyStringLiteral(a, sideL);
      if (!s || lit === undefined) return undefined;
      return { subject: a.src(s.node), node: s.node, shown: [op === '==' ? `"${lit}"` : `not "${lit}"`], test: (v) => (s.map(v) === lit) === (op === '==') };
    }
    if (op === 'in' || op === 'not in') {
      const sl = subjectOf(a, l);
      const lits = literals(a, r);
      if (sl && lits && unparen(r).type !== 'string') return { subject: a.src(sl.node), node: sl.node, shown: lits.map((x) => `"${x}"`), test: (v) => lits.includes(sl.map(v)) === (op === 'in') };
      const sr = subjectOf(a, r);
      const lit = pyStringLiteral(a, l);
      if (sr && lit !== undefined) return { subject: a.src(sr.node), node: sr.node, shown: [`containing "${lit}"`], test: (v) => sr.map(v).includes(lit) === (op === 'in') };
    }
  }
  return undefined;
}

const negate = (x: boolean | undefined) => (x === undefined ? undefined : !x);
function combine(l: boolean | undefined, r: boolean | undefined, or: boolean): boolean | undefined {
  if (or) return l === true || r === true ? true : l === false && r === false ? false : undefined;
  return l === false || r === false ? false : l === true && r === true ? true : undefined;
}

/** The block ends by raising (its last statement is `raise`). */
function raises(block: PyNode | undefined): boolean {
  const last = block ? named(block).filter((k) => k.type !== 'comment').at(-1) : undefined;
  return last?.type === 'raise_statement';
}

/** Member path of a value, through a local and through the item of a `for` over a member list (`*`). */
function valuePath(a: PythonAnalysis, fn: FunctionInfo, e: PyNode, roots: ReadonlyMap<string, readonly string[]> | undefined, depth = 0): string[] | undefined {
  if (depth > 6) return undefined;
  const direct = memberPath(a, fn, e, 0, false, roots);
  if (direct?.length) return direct;
  const u = unparen(e);
  if (u.type === 'identifier') {
    const defs = a.reachingDefs(u) ?? [];
    const d = defs.length === 1 ? defs[0]! : undefined;
    if (!d?.value || d.index?.length) return undefined;
    if (d.kind === 'assign') return valuePath(a, fn, d.value, roots, depth + 1);
    if (d.kind === 'for') {
      const list = memberPath(a, fn, d.value, 0, false, roots);
      return list?.length ? [...list, '*'] : undefined;
    }
    return undefined;
  }
  if (u.type === 'subscript') {
    const k = pyStringLiteral(a, field(u, 'subscript') ?? u);
    const base = k !== undefined ? valuePath(a, fn, field(u, 'value') ?? u, roots, depth + 1) : undefined;
    return base && [...base, k!];
  }
  return undefined;
}

/** The chains of the function that run on every call: statements of its body or of a `for` loop there. */
function chainsOf(a: PythonAnalysis, fn: FunctionInfo, roots: ReadonlyMap<string, readonly string[]> | undefined): ValueChain[] {
  const out: ValueChain[] = [];
  const body = field(fn.node, 'body');
  if (!body) return out;
  const statements = named(body).flatMap((st) => (st.type === 'for_statement' ? [st, ...named(field(st, 'body') ?? st)] : [st]));
  for (const st of statements) {
    if (st.type !== 'if_statement') continue;
    const alts = st.children.filter((k) => k.type === 'elif_clause' || k.type === 'else_clause');
    const other = alts.at(-1);
    if (other?.type !== 'else_clause' || !raises(field(other, 'body') ?? named(other).find((k) => k.type === 'block'))) continue;
    const elifs = alts.filter((k) => k.type === 'elif_clause');
    const conds = [field(st, 'condition'), ...elifs.map((k) => field(k, 'condition'))];
    const bodies = [field(st, 'consequence'), ...elifs.map((k) => field(k, 'consequence'))];
    const parsed = conds.map((c) => (c ? parseTest(a, c) : undefined));
    if (parsed.some((p) => !p) || new Set(parsed.map((p) => p!.subject)).size !== 1) continue;
    const path = valuePath(a, fn, parsed[0]!.node, roots);
    if (!path?.length) continue;
    const raising = bodies.map((b) => raises(b ?? undefined));
    const shown = parsed.flatMap((p, i) => (raising[i] ? [] : p!.shown)).join(', ');
    if (!shown) continue;
    out.push({ path, tests: parsed.map((p) => p!.test), raises: raising, shown, line: a.line(st), text: parsed[0]!.subject });
  }
  return out;
}

const memo = new WeakMap<PythonProject, Map<string, ValueChain[]>>();

/** The refusing chains of a bound function (memoised per project). */
function valueChains(python: PythonProject, file: string, qualname: string, roots: ReadonlyMap<string, readonly string[]> | undefined): ValueChain[] {
  let m = memo.get(python);
  if (!m) memo.set(python, (m = new Map()));
  const k = `${file}\0${qualname}\0${JSON.stringify(roots ? [...roots] : [])}`;
  let r = m.get(k);
  if (!r) {
    const a = python.analysis(file);
    const fn = a?.functionByQualname(qualname);
    m.set(k, (r = a && fn ? chainsOf(a, fn, roots) : []));
  }
  return r;
}

/** Does the chain refuse this value: the first test it passes selects a branch that raises, or it passes none
 *  (the `else` raises)? A test vaudit cannot evaluate before that: not refused. */
function refuses(chain: ValueChain, value: string): boolean {
  for (let i = 0; i < chain.tests.length; i++) {
    const t = chain.tests[i]!(value);
    if (t === undefined) return false;
    if (t) return chain.raises[i]!;
  }
  return true;
}

/** String values of the task at a member path (`*`: each item of a list; a number: that item), with their pointers. */
function valuesAt(v: unknown, pointer: string, path: readonly string[]): Array<{ value: string; pointer: string }> {
  if (!path.length) return typeof v === 'string' ? [{ value: v, pointer }] : [];
  const [k, ...rest] = path;
  if (Array.isArray(v)) {
    if (k === '*') return v.flatMap((x, i) => valuesAt(x, joinPointer(pointer, i), rest));
    const i = /^\d+$/.test(k!) ? Number(k) : -1;
    return i >= 0 && i < v.length ? valuesAt(v[i], joinPointer(pointer, i), rest) : [];
  }
  if (v === null || typeof v !== 'object' || k === '*' || !Object.hasOwn(v, k!)) return [];
  return valuesAt((v as Record<string, unknown>)[k!], joinPointer(pointer, k!), rest);
}

export interface RefusedValue {
  at: { start: number; end: number };
  pointer: string;
  data: Record<string, string>;
}

/** The entry's task values that its bound code refuses: `roots` maps a parameter to the member path (from the
 *  task record) of what the harness passes it. */
export function refusedTaskValues(entry: VerifierEntry, python: PythonProject, roots: ReadonlyMap<string, readonly string[]> | undefined): RefusedValue[] {
  const b = entry.binding;
  const task = entry.task;
  if (!b || !task.json || typeof task.json !== 'object') return [];
  const out: RefusedValue[] = [];
  const seen = new Set<string>();
  for (const chain of valueChains(python, b.file, b.qualname, roots)) {
    for (const { value, pointer } of valuesAt(task.json, task.pointer ?? '', chain.path)) {
      const ref = task.values.get(pointer);
      if (!ref || seen.has(pointer) || !refuses(chain, value)) continue;
      seen.add(pointer);
      const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
      out.push({ at: { start: ref.start, end: ref.end }, pointer, data: { fn: b.qualname, value: shown, subject: chain.text, where: `${rel(task.suite.root, b.file)}:${chain.line}`, accepted: chain.shown } });
    }
  }
  return out;
}

/** A JSON pointer below the record's, as a member path from the record. */
export function pathBelow(recordPointer: string, pointer: string): string[] | undefined {
  return pointerWithin(pointer, recordPointer) ? splitPointer(pointer).slice(splitPointer(recordPointer).length) : undefined;
}
