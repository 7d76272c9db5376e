/**
 * Public surface of the Python analysis core (owned by src/lang/python).
 * Rules read facts from a PythonAnalysis instead of walking trees privately.
 * Every method accepts a light PyNode, or any node with the same range and type (`NodeLike`).
 * All facts are computed lazily on first use and cached per unit.
 */
import type { TokenizerLimit } from './limits.js';
import type { PyNode, NodeLike } from './tree.js';
import type { Scope, ScopeTable } from './scopes.js';
import type { Def, FlowResult } from './flow.js';

export type { PyNode };

export interface FunctionInfo {
  /** `ChimeraXMixin._eval_states`, `error_factory.<locals>.decorator.<locals>.wrapper`. */
  qualname: string;
  name: string;
  /** The function_definition node. */
  node: PyNode;
  /** Decorator expressions, outermost first. */
  decorators: PyNode[];
  params: string[];
  scope: Scope;
  /** Enclosing class, when the function is a method. */
  classNode?: PyNode;
  className?: string;
  isAsync: boolean;
}

export interface ClassInfo {
  qualname: string;
  name: string;
  node: PyNode;
  /** Source text of the base class expressions. */
  bases: string[];
  methods: Map<string, FunctionInfo>;
}

export interface ImportInfo {
  local: string;
  /** Module as written (`subprocess`, `..base.utils` → module `base.utils` with level 2). */
  module: string;
  /** Imported member (`from m import name`) — undefined for `import m`. */
  name?: string;
  level: number;
  node: PyNode;
}

type UnboundKind = 'maybe' | 'unbound' | 'undefined';

export interface UnboundRead {
  node: PyNode;
  name: string;
  /** maybe: unbound on some path; unbound: local read before any binding on every path;
   *  undefined: bound nowhere (NameError on every path). */
  kind: UnboundKind;
  /** Qualified name of the enclosing function ('' at module level). */
  qualname: string;
  scope: Scope;
}

export interface CallInfo {
  node: PyNode;
  /** The callee expression. */
  fn: PyNode;
  /** Import-resolved dotted name (`subprocess.run`, `requests.get`, `open`), when known. */
  qualified?: string;
  /** Callee source text. */
  calleeText: string;
  /** Last segment of the callee (`run`, `json`, `communicate`). */
  method: string;
  /** Receiver of a method call (`proc` in `proc.wait()`). */
  receiver?: PyNode;
  args: PyNode[];
  kwargs: ReadonlyMap<string, PyNode>;
  hasStarArgs: boolean;
  hasStarKwargs: boolean;
}

export interface HandlerInfo {
  tryNode: PyNode;
  handler: PyNode;
  /** Caught type names (last dotted segment); null = bare `except:`. */
  types: string[] | null;
  /** The handler re-raises (a `raise` statement in its body). */
  reraises: boolean;
  /** Expression of the first `return` in the handler, if any. */
  returns?: PyNode;
}

export interface Swallow {
  kind: 'decorator' | 'try';
  /** Absolute path of the file holding the handler ('' for the same unit). */
  file: string;
  /** Handler node (in `file`). */
  handler: PyNode;
  /** Decorator name as written (kind = decorator). */
  decorator?: string;
  /** Verdict the handler returns, as source text (`False`, `None`…), when constant. */
  verdict?: string;
  /** 1-based line of the handler in `file`. */
  line: number;
}

export interface NoneWitness {
  /** The definition that makes the value None (an assignment of None, or a narrowing `x is None`). */
  def: Def;
  /** Node where None was assigned or established. */
  site: PyNode;
  /** True when None on every path, false when only on some. */
  always: boolean;
}

/** What a project function returns, when it returns HTTP: the response object or its body (text). */
export interface HttpReturn {
  kind: 'response' | 'body';
  /** It may return None instead (`return None`, or a decorator that turns errors into None). */
  orNone: boolean;
  file: string;
  qualname: string;
  line: number;
}

export interface ConditionGuard {
  atom: string;
  platform: boolean;
  /** The atom is one of these values here (string literals as written, `i:1`/`k:True` for others)… */
  oneOf?: string[];
  /** …or none of these. */
  noneOf?: string[];
}

/** Why a unit of Python is not analysed (issue 17). */
export interface NotAnalysed {
  /** Tree levels (`MAX_ANALYSED_DEPTH`), or what CPython's tokenizer refused (then nothing was parsed). */
  depth: number;
  tokenizer?: TokenizerLimit;
  /** Set when the tree has more syntax nodes than the analyses accept (`MAX_ANALYSED_NODES`): the count
   *  (it stops just past the limit). */
  nodes?: number;
}

/** What a name read resolves to (`PythonAnalysis.resolution`). */
export type Resolution = 'builtin' | 'module' | 'local';

