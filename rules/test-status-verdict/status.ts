/**
 * Test-status vocabulary (pytest, unittest, JUnit, jest, Go test, CI check runs) and the tests of a
 * status that Python code writes: `sm[case] == TestStatus.PASSED.value`, `status in ("PASSED", "XFAIL")`,
 * `case not in sm or sm[case] == "passed"`, `PASS_STATES = {...}` at module level.
 */
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { comparisonOperators, field, named, unparen, type PyNode } from '../../src/lang/python/tree.js';
import { pyConst } from '../../src/suites/verdict-shape.js';

/** The rule's message ids (shared by the Python and JS parts). */
export type Msg = 'skipAsPass' | 'absentAsPass' | 'jsAbsentAsPass' | 'denyList' | 'emptyMap' | 'jsEmptyMap' | 'dropped' | 'jsDropped';

export type StatusKind = 'pass' | 'skip' | 'fail';

const WORDS: Record<string, StatusKind> = {
  passed: 'pass', pass: 'pass', xpass: 'pass', xpassed: 'pass', success: 'pass', succeeded: 'pass',
  skipped: 'skip', skip: 'skip', xfail: 'skip', xfailed: 'skip', pending: 'skip', todo: 'skip', disabled: 'skip', deselected: 'skip', notrun: 'skip', not_run: 'skip',
  failed: 'fail', fail: 'fail', failure: 'fail', error: 'fail', errored: 'fail', broken: 'fail', timedout: 'fail', interrupted: 'fail',
};

/** The status a word names (`'skipped'`, `XFAIL`), whatever the language that wrote it. */
export function statusWord(text: string): Status | undefined {
  const w = text.trim();
  const k = w.toLowerCase();
  return Object.hasOwn(WORDS, k) ? { word: w, kind: WORDS[k]! } : undefined;
}

export interface Status {
  /** The status word as written (`XFAIL`, `skipped`). */
  word: string;
  kind: StatusKind;
}

/** A status constant: a string literal, or an enum member `TestStatus.SKIPPED` (`.value`/`.name` read). */
export function statusOf(a: PythonAnalysis, n0: PyNode, depth = 0): Status | undefined {
  const n = unparen(n0);
  // `PASSED = "PASSED"` (or `PASSED, SKIPPED = "PASSED", "SKIPPED"`) at module level
  if (n.type === 'identifier' && depth === 0) {
    const v = moduleValue(a, a.src(n));
    return v ? statusOf(a, v, 1) : undefined;
  }
  if (n.type === 'string') {
    const c = pyConst(a, n);
    if (c.kind !== 'string') return undefined;
    const kind = WORDS[c.value.trim().toLowerCase()];
    return kind ? { word: c.value.trim(), kind } : undefined;
  }
  if (n.type !== 'attribute') return undefined;
  let e: PyNode = n;
  let attr = a.src(field(e, 'attribute') ?? e);
  if (attr === 'value' || attr === 'name') {
    e = field(e, 'object') ?? e;
    if (e.type !== 'attribute') return undefined;
    attr = a.src(field(e, 'attribute') ?? e);
  }
  // enum members are upper case: `Outcome.PASSED`, not `result.passed`
  if (attr !== attr.toUpperCase()) return undefined;
  const kind = WORDS[attr.toLowerCase()];
  return kind ? { word: attr, kind } : undefined;
}

/** A literal collection of status constants (or a module-level name bound to one). */
function statusSet(a: PythonAnalysis, n0: PyNode, depth = 0): Status[] | undefined {
  const n = unparen(n0);
  if (n.type === 'list' || n.type === 'tuple' || n.type === 'set') {
    const items = named(n).map((x) => statusOf(a, x));
    return items.length && items.every((x) => x) ? (items as Status[]) : undefined;
  }
  if (n.type === 'identifier' && depth === 0) {
    const v = moduleValue(a, a.src(n));
    return v ? statusSet(a, v, 1) : undefined;
  }
  // `{s.value for s in (...)}` is rare; frozenset({...}) / set([...]) are not
  if (n.type === 'call' && ['set', 'frozenset', 'tuple', 'list'].includes(a.src(field(n, 'function') ?? n))) {
    const arg = named(field(n, 'arguments') ?? n)[0];
    return arg ? statusSet(a, arg, depth) : undefined;
  }
  return undefined;
}

/** The value of a module-level `NAME = <expr>` (or of NAME's place in `A, NAME = x, y`), when it is bound once. */
function moduleValue(a: PythonAnalysis, name: string): PyNode | undefined {
  const b = moduleBindings(a).get(name);
  return b?.count === 1 ? b.hit : undefined;
}

