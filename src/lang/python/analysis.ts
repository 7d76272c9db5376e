/**
 * PythonAnalysis: one unit (a `.py` file or an embedded lambda) with lazily
 * computed, cached facts — scopes, flow (definite assignment + reaching
 * definitions), functions/classes, imports, calls, handlers and
 * error-swallowing — so rules are small predicates.
 */
import { type PyNode, type NodeLike, locate, field, fields, importFromModule, mayHoldStatements, named, firstNamed, unparen, walk, nodeStart } from './tree.js';
import { type Scope, type ScopeTable, buildScopes, resolveScope } from './scopes.js';
import { type Def, type FlowResult, type FlowReuse, runFlow, handlerTypes, constKind } from './flow.js';
import { FlowBudgetExceeded } from './flow/state.js';
import { probedRead } from './flow/syntax.js';
import { flagTest, literalFlags } from './flow/flags.js';
import { unboundCount } from './flow/defset.js';
import { PYTHON_BUILTINS } from './builtins.js';
import { namespaceWrites, reachesNamespace } from './dynamic-globals.js';
import { editBetween, type KeptTree } from './parser.js';
import { blockingCall, producingCalls } from './facts.js';
import { Conditions, type ValueSet, subsetOf } from './conditions.js';
import { type StaticContext, staticTruth } from './static-conditions.js';
import { ownValue } from '../../core/own.js';
import { SourceText } from '../../core/source.js';
import type {
  CallInfo, ClassInfo, ConditionGuard, FunctionInfo, HttpReturn, HandlerInfo, ImportInfo, NoneWitness, NotAnalysed, PythonAnalysis, Resolution, Swallow, UnboundRead,
} from './types.js';

const NO_KWARGS: ReadonlyMap<string, PyNode> = new Map();


/** The flow of a file before an edit, and what its units read outside themselves (`Analysis.flowCarry`). */
export interface FlowCarry {
  flow: FlowResult;
  text: string;
  /** Function spans in `functions()` order. */
  spans: ReadonlyArray<readonly [number, number]>;
  /** The previous scope table and imports (read-only from now on: compared when the new flow runs). */
  scopes: ScopeTable;
  imports: ReadonlyMap<string, ImportInfo>;
  /** Whether a function never returns, for those the previous analysis decided (its flow asked about
   *  every function a unit's call resolves to), by index in `functions()`. */
  noReturn: ReadonlyArray<readonly [number, boolean]>;
  /** The calls the previous analysis described (`call`): a call the edit left alone outside the edited
   *  function is described the same way (its names resolve the same, the flow reuse's conditions). */
  calls: ReadonlyMap<PyNode, CallInfo | undefined>;
}

/** Callbacks into the project for cross-file questions. */
export interface ProjectLink {
  resolveFunction(fromFile: string, name: string): { file: string; fn: FunctionInfo; analysis: Analysis } | undefined;
  /** A method of a class named in `fromFile`, through its bases across the project. */
  resolveMethod?(fromFile: string, className: string, method: string): { file: string; fn: FunctionInfo; analysis: Analysis } | undefined;
}

const NORETURN = new Set([
  'sys.exit', 'exit', 'quit', 'os._exit', 'os.abort', 'os.execv', 'os.execve', 'os.execl', 'os.execle', 'os.execlp',
  'os.execlpe', 'os.execvp', 'os.execvpe', 'pytest.fail', 'pytest.skip', 'pytest.xfail', 'pytest.exit', 'typing.assert_never',
]);
const SUPER_OF: Record<string, string[]> = {
  NameError: ['NameError', 'Exception', 'BaseException'],
  UnboundLocalError: ['UnboundLocalError', 'NameError', 'Exception', 'BaseException'],
  Exception: ['Exception', 'BaseException'],
  ValueError: ['ValueError', 'Exception', 'BaseException'],
  JSONDecodeError: ['JSONDecodeError', 'ValueError', 'RequestException', 'Exception', 'BaseException'],
  RequestException: ['RequestException', 'IOError', 'OSError', 'Exception', 'BaseException'],
  ConnectionError: ['ConnectionError', 'RequestException', 'OSError', 'IOError', 'Exception', 'BaseException'],
  OSError: ['OSError', 'IOError', 'EnvironmentError', 'Exception', 'BaseException'],
  KeyError: ['KeyError', 'LookupError', 'Exception', 'BaseException'],
  IndexError: ['IndexError', 'LookupError', 'Exception', 'BaseException'],
  TimeoutExpired: ['TimeoutExpired', 'SubprocessError', 'Exception', 'BaseException'],
};

/** Exception names a handler must name (or a superclass of) to catch `exc`. */
function catchersOf(exc: string): string[] {
  return ownValue(SUPER_OF, exc) ?? [exc, 'Exception', 'BaseException'];
}

/** The first item of each key, in order: what `items.find` by that key returns, looked up in one step. */
function firstByKey<K, V>(items: readonly V[], key: (v: V) => K): Map<K, V> {
  const m = new Map<K, V>();
  for (const v of items) {
    const k = key(v);
    if (!m.has(k)) m.set(k, v);
  }
  return m;
}

export class Analysis implements PythonAnalysis {
  private _scopes?: ScopeTable;
  private _conditions?: Conditions;
  private _flow?: FlowResult;
  private _unbound?: UnboundRead[];
  private _functions?: FunctionInfo[];
  private _fnByNode?: Map<PyNode, FunctionInfo>;
  private _classes?: ClassInfo[];
  /** The first function / class of each qualname, and the class of each class node (lookups by name
   *  from every call would otherwise scan all functions: n² in a module of thousands of classes). */
  private _fnByQualname?: Map<string, FunctionInfo>;
  private _classByQualname?: Map<string, ClassInfo>;
  private _classByNode?: Map<PyNode, ClassInfo>;
  private _imports?: Map<string, ImportInfo>;
  private _lines?: SourceText;
  private _noReturn = new Map<PyNode, boolean>();
  private _decoSwallow = new Map<string, Swallow | null>();
  private _httpReturn = new Map<PyNode, HttpReturn | null>();
  private _calls = new Map<PyNode, CallInfo | undefined>();
  private _valueSources = new Map<PyNode, readonly PyNode[]>();
  /** The parser's tree of `text`, kept by an editor session for an incremental re-parse of the next edit. */
  parseState?: KeptTree;

