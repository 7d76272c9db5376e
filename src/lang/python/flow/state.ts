/**
 * The state every part of the flow analysis shares (see `../flow.ts`): the lattice of reaching
 * definitions, the result being filled, and the context of the execution unit being run.
 */
import type { PyNode } from '../tree.js';
import { type Scope, type ScopeTable, type BindingKind, resolveScope } from '../scopes.js';
import type { AtomTest, ValueSet } from '../conditions.js';

export type DefKind = BindingKind | 'unbound' | 'narrow' | 'fact';

/** What an if-chain over a pure atom established: for each branch that completes, the atom's
 *  values on it and the state at its end (a later test of the atom keeps the consistent branches). */
export interface FactInfo {
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

/** Reaching definitions per state key; null where the program point is unreachable. */
export type State = Map<string, Set<Def>> | null;

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
  /** What each execution unit's run wrote, by the unit's scope node: the next analysis of an edited text
   *  copies the entries of a unit it proves unchanged instead of running it again (`runFlow`'s `reuse`). */
  units: Map<PyNode, UnitLog>;
  /** Highest definition id handed out (a run that copies units numbers its new definitions above it). */
  maxId: number;
}

/** The result entries one unit's run created: name reads reached (with their reaching definitions and
 *  class-body fallbacks, when recorded) and binding identifiers (with their definitions). */
export interface UnitLog {
  scopeId: number;
  reads: PyNode[];
  binds: PyNode[];
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

/** A loop index on one kind of pass: the first (`first`), the last (`last`, when the body tests it). */
export interface IterFact {
  def: Def;
  start: number;
  first: boolean | undefined;
  last: boolean | undefined;
  /** Source of the range's stop, whitespace removed (`max_retries`). */
  stop?: string;
}

/** States leaving the innermost loop by `break` and by `continue`. */
interface LoopExits {
  breaks: State[];
  conts: State[];
}

/** Steps one flow analysis may take (a state entry copied or joined counts one): states are copied at
 *  every binding, so the work grows with the names of a scope times its bindings — 40,000 variables in one
 *  function ran for minutes (issue 30). The real corpora's largest module takes 90,000 steps, 1 % of it. */
export const FLOW_BUDGET = 10_000_000;

/** The flow analysis of a unit went over `FLOW_BUDGET`: the analysis stops, and the file is reported. */
export class FlowBudgetExceeded extends Error {
  constructor(readonly names: number) {
    super(`flow analysis over its budget of ${FLOW_BUDGET} steps`);
  }
}

let work = 0;
let widest = 0;
/** Count `n` steps of the flow analysis running (`runFlow` resets the count). */
function spend(n: number): void {
  if (n > widest) widest = n;
  if ((work += n) > FLOW_BUDGET) throw new FlowBudgetExceeded(widest);
}

/** Run `f` with a fresh step count (a flow analysis may start another file's, which has its own budget). */
export function withFlowBudget<T>(f: () => T): T {
  const saved = [work, widest] as const;
  work = 0;
  widest = 0;
  try {
    return f();
  } finally {
    [work, widest] = saved;
  }
}

export const keyOf = (s: Scope, name: string) => `${s.id}:${name}`;
export const nameOfKey = (k: string) => k.slice(k.indexOf(':') + 1);

/** A copy of a state's map. `forEach` into a new map: `new Map(map)` goes through the iterator protocol
 *  (an entry array and an iterator result per key), and flow copies a state at every binding. */
export function copyState(s: Map<string, Set<Def>>): Map<string, Set<Def>> {
  spend(s.size);
  const m = new Map<string, Set<Def>>();
  s.forEach((v, k) => m.set(k, v));
  return m;
}

export function setKey(s: State, key: string, defs: Set<Def>): State {
  if (!s) return s;
  const m = copyState(s);
  m.set(key, defs);
  return m;
}

export function equalStates(a: State, b: State): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || w.size !== v.size) return false;
    if (w !== v) for (const x of v) if (!w.has(x)) return false;
  }
  return true;
}

