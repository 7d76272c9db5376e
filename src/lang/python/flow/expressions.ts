/**
 * Expressions and conditions: reads and walrus bindings in evaluation order, comprehensions and
 * lambdas, assignment targets, and conditions that split a state into where they hold and where
 * they do not (narrowing, pure-atom facts, loop-index facts, `"x" in locals()`).
 */
import { type PyNode, field, fields, named, unparen, firstNamed } from '../tree.js';
import { isComprehension } from '../scopes.js';
import { caseOf } from '../conditions.js';
import { type Def, type DefKind, type FlowState, type State, type StateMap, diffStates, keyOf, nameOfKey, setKey } from './state.js';
import { restrictByFact } from './facts.js';
import { iterTruth } from './loop-facts.js';
import { callParts, constKind, isFalsyConst } from './syntax.js';

export function bindTarget(cx: FlowState, s: State, n: PyNode, kind: DefKind, value: PyNode | undefined, index: number[]): State {
  switch (n.type) {
    case 'identifier':
      return cx.bindId(s, n, kind, value, index);
    case 'pattern_list': case 'tuple_pattern': case 'list_pattern': case 'tuple': case 'list': case 'expression_list':
    case 'parenthesized_expression': case 'as_pattern_target': {
      const kids = named(n);
      kids.forEach((c, i) => {
        const sub = n.type === 'parenthesized_expression' || n.type === 'as_pattern_target' ? index : [...index, i];
        s = bindTarget(cx, s, c, kind, value, sub);
      });
      return s;
    }
    case 'list_splat_pattern': case 'list_splat': {
      const c = firstNamed(n);
      return c ? bindTarget(cx, s, c, kind, value, [...index.slice(0, -1), -1]) : s;
    }
    default:
      return evalExpr(cx, n, s);
  }
}

export function evalExpr(cx: FlowState, n: PyNode, s: State): State {
  if (!s) return s;
  switch (n.type) {
    case 'identifier':
      cx.recordRead(n, s);
      return cx.probing ? cx.probed(n, s) : s;
    case 'attribute': {
      const o = field(n, 'object');
      return o ? evalExpr(cx, o, s) : s;
    }
    case 'boolean_operator': {
      const l = field(n, 'left');
      const r = field(n, 'right');
      const s1 = l ? evalExpr(cx, l, s) : s;
      const s2 = r ? evalExpr(cx, r, s1) : s1;
      return cx.join(s1, s2);
    }
    case 'conditional_expression': {
      const kids = named(n);
      if (kids.length < 3) break;
      const [t, f] = evalCond(cx, kids[1]!, s);
      return cx.join(evalExpr(cx, kids[0]!, t), evalExpr(cx, kids[2]!, f));
    }
    case 'named_expression': {
      const v = field(n, 'value');
      const nm = field(n, 'name');
      let s1 = v ? evalExpr(cx, v, s) : s;
      if (nm) s1 = cx.bindId(s1, nm, 'walrus', v, []);
      return s1;
    }
    case 'lambda':
      // the body runs as its own unit; only the defaults run here
      return evalDefaults(cx, field(n, 'parameters'), s);
    case 'type':
      return s;
    case 'keyword_argument': {
      const v = field(n, 'value');
      return v ? evalExpr(cx, v, s) : s;
    }
    case 'string_content': case 'escape_sequence': case 'comment': case 'string_start': case 'string_end':
      return s;
    default:
      if (isComprehension(n.type)) return evalComprehension(cx, n, s);
  }
  // indexed: every expression node passes here (a for…of allocates per step in cold code)
  const kids = n.children;
  for (let i = 0; i < kids.length; i++) if (kids[i]!.named) s = evalExpr(cx, kids[i]!, s);
  return s;
}

/** Default values of a parameter list, left to right. */
export function evalDefaults(cx: FlowState, p: PyNode | undefined, s: State): State {
  if (p) for (const c of named(p)) { const v = field(c, 'value'); if (v) s = evalExpr(cx, v, s); }
  return s;
}