  constructor(
    /** The plain tree of the unit (the parser's own tree is already freed). */
    readonly ast: PyNode,
    readonly text: string,
    readonly path: string,
    private link?: ProjectLink,
    /** Why the source is not analysed (`ast` is then an empty module). */
    readonly notAnalysed?: NotAnalysed,
  ) {}

  /**
   * Link this analysis (of an unchanged file) to a new project (an editor session rebuilt it after
   * another file changed). Facts of this file alone stay cached; facts that crossed into other
   * files (summaries of project functions a call runs) are dropped, they may have changed.
   */
  relink(link: ProjectLink): void {
    this.link = link;
    this._httpReturn.clear();
  }

  /**
   * Drop the facts computed for this file's own rules: its flow (with its conditions and unbound reads),
   * the calls it described and the value sources it followed. A one-shot run's pass asks this once the
   * file's rules have run (`PythonProject.releaseFacts`): on webarena-infinity they were ≈ 30 MB of the
   * heap at the end of the pass, every verifier's kept to the end for nothing. Asked again (a later
   * file's rule reading across files), they are computed again from the kept tree and scopes, to the
   * same values. Cross-file caches (`isNoReturnCall`, HTTP returns, decorators) stay.
   */
  releaseFacts(): void {
    this._flow = undefined;
    this._conditions = undefined;
    this._unbound = undefined;
    this.releaseCallFacts();
  }

  /** Drop the calls described and the value sources followed so far (`releaseFacts`, which keeps the
   *  flow): computed again when asked. */
  releaseCallFacts(): void {
    if (this._calls.size) this._calls = new Map();
    if (this._valueSources.size) this._valueSources = new Map();
  }

  node(n: NodeLike): PyNode | undefined {
    if ((n as PyNode).children && (n as PyNode).parent !== undefined && 'named' in n) return n as PyNode;
    return locate(this.ast, n);
  }
  src(n: NodeLike): string {
    const p = n as PyNode;
    const s = nodeStart(n);
    const e = (n as { endIndex?: number }).endIndex ?? p.end;
    return this.text.slice(s, e);
  }
  /** 1-based line of a node, as findings count lines (`SourceText`: LF, CRLF or a lone CR ends one). */
  line(n: NodeLike): number {
    return (this._lines ??= new SourceText(this.text)).positionAt(nodeStart(n)).line;
  }

  /** Count lines with the line index of the file's SourceText (the same text) instead of building one. */
  shareLines(lines: SourceText): void {
    if (lines.text === this.text) this._lines = lines;
  }


  get scopes(): ScopeTable {
    if (!this._scopes) {
      const prev = this.prevScopes;
      this.prevScopes = undefined;
      // an editor's document keeps how its table was built, for the table of its next edited text
      this._scopes = buildScopes(this.ast, this.text, { reuse: prev && { prev }, keepLog: this.parseState !== undefined });
    }
    return this._scopes;
  }

  /** The scope table of the previous text of this file (an editor session's incremental re-parse), set by
   *  the project: the definitions the parse took over are copied from it (`ScopeReuse`). */
  prevScopes?: ScopeTable;

  /** The scope table, if built, for the analysis of this file's next edited text (`prevScopes`). */
  scopeCarry(): ScopeTable | undefined {
    return this.notAnalysed ? undefined : this._scopes;
  }
  scopeOf(n: NodeLike): Scope {
    const p = this.node(n);
    for (let c = p?.parent; c; c = c.parent) {
      const s = this.scopes.byNode.get(c);
      if (s) return s;
    }
    return this.scopes.module;
  }

  /** Pure conditions (platform, module constants, hasattr) of this unit and the branches guarding a node. */
  get conditions(): Conditions {
    return (this._conditions ??= new Conditions(this.text, this.scopes));
  }

  /** Set when the flow analysis of this file went over its budget (`FLOW_BUDGET`): `flow` is then empty
   *  (no read has known definitions) and the pass reports the file once instead of running its rules. */
  flowOverBudget?: { names: number };

  get flow(): FlowResult {
    if (!this._flow) {
      try {
        this._flow = this.runFlow();
      } catch (e) {
        if (!(e instanceof FlowBudgetExceeded)) throw e;
        this.flowOverBudget = { names: e.names };
        this._flow = { readDefs: new Map(), reachable: new Set(), defAt: new Map(), classFallback: new Set(), moduleEnd: null, defState: new Map(), callState: new Map(), units: new Map(), maxId: 0 };
      }
    }
    return this._flow;
  }

  private runFlow(): FlowResult {
    const table = this.scopes;
    const reuse = this.reuseDecision();
    const flags = literalFlags(table, this.text, table.module.hasStarImport || this.reachesNamespace());
    return runFlow({
      text: this.text,
      table,
      isBuiltin: (n) => PYTHON_BUILTINS.has(n),
      staticTruth: (n) => this.staticTruth(n),
      isNoReturnCall: (call, scope) => this.isNoReturnCall(call, scope),
      atomTest: (n) => this.conditions.test(n),
      flags,
      flagTest: flags.size ? (n) => flagTest(n, this.text, table, flags) : undefined,
    }, reuse);
  }

  /** The flow of the previous text of this file (an editor session's incremental re-parse), set by the project. */
  carry?: FlowCarry;
  /** `flowReuse(carry)`, decided once (null: nothing to reuse). */
  private _reuse?: FlowReuse | null;
  /** The text the carry was of. */
  private reusedText?: string;

  /** With a granted reuse: the previous analysis's calls, and the edited function's span (`call`). */
  private prevCalls?: { calls: ReadonlyMap<PyNode, CallInfo | undefined>; start: number; end: number };

  private reuseDecision(): FlowReuse | undefined {
    if (this._reuse === undefined) {
      const c = this.carry;
      this.carry = undefined;
      this.reusedText = c?.text;
      // null first: nothing the decision asks may decide it again
      this._reuse = null;
      this._reuse = (c && this.flowReuse(c)) || null;
    }
    return this._reuse ?? undefined;
  }

