/**
 * Definite assignment and reaching definitions, per execution unit (the module
 * body, each function body, each lambda body; class bodies and comprehensions
 * run inline in the unit that executes them).
 *
 * The lattice is "set of reaching definitions" per local name, with one
 * synthetic UNBOUND definition per name: a read whose reaching set is exactly
 * {UNBOUND} is unbound on every path, one that contains UNBOUND and others is
 * possibly unbound. Narrowing (`x is None`, `x is not None`, truthiness, `not`,
 * `and`/`or`, `assert`) adds synthetic `narrow` definitions so that constant
 * propagation knows, e.g., that `raw_key` is still None on a path.
 */
import { type PyNode, field, fields, named, unparen, firstNamed } from './tree.js';
import { type Scope, type ScopeTable, type BindingKind, isComprehension, resolveScope, withItemValues } from './scopes.js';
import { type AtomTest, type ValueSet, ANY, caseOf, intersect, isEmptySet, hasattrAtom } from './conditions.js';

type DefKind = BindingKind | 'unbound' | 'narrow' | 'fact';

/** What an if-chain over a pure atom established: for each branch that completes, the atom's
 *  values on it and the state at its end (a later test of the atom keeps the consistent branches). */
interface FactInfo {
  atom: string;
  cases: Array<{ desc: ValueSet; end: Map<string, Set<Def>> }>;
}

export interface Def {
  id: number;
  /** `${scopeId}:${name}` */
  key: string;
  name: string;
  kind: DefKind;
  /** Binding identifier (null for UNBOUND / narrowing). */
  node: PyNode | null;
  /** The expression that produced the value (RHS, iterable, context manager…). */
  value?: PyNode;
  /** Unpacking path into `value` (`a, (b, c) = …` → b: [1, 0]); -1 marks a starred target. */
  index?: number[];
  /** For `narrow` defs: what the condition established, and the defs it refined. */
  narrowed?: 'none' | 'not-none' | 'truthy';
  base?: Def[];
  /** For `fact` defs (state key `#<atom>`): the correlation recorded by an if-chain. */
  fact?: FactInfo;
}

type State = Map<string, Set<Def>> | null;

export interface FlowResult {
  /** Reaching definitions at every reachable name read handled by flow (locals of the executing unit). */
  readDefs: Map<PyNode, Set<Def>>;
  /** Every name read visited on a reachable path (any resolution). */
  reachable: Set<PyNode>;
  /** Def created at each binding identifier. */
  defAt: Map<PyNode, Def>;
  /** Reads of class-body names that fall back to an enclosing/global/builtin name when unbound. */
  classFallback: Set<PyNode>;
  /** Reaching definitions of module names at the end of the module body (null: the end is unreachable). */
  moduleEnd: Map<string, Set<Def>> | null;
  /** State of the module body where each module-level `def`/`class` statement runs. */
  defState: Map<PyNode, Map<string, Set<Def>>>;
  /** State of the module body at each module-level call of a name (`main()`), keyed by the callee identifier. */
  callState: Map<PyNode, Map<string, Set<Def>>>;
}

export interface FlowEnv {
  text: string;
  table: ScopeTable;
  isBuiltin(name: string): boolean;
  /** Static value of a condition (TYPE_CHECKING, sys.platform, sys.version_info); undefined when not static. */
  staticTruth(n: PyNode): boolean | undefined;
  /** True when a call never returns (sys.exit, a local function that always raises…). */
  isNoReturnCall(call: PyNode, scope: Scope): boolean;
  /** The condition as a test of a pure atom (platform, module constant, hasattr), or undefined. */
  atomTest?(n: PyNode): AtomTest | undefined;
}

const CATCH_ALL = new Set(['Exception', 'BaseException']);

