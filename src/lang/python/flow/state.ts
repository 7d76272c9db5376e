/**
 * The state every part of the flow analysis shares (see `../flow.ts`): the lattice of reaching
 * definitions, the result being filled, and the context of the execution unit being run.
 */
import type { PyNode } from '../tree.js';
import { type Scope, type ScopeTable, type BindingKind, resolveScope } from '../scopes.js';
import type { AtomTest, ValueSet } from '../conditions.js';
import { PMap, takeWork } from './pmap.js';
import { defsDigest, unionDefs } from './defset.js';

export type DefKind = BindingKind | 'unbound' | 'narrow' | 'fact';

/** What an if-chain over a pure atom established: for each branch that completes, the atom's
 *  values on it and the state at its end (a later test of the atom keeps the consistent branches). */
export interface FactInfo {
  atom: string;
  cases: Array<{ desc: ValueSet; end: StateMap }>;
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

/** Reaching definitions per state key, a persistent map (a binding shares every other entry with the
 *  state before it). A key's definitions are never changed in place: a native `Set` while small, a
 *  persistent `DefSet` once joins make it large (`unionDefs`). The map's digest sums each key's with
 *  its definitions' (`defsDigest`): states of different digests hold different definitions. */
export type StateMap = PMap<ReadonlySet<Def>>;

/** A state; null where the program point is unreachable. */
export type State = StateMap | null;

/** The state before anything is bound. */
export const emptyState = (): StateMap => PMap.empty<ReadonlySet<Def>>();

export interface FlowResult {
  /** Reaching definitions at every reachable name read handled by flow (locals of the executing unit). */
  readDefs: Map<PyNode, ReadonlySet<Def>>;
  /** Every name read visited on a reachable path (any resolution). */
  reachable: Set<PyNode>;
  /** Def created at each binding identifier. */
  defAt: Map<PyNode, Def>;
  /** Reads of class-body names that fall back to an enclosing/global/builtin name when unbound. */
  classFallback: Set<PyNode>;
  /** Reaching definitions of module names at the end of the module body (null: the end is unreachable). */
  moduleEnd: StateMap | null;
  /** State of the module body where each module-level `def`/`class` statement runs. */
  defState: Map<PyNode, StateMap>;
  /** State of the module body at each module-level call of a name (`main()`), keyed by the callee identifier. */
  callState: Map<PyNode, StateMap>;
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

/** A flag (`./flags.ts`): a name bound only by plain assignments, one at least a literal. */
export interface LiteralFlag {
  /** The atoms of its value (`flag:<state key>`) and of its truth (`truthy(flag:<state key>)`). */
  atom: string;
  truthAtom: string;
  /** Its state key, and the state keys of its two atoms' facts (`#<atom>`). */
  key: string;
  factKeys: readonly [string, string];
  scope: Scope;
  name: string;
  /** Literal keys of the values the flag is bound to (`k:True`, `i:0`, `s:fast`); undefined when a
   *  binding is not a literal. */
  domain?: string[];
  literals: string[];
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
  /** Flags by state key (`./flags.ts`), and the condition as a test of one. */
  flags?: ReadonlyMap<string, LiteralFlag>;
  flagTest?(n: PyNode): AtomTest | undefined;
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

/** Steps one flow analysis may take (a node of a state made or visited counts one). States share
 *  structure (`PMap`): a binding makes O(log n) nodes and a join visits only where its states differ, so the
 *  work grows with the bindings, reads and branches of a unit (issue 30). The budget bounds what is left
 *  (loops run to a fixpoint, nested loops multiply their passes). */
export const FLOW_BUDGET = 10_000_000;

/** The flow analysis of a unit went over `FLOW_BUDGET`: the analysis stops, and the file is reported. */
export class FlowBudgetExceeded extends Error {
  constructor(readonly names: number) {
    super(`flow analysis over its budget of ${FLOW_BUDGET} steps`);
  }
}

let work = 0;
let widest = 0;
let lastSteps = 0;
/** Steps the last flow analysis took (`withFlowBudget`), for tests that bound the work of a shape. */
export const lastFlowSteps = (): number => lastSteps;
/** Count the steps the last map operations took (`takeWork`), for a state of `size` names. */
function spend(size: number): void {
  if (size > widest) widest = size;
  if ((work += takeWork() + 1) > FLOW_BUDGET) throw new FlowBudgetExceeded(widest);
}

/** Run `f` with a fresh step count (a flow analysis may start another file's, which has its own budget). */
export function withFlowBudget<T>(f: () => T): T {
  const saved = [work, widest] as const;
  work = 0;
  widest = 0;
  takeWork();
  try {
    return f();
  } finally {
    lastSteps = work;
    [work, widest] = saved;
  }
}

export const keyOf = (s: Scope, name: string) => `${s.id}:${name}`;
export const nameOfKey = (k: string) => k.slice(k.indexOf(':') + 1);

export function setKey(s: State, key: string, defs: ReadonlySet<Def>): State {
  if (!s) return s;
  const m = s.set(key, defs, defsDigest(defs));
  spend(m.size);
  return m;
}

/** The state without `key`. */
export function deleteKey(s: StateMap, key: string): StateMap {
  const m = s.delete(key);
  spend(m.size);
  return m;
}

/** Call `f` for each key whose definitions differ between `a` and `b` (by identity; undefined where a
 *  state lacks the key), visiting only what the two states do not share. `f` returns true to stop. */
export function diffStates(a: StateMap, b: StateMap, f: (key: string, va: ReadonlySet<Def> | undefined, vb: ReadonlySet<Def> | undefined) => void | boolean): void {
  PMap.diff(a, b, f);
  spend(Math.max(a.size, b.size));
}

export function equalStates(a: State, b: State): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  if (a.size !== b.size || a.digest !== b.digest) return false;
  let equal = true;
  diffStates(a, b, (_, v, w) => {
    if (!v || !w || w.size !== v.size) return !(equal = false);
    for (const x of v) if (!w.has(x)) return !(equal = false);
    return false;
  });
  return equal;
}

/** A loop run kept to be replayed (`FlowState.loopRun`). */
interface LoopRun extends LoopRecording {
  ctx: string;
  epoch: number;
  entry: StateMap;
  out: State;
  breaks: State[];
  conts: State[];
  excs: State[];
  finals: State[];
}

/** What a loop run read and wrote outside its states: the size of the definitions recorded at each read
 *  the loop facts consulted (-1: none), and the module-level `def`/`class` states it set (the last per statement). */
interface LoopRecording {
  reads: Map<PyNode, number>;
  defWrites: Map<PyNode, StateMap>;
  /** It read the same name read at two sizes (its own passes recorded more): not replayed. */
  mixed: boolean;
}

/** Runs kept per loop statement. */
const MAX_RUNS_KEPT = 8;

/** The states a run added to an exit list from `from` on, each once: these lists are only joined, and a
 *  state joined again adds nothing (a run replayed on every pass of the loops around it would otherwise
 *  hand them the same states once per pass, and the lists would grow with the passes). */
function distinct(list: State[], from: number): State[] {
  return [...new Set(list.slice(from))];
}

function pushAll(list: State[], add: readonly State[]): void {
  for (const x of add) list.push(x);
}

function noteRead(rec: LoopRecording, id: PyNode, size: number): void {
  const was = rec.reads.get(id);
  if (was === undefined) rec.reads.set(id, size);
  else if (was !== size) rec.mixed = true;
}

function mergeInto(parent: LoopRecording, child: LoopRecording): void {
  if (child.mixed) parent.mixed = true;
  child.reads.forEach((size, id) => noteRead(parent, id, size));
  child.defWrites.forEach((s, n) => parent.defWrites.set(n, s));
}

/** The definitions at the reads a run consulted are still what it read (they only grow). */
function readsUnchanged(cx: FlowState, reads: Map<PyNode, number>): boolean {
  for (const [id, size] of reads) if ((cx.res.readDefs.get(id)?.size ?? -1) !== size) return false;
  return true;
}

/** The same definitions per key, in the same order (a run from either state gives the same result).
 *  States that differ mostly differ in digest: a loop's kept runs hold the definitions of the names its
 *  inner loops bind in sets and map nodes made on each run apart, which a walk would visit in full
 *  before it met the key they differ in (issue 30: loops each holding a `try`). */
function sameState(a: StateMap, b: StateMap): boolean {
  if (a === b) return true;
  if (a.size !== b.size || a.digest !== b.digest) return false;
  let same = true;
  diffStates(a, b, (_, v, w) => {
    if (!v || !w || v.size !== w.size) return !(same = false);
    const it = w.values();
    for (const x of v) if (it.next().value !== x) return !(same = false);
    return false;
  });
  return same;
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
  /** Times an if-statement's fact changed (`recordFacts` merges in place): a loop run is replayed only
   *  when no fact changed during it or since. */
  factEpoch = 0;
  /** The `x is None` definitions made at each test, per key, one per set of definitions refined: a later
   *  pass over the same test on the same definitions gets the same definition back (a loop's passes then
   *  agree, and a loop run can be replayed). */
  private readonly narrowDefs = new Map<PyNode, Map<string, Def[]>>();
  /** Runs of loop statements, by loop node, kept to be replayed (`loopRun`). */
  private loopMemo = new Map<PyNode, LoopRun[]>();
  /** The loop runs being recorded, innermost last. */
  private recording: LoopRecording[] = [];
  /** Whether each loop's text mentions a name (which loop indexes a run depends on). */
  private readonly mentions = new Map<PyNode, Map<string, boolean>>();

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
  /** How each enclosing `try` body's handlers meet a NameError (`nameErrorHandling`), innermost last. */
  private nameErrors: Array<'probe' | 'catch' | undefined> = [];
  /** A NameError raised here is caught by a handler that names it (a probe of whether a name exists). */
  probing = false;

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
    this.nameErrors = [];
    this.probing = false;
    this.loopMemo = new Map();
    this.recording = [];
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

  /**
   * {UNBOUND} made at a site that unbinds a name after it was bound (`del x`, the end of `except … as x`):
   * one definition per site, apart from the key's UNBOUND at the unit's start. A fact recorded at a join
   * keeps, on the paths that agree with a test, only definitions some agreeing path brought or that no
   * path brought (made after the join): the shared UNBOUND of a disagreeing path would drop a name
   * unbound again after the join.
   */
  unboundHere(site: PyNode, key: string, name: string): Set<Def> {
    let u = this.siteUnbound.get(site);
    if (!u) this.siteUnbound.set(site, (u = new Set([{ id: this.nextId++, key, name, kind: 'unbound', node: null }])));
    return u;
  }
  private readonly siteUnbound = new Map<PyNode, Set<Def>>();

  /** {UNBOUND} of a state key, one set per key: states and their sets are never changed in place
   *  (setKey and join build new ones), so every state that lacks the key can share it. */
  unboundSet(key: string, name: string): Set<Def> {
    let u = this.unboundSets.get(key);
    if (!u) this.unboundSets.set(key, (u = new Set([this.unbound(key, name)])));
    return u;
  }

  get(s: StateMap, key: string, name: string): ReadonlySet<Def> {
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
    const live = states.filter((x): x is StateMap => !!x);
    if (live.length === 0) return null;
    if (live.length === 1) return live[0]!;
    const base = live[0]!;
    // Per key, the union of the states' definitions in state order, a state that lacks the key giving
    // {UNBOUND} at its place (the same sets in the same order as merging state by state). Only the keys
    // consecutive states differ in are visited: a key no two neighbours differ in holds the base's
    // definitions in every state. The union stays the base's own set while every state holds that very
    // set, and is a new set from the first state that holds another (kept only if it grew: see below).
    interface Acc { start: ReadonlySet<Def>; set: ReadonlySet<Def>; shared: boolean }
    const accs = new Map<string, Acc>();
    for (let i = 1; i < live.length; i++) {
      const prev = live[i - 1]!;
      const cur = live[i]!;
      if (prev === cur) continue;
      diffStates(prev, cur, (k, _, d) => {
        let a = accs.get(k);
        if (!a) {
          const start = base.get(k) ?? this.unboundSet(k, nameOfKey(k));
          accs.set(k, (a = { start, set: start, shared: true }));
        }
        const add = d ?? this.unboundSet(k, nameOfKey(k));
        if (a.set === add) return;
        a.set = unionDefs(a.set, add, !a.shared);
        a.shared = false;
      });
    }
    let out = base;
    accs.forEach((a, k) => {
      // a union the other states added nothing to is the base's own set (the union lists the base's
      // definitions first): keeping it keeps the key shared with the base, where a copy made every
      // later diff against the base visit the key again (issue 30: a loop's fixpoint joins its head with
      // states that bound the names of every loop inside it, and the copies made each run cost them all)
      const set = a.set.size === a.start.size ? a.start : a.set;
      if (set !== base.get(k)) out = setKey(out, k, set)!;
    });
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

  /** Enter (`handling` given) or leave (undefined) a `try` body that handles NameError as `handling` says. */
  enterTryBody(handling: 'probe' | 'catch' | undefined): void {
    this.nameErrors.push(handling);
    this.probing = this.innermostHandling() === 'probe';
  }
  leaveTryBody(): void {
    this.nameErrors.pop();
    this.probing = this.innermostHandling() === 'probe';
  }
  private innermostHandling(): 'probe' | 'catch' | undefined {
    for (let i = this.nameErrors.length - 1; i >= 0; i--) if (this.nameErrors[i]) return this.nameErrors[i];
    return undefined;
  }

  /** After a read of a name that a handler of NameError probes (`try: unicode`), the run goes on only
   *  where the name exists: it is bound there, by the code or from outside it (a builtin of another
   *  version). */
  probed(id: PyNode, s: State): State {
    if (!s) return s;
    const t = this.trackedKey(id);
    // a function's own local is no probe: its UnboundLocalError caught is the error the rule reports
    if (!t || t.scope.kind !== 'module') return s;
    const defs = this.get(s, t.key, this.src(id));
    if (![...defs].some((d) => d.kind === 'unbound')) return s;
    let memo = this.probeSets.get(id);
    if (!memo || memo.from !== defs) {
      const kept = new Set([...defs].filter((d) => d.kind !== 'unbound'));
      if (!kept.size) kept.add(this.outside(id, t.key));
      this.probeSets.set(id, (memo = { from: defs, to: kept }));
    }
    return setKey(s, t.key, memo.to);
  }
  /** The definition "bound outside the code" a probe makes at `id` (one per read, across passes). */
  private outside(id: PyNode, key: string): Def {
    let d = this.outsideDefs.get(id);
    if (!d) this.outsideDefs.set(id, (d = { id: this.nextId++, key, name: this.src(id), kind: 'narrow', node: null, base: [] }));
    return d;
  }
  private readonly probeSets = new Map<PyNode, { from: ReadonlySet<Def>; to: Set<Def> }>();
  private readonly outsideDefs = new Map<PyNode, Def>();

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
    else if (prev !== defs) res.readDefs.set(id, unionDefs(prev, defs, false));
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
    // a flag bound again: what the joins before recorded of its values is over
    const flag = this.env.flags?.get(key);
    if (flag) for (const k of flag.factKeys) if (s.has(k)) s = deleteKey(s, k);
    if (kind === 'del') return setKey(s, key, this.unboundHere(id, key, name));
    let one = this.singles.get(d);
    if (!one) this.singles.set(d, (one = new Set<Def>().add(d)));
    return setKey(s, key, one);
  }

  /** The narrowing definition `x is None` makes at `site` for `key` from the definitions `base`. */
  narrowNone(key: string, name: string, site: PyNode, base: Def[]): Def {
    let perSite = this.narrowDefs.get(site);
    if (!perSite) this.narrowDefs.set(site, (perSite = new Map()));
    let list = perSite.get(key);
    if (!list) perSite.set(key, (list = []));
    const hit = list.find((d) => d.base!.length === base.length && d.base!.every((b, i) => b === base[i]));
    if (hit) return hit;
    const nd: Def = { id: this.newId(), key, name, kind: 'narrow', node: null, value: site, narrowed: 'none', base };
    list.push(nd);
    return nd;
  }

  /** The definitions recorded so far at a name read, as the loop facts read them: a loop run that read
   *  them is replayed only while they are still what it read. */
  readDefsOf(id: PyNode): ReadonlySet<Def> | undefined {
    const defs = this.res.readDefs.get(id);
    const rec = this.recording[this.recording.length - 1];
    if (rec) noteRead(rec, id, defs?.size ?? -1);
    return defs;
  }

  /** The state a module-level `def`/`class` statement runs in (the last pass over it wins). */
  setDefState(n: PyNode, s: StateMap): void {
    this.res.defState.set(n, s);
    const rec = this.recording[this.recording.length - 1];
    if (rec) rec.defWrites.set(n, s);
  }

  /**
   * Run a loop statement, or replay an earlier run of it. A loop nested in a loop runs once per pass of
   * every loop around it, each running to a fixpoint, so the passes multiply with the depth (issue 30:
   * 20 nested loops went over the flow budget). A run is a function of its entry state and context (the
   * enclosing loops, `try`s and `finally`s it can exit to, the scopes being run, the loop indexes its text
   * reads), of the definitions recorded at the reads the loop facts consult, and of the if-statement
   * facts; what it leaves in the result (reads, bindings) is already there after the first run. So a
   * run whose entry holds the same definitions in the same order, in the same context, while those
   * reads and facts are unchanged, gives what running it again would: its exit state, and the states it
   * handed to the enclosing exits (and module-level `def` states), are replayed.
   */
  loopRun(n: PyNode, s: StateMap, run: (s: StateMap) => State): State {
    // a loop outside every loop, `try` and `finally` runs once per pass of its unit: nothing to replay
    if (!this.loops.length && !this.finals.length && !this.recording.length) return run(s);
    const ctx = this.loopContext(n);
    const runs = this.loopMemo.get(n);
    const hit = runs?.find((r) => r.ctx === ctx && r.epoch === this.factEpoch && sameState(r.entry, s) && readsUnchanged(this, r.reads));
    const lt = this.loops[this.loops.length - 1];
    const et = this.excs[this.excs.length - 1];
    const ft = this.finals[this.finals.length - 1];
    const parent = this.recording[this.recording.length - 1];
    if (hit) {
      if (lt) { pushAll(lt.breaks, hit.breaks); pushAll(lt.conts, hit.conts); }
      if (et) pushAll(et, hit.excs);
      if (ft) pushAll(ft, hit.finals);
      hit.defWrites.forEach((ds, d) => this.res.defState.set(d, ds));
      if (parent) mergeInto(parent, hit);
      return hit.out;
    }
    const mark = [lt?.breaks.length ?? 0, lt?.conts.length ?? 0, et?.length ?? 0, ft?.length ?? 0] as const;
    const epoch = this.factEpoch;
    const rec: LoopRecording = { reads: new Map(), defWrites: new Map(), mixed: false };
    this.recording.push(rec);
    let out: State;
    try {
      out = run(s);
    } finally {
      this.recording.pop();
    }
    if (parent) mergeInto(parent, rec);
    if (rec.mixed || epoch !== this.factEpoch) return out;
    const r: LoopRun = {
      ctx, epoch, entry: s, out, reads: rec.reads, defWrites: rec.defWrites, mixed: false,
      breaks: lt ? distinct(lt.breaks, mark[0]) : [], conts: lt ? distinct(lt.conts, mark[1]) : [],
      excs: et ? distinct(et, mark[2]) : [], finals: ft ? distinct(ft, mark[3]) : [],
    };
    if (!runs) this.loopMemo.set(n, [r]);
    else {
      // a loop's entries grow to a fixpoint: keep the latest few
      if (runs.length >= MAX_RUNS_KEPT) runs.shift();
      runs.push(r);
    }
    return out;
  }

  /** What a loop run depends on besides its entry state: which exits it can reach, the scopes being
   *  run, and the loop index facts its text can read. */
  private loopContext(n: PyNode): string {
    let ctx = `${this.loops.length > 0 ? 'L' : ''}${this.excs.length > 0 ? 'E' : ''}${this.finals.length > 0 ? 'F' : ''}`;
    for (const sc of this.active) ctx += `,${sc.id}`;
    for (const f of this.iterFacts) {
      if (!this.mentionsName(n, f.def.name)) continue;
      ctx += `|${f.def.id}:${f.start}:${f.first}:${f.last}:${f.stop ?? ''}`;
    }
    return ctx;
  }

  private mentionsName(n: PyNode, name: string): boolean {
    let m = this.mentions.get(n);
    if (!m) this.mentions.set(n, (m = new Map()));
    let v = m.get(name);
    // a read of the index is an identifier of that text inside the loop (a superset is only less reuse)
    if (v === undefined) m.set(name, (v = this.src(n).includes(name)));
    return v;
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