  /**
   * This text is `from` (the previous text of the file) edited inside one function, and what a function
   * reads outside itself is unchanged: module and class bindings, imports, which functions never return,
   * and no `global`/`nonlocal` in the edited function (`flowReuse`'s conditions). Then every function
   * the incremental parse took over unchanged reads what it read before; an editor session keeps the
   * findings of unit-local rules there (src/engine/carry.ts).
   */
  editConfinedToOneFunction(from: string): boolean {
    return !!this.reuseDecision() && this.reusedText === from;
  }

  /**
   * What the next analysis of an edited text of this file needs to take over this flow's units: the flow,
   * the text and function spans, and the inputs of a function's run from outside it. Undefined when no
   * flow was computed. Asked before the next parse takes this tree's nodes over (`Project.adopt`).
   */
  flowCarry(): FlowCarry | undefined {
    if (!this._flow || this.notAnalysed) return undefined;
    const fns = this.functions();
    const noReturn: Array<readonly [number, boolean]> = [];
    for (let i = 0; i < fns.length; i++) {
      const known = this._noReturn.get(fns[i]!.node);
      if (known !== undefined) noReturn.push([i, known]);
    }
    return { flow: this._flow, text: this.text, spans: fns.map((f) => [f.node.start, f.node.end] as const), scopes: this.scopes, imports: this.imports(), noReturn, calls: this._calls };
  }

  /**
   * Which units of this analysis may copy their flow from `c` (the same file before one edit). A unit's
   * run reads its own subtree, the bindings of the scopes it resolves names in, the imports (qualified
   * names), which module functions and methods never return (`isNoReturnCall`) and module constants
   * (`atomTest`: module-level text). So: the edit must lie inside one function G, with the same start and
   * an end moved by the edit in both texts (module-level and class-level text unchanged), and G's text
   * before and after must not declare `global`/`nonlocal` (G binds no name outside itself); the module
   * and class bindings and the imports must be the same, and every function the previous analysis
   * decided on (a unit's call asked whether it returns) must decide the same now; and a
   * unit is taken over only when its node, and the node of every function or lambda enclosing it, is a
   * node of the previous tree that the incremental parse took over unchanged (so never G or anything in
   * it), with the same scope id (definition keys name scope ids).
   */
  private flowReuse(c: FlowCarry): FlowReuse | undefined {
    const fns = this.functions();
    if (fns.length !== c.spans.length) return undefined;
    const e = editBetween(c.text, this.text);
    const delta = e.newEndIndex - e.oldEndIndex;
    let g: PyNode | undefined;
    let old: readonly [number, number] | undefined;
    for (let i = 0; i < fns.length; i++) {
      const n = fns[i]!.node;
      const span = c.spans[i]!;
      const holds = span[0] === n.start && span[1] + delta === n.end && span[0] < e.startIndex && e.oldEndIndex < span[1] && e.newEndIndex < n.end;
      if (holds && (!g || n.start >= g.start)) { g = n; old = span; }
    }
    if (!g || !old) return undefined;
    const declares = /\b(global|nonlocal)\b/;
    if (declares.test(c.text.slice(old[0], old[1])) || declares.test(this.text.slice(g.start, g.end))) return undefined;
    if (!this.sameFlowEnv(c) || c.noReturn.some(([i, was]) => this.noReturnDef(fns[i]!.node) !== was)) return undefined;
    this.prevCalls = { calls: c.calls, start: g.start, end: g.end };
    const prev = c.flow;
    return {
      prev,
      reusable(sc) {
        // class bodies and comprehensions run inside their enclosing unit: the chain of units decides
        for (let s: Scope | null = sc; s && s.kind !== 'module'; s = s.parent) {
          if (s.kind !== 'function' && s.kind !== 'lambda') continue;
          const log = prev.units.get(s.node);
          if (!log || log.scopeId !== s.id) return false;
        }
        return true;
      },
    };
  }

  /** The same module and class bindings (names, kinds) and imports as before: what a function's flow
   *  resolves outside itself. */
  private sameFlowEnv(c: FlowCarry): boolean {
    const outer = (t: ScopeTable) => t.scopes.filter((sc) => sc.kind === 'module' || sc.kind === 'class');
    const was = outer(c.scopes);
    const now = outer(this.scopes);
    if (was.length !== now.length) return false;
    for (let i = 0; i < now.length; i++) {
      const x = was[i]!;
      const y = now[i]!;
      if (x.id !== y.id || x.qualname !== y.qualname || x.hasStarImport !== y.hasStarImport || x.bindings.size !== y.bindings.size) return false;
      for (const [name, bs] of y.bindings) {
        const old = x.bindings.get(name);
        if (!old || old.length !== bs.length || bs.some((b, k) => b.kind !== old[k]!.kind)) return false;
      }
    }
    const imports = this.imports();
    if (imports.size !== c.imports.size) return false;
    for (const [local, i] of imports) {
      const o = c.imports.get(local);
      if (!o || o.module !== i.module || o.name !== i.name || o.level !== i.level) return false;
    }
    return true;
  }

