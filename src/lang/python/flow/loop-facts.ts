/**
 * Loops: index facts (`for i in range(…)` on its first or last pass), integer bounds, and iterables
 * that provably yield at least one item.
 */
import { type PyNode, field, named, unparen, firstNamed } from '../tree.js';
import type { Def, FlowState, IterFact, State, StateMap } from './state.js';
import { callParts, constKind, flat, intLit, isFalsyConst, nonEmptyLiteral } from './syntax.js';

/** `for i in range(k, …)` / `for i, x in enumerate(…, k)`: the index identifier and its first value (step 1). */
export function loopIndex(cx: FlowState, left: PyNode, right: PyNode): { id: PyNode; start: number; stop?: string } | undefined {
  const text = cx.text;
  const c = callParts(right, text);
  if (!c) return undefined;
  if (c.fn === 'range' && left.type === 'identifier' && c.args.length >= 1 && c.args.length <= 2) {
    const start = c.args.length === 2 ? intLit(c.args[0]!, text) : 0;
    return start === undefined ? undefined : { id: left, start, stop: flat(c.args[c.args.length - 1]!, text) };
  }
  if (c.fn === 'enumerate' && c.args.length >= 1) {
    const st = c.kw.get('start') ?? c.args[1];
    const start = st ? intLit(st, text) : 0;
    const l = unparen(left);
    const first = (l.type === 'pattern_list' || l.type === 'tuple_pattern' || l.type === 'tuple') ? named(l)[0] : undefined;
    return start !== undefined && first?.type === 'identifier' ? { id: first, start } : undefined;
  }
  return undefined;
}

/** Lower (`lo`) or upper (`hi`) bound of an integer expression, following local definitions; null when
 *  the expression holds no usable value on any path (only falsy ones, with `skipFalsy`). */
function bound(cx: FlowState, e: PyNode, dir: 'lo' | 'hi', depth: number, skipFalsy = false): number | null | undefined {
  if (depth > 10) return undefined;
  const u = unparen(e);
  const lit = numLit(u, cx.text);
  if (lit !== undefined) return skipFalsy && lit === 0 ? null : lit;
  const pick = (vals: Array<number | null | undefined>) => pickBound(vals, dir);
  if (u.type === 'boolean_operator') {
    const op = u.children.find((c) => c.field === 'operator')?.type;
    const l = field(u, 'left');
    const r = field(u, 'right');
    if (op !== 'or' || !l || !r) return undefined;
    return pick([bound(cx, l, dir, depth + 1, true), bound(cx, r, dir, depth + 1, skipFalsy)]);
  }
  if (u.type === 'conditional_expression') {
    const kids = named(u);
    return kids.length === 3 ? pick([bound(cx, kids[0]!, dir, depth + 1, skipFalsy), bound(cx, kids[2]!, dir, depth + 1, skipFalsy)]) : undefined;
  }
  if (u.type === 'binary_operator') {
    const op = u.children.find((c) => c.field === 'operator')?.type;
    const l = field(u, 'left');
    const r = field(u, 'right');
    if (!l || !r || (op !== '+' && op !== '-')) return undefined;
    const a = bound(cx, l, dir, depth + 1);
    const b = bound(cx, r, op === '+' ? dir : dir === 'lo' ? 'hi' : 'lo', depth + 1);
    if (typeof a !== 'number' || typeof b !== 'number') return undefined;
    return op === '+' ? a + b : a - b;
  }
  if (u.type !== 'identifier') return undefined;
  const defs = cx.readDefsOf(u);
  if (!defs) return undefined;
  const vals: Array<number | null | undefined> = [];
  for (const d of defs) defBounds(cx, d, dir, depth, skipFalsy, vals);
  return pick(vals);
}

function pickBound(vals: Array<number | null | undefined>, dir: 'lo' | 'hi'): number | null | undefined {
  if (vals.some((v) => v === undefined)) return undefined;
  const nums = vals.filter((v): v is number => v !== null);
  if (!nums.length) return null;
  return dir === 'lo' ? Math.min(...nums) : Math.max(...nums);
}