export class FlowState {
  readonly table: ScopeTable;
  readonly text: string;
  readonly res: FlowResult = { readDefs: new Map(), reachable: new Set(), defAt: new Map(), classFallback: new Set(), moduleEnd: null, defState: new Map(), callState: new Map(), units: new Map(), maxId: 0 };
  private nextId = 1;
  /** The log of the unit being run. */
  private log: UnitLog = { scopeId: -1, reads: [], binds: [] };
  private readonly unboundDefs = new Map<string, Def>();
  private readonly unboundSets = new Map<string, Set<Def>>();
  /** {d} of each definition bound, one set per definition (sets in states are never changed in place):
   *  a loop's later passes bind the same set again, which `join` and `equalStates` see by identity. */
  private readonly singles = new Map<Def, Set<Def>>();
  /** The fact def each if-statement recorded per atom (reused across passes so loops reach a fixpoint). */
  readonly factDefs = new Map<PyNode, Map<string, Def>>();

  // ---- per-unit mutable context (reset by `beginUnit`) -----------------------------------
  /** Scopes whose locals the executing unit tracks (the unit, plus class bodies and comprehensions it runs). */
  active = new Set<Scope>();
  unitKind: Scope['kind'] = 'module';
  loops: LoopExits[] = [];
  /** States that may raise, per enclosing `try` (or `with suppress(…)`). */
  excs: State[][] = [];
  /** States leaving by `return`, per enclosing `try … finally`. */
  finals: State[][] = [];
  /** Loop indexes (`for i in range(…)`, `for i, x in enumerate(…)`) whose first pass is running (`first`) or not. */
  iterFacts: IterFact[] = [];

  constructor(readonly env: FlowEnv) {
    this.table = env.table;
    this.text = env.text;
  }

  beginUnit(scope: Scope): void {
    this.log = { scopeId: scope.id, reads: [], binds: [] };
    this.res.units.set(scope.node, this.log);
    this.active = new Set([scope]);
    this.unitKind = scope.kind;
    this.loops = [];
    this.excs = [];
    this.finals = [];
    this.iterFacts = [];
  }

  src(n: PyNode): string {
    return this.text.slice(n.start, n.end);
  }

  /** A fresh definition id (ids follow creation order). */
  newId(): number {
    return this.nextId++;
  }

  /** Number new definitions above `id` (the highest id of the units copied from a previous result). */
  idsAbove(id: number): void {
    if (id >= this.nextId) this.nextId = id + 1;
  }

  /** The result, with the highest id handed out. */
  finish(): FlowResult {
    this.res.maxId = this.nextId - 1;
    return this.res;
  }

  /** The synthetic UNBOUND definition of a state key. */
  unbound(key: string, name: string): Def {
    let d = this.unboundDefs.get(key);
    if (!d) this.unboundDefs.set(key, (d = { id: this.nextId++, key, name, kind: 'unbound', node: null }));
    return d;
  }

  /** {UNBOUND} of a state key, one set per key: states and their sets are never changed in place
   *  (setKey and join build new ones), so every state that lacks the key can share it. */
  unboundSet(key: string, name: string): Set<Def> {
    let u = this.unboundSets.get(key);
    if (!u) this.unboundSets.set(key, (u = new Set([this.unbound(key, name)])));
    return u;
  }

  get(s: Map<string, Set<Def>>, key: string, name: string): Set<Def> {
    return s.get(key) ?? this.unboundSet(key, name);
  }

  /**
   * The union of states, key by key (keys in first-seen order). The first live state is returned
   * itself when the union changes none of its keys (a branch or loop pass that bound nothing new):
   * a new map is made only from the first key that differs.
   */
  join(...states: State[]): State {
    return this.joinAll(states);
  }