  unboundReads(): UnboundRead[] {
    if (this._unbound) return this._unbound;
    const out: UnboundRead[] = [];
    const flow = this.flow;
    const table = this.scopes;
    // a star import, or code that writes the module's namespace by name: a name no statement binds may exist
    const written = namespaceWrites(this.ast, this.text, (id) => this.resolution(id));
    const star = table.module.hasStarImport || !!written?.any;
    for (const r of table.reads) {
      if (!flow.reachable.has(r.node)) continue;
      const defs = flow.readDefs.get(r.node);
      if (defs) {
        if (defs.size === 0) continue;
        // counted by the set: a walk of each read's definitions cost reads × definitions in a flat function
        const ub = unboundCount(defs);
        if (!ub) continue;
        const kind = ub === defs.size ? 'unbound' : 'maybe';
        // a module-level name unbound at this point still resolves to a builtin of the same name
        if (kind === 'unbound' || kind === 'maybe') {
          const sc = resolveScope(r.scope, r.name);
          if (sc?.kind === 'module' && PYTHON_BUILTINS.has(r.name) && kind === 'unbound') continue;
        }
        out.push({ node: r.node, name: r.name, kind, qualname: this.qualnameAt(r.node), scope: r.scope });
        continue;
      }
      const sc = resolveScope(r.scope, r.name);
      if (sc) {
        const bs = sc.bindings.get(r.name)!;
        if (bs.every((b) => b.kind === 'del')) {
          out.push({ node: r.node, name: r.name, kind: 'undefined', qualname: this.qualnameAt(r.node), scope: r.scope });
          continue;
        }
        // a module global read from a function: unbound at the end of the module on some path
        if (sc.kind === 'module' && flow.moduleEnd && !bs.some((b) => this.inFunction(b.node))) {
          // like pyright: a global not rebound after the enclosing top-level def keeps its state at the def
          let top: PyNode | undefined;
          for (let p = r.node.parent; p; p = p.parent) if (flow.defState.has(p)) top = p;
          const rebound = top && bs.some((b) => b.node.start > top!.end);
          const state = top && !rebound ? flow.defState.get(top)! : flow.moduleEnd;
          // no definition at all: its own name at its def, or every binding sits in code that never runs
          // here (`if sys.platform == "win32": from _ssl import enum_certificates`, read by a method only
          // Windows calls)
          const end = state.get(`${sc.id}:${r.name}`);
          if (end && [...end].some((d) => d.kind === 'unbound') && !PYTHON_BUILTINS.has(r.name) && !this.sameGuard(r.node, bs.map((b) => b.node))
            && !this.guardedLikeBinding(r.node, bs.map((b) => b.node)) && !this.boundAtEveryCall(r.node, `${sc.id}:${r.name}`)) {
            out.push({ node: r.node, name: r.name, kind: 'maybe', qualname: this.qualnameAt(r.node), scope: r.scope });
          }
        }
        continue;
      }
      if (PYTHON_BUILTINS.has(r.name) || star || written?.names.has(r.name)) continue;
      if (r.scope.kind === 'class' || this.inClassBody(r)) {
        // `__qualname__`, `__module__` are defined in class bodies
        if (r.name === '__qualname__' || r.name === '__module__') continue;
      }
      if (r.name === '__class__' && this.functionAt(r.node)?.classNode) continue;
      out.push({ node: r.node, name: r.name, kind: 'undefined', qualname: this.qualnameAt(r.node), scope: r.scope });
    }
    // a read of a module or builtin name whose NameError a handler catches by name is a test of whether the name exists
    return (this._unbound = out.filter((u) => !(probedRead(u.node, this.text) && this.resolution(u.node) !== 'local')));
  }
  /** What a name read resolves to: a builtin (nothing binds it), a module name, or a local. */
  resolution(id: PyNode): Resolution {
    const sc = resolveScope(this.scopeOf(id), this.src(id));
    return !sc ? 'builtin' : sc.kind === 'module' ? 'module' : 'local';
  }

  /** The module's code reaches its own namespace by name (`globals()`, `sys.modules[__name__]`, …). */
  reachesNamespace(): boolean {
    return (this._reachesNamespace ??= reachesNamespace(this.ast, this.text, (id) => this.resolution(id)));
  }
  private _reachesNamespace?: boolean;

  /** Qualname of the function holding a reported read (looked up only for the few reads reported). */
  private qualnameAt(n: PyNode): string {
    return this.functionAt(n)?.qualname ?? '';
  }

  /** `if`/`elif`/`else` branches enclosing a node, as "condition text#branch" keys. */
  private guards(n: PyNode): Set<string> {
    const out = new Set<string>();
    for (let c: PyNode | null = n, p = n.parent; p; c = p, p = p.parent) {
      if (p.type === 'if_statement') {
        const cond = p.childForFieldName('condition')?.text ?? '';
        if (c.field === 'consequence') out.add(`${cond}#then`);
        else if (c.type === 'else_clause') out.add(`${cond}#else`);
      } else if (p.type === 'elif_clause' && c.field === 'consequence') {
        out.add(`${p.childForFieldName('condition')?.text ?? ''}#then`);
      }
    }
    return out;
  }

  /** A global read from a function defined under the same guard (condition and branch) as one of the
   *  name's bindings — e.g. `if _mswindows:` imports read by methods defined under `if _mswindows:`:
   *  the function exists only when the name is bound. */
  private sameGuard(read: PyNode, bindings: PyNode[]): boolean {
    const mine = this.guards(read);
    if (mine.size === 0) return false;
    return bindings.some((b) => [...this.guards(b)].some((g) => mine.has(g)));
  }

  /** The read runs only where one of the name's module-level bindings ran: that binding sits directly in
   *  if/elif/else branches over pure atoms (the platform, a module constant), and the read — or every
   *  reference to the plain function holding it, up to three calls out — sits under constraints on the
   *  same atoms that imply the binding's (`if platform_name == "Linux": import pyatspi` and a read under
   *  `os_name = platform.system(); if os_name == "Linux":`, or in a helper only called there). */
  private guardedLikeBinding(read: PyNode, bindings: PyNode[]): boolean {
    for (const b of bindings) {
      const g = this.conditions.guards(b);
      if (!g.exact || g.fn || !g.constraints.size) continue;
      if (this.impliedAt(read, g.constraints, 0, new Set())) return true;
    }
    return false;
  }
  private impliedAt(n: PyNode, need: Map<string, ValueSet>, depth: number, seen: Set<PyNode>): boolean {
    const g = this.conditions.guards(n);
    if ([...need].every(([atom, v]) => { const have = g.constraints.get(atom); return !!have && subsetOf(have, v); })) return true;
    const fn = g.fn;
    if (!fn || depth >= 3 || seen.has(fn) || fn.parent?.type === 'decorated_definition') return false;
    seen.add(fn);
    const refs = this.referencesOf(fn);
    return refs.length > 0 && refs.every((ref) => this.impliedAt(ref, need, depth + 1, seen));
  }
  /** Reads of a function's name outside its own body (calls, callbacks), in this module. */
  private referencesOf(fn: PyNode): PyNode[] {
    const nm = field(fn, 'name');
    const sc = nm ? this.scopes.bindingScope.get(nm) : undefined;
    if (!nm || !sc) return [];
    const name = this.src(nm);
    if ((sc.bindings.get(name)?.length ?? 0) !== 1) return [];
    return this.scopes.reads.filter((r) => r.name === name && !(r.node.start >= fn.start && r.node.end <= fn.end) && resolveScope(r.scope, name) === sc).map((r) => r.node);
  }
  conditionGuards(n: NodeLike): ConditionGuard[] {
    const p = this.node(n);
    if (!p) return [];
    const out: ConditionGuard[] = [];
    const show = (v: string) => (v.startsWith('s:') ? v.slice(2) : v);
    for (const [atom, v] of this.conditions.guards(p).constraints) {
      const platform = this.conditions.isPlatformAtom(atom);
      out.push('in' in v ? { atom, platform, oneOf: [...v.in].map(show) } : { atom, platform, noneOf: [...v.notIn].map(show) });
    }
    return out;
  }