/** Every name module-level assignments bind, with the last value and how many times, built once per
 *  analysis: a scan per name read was quadratic in a module's statements (issue 30). */
const bindingsOf = new WeakMap<PythonAnalysis, Map<string, { count: number; hit: PyNode | undefined }>>();
function moduleBindings(a: PythonAnalysis): Map<string, { count: number; hit: PyNode | undefined }> {
  let m = bindingsOf.get(a);
  if (m) return m;
  m = new Map();
  const bind = (name: string, hit: PyNode | undefined) => {
    const b = m!.get(name);
    if (b) {
      b.count++;
      b.hit = hit;
    } else m!.set(name, { count: 1, hit });
  };
  for (const st of named(a.ast)) {
    const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
    if (asg?.type !== 'assignment') continue;
    const l = field(asg, 'left');
    const r = field(asg, 'right');
    if (l?.type === 'identifier') bind(a.src(l), r);
    else if ((l?.type === 'pattern_list' || l?.type === 'tuple_pattern') && (r?.type === 'expression_list' || r?.type === 'tuple')) {
      // the first place of a name counts (a name twice in one target is one binding of the old scan)
      const seen = new Set<string>();
      const items = named(r);
      named(l).forEach((x, i) => {
        if (x.type !== 'identifier') return;
        const name = a.src(x);
        if (seen.has(name)) return;
        seen.add(name);
        bind(name, items[i]);
      });
    }
  }
  bindingsOf.set(a, m);
  return m;
}

/** `s` bound by an enclosing comprehension's `for s in <status set>`: the set (`any(x == s for s in [...])`). */
function loopSet(a: PythonAnalysis, id: PyNode): Status[] | undefined {
  if (id.type !== 'identifier') return undefined;
  for (let p = id.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda') return undefined;
    if (p.type !== 'generator_expression' && !p.type.endsWith('comprehension')) continue;
    for (const c of named(p)) {
      if (c.type !== 'for_in_clause') continue;
      const left = field(c, 'left');
      const right = field(c, 'right');
      if (left?.type === 'identifier' && a.src(left) === a.src(id) && right) return statusSet(a, right);
    }
  }
  return undefined;
}

export interface StatusTest {
  node: PyNode;
  /** The value whose status is tested (`sm[case]`, `status`). */
  subject: PyNode;
  /** True for `==`/`in`/`is`, false for `!=`/`not in`/`is not`. */
  positive: boolean;
  statuses: Status[];
}

/** One comparison of a value with status constants. */
export function statusTest(a: PythonAnalysis, n0: PyNode): StatusTest | undefined {
  const n = unparen(n0);
  if (n.type !== 'comparison_operator') return undefined;
  const ops = comparisonOperators(n);
  const [l, r] = named(n);
  if (ops.length !== 1 || !l || !r) return undefined;
  const op = ops[0]!;
  if (op === '==' || op === '!=' || op === 'is' || op === 'is not') {
    const positive = op === '==' || op === 'is';
    const sl = statusOf(a, l);
    const sr = statusOf(a, r);
    if (sr && !sl) return { node: n, subject: l, positive, statuses: [sr] };
    if (sl && !sr) return { node: n, subject: r, positive, statuses: [sl] };
    if (op !== '==' && op !== '!=') return undefined;
    const ll = loopSet(a, unparen(l));
    const lr = loopSet(a, unparen(r));
    if (lr && !ll) return { node: n, subject: l, positive, statuses: lr };
    if (ll && !lr) return { node: n, subject: r, positive, statuses: ll };
    return undefined;
  }
  if (op === 'in' || op === 'not in') {
    const set = statusSet(a, r);
    return set ? { node: n, subject: l, positive: op === 'in', statuses: set } : undefined;
  }
  return undefined;
}

/** The atoms of an `and`/`or` chain of one kind (`or` flattens `a or b or c`), through parentheses. */
export function boolAtoms(a: PythonAnalysis, n0: PyNode, op: 'and' | 'or'): PyNode[] {
  const n = unparen(n0);
  if (n.type === 'boolean_operator' && boolOp(a, n) === op) return [...boolAtoms(a, field(n, 'left') ?? n, op), ...boolAtoms(a, field(n, 'right') ?? n, op)];
  return [n];
}

export function boolOp(_a: PythonAnalysis, n: PyNode): string {
  return n.children.find((k) => !k.named && (k.type === 'and' || k.type === 'or'))?.type ?? '';
}

export const kinds = (ss: readonly Status[]): Set<StatusKind> => new Set(ss.map((s) => s.kind));
export const words = (ss: readonly Status[]): string => [...new Set(ss.map((s) => s.word))].join(', ');