  /** `join` of an array: a spread of 100,000 states (a `match` of that many cases, an `elif` chain, the
   *  statements of a `try` body that may raise) overflows the stack as arguments (issue 30). */
  joinAll(states: readonly State[]): State {
    const live = states.filter((x): x is Map<string, Set<Def>> => !!x);
    if (live.length === 0) return null;
    if (live.length === 1) return live[0]!;
    const base = live[0]!;
    let size = 0;
    for (const x of live) size += x.size;
    spend(size);
    // One pass over every state's keys (linear in their total size: issue 30, 10,000 `except` handlers
    // each binding its own alias made a key-by-key scan over every state quadratic). Per key: the union
    // so far, whether it is still a set of one of the states (shared, not copied), and the last state
    // that had the key; a state that lacks a key contributes {UNBOUND} at its place in the order, so the
    // union's insertion order is the same as merging state by state.
    interface Acc { set: Set<Def>; shared: boolean; last: number }
    const accs = new Map<string, Acc>();
    const add = (a: Acc, d: Set<Def>) => {
      if (a.set === d) return;
      if (a.shared) { a.set = new Set(a.set); a.shared = false; }
      for (const x of d) a.set.add(x);
    };
    for (let i = 0; i < live.length; i++) {
      live[i]!.forEach((d, k) => {
        const a = accs.get(k);
        if (!a) {
          if (i === 0) accs.set(k, { set: d, shared: true, last: 0 });
          else {
            const n: Acc = { set: this.unboundSet(k, nameOfKey(k)), shared: true, last: i };
            add(n, d);
            accs.set(k, n);
          }
          return;
        }
        if (a.last < i - 1) add(a, this.unboundSet(k, nameOfKey(k)));
        add(a, d);
        a.last = i;
      });
    }
    const lastIndex = live.length - 1;
    let changed = accs.size !== base.size;
    accs.forEach((a, k) => {
      if (a.last < lastIndex) add(a, this.unboundSet(k, nameOfKey(k)));
      if (!changed && a.set !== base.get(k)) changed = true;
    });
    if (!changed) return base;
    spend(base.size);
    const out = new Map<string, Set<Def>>();
    accs.forEach((a, k) => out.set(k, a.set));
    return out;
  }

  /** The state may raise here: the innermost handler sees it. */
  observe(s: State): void {
    if (s && this.excs.length) this.excs[this.excs.length - 1]!.push(s);
  }

  /** Key of a name read if it is tracked by the executing unit. */
  trackedKey(id: PyNode): { key: string; scope: Scope } | undefined {
    const r = this.table.readByNode.get(id);
    if (!r) return undefined;
    const sc = resolveScope(r.scope, r.name);
    if (!sc || !this.active.has(sc)) return undefined;
    return { key: keyOf(sc, r.name), scope: sc };
  }

  recordRead(id: PyNode, s: State): void {
    if (!s) return;
    const r = this.table.readByNode.get(id);
    if (!r) return;
    const res = this.res;
    if (!res.reachable.has(id)) {
      res.reachable.add(id);
      this.log.reads.push(id);
    }
    if (r.inAnnotation) return;
    if (this.atModuleTop() && id.field === 'function' && id.parent?.type === 'call') {
      const prev = res.callState.get(id);
      res.callState.set(id, prev ? this.join(prev, s)! : s);
    }
    const sc = resolveScope(r.scope, r.name);
    if (!sc || !this.active.has(sc)) return;
    let defs = this.get(s, keyOf(sc, r.name), r.name);
    if (sc.kind === 'class') {
      const ub = [...defs].some((d) => d.kind === 'unbound');
      if (ub && (this.env.isBuiltin(r.name) || (sc.parent && resolveScope(sc.parent, r.name)))) {
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
  }

  bindId(s: State, id: PyNode, kind: DefKind, value?: PyNode, index?: number[]): State {
    if (!s || id.type !== 'identifier') return s;
    const sc = this.table.bindingScope.get(id);
    if (!sc) return s;
    const name = this.src(id);
    const key = keyOf(sc, name);
    let d = this.res.defAt.get(id);
    if (!d) {
      d = { id: this.nextId++, key, name, kind, node: id, value, index };
      this.res.defAt.set(id, d);
      this.log.binds.push(id);
    }
    if (kind === 'del') return setKey(s, key, this.unboundSet(key, name));
    let one = this.singles.get(d);
    if (!one) this.singles.set(d, (one = new Set<Def>().add(d)));
    return setKey(s, key, one);
  }

  /** Scope whose body holds `n`. */
  curScope(n: PyNode): Scope {
    for (let p = n.parent; p; p = p.parent) {
      const sc = this.table.byNode.get(p);
      if (sc) return sc;
    }
    return this.table.module;
  }

  /** The module body runs at top level (not inside a class body or comprehension). */
  atModuleTop(): boolean {
    return this.unitKind === 'module' && this.active.size === 1;
  }
}