  /** A global read in a plain module-level function whose every reference is a module-level call made
   *  where the global is already bound on every path (`CONFIG = load()` then `main()`). */
  private boundAtEveryCall(read: PyNode, key: string): boolean {
    const fn = this.functionAt(read);
    if (!fn || fn.scope.parent?.kind !== 'module' || fn.decorators.length) return false;
    const refs = this.referencesOf(fn.node);
    if (!refs.length) return false;
    return refs.every((ref) => {
      const st = this.flow.callState.get(ref);
      const defs = st?.get(key);
      return !!defs && ![...defs].some((d) => d.kind === 'unbound');
    });
  }

  private inFunction(n: PyNode): boolean {
    for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition' || p.type === 'lambda') return true;
    return false;
  }
  private inClassBody(r: { scope: Scope }): boolean {
    return r.scope.kind === 'class';
  }

  reachingDefs(id: NodeLike): Def[] | undefined {
    const n = this.node(id);
    const d = n && this.flow.readDefs.get(n);
    return d ? [...d] : undefined;
  }
  defAt(id: NodeLike): Def | undefined {
    const n = this.node(id);
    return n ? this.flow.defAt.get(n) : undefined;
  }

  noneOnSomePath(expr: NodeLike): NoneWitness | undefined {
    const n0 = this.node(expr);
    if (!n0) return undefined;
    const n = unparen(n0);
    if (n.type === 'none') return { def: { id: 0, key: '', name: 'None', kind: 'assign', node: null, value: n }, site: n, always: true };
    if (n.type !== 'identifier') return undefined;
    const seen = new Set<PyNode>();
    const visit = (id: PyNode): NoneWitness | undefined => {
      if (seen.has(id)) return undefined;
      seen.add(id);
      const defs = this.flow.readDefs.get(id);
      if (!defs) return undefined;
      const live = [...defs].filter((d) => d.kind !== 'unbound');
      for (const d of live) {
        const k = constKind(d, this.text);
        if (k === 'none') return { def: d, site: d.node ?? d.value!, always: live.length === 1 };
        // copy of another local: `a = b`
        if ((d.kind === 'assign' || d.kind === 'annassign') && d.value && !d.index?.length) {
          const v = unparen(d.value);
          if (v.type === 'identifier') {
            const w = visit(v);
            if (w) return { ...w, always: w.always && live.length === 1 };
          }
        }
      }
      return undefined;
    };
    return visit(n);
  }

  /** Memoised per node: several rules ask about the same operands (a comparison's sides, a call's arguments). */
  valueSources(expr: NodeLike): readonly PyNode[] {
    const n0 = this.node(expr);
    if (!n0) return [];
    let known = this._valueSources.get(n0);
    if (!known) this._valueSources.set(n0, (known = this.computeValueSources(n0)));
    return known;
  }

  private computeValueSources(n0: PyNode): readonly PyNode[] {
    const top = unparen(n0);
    if (top.type !== 'identifier') return [top];
    const out: PyNode[] = [];
    const seen = new Set<PyNode>();
    const visit = (e: PyNode) => {
      const n = unparen(e);
      if (seen.has(n)) return;
      seen.add(n);
      if (n.type !== 'identifier') return void out.push(n);
      const defs = this.flow.readDefs.get(n);
      if (!defs) return void out.push(n);
      for (const d of defs) {
        if (d.kind === 'unbound') continue;
        if ((d.kind === 'assign' || d.kind === 'annassign' || d.kind === 'walrus') && d.value && !d.index?.length) visit(d.value);
        else if (d.kind === 'narrow' && d.base) {
          for (const b of d.base) if (b.value && !b.index?.length && (b.kind === 'assign' || b.kind === 'annassign')) visit(b.value);
        } else out.push(n);
      }
    };
    visit(n0);
    return out;
  }

  functions(): FunctionInfo[] {
    if (this._functions) return this._functions;
    const out: FunctionInfo[] = [];
    const byNode = new Map<PyNode, FunctionInfo>();
    for (const s of this.scopes.scopes) {
      if (s.kind !== 'function') continue;
      const node = s.node;
      const deco = node.parent?.type === 'decorated_definition' ? node.parent : undefined;
      const decorators = deco ? named(deco).filter((c) => c.type === 'decorator').map((c) => firstNamed(c)!).filter(Boolean) : [];
      const cls = s.parent?.kind === 'class' ? s.parent : undefined;
      const info: FunctionInfo = {
        qualname: s.qualname, name: s.name, node, decorators, params: s.params, scope: s,
        classNode: cls?.node, className: cls?.name, isAsync: node.children[0]?.type === 'async',
      };
      out.push(info);
      byNode.set(node, info);
    }
    this._fnByNode = byNode;
    return (this._functions = out);
  }
  classes(): ClassInfo[] {
    if (this._classes) return this._classes;
    const fns = this.functions();
    const out: ClassInfo[] = [];
    // each class's methods in the order of the functions, grouped in one pass over them
    const byClass = new Map<PyNode, FunctionInfo[]>();
    for (const f of fns) {
      if (!f.classNode) continue;
      const list = byClass.get(f.classNode);
      if (list) list.push(f);
      else byClass.set(f.classNode, [f]);
    }
    for (const s of this.scopes.scopes) {
      if (s.kind !== 'class') continue;
      const sup = field(s.node, 'superclasses');
      const bases = sup ? named(sup).filter((c) => c.type !== 'keyword_argument').map((c) => this.src(c)) : [];
      const methods = new Map<string, FunctionInfo>();
      for (const f of byClass.get(s.node) ?? []) methods.set(f.name, f);
      out.push({ qualname: s.qualname, name: s.name, node: s.node, bases, methods });
    }
    return (this._classes = out);
  }
  functionAt(n: NodeLike): FunctionInfo | undefined {
    this.functions();
    const p = this.node(n);
    for (let c = p?.parent ?? null; c; c = c.parent) {
      if (c.type === 'function_definition') {
        // decorators and defaults belong to the enclosing function
        const body = field(c, 'body');
        if (body && p && p.start >= body.start && p.end <= body.end) return this._fnByNode!.get(c);
      }
    }
    return undefined;
  }
  functionByQualname(q: string): FunctionInfo | undefined {
    return (this._fnByQualname ??= firstByKey(this.functions(), (f) => f.qualname)).get(q);
  }
  /** The first class of this qualname (as `classes().find` would find it). */
  classByQualname(q: string): ClassInfo | undefined {
    return (this._classByQualname ??= firstByKey(this.classes(), (c) => c.qualname)).get(q);
  }
  private classOfNode(n: PyNode): ClassInfo | undefined {
    return (this._classByNode ??= firstByKey(this.classes(), (c) => c.node)).get(n);
  }