/** Value of an int or float literal (`3`, `6.0`, `-1`), or undefined. */
function numLit(n: PyNode, text: string): number | undefined {
  const u = unparen(n);
  if (u.type === 'float') { const v = Number(text.slice(u.start, u.end).replace(/_/g, '')); return Number.isFinite(v) ? v : undefined; }
  if (u.type === 'unary_operator' && text.slice(u.start, u.end).startsWith('-')) { const a = firstNamed(u); const v = a ? numLit(a, text) : undefined; return v === undefined ? undefined : -v; }
  return intLit(u, text);
}

/** The definitions a name holds in state `s` (the loop's entry), or undefined when it is not tracked. */
function defsIn(cx: FlowState, id: PyNode, s: StateMap): ReadonlySet<Def> | undefined {
  const t = cx.trackedKey(id);
  return t ? cx.get(s, t.key, cx.src(id)) : undefined;
}

/** Bound of an expression evaluated in state `s`: a name's definitions are those `s` holds. */
function boundIn(cx: FlowState, e: PyNode, dir: 'lo' | 'hi', s: StateMap): number | null | undefined {
  const u = unparen(e);
  const defs = u.type === 'identifier' ? defsIn(cx, u, s) : undefined;
  if (!defs) return bound(cx, u, dir, 0);
  const vals: Array<number | null | undefined> = [];
  for (const d of defs) defBounds(cx, d, dir, 0, false, vals);
  return defs.size ? pickBound(vals, dir) : undefined;
}

const CLOCKS = /^(time\.)?(time|monotonic|perf_counter)(_ns)?$/;

/** A call of the wall or monotonic clock (`time.time()`, `time.monotonic()`, `perf_counter()`). */
function clockCall(cx: FlowState, e: PyNode): string | undefined {
  const c = callParts(e, cx.text);
  return c && !c.args.length && !c.kw.size && CLOCKS.test(c.fn) ? c.fn : undefined;
}

/** The single value a name holds in `s` (one plain assignment), else the expression itself. */
function valueIn(cx: FlowState, e: PyNode, s: StateMap): PyNode {
  const u = unparen(e);
  const defs = u.type === 'identifier' ? defsIn(cx, u, s) : undefined;
  if (!defs || defs.size !== 1) return u;
  const d = defs.values().next().value!;
  return (d.kind === 'assign' || d.kind === 'annassign') && d.value && !d.index?.length ? unparen(d.value) : u;
}

/** `start + d` with `start` a reading of clock `fn` made before (directly or through a name) and
 *  `d` > 0: a deadline that has not passed when the loop is first reached. */
function freshDeadline(cx: FlowState, e: PyNode, fn: string, s: StateMap): boolean {
  const v = valueIn(cx, e, s);
  if (v.type !== 'binary_operator' || v.children.find((c) => c.field === 'operator')?.type !== '+') return false;
  const l = field(v, 'left');
  const r = field(v, 'right');
  if (!l || !r) return false;
  const isStart = (x: PyNode) => clockCall(cx, valueIn(cx, x, s)) === fn;
  const positive = (x: PyNode) => { const lo = boundIn(cx, x, 'lo', s); return typeof lo === 'number' && lo > 0; };
  return (isStart(l) && positive(r)) || (isStart(r) && positive(l));
}

/** The condition holds when the loop is first reached in state `s`: `i < n` with i = 0 and n = 3,
 *  `left > 0` with left = 5, `time.time() < deadline` right after `deadline = time.time() + 6.0`,
 *  and conjunctions of these. A `while` with such a condition runs its body at least once. */
