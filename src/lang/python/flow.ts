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
import { type Scope, type ScopeTable, type BindingKind, isComprehension, resolveScope } from './scopes.js';

export type DefKind = BindingKind | 'unbound' | 'narrow';

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
}

export interface FlowEnv {
  text: string;
  table: ScopeTable;
  isBuiltin(name: string): boolean;
  /** Static value of a condition (TYPE_CHECKING, sys.platform, sys.version_info); undefined when not static. */
  staticTruth(n: PyNode): boolean | undefined;
  /** True when a call never returns (sys.exit, a local function that always raises…). */
  isNoReturnCall(call: PyNode, scope: Scope): boolean;
}

const CATCH_ALL = new Set(['Exception', 'BaseException']);

export function runFlow(env: FlowEnv): FlowResult {
  const { table, text } = env;
  const src = (n: PyNode) => text.slice(n.start, n.end);
  let nextId = 1;
  const unboundDefs = new Map<string, Def>();
  const res: FlowResult = { readDefs: new Map(), reachable: new Set(), defAt: new Map(), classFallback: new Set(), moduleEnd: null, defState: new Map() };
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

  /** Evaluate a condition; returns the states where it is true / false (null = impossible). */
  const evalCond = (n0: PyNode, s: State): [State, State] => {
    if (!s) return [null, null];
    const n = unparen(n0);
    const st = env.staticTruth(n);
    if (st !== undefined) {
      const s1 = evalExpr(n, s);
      return st ? [s1, null] : [null, s1];
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
        } else s = evalExpr(left, s);
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
    for (const t of targets) s = bindTarget(s, t, type ? 'annassign' : 'assign', value, []);
    return s;
  };

  const exec = (n: PyNode, s: State): State => {
    if (!s) return null;
    observe(s);
    switch (n.type) {
      case 'expression_statement': {
        for (const c of named(n)) {
          if (c.type === 'assignment' || c.type === 'augmented_assignment') s = assign(c, s);
          else {
            s = evalExpr(c, s);
            const e = unparen(c);
            const call = e.type === 'await' ? firstNamed(e) : e;
            if (call && call.type === 'call' && env.isNoReturnCall(call, curScope(n))) return null;
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
          else s = evalExpr(x, s);
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
        let [t, f] = cond ? evalCond(cond, s) : [s, s];
        const outs: State[] = [execBlock(field(n, 'consequence'), t)];
        let hadElse = false;
        for (const alt of fields(n, 'alternative')) {
          if (alt.type === 'elif_clause') {
            const c2 = field(alt, 'condition');
            const [t2, f2] = c2 ? evalCond(c2, f) : [f, f];
            outs.push(execBlock(field(alt, 'consequence'), t2));
            f = f2;
          } else if (alt.type === 'else_clause') {
            hadElse = true;
            outs.push(execBlock(field(alt, 'body'), f));
          }
        }
        if (!hadElse) outs.push(f);
        return join(...outs);
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
        let head: State = s1;
        let breaks: State[] = [];
        let lastExit: State = null;
        for (let i = 0; i < 6; i++) {
          observe(head);
          const sb = left ? bindTarget(head, left, 'for', right, []) : head;
          loops.push({ breaks: [], conts: [] });
          const out = execBlock(field(n, 'body'), sb);
          const ctx = loops.pop()!;
          breaks = ctx.breaks;
          const next = join(s1, out, ...ctx.conts);
          lastExit = join(out, ...ctx.conts);
          if (equal(next, head)) break;
          head = next;
        }
        const alt = field(n, 'alternative');
        const exitState = right && nonEmptyLiteral(right) ? lastExit : head;
        const normal = alt ? execBlock(field(alt, 'body'), exitState) : exitState;
        return join(normal, ...breaks);
      }
      case 'with_statement': {
        let suppress = false;
        for (const c of named(n)) {
          if (c.type !== 'with_clause') continue;
          for (const item of named(c)) {
            const v = field(item, 'value');
            if (!v) continue;
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

function nonEmptyLiteral(n: PyNode): boolean {
  const u = unparen(n);
  if (u.type !== 'tuple' && u.type !== 'list') return false;
  const kids = named(u);
  return kids.length > 0 && !kids.some((k) => k.type === 'list_splat');
}

export function isCatchAll(handler: PyNode, text: string): boolean {
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

export function literalKind(v: PyNode, text: string): ConstKind | undefined {
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