  imports(): Map<string, ImportInfo> {
    if (this._imports) return this._imports;
    const out = new Map<string, ImportInfo>();
    walk(this.ast, (n) => {
      if (n.type === 'import_statement') {
        for (const c of fields(n, 'name')) {
          if (c.type === 'aliased_import') {
            const m = field(c, 'name');
            const a = field(c, 'alias');
            if (m && a) out.set(this.src(a), { local: this.src(a), module: this.src(m), level: 0, node: n });
          } else {
            const first = named(c)[0];
            if (first) out.set(this.src(first), { local: this.src(first), module: this.src(first), level: 0, node: n });
          }
        }
        return false;
      }
      if (n.type === 'import_from_statement') {
        const { module, level } = importFromModule(n, (x) => this.src(x));
        for (const c of fields(n, 'name')) {
          if (c.type === 'aliased_import') {
            const m = field(c, 'name');
            const a = field(c, 'alias');
            if (m && a) out.set(this.src(a), { local: this.src(a), module, name: this.src(m), level, node: n });
          } else out.set(this.src(c), { local: this.src(c), module, name: this.src(c), level, node: n });
        }
        return false;
      }
      return mayHoldStatements(n) ? undefined : false;
    });
    return (this._imports = out);
  }

  moduleNames(): Set<string> {
    return new Set(this.scopes.module.bindings.keys());
  }

  qualifiedName(expr: NodeLike): string | undefined {
    const n0 = this.node(expr);
    if (!n0) return undefined;
    const n = unparen(n0);
    if (n.type === 'identifier') {
      const name = this.src(n);
      const r = this.scopes.readByNode.get(n);
      const sc = r ? resolveScope(r.scope, name) : null;
      if (!sc) return PYTHON_BUILTINS.has(name) ? name : undefined;
      const bs = sc.bindings.get(name) ?? [];
      if (bs.length && bs.every((b) => b.kind === 'import')) {
        const imp = this.imports().get(name);
        if (!imp) return undefined;
        const mod = '.'.repeat(imp.level) + imp.module;
        return imp.name ? (mod ? `${mod}.${imp.name}` : imp.name) : imp.module;
      }
      return undefined;
    }
    if (n.type === 'attribute') {
      const o = field(n, 'object');
      const a = field(n, 'attribute');
      if (!o || !a) return undefined;
      const q = this.qualifiedName(o);
      return q ? `${q}.${this.src(a)}` : undefined;
    }
    return undefined;
  }

  /** The call at `n` (memoised per node: most rules ask about the same calls). */
  call(n: NodeLike): CallInfo | undefined {
    const c = this.node(n);
    if (!c || c.type !== 'call') return undefined;
    if (this._calls.has(c)) return this._calls.get(c);
    // a node of the previous tree that this one took over, outside the edited function: described as before
    this.reuseDecision();
    const prev = this.prevCalls;
    const info = prev && prev.calls.has(c) && (c.end <= prev.start || c.start >= prev.end) ? prev.calls.get(c) : this.callInfo(c);
    this._calls.set(c, info);
    return info;
  }

  private callInfo(c: PyNode): CallInfo | undefined {
    const fn = field(c, 'function');
    if (!fn) return undefined;
    const argsNode = field(c, 'arguments');
    const args: PyNode[] = [];
    // most calls pass no keyword: they share one empty map (read-only through CallInfo)
    let kwargs: Map<string, PyNode> | undefined;
    let hasStarArgs = false;
    let hasStarKwargs = false;
    if (argsNode?.type === 'generator_expression') args.push(argsNode);
    else if (argsNode) {
      for (const a of named(argsNode)) {
        if (a.type === 'keyword_argument') {
          const k = field(a, 'name');
          const v = field(a, 'value');
          if (k && v) (kwargs ??= new Map()).set(this.src(k), v);
        } else if (a.type === 'list_splat') hasStarArgs = true;
        else if (a.type === 'dictionary_splat') hasStarKwargs = true;
        else args.push(a);
      }
    }
    const f = unparen(fn);
    const receiver = f.type === 'attribute' ? field(f, 'object') : undefined;
    const calleeText = this.src(f);
    const method = f.type === 'attribute' ? this.src(field(f, 'attribute')!) : calleeText;
    return { node: c, fn: f, qualified: this.qualifiedName(f), calleeText, method, receiver, args, kwargs: kwargs ?? NO_KWARGS, hasStarArgs, hasStarKwargs };
  }