export function trueOnEntry(cx: FlowState, cond: PyNode, s: State): boolean {
  if (!s) return false;
  const n = unparen(cond);
  if (cx.env.staticTruth(n) === true) return true;
  if (n.type === 'boolean_operator') {
    const l = field(n, 'left');
    const r = field(n, 'right');
    return n.children.find((c) => c.field === 'operator')?.type === 'and' && !!l && !!r && trueOnEntry(cx, l, s) && trueOnEntry(cx, r, s);
  }
  if (n.type === 'identifier') { const lo = boundIn(cx, n, 'lo', s); return typeof lo === 'number' && lo > 0; }
  if (n.type !== 'comparison_operator') return false;
  const kids = named(n).map(unparen);
  const ops = n.children.filter((c) => !c.named).map((c) => c.type);
  if (kids.length !== 2 || ops.length !== 1) return false;
  // a < b, written either way round
  let [a, b] = [kids[0]!, kids[1]!];
  let op = ops[0]!;
  if (op === '>' || op === '>=') { [a, b] = [b, a]; op = op === '>' ? '<' : '<='; }
  if (op === '<' || op === '<=') {
    const fn = clockCall(cx, a);
    if (fn && freshDeadline(cx, b, fn, s)) return true;
    // time.time() - start < d
    if (a.type === 'binary_operator' && a.children.find((c) => c.field === 'operator')?.type === '-') {
      const al = field(a, 'left');
      const ar = field(a, 'right');
      const f2 = al && clockCall(cx, al);
      const lo = boundIn(cx, b, 'lo', s);
      if (f2 && ar && clockCall(cx, valueIn(cx, ar, s)) === f2 && typeof lo === 'number' && lo > 0) return true;
    }
    const hiA = boundIn(cx, a, 'hi', s);
    const loB = boundIn(cx, b, 'lo', s);
    return typeof hiA === 'number' && typeof loB === 'number' && (op === '<' ? hiA < loB : hiA <= loB);
  }
  if (op === '!=') {
    const [la, ha, lb, hb] = [boundIn(cx, a, 'lo', s), boundIn(cx, a, 'hi', s), boundIn(cx, b, 'lo', s), boundIn(cx, b, 'hi', s)];
    return [la, ha, lb, hb].every((x) => typeof x === 'number') && (ha! < lb! || hb! < la!);
  }
  return false;
}

/** Push into `vals` the bound of the value one definition gives a name (undefined: unknown). */
function defBounds(cx: FlowState, d: Def, dir: 'lo' | 'hi', depth: number, skipFalsy: boolean, vals: Array<number | null | undefined>): void {
  const text = cx.text;
  if (d.kind === 'unbound') return;
  if (d.kind === 'narrow') { if (d.narrowed === 'none' && skipFalsy) return; for (const b of d.base ?? []) defBounds(cx, b, dir, depth, skipFalsy, vals); if (!d.base?.length) vals.push(undefined); return; }
  if (skipFalsy && (constKind(d, text) === 'none' || isFalsyConst(d, text))) return;
  if ((d.kind === 'assign' || d.kind === 'annassign') && d.value && !d.index?.length) return void vals.push(bound(cx, d.value, dir, depth + 1, skipFalsy));
  if (d.kind === 'for' && d.value && !d.index?.length) {
    const c = callParts(d.value, text);
    if (c?.fn === 'range' && c.args.length >= 1 && c.args.length <= 2) {
      if (dir === 'lo') return void vals.push(c.args.length === 2 ? bound(cx, c.args[0]!, 'lo', depth + 1) : 0);
      const hi = bound(cx, c.args[c.args.length - 1]!, 'hi', depth + 1);
      return void vals.push(typeof hi === 'number' ? hi - 1 : undefined);
    }
  }
  vals.push(undefined);
}