function evalComprehension(cx: FlowState, n: PyNode, s: State): State {
  const cs = cx.table.byNode.get(n);
  let first = true;
  let inner: State = s;
  if (cs) cx.active.add(cs);
  for (const c of named(n)) {
    if (c.type === 'for_in_clause') {
      for (const r of fields(c, 'right')) {
        if (first) { s = evalExpr(cx, r, s); inner = s; }
        else inner = evalExpr(cx, r, inner);
      }
      first = false;
      const left = field(c, 'left');
      if (left) inner = bindTarget(cx, inner, left, 'comprehension', field(c, 'right'), []);
    } else if (c.type === 'if_clause') {
      const cond = firstNamed(c);
      if (cond) inner = evalCond(cx, cond, inner)[0] ?? inner;
    }
  }
  const body = field(n, 'body');
  if (body) inner = evalExpr(cx, body, inner);
  if (cs) cx.active.delete(cs);
  return inner && s && inner !== s ? walrusEscapes(cx, s, inner) : s;
}

/** Walrus targets inside a comprehension may or may not be bound after it. */
function walrusEscapes(cx: FlowState, s: StateMap, inner: StateMap): State {
  const changed: Array<[string, ReadonlySet<Def> | undefined, ReadonlySet<Def>]> = [];
  diffStates(s, inner, (k, before, defs) => { if (defs) changed.push([k, before, defs]); });
  let out: State = s;
  for (const [k, before, defs] of changed) {
    const w = [...defs].filter((d) => d.kind === 'walrus' && !before?.has(d));
    if (!w.length) continue;
    const u = new Set(before ?? [cx.unbound(k, nameOfKey(k))]);
    for (const d of w) u.add(d);
    out = setKey(out, k, u);
  }
  return out;
}

function narrow(cx: FlowState, s: State, id: PyNode, how: 'none' | 'not-none' | 'truthy', site: PyNode): State {
  if (!s) return s;
  const t = cx.trackedKey(id);
  if (!t) return s;
  const text = cx.text;
  const defs = cx.get(s, t.key, cx.src(id));
  const live = [...defs].filter((d) => d.kind !== 'unbound');
  let base = live;
  if (how === 'not-none' || how === 'truthy') base = live.filter((d) => constKind(d, text) !== 'none');
  if (how === 'truthy') base = base.filter((d) => !isFalsyConst(d, text));
  if (how === 'none') {
    return setKey(s, t.key, new Set([cx.narrowNone(t.key, cx.src(id), site, live)]));
  }
  return setKey(s, t.key, new Set(base));
}