  handlersAt(n: NodeLike): HandlerInfo[] {
    const p = this.node(n);
    const out: HandlerInfo[] = [];
    let child = p;
    for (let c = p?.parent ?? null; c && child; child = c, c = c.parent) {
      if (c.type === 'function_definition' || c.type === 'lambda' || c.type === 'class_definition') break;
      if (c.type !== 'try_statement' || child.field !== 'body') continue;
      for (const h of c.children) {
        if (h.type !== 'except_clause' && h.type !== 'except_group_clause') continue;
        out.push(this.handlerInfo(c, h));
      }
    }
    return out;
  }
  handlerInfo(tryNode: PyNode, h: PyNode): HandlerInfo {
    const block = named(h).find((x) => x.type === 'block');
    let reraises = false;
    let returns: PyNode | undefined;
    if (block) {
      walk(block, (x) => {
        if (x.type === 'function_definition' || x.type === 'lambda' || x.type === 'class_definition') return false;
        if (x.type === 'raise_statement') reraises = true;
        if (x.type === 'return_statement' && !returns) returns = firstNamed(x) ?? x;
        return undefined;
      });
    }
    return { tryNode, handler: h, types: handlerTypes(h, this.text), reraises, returns };
  }

  swallowedAt(n: NodeLike, exc = 'Exception'): Swallow | undefined {
    const catchers = catchersOf(exc);
    for (const h of this.handlersAt(n)) {
      if (h.reraises) continue;
      if (h.types === null || h.types.some((t) => catchers.includes(t))) {
        return { kind: 'try', file: this.path, handler: h.handler, verdict: h.returns ? this.src(h.returns) : undefined, line: this.line(h.handler) };
      }
    }
    const fn = this.functionAt(n);
    if (!fn) return undefined;
    for (const d of fn.decorators) {
      const sw = this.decoratorSwallowFor(d, catchers);
      if (sw) return sw;
    }
    return undefined;
  }

  decoratorSwallow(fn: FunctionInfo): Swallow | undefined {
    for (const d of fn.decorators) {
      const sw = this.decoratorSwallowFor(d, catchersOf('Exception'));
      if (sw) return sw;
    }
    return undefined;
  }

  private decoratorSwallowFor(d: PyNode, catchers: string[]): Swallow | undefined {
    const callee = d.type === 'call' ? field(d, 'function') : d;
    if (!callee) return undefined;
    const name = this.src(callee);
    const target = this.resolveLocalOrProject(name);
    if (!target) return undefined;
    const sw = target.analysis.swallowingBody(target.fn, catchers);
    if (!sw) return undefined;
    let verdict = sw.verdict;
    // `return default` where `default` is a parameter of the decorator factory: the call's argument is the verdict
    if (verdict && d.type === 'call' && /^[A-Za-z_]\w*$/.test(verdict)) {
      const idx = target.fn.params.indexOf(verdict);
      const ci = this.call(d);
      const arg = ci?.kwargs.get(verdict) ?? (idx >= 0 ? ci?.args[idx] : undefined);
      if (arg) verdict = this.src(arg);
    }
    return { ...sw, decorator: name, verdict };
  }

  /** The project function a call runs: a function of this module or an imported one, or `self.m(…)` /
   *  `cls.m(…)` through the enclosing class and its bases (across files). */
  callTarget(c: CallInfo): { fn: FunctionInfo; analysis: Analysis } | undefined {
    const f = c.fn;
    if (f.type === 'identifier') return this.resolveLocalOrProject(this.src(f));
    const o = f.type === 'attribute' ? field(f, 'object') : undefined;
    if (!o || !/^(self|cls)$/.test(this.src(o))) return undefined;
    const fn = this.functionAt(c.node);
    const cls = fn?.classNode ? this.classOfNode(fn.classNode) : undefined;
    if (!cls) return undefined;
    const own = cls.methods.get(c.method);
    if (own) return { fn: own, analysis: this };
    for (const b of cls.bases) {
      const r = this.link?.resolveMethod?.(this.path, b, c.method);
      if (r) return r;
    }
    return undefined;
  }

  /** Summary of a project function called here: it returns an HTTP response, or the body of one (text),
   *  and whether it may return None instead (a `return None`, or a decorator that turns errors into None). */
  httpReturnOf(c: CallInfo): HttpReturn | undefined {
    const t = this.callTarget(c);
    return t ? t.analysis.httpReturn(t.fn, 0) : undefined;
  }

  httpReturn(fn: FunctionInfo, depth: number): HttpReturn | undefined {
    if (this._httpReturn.has(fn.node)) return this._httpReturn.get(fn.node) ?? undefined;
    this._httpReturn.set(fn.node, null);
    let kind: HttpReturn['kind'] | undefined;
    let orNone = false;
    let other = false;
    walk(fn.node, (x) => {
      if (x !== fn.node && (x.type === 'function_definition' || x.type === 'lambda' || x.type === 'class_definition')) return false;
      if (x.type !== 'return_statement') return undefined;
      const v = firstNamed(x);
      if (!v || unparen(v).type === 'none') { orNone = true; return false; }
      const k = this.httpValueKind(v, depth);
      if (!k || (kind && kind !== k)) other = true;
      else kind = k;
      return false;
    });
    if (!kind && !other) {
      const rt = field(fn.node, 'return_type');
      if (rt && /(^|\.)Response\b/.test(this.src(rt))) kind = 'response';
    }
    if (this.decoratorSwallow(fn)?.verdict === 'None') orNone = true;
    const out = kind && !other ? { kind, orNone, file: this.path, qualname: fn.qualname, line: this.line(fn.node) } : undefined;
    this._httpReturn.set(fn.node, out ?? null);
    return out;
  }

  private httpValueKind(v: PyNode, depth: number): HttpReturn['kind'] | undefined {
    const u = unparen(v);
    if (u.type === 'attribute' && ['text', 'content'].includes(this.src(field(u, 'attribute')!))) {
      return this.isHttpResponse(field(u, 'object')!, depth) ? 'body' : undefined;
    }
    if (u.type === 'call') {
      const c = this.call(u);
      return c && this.isResponseCall(c, depth) ? 'response' : undefined;
    }
    if (u.type === 'identifier') {
      const kinds = new Set(this.valueSources(u).filter((x) => x !== u).map((x) => this.httpValueKind(x, depth)));
      return kinds.size === 1 ? [...kinds][0] : undefined;
    }
    return undefined;
  }