export function runFlow(env: FlowEnv): FlowResult {
  const { table, text } = env;
  const src = (n: PyNode) => text.slice(n.start, n.end);
  let nextId = 1;
  const unboundDefs = new Map<string, Def>();
  const res: FlowResult = { readDefs: new Map(), reachable: new Set(), defAt: new Map(), classFallback: new Set(), moduleEnd: null, defState: new Map(), callState: new Map() };
  const keyOf = (s: Scope, name: string) => `${s.id}:${name}`;
  const unbound = (key: string, name: string): Def => {
    let d = unboundDefs.get(key);
    if (!d) unboundDefs.set(key, (d = { id: nextId++, key, name, kind: 'unbound', node: null }));
    return d;
  };

  // ---- per-unit mutable context -------------------------------------------------------
  let active = new Set<Scope>();
  let unitKind: Scope['kind'] = 'module';
  let loops: Array<{ breaks: State[]; conts: State[] }> = [];
  let excs: State[][] = [];
  let finals: State[][] = [];
  /** Loop indexes (`for i in range(…)`, `for i, x in enumerate(…)`) whose first pass is running (`first`) or not. */
  let iterFacts: IterFact[] = [];
  /** The fact def each if-statement recorded per atom (reused across passes so loops reach a fixpoint). */
  const factDefs = new Map<PyNode, Map<string, Def>>();

  const get = (s: Map<string, Set<Def>>, key: string, name: string): Set<Def> => s.get(key) ?? new Set([unbound(key, name)]);
  const setKey = (s: State, key: string, defs: Set<Def>): State => {
    if (!s) return s;
    const m = new Map(s);
    m.set(key, defs);
    return m;
  };
  const join = (...states: State[]): State => {
    const live = states.filter((x): x is Map<string, Set<Def>> => !!x);
    if (live.length === 0) return null;
    if (live.length === 1) return live[0]!;
    const keys = new Set<string>();
    for (const s of live) for (const k of s.keys()) keys.add(k);
    const out = new Map<string, Set<Def>>();
    for (const k of keys) {
      let acc: Set<Def> | undefined;
      let same = true;
      for (const s of live) {
        const d = s.get(k) ?? new Set([unbound(k, k.slice(k.indexOf(':') + 1))]);
        if (!acc) acc = d;
        else if (acc !== d) {
          if (same) { acc = new Set(acc); same = false; }
          for (const x of d) acc.add(x);
        }
      }
      out.set(k, acc!);
    }
    return out;
  };
  const equal = (a: State, b: State): boolean => {
    if (a === b) return true;
    if (!a || !b) return false;
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (!w || w.size !== v.size) return false;
      if (w !== v) for (const x of v) if (!w.has(x)) return false;
    }
    return true;
  };
  const observe = (s: State) => {
    if (s && excs.length) excs[excs.length - 1]!.push(s);
  };

  /** Key of a name read if it is tracked by the executing unit. */
  const trackedKey = (id: PyNode): { key: string; scope: Scope } | undefined => {
    const r = table.readByNode.get(id);
    if (!r) return undefined;
    const sc = resolveScope(r.scope, r.name);
    if (!sc || !active.has(sc)) return undefined;
    return { key: keyOf(sc, r.name), scope: sc };
  };

  const recordRead = (id: PyNode, s: State) => {
    if (!s) return;
    const r = table.readByNode.get(id);
    if (!r) return;
    res.reachable.add(id);
    if (r.inAnnotation) return;
    if (unitKind === 'module' && active.size === 1 && id.field === 'function' && id.parent?.type === 'call') {
      const prev = res.callState.get(id);
      res.callState.set(id, prev ? join(prev, s)! : s);
    }
    const sc = resolveScope(r.scope, r.name);
    if (!sc || !active.has(sc)) return;
    let defs = get(s, keyOf(sc, r.name), r.name);
    if (sc.kind === 'class') {
      const ub = [...defs].some((d) => d.kind === 'unbound');
      if (ub && (env.isBuiltin(r.name) || (sc.parent && resolveScope(sc.parent, r.name)))) {
        res.classFallback.add(id);
        defs = new Set([...defs].filter((d) => d.kind !== 'unbound'));
      }
    }
    const prev = res.readDefs.get(id);
    if (!prev) res.readDefs.set(id, defs);
    else if (prev !== defs) {
      const u = new Set(prev);
      for (const d of defs) u.add(d);
      res.readDefs.set(id, u);
    }
  };

  const bindId = (s: State, id: PyNode, kind: DefKind, value?: PyNode, index?: number[]): State => {
    if (!s || id.type !== 'identifier') return s;
    const sc = table.bindingScope.get(id);
    if (!sc) return s;
    const name = src(id);
    const key = keyOf(sc, name);
    let d = res.defAt.get(id);
    if (!d) {
      d = { id: nextId++, key, name, kind, node: id, value, index };
      res.defAt.set(id, d);
    }
    if (kind === 'del') return setKey(s, key, new Set([unbound(key, name)]));
    return setKey(s, key, new Set([d]));
  };

  const bindTarget = (s: State, n: PyNode, kind: DefKind, value: PyNode | undefined, index: number[]): State => {
    switch (n.type) {
      case 'identifier':
        return bindId(s, n, kind, value, index);
      case 'pattern_list': case 'tuple_pattern': case 'list_pattern': case 'tuple': case 'list': case 'expression_list':
      case 'parenthesized_expression': case 'as_pattern_target': {
        const kids = named(n);
        kids.forEach((c, i) => {
          const sub = n.type === 'parenthesized_expression' || n.type === 'as_pattern_target' ? index : [...index, i];
          s = bindTarget(s, c, kind, value, sub);
        });
        return s;
      }
      case 'list_splat_pattern': case 'list_splat': {
        const c = firstNamed(n);
        return c ? bindTarget(s, c, kind, value, [...index.slice(0, -1), -1]) : s;
      }
      default:
        return evalExpr(n, s);
    }
  };

  // ---- expressions ---------------------------------------------------------------------
  const evalExpr = (n: PyNode, s: State): State => {
    if (!s) return s;
    switch (n.type) {
      case 'identifier':
        recordRead(n, s);
        return s;
      case 'attribute': {
        const o = field(n, 'object');
        return o ? evalExpr(o, s) : s;
      }
      case 'boolean_operator': {
        const l = field(n, 'left');
        const r = field(n, 'right');
        const s1 = l ? evalExpr(l, s) : s;
        const s2 = r ? evalExpr(r, s1) : s1;
        return join(s1, s2);
      }
      case 'conditional_expression': {
        const kids = named(n);
        if (kids.length < 3) break;
        const [t, f] = evalCond(kids[1]!, s);
        return join(evalExpr(kids[0]!, t), evalExpr(kids[2]!, f));
      }
      case 'named_expression': {
        const v = field(n, 'value');
        const nm = field(n, 'name');
        let s1 = v ? evalExpr(v, s) : s;
        if (nm) s1 = bindId(s1, nm, 'walrus', v, []);
        return s1;
      }
      case 'lambda': {
        const p = field(n, 'parameters');
        if (p) for (const c of named(p)) { const v = field(c, 'value'); if (v) s = evalExpr(v, s); }
        return s;
      }
      case 'type':
        return s;
      case 'keyword_argument': {
        const v = field(n, 'value');
        return v ? evalExpr(v, s) : s;
      }
      case 'string_content': case 'escape_sequence': case 'comment': case 'string_start': case 'string_end':
        return s;
      default:
        if (isComprehension(n.type)) return evalComprehension(n, s);
    }
    for (const c of n.children) if (c.named) s = evalExpr(c, s);
    return s;
  };

  const evalComprehension = (n: PyNode, s: State): State => {
    const cs = table.byNode.get(n);
    let first = true;
    let inner: State = s;
    if (cs) active.add(cs);
    for (const c of named(n)) {
      if (c.type === 'for_in_clause') {
        for (const r of fields(c, 'right')) {
          if (first) { s = evalExpr(r, s); inner = s; }
          else inner = evalExpr(r, inner);
        }
        first = false;
        const left = field(c, 'left');
        if (left) inner = bindTarget(inner, left, 'comprehension', field(c, 'right'), []);
      } else if (c.type === 'if_clause') {
        const cond = firstNamed(c);
        if (cond) inner = evalCond(cond, inner)[0] ?? inner;
      }
    }
    const body = field(n, 'body');
    if (body) inner = evalExpr(body, inner);
    if (cs) active.delete(cs);
    // walrus targets inside the comprehension may or may not be bound afterwards
    if (inner && s && inner !== s) {
      let out: State = s;
      for (const [k, defs] of inner) {
        const before = s.get(k);
        if (before === defs) continue;
        const w = [...defs].filter((d) => d.kind === 'walrus' && !before?.has(d));
        if (!w.length) continue;
        const u = new Set(before ?? [unbound(k, k.slice(k.indexOf(':') + 1))]);
        for (const d of w) u.add(d);
        out = setKey(out, k, u);
      }
      return out;
    }
    return s;
  };

  const isNoneNode = (n: PyNode) => n.type === 'none';

  const narrow = (s: State, id: PyNode, how: 'none' | 'not-none' | 'truthy', site: PyNode): State => {
    if (!s) return s;
    const t = trackedKey(id);
    if (!t) return s;
    const defs = get(s, t.key, src(id));
    const live = [...defs].filter((d) => d.kind !== 'unbound');
    let base = live;
    if (how === 'not-none' || how === 'truthy') base = live.filter((d) => constKind(d, text) !== 'none');
    if (how === 'truthy') base = base.filter((d) => !isFalsyConst(d, text));
    if (how === 'none') {
      const nd: Def = { id: nextId++, key: t.key, name: src(id), kind: 'narrow', node: null, value: site, narrowed: 'none', base: live };
      return setKey(s, t.key, new Set([nd]));
    }
    return setKey(s, t.key, new Set(base));
  };

  const nameOfKey = (k: string) => k.slice(k.indexOf(':') + 1);

  /** Keep, for a test of a pure atom, only the definitions that reach along branches of an earlier
   *  if-chain over the same atom that agree with the test's outcome (null: no branch agrees). */
  const factOf = (s: State, atom: string): FactInfo | undefined => {
    const fs = s?.get(`#${atom}`);
    if (!fs || fs.size !== 1) return undefined;
    const f = fs.values().next().value!;
    return f.kind === 'fact' ? f.fact : undefined;
  };
  const restrictByFact = (s: State, atom: string, want: ValueSet): State => {
    if (!s) return s;
    const fact = factOf(s, atom);
    if (!fact) return s;
    const f = { fact };
    const cons: FactInfo['cases'] = [];
    const incons: FactInfo['cases'] = [];
    for (const c of f.fact.cases) (isEmptySet(intersect(c.desc, want)) ? incons : cons).push(c);
    if (!incons.length) return s;
    if (!cons.length) return null;
    const keys = new Set<string>();
    for (const c of f.fact.cases) for (const k of c.end.keys()) if (!k.startsWith('#')) keys.add(k);
    let out: State = s;
    for (const k of keys) {
      const cur = get(s, k, nameOfKey(k));
      const good = new Set<Def>();
      for (const c of cons) for (const d of get(c.end, k, nameOfKey(k))) good.add(d);
      const kept = [...cur].filter((d) => good.has(d) || !incons.some((c) => get(c.end, k, nameOfKey(k)).has(d)));
      if (kept.length && kept.length < cur.size) out = setKey(out, k, new Set(kept));
    }
    return out;
  };

  /** Record, after an if-chain, what each completed branch established about the pure atoms it tests. */
  const recordFacts = (n: PyNode, conds: Array<PyNode | undefined>, outs: State[], joined: State): State => {
    if (!joined || !env.atomTest) return joined;
    const tests = conds.map((c) => (c ? env.atomTest!(unparen(c)) : undefined));
    let out: State = joined;
    for (const atom of new Set(tests.filter((t): t is AtomTest => !!t).map((t) => t.atom))) {
      // `hasattr(o, "a")` stays one fact only while no branch writes `o.a`
      if (atom.startsWith('hasattr(') && writesAttr(n, atom)) continue;
      let running: ValueSet = ANY;
      const cases: FactInfo['cases'] = [];
      const branches: string[] = [];
      outs.forEach((o, i) => {
        const t = tests[i];
        const desc = t && t.atom === atom ? intersect(running, caseOf(t, true)) : running;
        if (t && t.atom === atom) running = intersect(running, caseOf(t, false));
        if (!o || isEmptySet(desc)) return;
        // an earlier fact over the atom splits this branch further (keeps both correlations)
        const old = factOf(o, atom);
        if (old && old.cases.length * outs.length <= 32) {
          old.cases.forEach((oc, j) => {
            const d = intersect(desc, oc.desc);
            const end = isEmptySet(d) ? null : restrictByFact(o, atom, d);
            if (end) { cases.push({ desc: d, end }); branches.push(`${i}:${j}`); }
          });
        } else { cases.push({ desc, end: o }); branches.push(`${i}`); }
      });
      let perNode = factDefs.get(n);
      if (!perNode) factDefs.set(n, (perNode = new Map()));
      let d = perNode.get(atom);
      if (!d) perNode.set(atom, (d = { id: nextId++, key: `#${atom}`, name: atom, kind: 'fact', node: null, fact: { atom, cases: [] } }));
      // merge with what an earlier pass over this statement recorded (loop bodies, finally blocks)
      const prev = d.fact!.cases as Array<FactInfo['cases'][number] & { branch?: string }>;
      cases.forEach((c, j) => {
        const old = prev.find((p) => p.branch === branches[j]);
        if (old) old.end = join(old.end, c.end) ?? old.end;
        else prev.push({ ...c, branch: branches[j] });
      });
      out = setKey(out, `#${atom}`, new Set([d]));
    }
    return out;
  };

  const writesAttr = (n: PyNode, atom: string): boolean => {
    let found = false;
    const walkW = (x: PyNode) => {
      if (found) return;
      if (x.type === 'assignment' || x.type === 'augmented_assignment' || x.type === 'delete_statement' || x.type === 'call') {
        const t = x.type === 'call' ? src(field(x, 'function') ?? x) : '';
        if (t === 'setattr' || t === 'delattr') {
          const obj = named(field(x, 'arguments') ?? x)[0];
          if (obj && atom.startsWith(`hasattr(${src(obj)},`)) found = true;
        }
        const targets = x.type === 'delete_statement' ? named(x) : x.type === 'call' ? [] : [field(x, 'left')].filter((y): y is PyNode => !!y);
        const check = (tg: PyNode) => {
          const u = unparen(tg);
          if (u.type === 'attribute') {
            const o = field(u, 'object');
            const a = field(u, 'attribute');
            if (o && a && hasattrAtom(src(o), src(a)) === atom) found = true;
          } else if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'expression_list'].includes(u.type)) named(u).forEach(check);
        };
        targets.forEach(check);
      }
      for (const c of x.children) if (c.named) walkW(c);
    };
    walkW(n);
    return found;
  };

  /** The loop fact of the index identifier `id` when it still holds the loop's definition. */
  const iterFactOf = (id: PyNode, s: State): IterFact | undefined => {
    const t = trackedKey(id);
    if (!t || !s) return undefined;
    const defs = get(s, t.key, src(id));
    if (defs.size !== 1) return undefined;
    const d = defs.values().next().value!;
    return [...iterFacts].reverse().find((x) => x.def === d);
  };
  const flat = (n: PyNode) => src(n).replace(/\s+/g, '');
  /** `i < N - 1`, `i == N - 1`, `i + 1 < N`… over `for i in range(N)`: whether this pass is the last one. */
  const lastTruth = (n: PyNode, s: State): boolean | undefined => {
    if (n.type !== 'comparison_operator') return undefined;
    const kids = named(n).map(unparen);
    const ops = n.children.filter((c) => !c.named);
    if (kids.length !== 2 || ops.length !== 1) return undefined;
    const [l, r] = [kids[0]!, kids[1]!];
    let id: PyNode | undefined;
    const f = (x: PyNode) => (x.type === 'identifier' ? iterFactOf(x, s) : undefined);
    let fact: IterFact | undefined;
    const minusOne = (stop: string) => flat(r) === `${stop}-1` || (/^\d+$/.test(stop) && intLit(r) === Number(stop) - 1);
    if (l.type === 'identifier' && (fact = f(l)) && fact.stop && minusOne(fact.stop)) id = l;
    else if (l.type === 'binary_operator' && flat(l).endsWith('+1')) {
      const a = field(l, 'left');
      if (a && a.type === 'identifier' && (fact = f(a)) && fact.stop && flat(r) === fact.stop) id = a;
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
  };

  /** Truth of `i == k` (and `<`, `>`, `!=`, `not i`) for a loop index on its first pass or a later one. */
  const iterTruth = (n: PyNode, s: State): boolean | undefined => {
    if (!s || !iterFacts.length) return undefined;
    const lt = lastTruth(n, s);
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
        k = Number(src(kids[1]!).replace(/_/g, ''));
      }
    }
    if (!id) return undefined;
    const f = iterFactOf(id, s);
    if (!f || f.first === undefined) return undefined;
    if (f.first) {
      const v = f.start;
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
    // later passes: the index is at least start + 1
    const lo = f.start + 1;
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
  };

  /** `"name" in locals()` / `"name" not in locals()`. */
  const localsTest = (n: PyNode): { name: string; positive: boolean } | undefined => {
    const kids = named(n).map(unparen);
    const ops = n.children.filter((c) => !c.named).map((c) => c.type);
    if (kids.length !== 2 || (ops.join(' ') !== 'in' && ops.join(' ') !== 'not in')) return undefined;
    const c = callParts(kids[1]!);
    if (!c || c.fn !== 'locals' || c.args.length || kids[0]!.type !== 'string') return undefined;
    const m = /^(['"])(\w+)\1$/.exec(src(kids[0]!));
    return m ? { name: m[2]!, positive: ops.join(' ') === 'in' } : undefined;
  };

  /** Evaluate a condition; returns the states where it is true / false (null = impossible). */
  const evalCond = (n0: PyNode, s: State): [State, State] => {
    if (!s) return [null, null];
    const n = unparen(n0);
    const st = env.staticTruth(n) ?? iterTruth(n, s);
    if (st !== undefined) {
      const s1 = evalExpr(n, s);
      return st ? [s1, null] : [null, s1];
    }
    const at = env.atomTest?.(n);
    if (at) {
      const s1 = evalExpr(n, s);
      return [restrictByFact(s1, at.atom, caseOf(at, true)), restrictByFact(s1, at.atom, caseOf(at, false))];
    }
    switch (n.type) {
      case 'not_operator': {
        const a = field(n, 'argument') ?? firstNamed(n);
        if (!a) break;
        const [t, f] = evalCond(a, s);
        return [f, t];
      }
      case 'boolean_operator': {
        const l = field(n, 'left');
        const r = field(n, 'right');
        const op = n.children.find((c) => c.field === 'operator')?.type;
        if (!l || !r) break;
        const [lt, lf] = evalCond(l, s);
        if (op === 'and') {
          const [rt, rf] = evalCond(r, lt);
          return [rt, join(lf, rf)];
        }
        const [rt, rf] = evalCond(r, lf);
        return [join(lt, rt), rf];
      }
      case 'identifier': {
        const s1 = evalExpr(n, s);
        return [narrow(s1, n, 'truthy', n), s1];
      }
      case 'named_expression': {
        const s1 = evalExpr(n, s);
        const nm = field(n, 'name');
        return [nm ? narrow(s1, nm, 'truthy', n) : s1, s1];
      }
      case 'call': {
        // `any(<genexpr with walrus>)` is true only after at least one iteration bound the walrus target
        const fn = field(n, 'function');
        const arg = field(n, 'arguments');
        const s1 = evalExpr(n, s);
        if (s1 && fn && src(fn) === 'any' && arg?.type === 'generator_expression') {
          let t: State = s1;
          for (const [k, defs] of s1) {
            if (s.get(k) === defs) continue;
            const walrus = [...defs].filter((d) => d.kind === 'walrus');
            if (walrus.length && walrus.length < defs.size) t = setKey(t, k, new Set([...defs].filter((d) => d.kind !== 'unbound')));
          }
          return [t, s1];
        }
        return [s1, s1];
      }
      case 'comparison_operator': {
        const kids = named(n);
        const ops = n.children.filter((c) => !c.named);
        const s1 = evalExpr(n, s);
        const local = localsTest(n);
        if (local) {
          // `"x" in locals()`: x is bound exactly when the test is true
          const sc = curScope(n);
          const key = keyOf(sc, local.name);
          const defs = s1 ? get(s1, key, local.name) : undefined;
          if (s1 && defs && active.has(sc)) {
            const bound = new Set([...defs].filter((d) => d.kind !== 'unbound'));
            const t = bound.size ? setKey(s1, key, bound) : null;
            const f = setKey(s1, key, new Set([unbound(key, local.name)]));
            return local.positive ? [t, f] : [f, t];
          }
        }
        if (kids.length === 2 && ops.length === 1) {
          const op = ops[0]!.type;
          const [a, b] = [unparen(kids[0]!), unparen(kids[1]!)];
          const id = isNoneNode(b) && a.type === 'identifier' ? a : isNoneNode(a) && b.type === 'identifier' ? b : undefined;
          if (id && (op === 'is' || op === '==')) return [narrow(s1, id, 'none', n), narrow(s1, id, 'not-none', n)];
          if (id && (op === 'is not' || op === '!=')) return [narrow(s1, id, 'not-none', n), narrow(s1, id, 'none', n)];
        }
        return [s1, s1];
      }
    }
    const s1 = evalExpr(n, s);
    return [s1, s1];
  };

 // ---- loops: indexes, non-empty iterables, integer bounds ------------------------------
  const intLit = (n: PyNode): number | undefined => {
    const u = unparen(n);
    if (u.type === 'integer') { const v = Number(src(u).replace(/_/g, '')); return Number.isFinite(v) ? v : undefined; }
    if (u.type === 'unary_operator' && src(u).startsWith('-')) { const a = firstNamed(u); const v = a ? intLit(a) : undefined; return v === undefined ? undefined : -v; }
    return undefined;
  };
  const callParts = (n: PyNode): { fn: string; args: PyNode[]; kw: Map<string, PyNode> } | undefined => {
    const u = unparen(n);
    if (u.type !== 'call') return undefined;
    const fn = field(u, 'function');
    const al = field(u, 'arguments');
    if (!fn || !al || al.type !== 'argument_list') return undefined;
    const args: PyNode[] = [];
    const kw = new Map<string, PyNode>();
    for (const a of named(al)) {
      if (a.type === 'comment') continue;
      if (a.type === 'keyword_argument') { const k = field(a, 'name'); const v = field(a, 'value'); if (k && v) kw.set(src(k), v); }
      else if (a.type === 'list_splat' || a.type === 'dictionary_splat') return undefined;
      else args.push(a);
    }
    return { fn: src(fn), args, kw };
  };
  /** `for i in range(k, …)` / `for i, x in enumerate(…, k)`: the index identifier and its first value (step 1). */
  const loopIndex = (left: PyNode, right: PyNode): { id: PyNode; start: number; stop?: string } | undefined => {
    const c = callParts(right);
    if (!c) return undefined;
    if (c.fn === 'range' && left.type === 'identifier' && c.args.length >= 1 && c.args.length <= 2) {
      const start = c.args.length === 2 ? intLit(c.args[0]!) : 0;
      return start === undefined ? undefined : { id: left, start, stop: flat(c.args[c.args.length - 1]!) };
    }
    if (c.fn === 'enumerate' && c.args.length >= 1) {
      const st = c.kw.get('start') ?? c.args[1];
      const start = st ? intLit(st) : 0;
      const l = unparen(left);
      const first = (l.type === 'pattern_list' || l.type === 'tuple_pattern' || l.type === 'tuple') ? named(l)[0] : undefined;
      return start !== undefined && first?.type === 'identifier' ? { id: first, start } : undefined;
    }
    return undefined;
  };
  /** Lower (`lo`) or upper (`hi`) bound of an integer expression, following local definitions; null when
   *  the expression holds no usable value on any path (only falsy ones, with `skipFalsy`). */
  const bound = (e: PyNode, dir: 'lo' | 'hi', depth: number, skipFalsy = false): number | null | undefined => {
    if (depth > 10) return undefined;
    const u = unparen(e);
    const lit = intLit(u);
    if (lit !== undefined) return skipFalsy && lit === 0 ? null : lit;
    const pick = (vals: Array<number | null | undefined>): number | null | undefined => {
      if (vals.some((v) => v === undefined)) return undefined;
      const nums = vals.filter((v): v is number => v !== null);
      if (!nums.length) return null;
      return dir === 'lo' ? Math.min(...nums) : Math.max(...nums);
    };
    if (u.type === 'boolean_operator') {
      const op = u.children.find((c) => c.field === 'operator')?.type;
      const l = field(u, 'left');
      const r = field(u, 'right');
      if (op !== 'or' || !l || !r) return undefined;
      return pick([bound(l, dir, depth + 1, true), bound(r, dir, depth + 1, skipFalsy)]);
    }
    if (u.type === 'conditional_expression') {
      const kids = named(u);
      return kids.length === 3 ? pick([bound(kids[0]!, dir, depth + 1, skipFalsy), bound(kids[2]!, dir, depth + 1, skipFalsy)]) : undefined;
    }
    if (u.type === 'binary_operator') {
      const op = u.children.find((c) => c.field === 'operator')?.type;
      const l = field(u, 'left');
      const r = field(u, 'right');
      if (!l || !r || (op !== '+' && op !== '-')) return undefined;
      const a = bound(l, dir, depth + 1);
      const b = bound(r, op === '+' ? dir : dir === 'lo' ? 'hi' : 'lo', depth + 1);
      if (typeof a !== 'number' || typeof b !== 'number') return undefined;
      return op === '+' ? a + b : a - b;
    }
    if (u.type !== 'identifier') return undefined;
    const defs = res.readDefs.get(u);
    if (!defs) return undefined;
    const vals: Array<number | null | undefined> = [];
    const ofDef = (d: Def): void => {
      if (d.kind === 'unbound') return;
      if (d.kind === 'narrow') { if (d.narrowed === 'none' && skipFalsy) return; for (const b of d.base ?? []) ofDef(b); if (!d.base?.length) vals.push(undefined); return; }
      if (skipFalsy && (constKind(d, text) === 'none' || isFalsyConst(d, text))) return;
      if ((d.kind === 'assign' || d.kind === 'annassign') && d.value && !d.index?.length) return void vals.push(bound(d.value, dir, depth + 1, skipFalsy));
      if (d.kind === 'for' && d.value && !d.index?.length) {
        const c = callParts(d.value);
        if (c?.fn === 'range' && c.args.length >= 1 && c.args.length <= 2) {
          if (dir === 'lo') return void vals.push(c.args.length === 2 ? bound(c.args[0]!, 'lo', depth + 1) : 0);
          const hi = bound(c.args[c.args.length - 1]!, 'hi', depth + 1);
          return void vals.push(typeof hi === 'number' ? hi - 1 : undefined);
        }
      }
      vals.push(undefined);
    };
    for (const d of defs) ofDef(d);
    return pick(vals);
  };
  /** The iterable yields at least one item: a non-empty literal, `range(a, b)` with a < b provable, … */
  const nonEmpty = (e: PyNode, depth: number, seen: Set<PyNode>): boolean => {
    const u = unparen(e);
    if (depth > 6 || seen.has(u)) return false;
    seen.add(u);
    if (nonEmptyLiteral(u)) return true;
    if (u.type === 'string') return !u.children.some((c) => c.type === 'interpolation') && /^[a-zA-Z]*(['"]{3}|['"])[\s\S]+\1$/.test(src(u));
    if (u.type === 'dictionary' || u.type === 'set') return named(u).some((k) => k.type !== 'comment' && k.type !== 'dictionary_splat' && k.type !== 'list_splat');
    const c = callParts(u);
    if (c) {
      if (c.fn === 'range' && c.args.length >= 1 && c.args.length <= 3) {
        if (c.args.length === 3 && !((intLit(c.args[2]!) ?? 0) > 0)) return false;
        if (c.args.length === 1) { const lo = bound(c.args[0]!, 'lo', 0); return typeof lo === 'number' && lo >= 1; }
        const hiStart = bound(c.args[0]!, 'hi', 0);
        const loStop = bound(c.args[1]!, 'lo', 0);
        return typeof hiStart === 'number' && typeof loStop === 'number' && hiStart < loStop;
      }
      if (['enumerate', 'reversed', 'sorted', 'list', 'tuple', 'iter'].includes(c.fn) && c.args[0]) return nonEmpty(c.args[0], depth + 1, seen);
      return false;
    }
    if (u.type === 'identifier') {
      const defs = res.readDefs.get(u);
      if (!defs || !defs.size) return false;
      if (testedTruthy(u, defs)) return true;
      return [...defs].every((d) => (d.kind === 'assign' || d.kind === 'annassign') && !!d.value && !d.index?.length && nonEmpty(d.value, depth + 1, seen));
    }
    return false;
  };

  /** The name was tested truthy (`if xs:`, `if len(xs) > 0:`, `if xs and …:`) by an `if` whose true
   *  branch holds this read, and it still holds the same definitions (a non-empty collection). */
  const testedTruthy = (id: PyNode, defs: Set<Def>): boolean => {
    const name = src(id);
    for (let c: PyNode = id, p = id.parent; p; c = p, p = p.parent) {
      if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') return false;
      if (p.type !== 'if_statement' && p.type !== 'elif_clause') continue;
      if (c.field !== 'consequence') continue;
      const cond = field(p, 'condition');
      const hit = cond ? truthyOperand(cond, name) : undefined;
      if (!hit) continue;
      const at = res.readDefs.get(hit);
      if (at && at.size === defs.size && [...defs].every((d) => at.has(d)) && ![...defs].some((d) => d.kind === 'unbound')) return true;
    }
    return false;
  };
  const truthyOperand = (cond: PyNode, name: string): PyNode | undefined => {
    const u = unparen(cond);
    if (u.type === 'identifier') return src(u) === name ? u : undefined;
    if (u.type === 'boolean_operator' && u.children.find((c) => c.field === 'operator')?.type === 'and') {
      const l = field(u, 'left');
      const r = field(u, 'right');
      return (l && truthyOperand(l, name)) || (r && truthyOperand(r, name)) || undefined;
    }
    if (u.type === 'comparison_operator') {
      const kids = named(u).map(unparen);
      const ops = u.children.filter((c) => !c.named).map((c) => c.type);
      if (kids.length === 2 && ops.length === 1) {
        const c = callParts(kids[0]!);
        const arg = c?.fn === 'len' && c.args.length === 1 ? unparen(c.args[0]!) : undefined;
        const k = intLit(kids[1]!);
        if (arg?.type === 'identifier' && src(arg) === name && k !== undefined && ((ops[0] === '>' && k >= 0) || (ops[0] === '>=' && k >= 1) || (ops[0] === '!=' && k === 0))) return arg;
      }
    }
    return undefined;
  };

  /** A statement that cannot raise: the state before it never reaches an `except` through it. */
  const cannotRaise = (n: PyNode, s: State): boolean => {
    if (n.type === 'pass_statement' || n.type === 'global_statement' || n.type === 'nonlocal_statement') return true;
    if (n.type !== 'expression_statement' || !s) return false;
    const kids = named(n);
    const a = kids[0];
    if (kids.length !== 1 || a!.type !== 'assignment' || field(a!, 'type')) return false;
    const l = field(a!, 'left');
    const r = field(a!, 'right');
    return !!l && !!r && l.type === 'identifier' && safeValue(r, s);
  };
  const safeValue = (v: PyNode, s: Map<string, Set<Def>>): boolean => {
    const u = unparen(v);
    switch (u.type) {
      case 'none': case 'true': case 'false': case 'integer': case 'float':
        return true;
      case 'identifier': {
        const t = trackedKey(u);
        return !!t && ![...get(s, t.key, src(u))].some((d) => d.kind === 'unbound');
      }
      case 'string':
        return u.children.every((c) => c.type !== 'interpolation' || named(c).every((k) => k.type === 'identifier' && safeValue(k, s)));
      case 'list': case 'tuple': case 'set':
        return named(u).every((k) => k.type !== 'list_splat' && safeValue(k, s));
      case 'dictionary':
        return named(u).every((k) => k.type === 'pair' && named(k).every((x) => safeValue(x, s)));
    }
    return false;
  };

  /** A write to `obj.attr` (assignment, augmented assignment, del, setattr/delattr) ends `hasattr(obj, "attr")` facts. */
  const dropAttrFacts = (s: State, target: PyNode): State => {
    if (!s) return s;
    const u = unparen(target);
    if (u.type === 'attribute') {
      const o = field(u, 'object');
      const at = field(u, 'attribute');
      const key = o && at ? `#${hasattrAtom(src(o), src(at))}` : '';
      if (key && s.has(key)) { const m = new Map(s); m.delete(key); return m; }
      return s;
    }
    if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'expression_list'].includes(u.type)) for (const k of named(u)) s = dropAttrFacts(s, k);
    return s;
  };
  const dropAllAttrFacts = (s: State, obj: string): State => {
    if (!s) return s;
    const prefix = `#hasattr(${obj},`;
    if (![...s.keys()].some((k) => k.startsWith(prefix))) return s;
    const m = new Map(s);
    for (const k of s.keys()) if (k.startsWith(prefix)) m.delete(k);
    return m;
  };

  // ---- statements ----------------------------------------------------------------------
  const execBlock = (n: PyNode | undefined, s: State): State => {
    if (!n) return s;
    for (const c of n.children) {
      if (!c.named || c.type === 'comment') continue;
      if (!s) return null;
      s = exec(c, s);
    }
    return s;
  };

  const curScope = (n: PyNode): Scope => {
    for (let p = n.parent; p; p = p.parent) {
      const sc = table.byNode.get(p);
      if (sc) return sc;
    }
    return table.module;
  };

  const assign = (n: PyNode, s: State): State => {
    const left = field(n, 'left');
    const right = field(n, 'right');
    const type = field(n, 'type');
    if (n.type === 'augmented_assignment') {
      if (right) s = evalExpr(right, s);
      if (left) {
        if (left.type === 'identifier') {
          recordRead(left, s);
          s = bindId(s, left, 'augassign', n, []);
        } else s = dropAttrFacts(evalExpr(left, s), left);
      }
      return s;
    }
    // chained `a = b = value`: the innermost right is the value
    const targets: PyNode[] = [];
    let cur: PyNode | undefined = n;
    let value: PyNode | undefined;
    while (cur && cur.type === 'assignment') {
      const l = field(cur, 'left');
      const r = field(cur, 'right');
      if (l && !(field(cur, 'type') && !r)) targets.push(l);
      if (!r) { value = undefined; break; }
      if (r.type !== 'assignment') { value = r; break; }
      cur = r;
    }
    if (value) s = evalExpr(value, s);
    if (!right && type && left && left.type !== 'identifier') s = evalExpr(left, s);
    for (const t of targets) s = dropAttrFacts(bindTarget(s, t, type ? 'annassign' : 'assign', value, []), t);
    return s;
  };

  const exec = (n: PyNode, s: State): State => {
    if (!s) return null;
    if (!cannotRaise(n, s)) observe(s);
    switch (n.type) {
      case 'expression_statement': {
        for (const c of named(n)) {
          if (c.type === 'assignment' || c.type === 'augmented_assignment') s = assign(c, s);
          else {
            s = evalExpr(c, s);
            const e = unparen(c);
            const call = e.type === 'await' ? firstNamed(e) : e;
            if (call && call.type === 'call' && env.isNoReturnCall(call, curScope(n))) return null;
            const fnText = call?.type === 'call' ? src(field(call, 'function') ?? call) : '';
            if (fnText === 'setattr' || fnText === 'delattr') {
              const obj = named(field(call!, 'arguments') ?? call!)[0];
              if (obj) s = dropAllAttrFacts(s, src(obj));
            }
          }
        }
        return s;
      }
      case 'return_statement': {
        for (const c of named(n)) s = evalExpr(c, s);
        if (finals.length) finals[finals.length - 1]!.push(s);
        return null;
      }
      case 'raise_statement': {
        for (const c of named(n)) s = evalExpr(c, s);
        observe(s);
        return null;
      }
      case 'break_statement':
        loops[loops.length - 1]?.breaks.push(s);
        return null;
      case 'continue_statement':
        loops[loops.length - 1]?.conts.push(s);
        return null;
      case 'pass_statement': case 'global_statement': case 'nonlocal_statement': case 'future_import_statement':
        return s;
      case 'assert_statement': {
        const kids = named(n);
        if (!kids[0]) return s;
        const [t, f] = evalCond(kids[0], s);
        if (kids[1]) evalExpr(kids[1], f);
        observe(f);
        return t;
      }
      case 'delete_statement': {
        const del = (x: PyNode) => {
          if (x.type === 'identifier') {
            recordRead(x, s);
            s = bindId(s, x, 'del');
          }
          else if (x.type === 'expression_list' || x.type === 'tuple' || x.type === 'list' || x.type === 'parenthesized_expression') named(x).forEach(del);
          else s = dropAttrFacts(evalExpr(x, s), x);
        };
        named(n).forEach(del);
        return s;
      }
      case 'import_statement': case 'import_from_statement': {
        for (const c of fields(n, 'name')) {
          if (c.type === 'aliased_import') {
            const a = field(c, 'alias');
            if (a) s = bindId(s, a, 'import', n);
          } else {
            const ids = named(c);
            const id = n.type === 'import_statement' ? ids[0] : ids[ids.length - 1];
            if (id) s = bindId(s, id, 'import', n);
          }
        }
        return s;
      }
      case 'decorated_definition': {
        for (const c of named(n)) if (c.type === 'decorator') s = evalExpr(c, s);
        const d = field(n, 'definition');
        return d ? exec(d, s) : s;
      }
      case 'function_definition': {
        if (unitKind === 'module' && active.size === 1) res.defState.set(n, s);
        const p = field(n, 'parameters');
        if (p) for (const c of named(p)) { const v = field(c, 'value'); if (v) s = evalExpr(v, s); }
        const nm = field(n, 'name');
        return nm ? bindId(s, nm, 'def', n) : s;
      }
      case 'class_definition': {
        if (unitKind === 'module' && active.size === 1) res.defState.set(n, s);
        const sc = field(n, 'superclasses');
        if (sc) s = evalExpr(sc, s);
        const cls = table.byNode.get(n);
        if (cls) active.add(cls);
        const out = execBlock(field(n, 'body'), s);
        if (cls) active.delete(cls);
        if (!out || !s) return null;
        // class-body locals do not outlive the body; keep the enclosing state's keys
        let s2: State = s;
        for (const [k, v] of out) if (!cls || !k.startsWith(`${cls.id}:`)) if (s.get(k) !== v) s2 = setKey(s2, k, v);
        const nm = field(n, 'name');
        return nm ? bindId(s2, nm, 'class', n) : s2;
      }
      case 'if_statement': {
        const cond = field(n, 'condition');
        const conds: Array<PyNode | undefined> = [cond];
        let [t, f] = cond ? evalCond(cond, s) : [s, s];
        const outs: State[] = [execBlock(field(n, 'consequence'), t)];
        let hadElse = false;
        for (const alt of fields(n, 'alternative')) {
          if (alt.type === 'elif_clause') {
            const c2 = field(alt, 'condition');
            conds.push(c2);
            const [t2, f2] = c2 ? evalCond(c2, f) : [f, f];
            outs.push(execBlock(field(alt, 'consequence'), t2));
            f = f2;
          } else if (alt.type === 'else_clause') {
            hadElse = true;
            outs.push(execBlock(field(alt, 'body'), f));
          }
        }
        if (!hadElse) outs.push(f);
        return recordFacts(n, conds, outs, join(...outs));
      }
      case 'while_statement': {
        const cond = field(n, 'condition');
        let head: State = s;
        let exitF: State = null;
        let breaks: State[] = [];
        for (let i = 0; i < 6; i++) {
          const [t, f] = cond ? evalCond(cond, head) : [head, null];
          exitF = f;
          loops.push({ breaks: [], conts: [] });
          const out = execBlock(field(n, 'body'), t);
          const ctx = loops.pop()!;
          breaks = ctx.breaks;
          const next = join(s, out, ...ctx.conts);
          if (equal(next, head)) break;
          head = next;
        }
        const alt = field(n, 'alternative');
        const normal = alt ? execBlock(field(alt, 'body'), exitF) : exitF;
        return join(normal, ...breaks);
      }
      case 'for_statement': {
        const right = field(n, 'right');
        const left = field(n, 'left');
        const s1 = right ? evalExpr(right, s) : s;
        const idx = left && right ? loopIndex(left, right) : undefined;
        // the first pass runs apart from the later ones: the index is known there, and a loop over a
        // provably non-empty iterable leaves only after at least one pass
        // a body that tests "is this the last pass" (`if attempt < retries - 1: … else: raise`) gets one
        // more pass for the last iteration: only that pass leaves the loop normally
        const body = field(n, 'body');
        const lastText = idx?.stop && /^\d+$/.test(idx.stop) ? `(${idx.stop}\\s*-\\s*1|${Number(idx.stop) - 1})\\b` : `${(idx?.stop ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*-\\s*1\\b`;
        const lastAware = !!idx?.stop && !!body && new RegExp(`(^|\\W)${src(idx.id)}\\s*(\\+\\s*1\\b|[<>=!]=?\\s*${lastText})`).test(src(body));
        const pass = (head: State, first: boolean | undefined, last?: boolean) => {
          observe(head);
          const sb = left ? bindTarget(head, left, 'for', right, []) : head;
          const idxDef = idx ? res.defAt.get(idx.id) : undefined;
          if (idxDef) iterFacts.push({ def: idxDef, start: idx!.start, first, last: lastAware ? last : undefined, stop: idx!.stop });
          loops.push({ breaks: [], conts: [] });
          const out = execBlock(field(n, 'body'), sb);
          const ctx = loops.pop()!;
          if (idxDef) iterFacts.pop();
          return { after: join(out, ...ctx.conts), breaks: ctx.breaks };
        };
        const p1 = pass(s1, true, false);
        let breaks = p1.breaks;
        let head: State = p1.after;
        for (let i = 0; i < 6 && head; i++) {
          const p = pass(head, false, false);
          breaks = [...p1.breaks, ...p.breaks];
          const next = join(p1.after, p.after);
          if (equal(next, head)) break;
          head = next;
        }
        let done = head;
        if (lastAware) {
          const pl = pass(join(s1, head), undefined, true);
          breaks = [...breaks, ...pl.breaks];
          done = pl.after;
        }
        const alt = field(n, 'alternative');
        const exitState = right && nonEmpty(right, 0, new Set()) ? done : join(s1, done);
        const normal = alt ? execBlock(field(alt, 'body'), exitState) : exitState;
        return join(normal, ...breaks);
      }
      case 'with_statement': {
        let suppress = false;
        for (const c of named(n)) {
          if (c.type !== 'with_clause') continue;
          for (const v of withItemValues(c)) {
            let ctxExpr = v;
            if (v.type === 'as_pattern') {
              const kids = named(v);
              ctxExpr = kids[0] ?? v;
              s = evalExpr(ctxExpr, s);
              const alias = field(v, 'alias');
              if (alias) s = bindTarget(s, alias, 'with', ctxExpr, []);
            } else s = evalExpr(v, s);
            if (ctxExpr.type === 'call') {
              const fn = field(ctxExpr, 'function');
              const t = fn ? src(fn) : '';
              if (t === 'suppress' || t.endsWith('.suppress')) suppress = true;
            }
          }
        }
        if (!suppress) return execBlock(field(n, 'body'), s);
        excs.push([]);
        const out = execBlock(field(n, 'body'), s);
        const caught = excs.pop()!;
        return join(out, ...caught);
      }
      case 'try_statement': {
        const handlers = n.children.filter((c) => c.type === 'except_clause' || c.type === 'except_group_clause');
        const elseC = n.children.find((c) => c.type === 'else_clause');
        const fin = n.children.find((c) => c.type === 'finally_clause');
        const catchAll = handlers.some((h) => isCatchAll(h, text));
        excs.push([]);
        if (fin) finals.push([]);
        const body = execBlock(field(n, 'body'), s);
        const raised = excs.pop()!;
        if (!catchAll && excs.length) excs[excs.length - 1]!.push(...raised);
        const outs: State[] = [elseC ? execBlock(field(elseC, 'body'), body) : body];
        const hEntry = join(...raised);
        for (const h of handlers) {
          let hs = hEntry;
          let alias: PyNode | undefined;
          for (const c of named(h)) {
            if (c.type === 'block') continue;
            if (c.type === 'as_pattern') {
              const k = named(c)[0];
              if (k) hs = evalExpr(k, hs);
              const a = field(c, 'alias');
              alias = a ? firstNamed(a) ?? a : undefined;
              if (alias) hs = bindId(hs, alias, 'except', k);
            } else hs = evalExpr(c, hs);
          }
          let out = execBlock(named(h).find((c) => c.type === 'block'), hs);
          if (alias && alias.type === 'identifier' && out) {
            const sc = table.bindingScope.get(alias);
            if (sc) { const key = keyOf(sc, src(alias)); out = setKey(out, key, new Set([unbound(key, src(alias))])); }
          }
          outs.push(out);
        }
        const normal = join(...outs);
        if (!fin) return normal;
        const pending = finals.pop()!;
        const fb = field(fin, 'body') ?? named(fin).find((c) => c.type === 'block');
        execBlock(fb, join(normal, ...(catchAll ? [] : raised), ...pending));
        if (pending.length && finals.length) finals[finals.length - 1]!.push(...pending);
        return normal ? execBlock(fb, normal) : null;
      }
      case 'match_statement': {
        const subj = field(n, 'subject');
        if (subj) s = evalExpr(subj, s);
        let rest: State = s;
        const outs: State[] = [];
        const body = n.children.find((c) => c.type === 'block');
        for (const cc of body ? named(body) : []) {
          if (cc.type !== 'case_clause') continue;
          let cs: State = rest;
          let irrefutable = false;
          let guard: PyNode | undefined;
          for (const k of named(cc)) {
            if (k.type === 'case_pattern') {
              cs = bindPattern(k, cs);
              irrefutable ||= isIrrefutable(k);
            } else if (k.field === 'guard') guard = firstNamed(k);
            else if (k.type === 'block') {
              let t = cs;
              if (guard) [t] = evalCond(guard, cs);
              outs.push(execBlock(k, t));
            }
          }
          if (irrefutable && !guard) { rest = null; break; }
        }
        outs.push(rest);
        return join(...outs);
      }
      default: {
        for (const c of n.children) if (c.named) s = c.type === 'block' ? execBlock(c, s) : evalExpr(c, s);
        return s;
      }
    }
  };

  const bindPattern = (n: PyNode, s: State): State => {
    switch (n.type) {
      case 'dotted_name': {
        const ids = named(n);
        if (ids.length === 1 && n.parent && n.parent.type !== 'class_pattern') return bindId(s, ids[0]!, 'match');
        if (ids[0]) recordRead(ids[0], s);
        return s;
      }
      case 'splat_pattern': case 'as_pattern':
        for (const c of named(n)) s = c.type === 'identifier' ? bindId(s, c, 'match') : bindPattern(c, s);
        return s;
      case 'keyword_pattern': {
        const kids = named(n);
        for (let i = 1; i < kids.length; i++) s = bindPattern(kids[i]!, s);
        return s;
      }
      case 'identifier':
        recordRead(n, s);
        return s;
      case 'string': case 'concatenated_string':
        return s;
      default:
        for (const c of named(n)) s = bindPattern(c, s);
        return s;
    }
  };

  const isIrrefutable = (cp: PyNode): boolean => {
    const kids = cp.children;
    if (kids.length === 1 && kids[0]!.type === '_') return true;
    const only = named(cp);
    if (only.length === 1 && only[0]!.type === 'dotted_name' && named(only[0]!).length === 1) return true;
    if (only.length === 1 && only[0]!.type === 'as_pattern') {
      const inner = named(only[0]!).find((c) => c.type === 'case_pattern');
      return inner ? isIrrefutable(inner) : false;
    }
    return false;
  };

  // ---- units ---------------------------------------------------------------------------
  const runUnit = (scope: Scope) => {
    active = new Set([scope]);
    unitKind = scope.kind;
    loops = [];
    excs = [];
    finals = [];
    iterFacts = [];
    let s: State = new Map();
    if (scope.kind === 'module') {
      res.moduleEnd = execBlock(scope.node, s);
      return;
    }
    const p = field(scope.node, 'parameters');
    if (p) {
      for (const c of named(p)) {
        let id: PyNode | undefined = c.type === 'identifier' ? c : field(c, 'name');
        if (!id) {
          const k = named(c).find((x) => x.type === 'identifier' || x.type === 'list_splat_pattern' || x.type === 'dictionary_splat_pattern');
          id = k && k.type !== 'identifier' ? named(k)[0] : k;
        }
        if (id) s = bindId(s, id, 'param');
      }
    }
    const body = field(scope.node, 'body');
    if (!body) return;
    if (scope.kind === 'lambda') evalExpr(body, s);
    else execBlock(body, s);
  };

  for (const sc of table.scopes) if (sc.kind === 'module' || sc.kind === 'function' || sc.kind === 'lambda') runUnit(sc);
  return res;
}

/** A loop index on one kind of pass: the first (`first`), the last (`last`, when the body tests it). */
interface IterFact {
  def: Def;
  start: number;
  first: boolean | undefined;
  last: boolean | undefined;
  /** Source of the range's stop, whitespace removed (`max_retries`). */
  stop?: string;
}

function nonEmptyLiteral(n: PyNode): boolean {
  const u = unparen(n);
  if (u.type !== 'tuple' && u.type !== 'list') return false;
  const kids = named(u);
  return kids.length > 0 && !kids.some((k) => k.type === 'list_splat');
}

function isCatchAll(handler: PyNode, text: string): boolean {
  const types = handlerTypes(handler, text);
  return types === null || types.some((t) => CATCH_ALL.has(t));
}

/** Exception type names a handler catches (last dotted segment); null for a bare `except:`. */
export function handlerTypes(handler: PyNode, text: string): string[] | null {
  let e: PyNode | undefined;
  for (const c of named(handler)) {
    if (c.type === 'block' || c.type === 'comment') continue;
    e = c.type === 'as_pattern' ? named(c)[0] : c;
    break;
  }
  if (!e) return null;
  const out: string[] = [];
  const add = (x: PyNode) => {
    const u = unparen(x);
    if (u.type === 'tuple' || u.type === 'expression_list') named(u).forEach(add);
    else {
      const t = text.slice(u.start, u.end);
      out.push(t.slice(t.lastIndexOf('.') + 1));
    }
  };
  add(e);
  return out;
}

export type ConstKind = 'none' | 'str' | 'int' | 'float' | 'bool' | 'bytes';

/** Constant kind of a definition's value when it is a plain literal (or a narrowing to None). */
export function constKind(d: Def, text: string): ConstKind | undefined {
  if (d.kind === 'narrow') return d.narrowed === 'none' ? 'none' : undefined;
  if (!d.value || (d.index && d.index.length) || (d.kind !== 'assign' && d.kind !== 'annassign' && d.kind !== 'walrus')) return undefined;
  return literalKind(unparen(d.value), text);
}

function literalKind(v: PyNode, text: string): ConstKind | undefined {
  switch (v.type) {
    case 'none': return 'none';
    case 'true': case 'false': return 'bool';
    case 'integer': return 'int';
    case 'float': return 'float';
    case 'string': return text[v.start] === 'b' || text[v.start] === 'B' ? 'bytes' : v.children.some((c) => c.type === 'interpolation') ? undefined : 'str';
    case 'unary_operator': {
      const a = firstNamed(v);
      return a && (a.type === 'integer' || a.type === 'float') ? (a.type === 'integer' ? 'int' : 'float') : undefined;
    }
  }
  return undefined;
}

function isFalsyConst(d: Def, text: string): boolean {
  const k = constKind(d, text);
  if (!k || !d.value) return false;
  if (k === 'none') return true;
  const t = text.slice(d.value.start, d.value.end);
  return t === 'False' || t === '0' || t === '""' || t === "''" || t === '0.0';
}
