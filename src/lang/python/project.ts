/**
 * The Python side of a project: every `.py` file parsed on first use, analyses
 * cached within a memory budget; module names, import resolution (relative and
 * absolute) and cross-file function resolution for decorators and helpers.
 *
 * The cache is bounded by the source size of the files it holds (`maxCachedChars`), so memory does not
 * grow with the suite, and it resists scans: every phase (binding, reach, the pass) visits every module
 * in turn, and a least-recently-used cache smaller than the suite misses on every visit of such a loop
 * (each phase parsed every module again). The analyses that fit the budget, first asked first kept, are
 * kept to the end of the run; a module over it is parsed on demand and kept only among the last
 * `MIN_CACHED` such modules, so the modules parsed again in a later phase are the overflow only (same
 * text, same tree). Those last modules are bounded by the budget too (a batch of hostile inputs holds
 * many modules of a few MB, each analysis about 40 times its source in heap: 16 of them took GBs), but
 * the `MIN_KEPT` most recent are never evicted, whatever their size, so a rule holding the analysis of
 * the file it visits never sees it replaced while it follows calls into a few other files. The memory
 * held is thus at most twice the budget plus `MIN_KEPT` files of the largest size loaded.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SourceFile } from '../../core/source.js';
import type { FunctionInfo, PythonAnalysis, PythonProject } from './types.js';
import { parseStats, pythonParser, type KeptTree, type PythonParser } from './parser.js';
import { Analysis, type FlowCarry, type ProjectLink } from './analysis.js';
import { MAX_ANALYSED_DEPTH, MAX_ANALYSED_NODES, treeDepth, treeSize, type PyNode } from './tree.js';
import type { ScopeTable } from './scopes.js';
import { tokenizerLimit } from './limits.js';
import { MIN_AHEAD_CHARS, ParseAhead } from './parse-ahead.js';
import type { WorkerThreads } from '../../core/threads.js';
import { collectIfLarge } from '../../core/collect.js';

let parser: PythonParser | undefined;

/** Analyse a piece of Python (async: initialises the parser on first use). */
export async function analysePython(text: string, file = ''): Promise<PythonAnalysis> {
  return analyse(await pythonParser(), text, file);
}

/** Parse and wrap `text`, bounded (issue 17): text CPython's tokenizer refuses (over 200 nested brackets
 *  or 100 levels of indentation) is not parsed, and a tree deeper than the analyses walk
 *  (`MAX_ANALYSED_DEPTH`) or larger than they accept (`MAX_ANALYSED_NODES`) is not kept. Either way the analysis is of an empty module, with the reason in
 *  `notAnalysed`: nothing downstream recurses into it, and the pass reports the unit once. */
function analyse(p: PythonParser, text: string, file: string, link?: ProjectLink, keep?: { prev?: KeptTree }, ahead?: ParseAhead): Analysis {
  // a tree parsed ahead is of text the tokenizer accepts (the thread checked)
  const early = keep ? undefined : ahead?.take(file, text);
  const limit = early ? undefined : tokenizerLimit(text);
  if (limit) return new Analysis(p.parse(''), text, file, link, { depth: limit.depth, tokenizer: limit });
  let ast: PyNode;
  let kept: KeptTree | undefined;
  if (early) ast = early;
  else if (keep && p.parseKeeping) ({ root: ast, kept } = p.parseKeeping(text, keep.prev));
  else ast = p.parse(text);
  const depth = treeDepth(ast);
  if (depth > MAX_ANALYSED_DEPTH) return new Analysis(p.parse(''), text, file, link, { depth });
  // the analyses' memory grows with the nodes: over the limit only the tree was made (and is dropped now)
  const nodes = treeSize(ast, MAX_ANALYSED_NODES);
  if (nodes > MAX_ANALYSED_NODES) return new Analysis(p.parse(''), text, file, link, { depth, nodes });
  const a = new Analysis(ast, text, file, link);
  a.parseState = kept;
  return a;
}

/** Parses between two yields of `releasingTrees`. */
const RELEASE_EVERY = 32;