  private isHttpResponse(e: PyNode, depth: number): boolean {
    return producingCalls(this, e).some((c) => this.isResponseCall(c, depth));
  }

  private isResponseCall(c: CallInfo, depth: number): boolean {
    const k = blockingCall(this, c);
    if (k === 'requests' || k === 'requests-session' || k === 'httpx' || k === 'urlopen') return true;
    // `request = getattr(requests, method.lower()); request(url, …)`
    if (c.fn.type === 'identifier') {
      for (const s of this.valueSources(c.fn)) {
        const g = s.type === 'call' ? this.call(s) : undefined;
        if (g?.qualified === 'getattr' && g.args[0] && /^(requests|httpx)$/.test(this.qualifiedName(g.args[0]) ?? '')) return true;
      }
    }
    if (depth >= 2) return false;
    const t = this.callTarget(c);
    return t?.analysis.httpReturn(t.fn, depth + 1)?.kind === 'response';
  }

  private resolveLocalOrProject(name: string): { file: string; fn: FunctionInfo; analysis: Analysis } | undefined {
    const local = this.functionByQualname(name);
    if (local) return { file: this.path, fn: local, analysis: this };
    return this.link?.resolveFunction(this.path, name);
  }

  /** A decorator (or factory) whose body — or a nested wrapper's — catches broad errors and returns. */
  swallowingBody(fn: FunctionInfo, catchers: string[]): Swallow | undefined {
    const key = `${fn.node.start}:${catchers.join(',')}`;
    if (this._decoSwallow.has(key)) return this._decoSwallow.get(key) ?? undefined;
    let found: Swallow | undefined;
    walk(fn.node, (x) => {
      if (found) return false;
      if (x.type !== 'try_statement') return undefined;
      for (const h of x.children) {
        if (h.type !== 'except_clause' && h.type !== 'except_group_clause') continue;
        const info = this.handlerInfo(x, h);
        if (info.reraises) continue;
        if (info.types === null || info.types.some((t) => catchers.includes(t))) {
          found = { kind: 'decorator', file: this.path, handler: h, verdict: info.returns ? this.src(info.returns) : 'None', line: this.line(h) };
          return false;
        }
      }
      return undefined;
    });
    this._decoSwallow.set(key, found ?? null);
    return found;
  }

  // ---- static conditions and NoReturn ------------------------------------------------------
  staticTruth(n: PyNode): boolean | undefined {
    return staticTruth((this._static ??= { text: this.text, table: this.scopes, imports: () => this.imports(), resolution: (id) => this.resolution(id) }), n);
  }
  private _static?: StaticContext;

  isNoReturnCall(call: PyNode, scope: Scope): boolean {
    const fn = field(call, 'function');
    if (!fn) return false;
    const q = this.qualifiedName(fn);
    const t = this.src(fn);
    if ((q && NORETURN.has(q)) || NORETURN.has(t)) return true;
    // same-module function or method of the enclosing class whose body always raises
    let def: PyNode | undefined;
    if (fn.type === 'identifier') {
      const mod = this.scopes.module;
      const b = mod.bindings.get(t);
      if (b && b.length === 1 && b[0]!.kind === 'def' && resolveScope(scope, t) === mod) def = b[0]!.node.parent ?? undefined;
    } else if (fn.type === 'attribute' && /^(self|cls)\.\w+$/.test(t)) {
      let s: Scope | null = scope;
      while (s && s.kind !== 'class') s = s.parent;
      const b = s?.bindings.get(t.slice(t.indexOf('.') + 1));
      if (b && b.length === 1 && b[0]!.kind === 'def') def = b[0]!.node.parent ?? undefined;
      // unittest's `self.fail(…)` / `self.skipTest(…)` raise, in a class with a base that does not define its own
      else if (!b && /^self\.(fail|skipTest)$/.test(t) && s && field(s.node, 'superclasses')) return true;
    } else if (fn.type === 'attribute' && /^\w+\.(exit|error)$/.test(t)) {
      // typeshed: ArgumentParser.exit/error and OptionParser.exit/error never return
      const recv = t.slice(0, t.indexOf('.'));
      for (let s: Scope | null = scope; s; s = s.parent) {
        const b = s.bindings.get(recv);
        if (!b) continue;
        return b.some((x) => {
          const asg = x.node.parent;
          const right = asg?.type === 'assignment' ? field(asg, 'right') : undefined;
          const f = right?.type === 'call' ? field(right, 'function') : undefined;
          const q = f ? this.qualifiedName(f) ?? this.src(f) : '';
          return /(^|\.)(ArgumentParser|OptionParser)$/.test(q);
        });
      }
      return false;
    }
    if (!def || def.type !== 'function_definition') return false;
    return this.noReturnDef(def);
  }

  /** The function never returns (memoised; `false` while it is being decided, which ends a cycle). */
  private noReturnDef(def: PyNode): boolean {
    let cached = this._noReturn.get(def);
    if (cached === undefined) {
      this._noReturn.set(def, false);
      cached = this.alwaysRaises(def);
      this._noReturn.set(def, cached);
    }
    return cached;
  }

  /** A function with no `return`/`yield` whose last statement raises or calls a function that never returns. */
  private alwaysRaises(def: PyNode): boolean {
    const body = field(def, 'body');
    if (!body) return false;
    const stmts = named(body).filter((x) => x.type !== 'comment');
    const last = stmts[stmts.length - 1];
    // only a raise or a call can end a function that never returns: nothing to walk otherwise
    if (!last || (last.type !== 'raise_statement' && last.type !== 'expression_statement')) return false;
    let ret = false;
    walk(body, (x) => {
      if (x.type === 'function_definition' || x.type === 'lambda' || x.type === 'class_definition') return false;
      if (x.type === 'return_statement' || x.type === 'yield') ret = true;
      return undefined;
    });
    if (ret) return false;
    if (last.type === 'raise_statement') return true;
    if (last.type === 'expression_statement') {
      const e = firstNamed(last);
      const call = e && unparen(e);
      const scope = this.scopes.byNode.get(def);
      if (call?.type === 'call' && scope) return this.isNoReturnCall(call, scope);
    }
    return false;
  }
}