/** The iterable yields at least one item: a non-empty literal, `range(a, b)` with a < b provable, … */
export function nonEmpty(cx: FlowState, e: PyNode, depth: number, seen: Set<PyNode>): boolean {
  const u = unparen(e);
  if (depth > 6 || seen.has(u)) return false;
  seen.add(u);
  if (nonEmptyLiteral(u)) return true;
  if (u.type === 'string') return !u.children.some((c) => c.type === 'interpolation') && /^[a-zA-Z]*(['"]{3}|['"])[\s\S]+\1$/.test(cx.src(u));
  if (u.type === 'dictionary' || u.type === 'set') return named(u).some((k) => k.type !== 'comment' && k.type !== 'dictionary_splat' && k.type !== 'list_splat');
  const c = callParts(u, cx.text);
  if (c) {
    if (c.fn === 'range' && c.args.length >= 1 && c.args.length <= 3) {
      if (c.args.length === 3 && !((intLit(c.args[2]!, cx.text) ?? 0) > 0)) return false;
      if (c.args.length === 1) { const lo = bound(cx, c.args[0]!, 'lo', 0); return typeof lo === 'number' && lo >= 1; }
      const hiStart = bound(cx, c.args[0]!, 'hi', 0);
      const loStop = bound(cx, c.args[1]!, 'lo', 0);
      return typeof hiStart === 'number' && typeof loStop === 'number' && hiStart < loStop;
    }
    if (['enumerate', 'reversed', 'sorted', 'list', 'tuple', 'iter'].includes(c.fn) && c.args[0]) return nonEmpty(cx, c.args[0], depth + 1, seen);
    return false;
  }
  if (u.type === 'identifier') {
    const defs = cx.readDefsOf(u);
    if (!defs || !defs.size) return false;
    if (testedTruthy(cx, u, defs)) return true;
    return [...defs].every((d) => (d.kind === 'assign' || d.kind === 'annassign') && !!d.value && !d.index?.length && nonEmpty(cx, d.value, depth + 1, seen));
  }
  return false;
}

/** The name was tested truthy (`if xs:`, `if len(xs) > 0:`, `if xs and …:`) by an `if` whose true
 *  branch holds this read, and it still holds the same definitions (a non-empty collection). */
function testedTruthy(cx: FlowState, id: PyNode, defs: ReadonlySet<Def>): boolean {
  const name = cx.src(id);
  for (let c: PyNode = id, p = id.parent; p; c = p, p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') return false;
    if (p.type !== 'if_statement' && p.type !== 'elif_clause') continue;
    if (c.field !== 'consequence') continue;
    const cond = field(p, 'condition');
    const hit = cond ? truthyOperand(cx.text, cond, name) : undefined;
    if (!hit) continue;
    const at = cx.readDefsOf(hit);
    if (at && at.size === defs.size && [...defs].every((d) => at.has(d)) && ![...defs].some((d) => d.kind === 'unbound')) return true;
  }
  return false;
}

function truthyOperand(text: string, cond: PyNode, name: string): PyNode | undefined {
  const u = unparen(cond);
  if (u.type === 'identifier') return text.slice(u.start, u.end) === name ? u : undefined;
  if (u.type === 'boolean_operator' && u.children.find((c) => c.field === 'operator')?.type === 'and') {
    const l = field(u, 'left');
    const r = field(u, 'right');
    return (l && truthyOperand(text, l, name)) || (r && truthyOperand(text, r, name)) || undefined;
  }
  if (u.type === 'comparison_operator') {
    const kids = named(u).map(unparen);
    const ops = u.children.filter((c) => !c.named).map((c) => c.type);
    if (kids.length === 2 && ops.length === 1) {
      const c = callParts(kids[0]!, text);
      const arg = c?.fn === 'len' && c.args.length === 1 ? unparen(c.args[0]!) : undefined;
      const k = intLit(kids[1]!, text);
      if (arg?.type === 'identifier' && text.slice(arg.start, arg.end) === name && k !== undefined && ((ops[0] === '>' && k >= 0) || (ops[0] === '>=' && k >= 1) || (ops[0] === '!=' && k === 0))) return arg;
    }
  }
  return undefined;
}

/** The loop fact of the index identifier `id` when it still holds the loop's definition. */
function iterFactOf(cx: FlowState, id: PyNode, s: State): IterFact | undefined {
  const t = cx.trackedKey(id);
  if (!t || !s) return undefined;
  const defs = cx.get(s, t.key, cx.src(id));
  if (defs.size !== 1) return undefined;
  const d = defs.values().next().value!;
  return [...cx.iterFacts].reverse().find((x) => x.def === d);
}

/** `i < N - 1`, `i == N - 1`, `i + 1 < N`… over `for i in range(N)`: whether this pass is the last one. */
function lastTruth(cx: FlowState, n: PyNode, s: State): boolean | undefined {
  if (n.type !== 'comparison_operator') return undefined;
  const text = cx.text;
  const kids = named(n).map(unparen);
  const ops = n.children.filter((c) => !c.named);
  if (kids.length !== 2 || ops.length !== 1) return undefined;
  const [l, r] = [kids[0]!, kids[1]!];
  let id: PyNode | undefined;
  const f = (x: PyNode) => (x.type === 'identifier' ? iterFactOf(cx, x, s) : undefined);
  let fact: IterFact | undefined;
  const minusOne = (stop: string) => flat(r, text) === `${stop}-1` || (/^\d+$/.test(stop) && intLit(r, text) === Number(stop) - 1);
  if (l.type === 'identifier' && (fact = f(l)) && fact.stop && minusOne(fact.stop)) id = l;
  else if (l.type === 'binary_operator' && flat(l, text).endsWith('+1')) {
    const a = field(l, 'left');
    if (a && a.type === 'identifier' && (fact = f(a)) && fact.stop && flat(r, text) === fact.stop) id = a;
  }
  if (!id || !fact || fact.last === undefined) return undefined;
  // i vs N-1: the last pass has i == N-1, the others i < N-1
  switch (ops[0]!.type) {
    case '<': return !fact.last;
    case '<=': return true;
    case '==': return fact.last;
    case '!=': return !fact.last;
    case '>=': return fact.last;
    case '>': return false;
  }
  return undefined;
}

/** Truth of `i == k` (and `<`, `>`, `!=`, `not i`) for a loop index on its first pass or a later one. */
export function iterTruth(cx: FlowState, n: PyNode, s: State): boolean | undefined {
  if (!s || !cx.iterFacts.length) return undefined;
  const lt = lastTruth(cx, n, s);
  if (lt !== undefined) return lt;
  let id: PyNode | undefined;
  let op = '';
  let k = 0;
  if (n.type === 'identifier') { id = n; op = 'truthy'; }
  else if (n.type === 'not_operator') {
    const a = unparen(field(n, 'argument') ?? firstNamed(n)!);
    if (a?.type === 'identifier') { id = a; op = 'falsy'; }
  } else if (n.type === 'comparison_operator') {
    const kids = named(n).map(unparen);
    const ops = n.children.filter((c) => !c.named);
    if (kids.length === 2 && ops.length === 1 && kids[0]!.type === 'identifier' && kids[1]!.type === 'integer') {
      id = kids[0];
      op = ops[0]!.type;
      k = Number(cx.src(kids[1]!).replace(/_/g, ''));
    }
  }
  if (!id) return undefined;
  const f = iterFactOf(cx, id, s);
  if (!f || f.first === undefined) return undefined;
  return f.first ? firstPassTruth(op, f.start, k) : laterPassTruth(op, f.start + 1, k);
}

/** The index holds `v` (its first value). */
function firstPassTruth(op: string, v: number, k: number): boolean | undefined {
  switch (op) {
    case 'truthy': return v !== 0;
    case 'falsy': return v === 0;
    case '==': return v === k;
    case '!=': return v !== k;
    case '<': return v < k;
    case '<=': return v <= k;
    case '>': return v > k;
    case '>=': return v >= k;
  }
  return undefined;
}

/** Later passes: the index is at least `lo` (start + 1). */
function laterPassTruth(op: string, lo: number, k: number): boolean | undefined {
  switch (op) {
    case 'truthy': return lo > 0 ? true : undefined;
    case 'falsy': return lo > 0 ? false : undefined;
    case '==': return k < lo ? false : undefined;
    case '!=': return k < lo ? true : undefined;
    case '<': return k <= lo ? false : undefined;
    case '<=': return k < lo ? false : undefined;
    case '>': return k < lo ? true : undefined;
    case '>=': return k <= lo ? true : undefined;
  }
  return undefined;
}