/**
 * A pause for a loop that analyses many modules: every `RELEASE_EVERY` parses (of a project's modules
 * or of embedded code), a turn of
 * the event loop. The native parser's trees are freed by N-API finalizers, which Node runs from the
 * event loop, not in the garbage collection that found them dead: a synchronous loop over 2,357
 * verifier modules held every parser tree it had made (about 200 MB of native memory on
 * webarena-infinity) until it returned. Nothing else runs in the pause that could change a result.
 */
export function releasingTrees(): () => Promise<void> {
  // every parse counts, the project's and those of embedded code (a task file of 81,000 distinct lambdas
  // held each one's native tree to the end of the pass: 890 MB)
  let last = parseStats.parses;
  let lastLarge = parseStats.large;
  return async () => {
    const n = parseStats.parses;
    // and after every large parse, with a full collection first: the native tree of a module of a few MB
    // is hundreds of MB that V8 does not see (its JS object is small), so no collection came to find it
    // dead (four 5 MB modules, each over the node limit and dropped at once, held 1.9 GB)
    const large = parseStats.large !== lastLarge;
    if (n - last < RELEASE_EVERY && !large) return;
    last = n;
    lastLarge = parseStats.large;
    if (large) collectIfLarge();
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
}

/**
 * Analyse now, pausing as `releasingTrees` does, every module of `python` that its memory budget keeps
 * to the end of the run (a one-shot run: the phases that follow visit every module). The first parse of
 * a module otherwise happens in whichever phase asks first, often deep in a synchronous walk:
 * webarena-infinity's learning of kind dispatches parsed all 2,357 verifier modules in one loop, and one
 * file's callers took in 30 sanity-check scripts of 50–120 KB in one step; the native trees of those
 * parses, freed only when the run yields, held 157 MB that the allocator kept as the process's own to
 * the end of the run (18 MB parsed here). Over budget, the modules that fit are analysed here (in the
 * order of the files) and the rest are parsed by the phases that ask, but for modules large enough to be
 * over the node limit (`mayBeTooLarge`): parsed here once, with a pause after each (their native trees
 * are hundreds of MB: four 5 MB modules parsed in one index's loop held 1.9 GB), they are kept at no cost
 * to the budget when they are over it (the analysis of an empty module).
 */
export async function analyseAllPausing(python: PythonProject): Promise<void> {
  if (!(python instanceof Project)) return;
  const pause = releasingTrees();
  for (const f of python.files()) {
    if (!python.wouldKeep(f) && !python.mayBeTooLarge(f)) continue;
    python.analysis(f);
    await pause();
  }
}

export interface PythonProjectOptions {
  /** Extra search roots for absolute imports (default: the package roots of the files). */
  roots?: string[];
  /** Source size (UTF-16 units) of the analyses kept to the end of the run; default
   *  `VAUDIT_ANALYSIS_BUDGET` or 6,000,000 (about 150,000 lines: no real corpus goes over). Modules over
   *  it are parsed again by each phase that asks (binding, reach, pass), and only they: a least-recently
   *  used cache re-parsed every module in every phase (webarena-infinity, 4.6 M characters, at 2,000,000:
   *  13,203 parses of 2,406 files, twice the CPU and, from the garbage, 2.4× the peak RSS of keeping
   *  them all). */
  maxCachedChars?: number;
  /** A previous project of the same session: analyses of files whose SourceFile is unchanged are
   *  taken over (re-linked to the new project) instead of parsed again, and a changed file is
   *  re-parsed incrementally from its previous tree when one was kept (`keepTrees`). */
  reuse?: PythonProject;
  /** Keep the parser tree of these files' analyses (with the analysis, within the same budget) for
   *  incremental re-parses: an editor session, for its open documents; a one-shot run keeps none. */
  keepTrees?: ReadonlySet<string>;
  /** Threads running `PARSE_AHEAD_MODULE` (started by the host) that parse ahead (`parse-ahead.ts`);
   *  the project owns them: it closes them at once for a small suite, the wasm parser or `keepTrees`. */
  threads?: WorkerThreads;
}

/** Above this much Python the main thread parses alone: on a large suite memory is what binds, and
 *  parsing ahead holds more of it (webarena-infinity, 4.6 M characters in 2,407 modules: peak RSS
 *  385 → 481–490 MB with one thread; the thread's flat trees, the native trees of the files the main
 *  thread parsed ahead itself, the thread's own heap), for a gain of a few per cent of a long run. */
const MAX_AHEAD_CHARS = 2_000_000;

/** Analyses over the budget kept: the file being visited and the few it calls into. */
const MIN_CACHED = 16;
/** Analyses over the budget kept whatever their size (the file being visited and what it calls). */
const MIN_KEPT = 4;
const DEFAULT_BUDGET = 6_000_000;
/** Nodes per character above which a module is taken to be dense enough to be over the node limit. */
const MAX_NODES_PER_CHAR = 4;

export async function createPythonProject(files: readonly SourceFile[], opts: PythonProjectOptions = {}): Promise<PythonProject> {
  parser = await pythonParser();
  const env = Number(process.env.VAUDIT_ANALYSIS_BUDGET);
  const budget = opts.maxCachedChars ?? (process.env.VAUDIT_ANALYSIS_BUDGET && Number.isFinite(env) ? env : DEFAULT_BUDGET);
  const python = files.filter((f) => f.language === 'python');
  const project = new Project(python, budget, opts.keepTrees, opts.reuse instanceof Project ? opts.reuse : undefined);
  if (opts.reuse instanceof Project) project.adopt(opts.reuse);
  if (opts.threads) {
    const chars = python.reduce((n, f) => n + f.source.text.length, 0);
    if (opts.threads.count > 0 && !opts.keepTrees && parser.kind === 'native' && chars >= MIN_AHEAD_CHARS && chars <= MAX_AHEAD_CHARS) {
      project.ahead = new ParseAhead(python.map((f) => ({ path: path.resolve(f.path), text: f.source.text })), opts.threads);
    } else opts.threads.close();
  }
  return project;
}

class Project implements PythonProject {
  private readonly byPath = new Map<string, SourceFile>();
  /** Every analysis kept: those within the budget, and the last `MIN_CACHED` over it (`overflow`). */
  private readonly cache = new Map<string, Analysis>();
  /** Source size of the analyses kept within the budget (never evicted). */
  private cachedChars = 0;
  /** The modules over the budget kept, least recently used first (a hit moves the entry to the end). */
  private readonly overflow = new Set<string>();
  /** Source size of the analyses in `overflow`. */
  private overflowChars = 0;
  private readonly modByPath: Map<string, string> = new Map();
  private readonly pathByMod: Map<string, string> = new Map();
  /** Analyses built (parses), evictions: `stats()`. */
  private parsed = 0;
  private evicted = 0;

  /** Threads parsing this project's files ahead of need, until `releaseThreads`. */
  ahead: ParseAhead | undefined;

  /** Kept trees of the previous version of changed files (`adopt`), used up by their next parse, with
   *  the flow and scope table of that version (`Analysis.flowCarry`, `scopeCarry`: the new analysis may
   *  take unchanged units and definitions over). */
  private readonly previousTrees = new Map<string, { tree: KeptTree; carry?: FlowCarry; scopes?: ScopeTable }>();

  /** `prev`: the project this one replaces (an editor session); with the same files, its module names are
   *  taken over (they read the set of files and the folders' `__init__.py`). */
  constructor(files: readonly SourceFile[], private readonly maxCachedChars: number, private readonly keepTrees?: ReadonlySet<string>, prev?: Project) {
    if (prev && prev.byPath.size === files.length && files.every((f) => prev.byPath.has(f.path))) {
      for (const f of files) this.byPath.set(f.path, f);
      this.modByPath = prev.modByPath;
      this.pathByMod = prev.pathByMod;
      return;
    }
    const paths = new Set(files.map((f) => path.resolve(f.path)));
    // per folder once (a suite of many modules in few folders asked the disk once per module)
    const inits = new Map<string, boolean>();
    const hasInit = (dir: string) => {
      let r = inits.get(dir);
      if (r === undefined) inits.set(dir, (r = paths.has(path.join(dir, '__init__.py')) || existsSync(path.join(dir, '__init__.py'))));
      return r;
    };
    for (const f of files) {
      const abs = path.resolve(f.path);
      this.byPath.set(abs, f);
      const parts: string[] = [];
      const stem = path.basename(abs, '.py');
      if (stem !== '__init__') parts.push(stem);
      let dir = path.dirname(abs);
      while (hasInit(dir)) {
        parts.unshift(path.basename(dir));
        const up = path.dirname(dir);
        if (up === dir) break;
        dir = up;
      }
      const mod = parts.join('.');
      this.modByPath.set(abs, mod);
      if (!this.pathByMod.has(mod)) this.pathByMod.set(mod, abs);
    }
  }

  files(): string[] {
    return [...this.byPath.keys()];
  }

  /** Whether the analysis of `p`, parsed now, would be kept to the end of the run (it fits the budget). */
  wouldKeep(p: string): boolean {
    const f = this.byPath.get(p);
    return !!f && !this.cache.has(p) && this.cachedChars + f.source.text.length <= this.maxCachedChars;
  }

  /** Whether `p` is long enough that its tree may be over `MAX_ANALYSED_NODES` (a module under a quarter
   *  as many characters would need more than four nodes a character). */
  mayBeTooLarge(p: string): boolean {
    const f = this.byPath.get(p);
    return !!f && !this.cache.has(p) && f.source.text.length * MAX_NODES_PER_CHAR > MAX_ANALYSED_NODES;
  }

  text(p: string): string | undefined {
    return (this.byPath.get(p) ?? this.byPath.get(path.resolve(p)))?.source.text;
  }

  analysis(p: string): Analysis | undefined {
    // callers pass the absolute paths the project lists: a cached one needs no path.resolve
    const abs = this.cache.has(p) ? p : path.resolve(p);
    let a = this.cache.get(abs);
    if (a) {
      // the order of use matters only among the modules over the budget: most recently used last
      if (this.overflow.delete(abs)) this.overflow.add(abs);
      return a;
    }
    const f = this.byPath.get(abs);
    if (!f || !parser) return undefined;
    let keep: { prev?: KeptTree } | undefined;
    let carry: FlowCarry | undefined;
    let scopes: ScopeTable | undefined;
    if (this.keepTrees?.has(abs)) {
      const prev = this.previousTrees.get(abs);
      keep = { prev: prev?.tree };
      carry = prev?.carry;
      scopes = prev?.scopes;
      this.previousTrees.delete(abs);
    }
    a = analyse(parser, f.source.text, abs, this.link, keep, this.ahead);
    a.shareLines(f.source);
    // the carried flow and scopes are of use only to a tree that took the previous tree's nodes over
    if (keep?.prev && a.parseState && !a.notAnalysed) {
      a.carry = carry;
      a.prevScopes = scopes;
    }
    this.parsed++;
    this.keep(abs, a);
    return a;
  }

  private readonly link: ProjectLink = {
    resolveFunction: (from, name) => this.resolveFunctionA(from, name),
    resolveMethod: (from, cls, method) => this.resolveMethodA(from, cls, method),
  };

  /** Take over the cached analyses of `prev` whose file is the same SourceFile here (same text). */
  adopt(prev: Project): void {
    for (const [abs, a] of prev.cache) {
      const before = prev.byPath.get(abs);
      if (!before || this.byPath.get(abs) !== before) {
        // a changed file: its next parse starts from the old tree
        // (its flow is summarised now: the parse moves the old tree's nodes into the new one)
        if (this.keepTrees?.has(abs) && a.parseState && this.byPath.has(abs)) this.previousTrees.set(abs, { tree: a.parseState, carry: a.flowCarry(), scopes: a.scopeCarry() });
        a.parseState = undefined;
        continue;
      }
      a.relink(this.link);
      this.keep(abs, a);
    }
  }

  releaseFacts(p: string): void {
    // an editor session keeps them (the next edit's flow reuse reads them)
    if (!this.keepTrees) this.cache.get(p)?.releaseFacts();
  }

  releaseCallFacts(): void {
    if (!this.keepTrees) for (const a of this.cache.values()) a.releaseCallFacts();
  }

  /** Keep `a` to the end of the run when it fits the budget, else among the last `MIN_CACHED` over it
   *  within the budget again, never fewer than `MIN_KEPT` (dropping the least recently used of those). */
  private keep(abs: string, a: Analysis): void {
    this.cache.set(abs, a);
    // the analysis of an empty module (a file not analysed) holds nothing but the file's own text
    if (a.notAnalysed) return;
    if (this.cachedChars + a.text.length <= this.maxCachedChars) {
      this.cachedChars += a.text.length;
      return;
    }
    this.overflow.add(abs);
    this.overflowChars += a.text.length;
    for (const k of this.overflow) {
      if (this.overflow.size <= MIN_KEPT || (this.overflow.size <= MIN_CACHED && this.overflowChars <= this.maxCachedChars)) break;
      this.overflow.delete(k);
      this.overflowChars -= this.cache.get(k)?.text.length ?? 0;
      this.cache.delete(k);
      this.evicted++;
    }
  }

  stats(): { parsed: number; evicted: number; cached: number } {
    return { parsed: this.parsed, evicted: this.evicted, cached: this.cache.size };
  }

  analyseCode(text: string): PythonAnalysis {
    if (!parser) throw new Error('Python parser not initialised');
    return analyse(parser, text, '');
  }

  moduleName(p: string): string | undefined {
    return this.modByPath.get(path.resolve(p));
  }

  /** Memo of `resolveModule` (path arithmetic per import, asked again by binding, reach and rules). */
  private readonly moduleMemo = new Map<string, string | undefined>();

  resolveModule(fromFile: string, module: string, level: number): string | undefined {
    const key = `${level}\0${module}\0${fromFile}`;
    if (this.moduleMemo.has(key)) return this.moduleMemo.get(key);
    const found = this.findModule(fromFile, module, level);
    this.moduleMemo.set(key, found);
    return found;
  }

  private findModule(fromFile: string, module: string, level: number): string | undefined {
    const rel = module ? module.split('.') : [];
    if (level > 0) {
      let dir = path.dirname(path.resolve(fromFile));
      for (let i = 1; i < level; i++) dir = path.dirname(dir);
      return this.fileFor(path.join(dir, ...rel));
    }
    const exact = this.pathByMod.get(module);
    if (exact) return exact;
    // every lookup below ends at a project file named after the module's last part: most imports name
    // a library module (`os.path`, `numpy`), and each tried up to a dozen paths from every importer
    const last = rel[rel.length - 1];
    if (last !== undefined && last !== '' && !/[/\\]/.test(last) && !this.moduleTails().has(last)) return undefined;
    // a project laid out without packages: try next to the importing file, then any suffix match
    const sibling = this.fileFor(path.join(path.dirname(path.resolve(fromFile)), ...rel));
    if (sibling) return sibling;
    // a namespace package (PEP 420: folders without __init__.py) on a path entry above the importer,
    // as `python run.py` from the suite's root finds `evaluation_harness/helper_functions.py`
    if (rel.length > 1) {
      let dir = path.dirname(path.dirname(path.resolve(fromFile)));
      for (let i = 0; i < 8; i++) {
        const hit = this.fileFor(path.join(dir, ...rel));
        if (hit) return hit;
        const up = path.dirname(dir);
        if (up === dir) break;
        dir = up;
      }
    }
    return this.bySuffix(module);
  }

  private tails?: Set<string>;
  /** The last part of every project module's name and file (`b` for `a/b.py`, `a/b/__init__.py`, module `a.b`):
   *  a module whose last part is none of these is no project file (`findModule`). */
  private moduleTails(): Set<string> {
    if (this.tails) return this.tails;
    const out = new Set<string>();
    for (const m of this.pathByMod.keys()) out.add(m.slice(m.lastIndexOf('.') + 1));
    for (const p of this.byPath.keys()) {
      const base = path.basename(p);
      if (base === '__init__.py') out.add(path.basename(path.dirname(p)));
      else if (base.endsWith('.py')) out.add(base.slice(0, -3));
    }
    return (this.tails = out);
  }

  /** Memo of `bySuffix` per module name (a scan of every module otherwise: quadratic in a large suite). */
  private readonly suffixMemo = new Map<string, string | undefined>();

  /** The one project module whose dotted name ends with `.module` (none when two do). */
  private bySuffix(module: string): string | undefined {
    if (this.suffixMemo.has(module)) return this.suffixMemo.get(module);
    let hit: string | undefined;
    for (const [m, p] of this.pathByMod) {
      if (m.endsWith(`.${module}`)) {
        if (hit) {
          hit = undefined;
          break;
        }
        hit = p;
      }
    }
    this.suffixMemo.set(module, hit);
    return hit;
  }

  private fileFor(base: string): string | undefined {
    for (const c of [`${base}.py`, path.join(base, '__init__.py')]) if (this.byPath.has(c)) return c;
    return undefined;
  }

  resolveFunction(fromFile: string, name: string): { file: string; fn: FunctionInfo } | undefined {
    const r = this.resolveFunctionA(fromFile, name);
    return r ? { file: r.file, fn: r.fn } : undefined;
  }

  private resolveFunctionA(fromFile: string, name: string, depth = 0): { file: string; fn: FunctionInfo; analysis: Analysis } | undefined {
    return this.resolveName(fromFile, name, (a, q) => a.functionByQualname(q), depth);
  }

  /** A method of a class (by the name the class has in `fromFile`), looked up through its bases across files. */
  private resolveMethodA(fromFile: string, className: string, method: string, depth = 0): { file: string; fn: FunctionInfo; analysis: Analysis } | undefined {
    if (depth > 6) return undefined;
    const cls = this.resolveName(fromFile, className, (a, q) => a.classByQualname(q));
    if (!cls) return undefined;
    const m = cls.fn.methods.get(method);
    if (m) return { file: cls.file, fn: m, analysis: cls.analysis };
    for (const b of cls.fn.bases) {
      const r = this.resolveMethodA(cls.file, b, method, depth + 1);
      if (r) return r;
    }
    return undefined;
  }

  /** A name used in `fromFile` (local, or imported from a project module) resolved to what `find` finds. */
  private resolveName<T>(fromFile: string, name: string, find: (a: Analysis, qualname: string) => T | undefined, depth = 0): { file: string; fn: T; analysis: Analysis } | undefined {
    if (depth > 8) return undefined;
    const a = this.analysis(fromFile);
    if (!a) return undefined;
    const local = find(a, name);
    if (local) return { file: a.path, fn: local, analysis: a };
    const [head, ...rest] = name.split('.');
    const imp = a.imports().get(head!);
    if (!imp) return undefined;
    if (imp.name) {
      // from M import head → look for head(.rest) in M, or module M.head
      const target = this.resolveModule(fromFile, imp.module, imp.level);
      if (target) {
        const r = this.resolveName(target, [imp.name, ...rest].join('.'), find, depth + 1);
        if (r) return r;
      }
      const sub = this.resolveModule(fromFile, imp.module ? `${imp.module}.${imp.name}` : imp.name, imp.level);
      if (sub && rest.length) return this.resolveName(sub, rest.join('.'), find, depth + 1);
      return undefined;
    }
    // import a.b as x → x.f
    const mod = this.resolveModule(fromFile, imp.module, 0);
    if (mod && rest.length) return this.resolveName(mod, rest.join('.'), find, depth + 1);
    return undefined;
  }

  releaseThreads(): void {
    this.ahead?.close();
    this.ahead = undefined;
  }

  dispose(): void {
    this.releaseThreads();
    this.cache.clear();
    this.overflow.clear();
    this.overflowChars = 0;
    this.cachedChars = 0;
  }
}