/** `"name" in locals()` / `"name" not in locals()`. */
function localsTest(cx: FlowState, n: PyNode): { name: string; positive: boolean } | undefined {
  const kids = named(n).map(unparen);
  const ops = n.children.filter((c) => !c.named).map((c) => c.type);
  if (kids.length !== 2 || (ops.join(' ') !== 'in' && ops.join(' ') !== 'not in')) return undefined;
  const c = callParts(kids[1]!, cx.text);
  if (!c || c.fn !== 'locals' || c.args.length || kids[0]!.type !== 'string') return undefined;
  const m = /^(['"])(\w+)\1$/.exec(cx.src(kids[0]!));
  return m ? { name: m[2]!, positive: ops.join(' ') === 'in' } : undefined;
}

/** Evaluate a condition; returns the states where it is true / false (null = impossible). */
export function evalCond(cx: FlowState, n0: PyNode, s: State): [State, State] {
  if (!s) return [null, null];
  const n = unparen(n0);
  const st = cx.env.staticTruth(n) ?? iterTruth(cx, n, s);
  if (st !== undefined) {
    const s1 = evalExpr(cx, n, s);
    return st ? [s1, null] : [null, s1];
  }
  const at = cx.env.atomTest?.(n);
  if (at) {
    const s1 = evalExpr(cx, n, s);
    return [restrictByFact(cx, s1, at.atom, caseOf(at, true)), restrictByFact(cx, s1, at.atom, caseOf(at, false))];
  }
  // a flag is a name like any other (`x is not None` narrows it) whose tests also select the paths that set it
  const ft = cx.env.flagTest?.(n);
  const [t, f] = shapeCond(cx, n, s);
  return ft ? [restrictByFact(cx, t, ft.atom, caseOf(ft, true)), restrictByFact(cx, f, ft.atom, caseOf(ft, false))] : [t, f];
}

/** `evalCond` by the condition's shape: `not`, `and`/`or`, names and comparisons that narrow. */
function shapeCond(cx: FlowState, n: PyNode, s: StateMap): [State, State] {
  switch (n.type) {
    case 'not_operator': {
      const a = field(n, 'argument') ?? firstNamed(n);
      if (!a) break;
      const [t, f] = evalCond(cx, a, s);
      return [f, t];
    }
    case 'boolean_operator': {
      const l = field(n, 'left');
      const r = field(n, 'right');
      const op = n.children.find((c) => c.field === 'operator')?.type;
      if (!l || !r) break;
      const [lt, lf] = evalCond(cx, l, s);
      if (op === 'and') {
        const [rt, rf] = evalCond(cx, r, lt);
        return [rt, cx.join(lf, rf)];
      }
      const [rt, rf] = evalCond(cx, r, lf);
      return [cx.join(lt, rt), rf];
    }
    case 'identifier': {
      const s1 = evalExpr(cx, n, s);
      return [narrow(cx, s1, n, 'truthy', n), s1];
    }
    case 'named_expression': {
      const s1 = evalExpr(cx, n, s);
      const nm = field(n, 'name');
      return [nm ? narrow(cx, s1, nm, 'truthy', n) : s1, s1];
    }
    case 'call':
      return condCall(cx, n, s);
    case 'comparison_operator':
      return condComparison(cx, n, s);
  }
  const s1 = evalExpr(cx, n, s);
  return [s1, s1];
}

/** `any(<genexpr with walrus>)` is true only after at least one iteration bound the walrus target. */
function condCall(cx: FlowState, n: PyNode, s: StateMap): [State, State] {
  const fn = field(n, 'function');
  const arg = field(n, 'arguments');
  const s1 = evalExpr(cx, n, s);
  if (s1 && fn && cx.src(fn) === 'any' && arg?.type === 'generator_expression') {
    let t: State = s1;
    const changed: Array<[string, ReadonlySet<Def>]> = [];
    diffStates(s, s1, (k, _, defs) => { if (defs) changed.push([k, defs]); });
    for (const [k, defs] of changed) {
      const walrus = [...defs].filter((d) => d.kind === 'walrus');
      if (walrus.length && walrus.length < defs.size) t = setKey(t, k, new Set([...defs].filter((d) => d.kind !== 'unbound')));
    }
    return [t, s1];
  }
  return [s1, s1];
}

/** `"x" in locals()` and comparisons with None narrow; other comparisons only evaluate. */
function condComparison(cx: FlowState, n: PyNode, s: State): [State, State] {
  const kids = named(n);
  const ops = n.children.filter((c) => !c.named);
  const s1 = evalExpr(cx, n, s);
  const local = localsTest(cx, n);
  if (local) {
    // `"x" in locals()`: x is bound exactly when the test is true
    const sc = cx.curScope(n);
    const key = keyOf(sc, local.name);
    const defs = s1 ? cx.get(s1, key, local.name) : undefined;
    if (s1 && defs && cx.active.has(sc)) {
      const bound = new Set([...defs].filter((d) => d.kind !== 'unbound'));
      const t = bound.size ? setKey(s1, key, bound) : null;
      // unbound where the test is false: the UNBOUND definitions that reached it (a shared one made here
      // would be dropped by a fact whose disagreeing path brought it)
      const unbound = [...defs].filter((d) => d.kind === 'unbound');
      const f = setKey(s1, key, unbound.length ? new Set(unbound) : cx.unboundHere(n, key, local.name));
      return local.positive ? [t, f] : [f, t];
    }
  }
  if (kids.length === 2 && ops.length === 1) {
    const op = ops[0]!.type;
    const [a, b] = [unparen(kids[0]!), unparen(kids[1]!)];
    const id = b.type === 'none' && a.type === 'identifier' ? a : a.type === 'none' && b.type === 'identifier' ? b : undefined;
    if (id && (op === 'is' || op === '==')) return [narrow(cx, s1, id, 'none', n), narrow(cx, s1, id, 'not-none', n)];
    if (id && (op === 'is not' || op === '!=')) return [narrow(cx, s1, id, 'not-none', n), narrow(cx, s1, id, 'none', n)];
  }
  return [s1, s1];
}