export interface PythonAnalysis {
  text: string;
  /** Absolute path of the file ('' for embedded code). */
  path: string;
  /** The parsed tree of the unit (file or embedded lambda), as plain JS objects. */
  readonly ast: PyNode;
  /** Set when the unit is nested deeper than CPython's tokenizer or vaudit's analyses accept: `ast` is
   *  then an empty module and nothing of the unit is analysed (the pass reports it once). */
  readonly notAnalysed?: NotAnalysed;
  /** Set once `flow` went over its budget: the flow is empty, and the pass reports the file instead of running its rules. */
  readonly flowOverBudget?: { names: number };
  /** The light node for a tree-sitter node (or any node with the same range and type). */
  node(n: NodeLike): PyNode | undefined;
  src(n: NodeLike): string;
  /** 1-based line of a node. */
  line(n: NodeLike): number;
  readonly scopes: ScopeTable;
  scopeOf(n: NodeLike): Scope;
  /** The call never returns: `sys.exit`, `os._exit`, `pytest.fail`/`skip`/`exit`, or a function of the
   *  module (or method of the enclosing class) whose every path raises. */
  isNoReturnCall(call: PyNode, scope: Scope): boolean;
  readonly flow: FlowResult;
  /** Reads of names that are unbound on some path, on every path, or bound nowhere (reachable code only). */
  unboundReads(): UnboundRead[];
  /** What a name read resolves to: a builtin (nothing binds it), a name of the module, or a local of a function or class. */
  resolution(id: PyNode): Resolution;
  /** The module's code reaches its own namespace by name (`globals()`, `sys.modules[__name__]`, module-level `vars()` or `exec`). */
  reachesNamespace(): boolean;
  /** Reaching definitions at a name read (locals of the executing unit), UNBOUND included. */
  reachingDefs(id: NodeLike): Def[] | undefined;
  /** Definition created at a binding identifier. */
  defAt(id: NodeLike): Def | undefined;
  /** Pure conditions that hold wherever `n` runs, from the enclosing `if`/`elif`/`else` branches and
   *  earlier `if <test>: return` exits of its function (not across calls): per atom (`platform.system()`,
   *  `sys.platform`, `os.name`, `const:NAME`, `hasattr(obj,attr)`), the values it may hold there.
   *  `platform` marks host-platform atoms (what a "branch the suite's VM never takes" needs). */
  conditionGuards(n: NodeLike): ConditionGuard[];
  /** Summary of the project function a call runs (one level of helpers, `self.m` through class bases):
   *  it returns an HTTP response or an HTTP body, possibly None. */
  httpReturnOf(c: CallInfo): HttpReturn | undefined;
  /** Whether an expression is None on some path: the literal None, or a local whose reaching value is None. */
  noneOnSomePath(expr: NodeLike): NoneWitness | undefined;
  /** Value expressions an expression may hold: follows simple local copies (`a = b`) through reaching defs. */
  valueSources(expr: NodeLike): readonly PyNode[];
  functions(): FunctionInfo[];
  /** This text is `from` (the file's previous text in an editor) edited inside one function, and what
   *  functions read outside themselves is unchanged (see `Analysis.editConfinedToOneFunction`); false for
   *  a fresh parse. */
  editConfinedToOneFunction(from: string): boolean;
  classes(): ClassInfo[];
  /** Innermost function whose body contains the node. */
  functionAt(n: NodeLike): FunctionInfo | undefined;
  functionByQualname(qualname: string): FunctionInfo | undefined;
  /** The first class of this qualname (`classes().find` by qualname, through a map made once). */
  classByQualname(qualname: string): ClassInfo | undefined;
  imports(): Map<string, ImportInfo>;
  /** Names bound at module level (for eval'd code that runs in this module's globals). */
  moduleNames(): Set<string>;
  /** Import-resolved dotted name of an expression (`sp.run` → `subprocess.run`). */
  qualifiedName(expr: NodeLike): string | undefined;
  call(n: NodeLike): CallInfo | undefined;
  /** Handlers of `try` statements whose body encloses the node, innermost first (stops at the function). */
  handlersAt(n: NodeLike): HandlerInfo[];
  /** Facts about one `except` clause of a `try` statement. */
  handlerInfo(tryNode: PyNode, handler: PyNode): HandlerInfo;
  /** How an exception of `exc` raised at `n` is turned into a verdict: an enclosing handler or a
   *  swallowing decorator of the enclosing function (resolved across the project). */
  swallowedAt(n: NodeLike, exc?: string): Swallow | undefined;
  /** The decorator function (resolved in the project) swallows exceptions into a constant. */
  decoratorSwallow(fn: FunctionInfo): Swallow | undefined;
}

export interface PythonProject {
  /** Analysis of a `.py` file of the project (parsed on first use, cached within a memory budget: hold
   *  on to it while you use it, and ask again later rather than keeping it). */
  analysis(path: string): PythonAnalysis | undefined;
  /** Analyse code that is not a project file (a lambda embedded in task JSON). Synchronous; not cached. */
  analyseCode(text: string): PythonAnalysis;
  /** Absolute paths of the project's Python files. */
  files(): string[];
  /** Source text of a project file (no parse). */
  text(path: string): string | undefined;
  /** Dotted module name of a file (`verifier.chimerax.mixin`). */
  moduleName(path: string): string | undefined;
  /** Resolve an import (module as written + level) seen in `fromFile` to a project file. */
  resolveModule(fromFile: string, module: string, level: number): string | undefined;
  /** Resolve a name used in `fromFile` (local def, or imported from a project module) to its function. */
  resolveFunction(fromFile: string, name: string): { file: string; fn: FunctionInfo } | undefined;
  /** Analyses built so far (parses of project files), evicted from the memory budget, cached now. */
  stats(): { parsed: number; evicted: number; cached: number };
  /** A one-shot run is done with this file's own rules: drop the facts computed for them (the flow,
   *  calls, value sources: `Analysis.releaseFacts`); asked again, they are computed again. */
  releaseFacts(path: string): void;
  /** A one-shot run's indexes are built: every analysis drops the calls it described and the value
   *  sources it followed (`Analysis.releaseCallFacts`); the pass describes again those its rules ask for. */
  releaseCallFacts(): void;
  /** Stop the threads parsing ahead, if any (the rest is parsed on demand). */
  releaseThreads(): void;
  /** Drop every cached analysis (and stop the threads). */
  dispose(): void;
}
