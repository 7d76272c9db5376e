/**
 * Reachability: which code is on a verifier path.
 *
 * From the entrypoints (src/suites/entrypoints.ts) a call graph is followed
 * across modules:
 * - Python, per top-level function or method ("unit"; nested functions and
 *   lambdas belong to their enclosing unit): every name a unit mentions
 *   (calls, callbacks, decorators — a function passed around is reached),
 *   resolved through local definitions and imports; `self.m`/`cls.m` through
 *   the class, its bases and its subclasses (overrides); `super().m` through
 *   the bases; `obj.m` on a receiver of unknown type to every project method
 *   named `m` (never to a receiver imported from a library); `getattr(x,
 *   f"_eval_{kind}")` to the methods whose names fit the pattern; a class
 *   that is mentioned to its constructor, `__call__` and context-manager
 *   methods; a module whose code is reached to its top-level code and the
 *   modules it imports (`if __name__ == "__main__":` blocks excluded);
 * - HTTP: a string in reached code that names a route of the helper server
 *   (`"POST/lean/check"`, `f"{base}/lean/check"`) reaches the handler declared
 *   with `@app.route("/lean/check")` (Flask, FastAPI style decorators);
 * - JavaScript/TypeScript at module granularity: a reached module reaches its
 *   relative imports (`import`, `import()`, `require`).
 *
 * Platform: helper-server modules (files declaring HTTP routes) run in the
 * suite's VM, whose platform is known (config `platform`, default `linux`);
 * branches of `if platform.system() == "Windows":` (also `sys.platform`,
 * `os.name`, and locals assigned from them) that the VM never takes are not
 * on a verifier path. Host-side code keeps every platform branch: the host
 * is whatever machine runs the benchmark.
 */
import path from 'node:path';
import type { SourceFile } from '../core/source.js';
import type { ClassInfo, FunctionInfo, PythonAnalysis, PythonProject, PyNode } from '../lang/python/types.js';
import { walk } from '../lang/python/tree.js';
import type { Entrypoint } from '../suites/entrypoints.js';
import { resolveDotted } from '../suites/harness/py-classes.js';

export type TargetPlatform = 'linux' | 'windows' | 'darwin' | 'any';

export interface ReachOptions {
  files: ReadonlyMap<string, SourceFile>;
  python: PythonProject;
  entrypoints: readonly Entrypoint[];
  /** Files that are never "code" for scope purposes (bundles: always verifier code). */
  alwaysInScope?: ReadonlySet<string>;
  platform?: TargetPlatform;
  /** Per-file facts kept between walks (an editor session): see `ReachCache`. */
  cache?: ReachCache;
}

/** What a walk reads of one Python file from the rest of the project (its cross-file summary:
 *  definitions, classes, imports, decorators), for a file version; undefined when unknown. */
export type InterfaceKey = (f: SourceFile) => string | undefined;

export interface Reach {
  /** Does the file hold any code on a verifier path (or is it not code at all)? */
  fileReached(file: string): boolean;
  /** Is this offset of the file on a verifier path? JSON is always. */
  onPath(file: string, offset: number): boolean;
  /** Units reached (Python functions/methods) and files (JS/TS), for tests and the bench. */
  readonly reachedUnits: number;
  /** Did the walk replay the previous walk's memo (an editor session, `WalkMemo`)? */
  readonly replayed: boolean;
}

interface Unit {
  key: string;
  /** The key, told apart from other units of the file with the same qualname (`#n`): what a walk's
   *  memo of edges names a unit by. */
  tok: string;
  file: string;
  start: number;
  end: number;
  fn?: FunctionInfo;
}

/** A file's units and blocks by offset: what `onPath` keeps after the walk. */
interface FileSpans {
  /** Top-level functions and methods, sorted by start. */
  units: Unit[];
  mainBlocks: Array<[number, number]>;
  deadBranches: Array<[number, number]>;
}

interface PyFile {
  a: PythonAnalysis;
  /** Top-level functions and methods, sorted by start. */
  units: Unit[];
  byQualname: Map<string, Unit>;
  classes: Map<string, ClassInfo>;
  moduleUnit: Unit;
  /** Units by `tok` (the module unit too). */
  byTok: Map<string, Unit>;
  /** `if __name__ == "__main__":` blocks. */
  mainBlocks: Array<[number, number]>;
  /** Branches the target platform never takes (helper-server modules only). */
  deadBranches: Array<[number, number]>;
}

/** What mentioning a class reaches: construction and context management (`__call__` only when named). */
const CTOR_METHODS = ['__init__', '__new__', '__post_init__', '__enter__', '__exit__', '__aenter__', '__aexit__'];
/** Methods of library protocols (files, connections, processes, containers, HTTP replies). */
const PROTOCOL_METHODS = new Set([
  'close', 'open', 'read', 'write', 'flush', 'readline', 'readlines', 'seek', 'get', 'put', 'post', 'delete', 'patch',
  'run', 'start', 'stop', 'join', 'wait', 'kill', 'terminate', 'send', 'recv', 'connect', 'cursor', 'execute',
  'fetchone', 'fetchall', 'commit', 'rollback', 'items', 'keys', 'values', 'copy', 'update', 'append', 'extend',
  'pop', 'clear', 'format', 'split', 'strip', 'encode', 'decode', 'json', 'lower', 'upper', 'replace', 'find',
]);
const KEEP_DUNDERS = new Set([...CTOR_METHODS, '__call__']);
const ROUTE_DECORATOR = /@[\w.]+\.(?:route|get|post|put|delete|patch|api_route|websocket)\(\s*[rRuU]?(["'])(\/[^"']*)\1/g;
const PLATFORM_VALUES: Record<Exclude<TargetPlatform, 'any'>, Record<string, string>> = {
  linux: { 'platform.system()': 'Linux', 'sys.platform': 'linux', 'os.name': 'posix' },
  windows: { 'platform.system()': 'Windows', 'sys.platform': 'win32', 'os.name': 'nt' },
  darwin: { 'platform.system()': 'Darwin', 'sys.platform': 'darwin', 'os.name': 'posix' },
};

export function computeReach(o: ReachOptions): Reach {
  const walker = new ReachWalker(o);
  walker.walk();
  return walker.result();
}

type Target = { kind: 'fn'; file: string; qualname: string } | { kind: 'class'; file: string; qualname: string } | { kind: 'module'; file: string };
type ClassRef = { file: string; qualname: string };

/** The class a base-class expression names (`Base`, `mod.Base`, `Base[T]`). */
function baseRef(python: PythonProject, a: PythonAnalysis, base: string): ClassRef | undefined {
  const r = resolveDotted(python, a, base.replace(/\[.*$/, '').replace(/\s+/g, ''));
  return r && { file: r.file, qualname: r.qualname };
}

/** A handler of a helper-server route: the URL pattern and the unit it reaches (once). */
interface Route {
  re: RegExp;
  file: string;
  qualname: string;
  hit: boolean;
}

/** What a unit mentions, gathered in one walk of its tree. */
interface Mentions {
  names: Set<string>;
  attrs: Array<{ obj: PyNode; attr: string }>;
  strings: string[];
  dyn: Array<{ obj: PyNode; pattern: RegExp | null }>;
  imports: PyNode[];
}

/** Text indexes over every Python file (no parse): method/function names, class bases, routes. */
interface TextIndex {
  defsByName: Map<string, string[]>;
  /** base last segment → files */
  subclassCandidates: Map<string, string[]>;
  routeFiles: string[];
}

/** What the text index takes from one file's text. */
interface FileText {
  defs: string[];
  bases: string[];
  routes: boolean;
}

/**
 * Facts of one file that a walk derives from its text or its analysis alone, kept by an editor
 * session between lints: an unchanged file keeps its SourceFile and its analysis (the project takes
 * analyses over, src/lang/python/project.ts), so only the edited file's are derived again. What
 * crosses files (name resolution, hierarchies, routes) is walked afresh every time.
 */
export class ReachCache {
  readonly texts = new WeakMap<SourceFile, FileText>();
  readonly pyFiles = new WeakMap<PythonAnalysis, Map<TargetPlatform, PyFile>>();
  /** By unit (units of a cached file are the same objects in every walk; two may share a qualname),
   *  with the file's main blocks set apart and without (a whole-module entrypoint clears them). */
  readonly mentions = new WeakMap<Unit, { main?: Mentions; all?: Mentions }>();
  /** The cross-file summary of a Python file version (the session's, src/engine/index-reuse.ts). */
  iface?: InterfaceKey;
  /** The last walk's memo, for the next walk (`WalkMemo`). */
  last?: WalkMemo;
}

/**
 * What a walk leaves for the next (an editor session): per unit visited, every unit its visit reached, in
 * order (its edges; a fan-out to every method of a name as one `\u0001name` edge), and what the walk
 * needs of each file after it (spans). The next walk replays the edges of a unit instead of visiting it
 * while the unit's file is the same and no other file's cross-file summary changed: a visit reads other
 * files only through their summaries (definitions, classes, imports, decorators; the text index), so its
 * edges are the same, and replaying the same edges in the same order reaches what a fresh walk reaches,
 * in the same order. A file whose summary changed (a function renamed, an import added) voids the memo:
 * the walk starts afresh.
 */
interface WalkMemo {
  /** The files of the walk, by path (a snapshot). */
  files: ReadonlyMap<string, SourceFile>;
  platform: TargetPlatform;
  index: TextIndex;
  /** Per file, per unit `tok`, the `tok`s its visit reached (and `\u0001name` fan-outs). */
  edges: Map<string, Map<string, string[]>>;
  /** What a fan-out to every project method of a name reaches. */
  fan: Map<string, string[]>;
  spans: Map<string, FileSpans>;
  /** Files whose main blocks a whole-module entrypoint cleared. */
  whole: Set<string>;
  /** Per entrypoint (file, then qualname or `*` for a whole module), the units it reached. */
  entries: Map<string, Map<string, string[]>>;
  /** Files changed since the walk that left the memo (set when it is taken up). */
  changed: Set<string>;
}

const FAN = '\u0001';

function sameFileText(a: FileText, b: FileText): boolean {
  return a.routes === b.routes && a.defs.length === b.defs.length && a.bases.length === b.bases.length && a.defs.every((d, i) => d === b.defs[i]) && a.bases.every((x, i) => x === b.bases[i]);
}

function textOf(f: SourceFile, cache?: ReachCache): FileText {
  let t = cache?.texts.get(f);
  if (!t) {
    t = fileText(f.source.text);
    cache?.texts.set(f, t);
  }
  return t;
}

/** The memo of the last walk when it holds for these files: every file that changed since is not Python,
 *  or kept its cross-file summary and text facts; the memo, less what the changed files left in it. */
function heldMemo(o: ReachOptions, platform: TargetPlatform): WalkMemo | undefined {
  const cache = o.cache;
  const last = cache?.last;
  if (!cache || !last) return undefined;
  cache.last = undefined;
  if (last.platform !== platform || last.files.size !== o.files.size || !cache.iface) return undefined;
  const changed: string[] = [];
  for (const [p, f] of o.files) {
    const was = last.files.get(p);
    if (was === f) continue;
    if (!was || was.language !== f.language) return undefined;
    if (f.language === 'python') {
      const before = cache.iface(was);
      if (before === undefined || before !== cache.iface(f) || !sameFileText(textOf(was, cache), textOf(f, cache))) return undefined;
    }
    changed.push(p);
  }
  for (const p of changed) {
    last.edges.delete(p);
    last.spans.delete(p);
  }
  last.changed = new Set(changed);
  return last;
}

function fileText(text: string): FileText {
  const out: FileText = { defs: [], bases: [], routes: false };
  for (const m of text.matchAll(/^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)/gm)) out.defs.push(m[1]!);
  for (const m of text.matchAll(/^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)/gm)) {
    for (const b of m[1]!.split(',')) {
      const last = b.trim().split('.').pop()!.replace(/\[.*$/, '');
      if (/^\w+$/.test(last)) out.bases.push(last);
    }
  }
  ROUTE_DECORATOR.lastIndex = 0;
  out.routes = ROUTE_DECORATOR.test(text);
  return out;
}

function indexTexts(files: ReadonlyMap<string, SourceFile>, cache?: ReachCache): TextIndex {
  const defsByName = new Map<string, string[]>();
  const subclassCandidates = new Map<string, string[]>();
  const routeFiles: string[] = [];
  for (const f of files.values()) {
    if (f.language !== 'python') continue;
    const t = textOf(f, cache);
    for (const d of t.defs) push(defsByName, d, f.path);
    for (const b of t.bases) push(subclassCandidates, b, f.path);
    if (t.routes) routeFiles.push(f.path);
  }
  return { defsByName, subclassCandidates, routeFiles };
}

/** The walk over the call graph from the entrypoints, and what it reached. */
class ReachWalker {
  private readonly python: PythonProject;
  private readonly platform: TargetPlatform;
  private readonly pyFiles = new Map<string, PyFile | null>();
  private readonly reached = new Set<string>();
  /** Units to visit, by `tok` (`unitOfTok`). */
  private readonly queue: string[] = [];
  /** Units reached by object (their `tok` names them in the queue). */
  private readonly pending = new Map<string, Unit>();
  /** The previous walk's memo when it holds (`heldMemo`), replayed for unchanged files. */
  private readonly memo: WalkMemo | undefined;
  /** This walk's memo (an editor session only): what the next walk may replay. */
  private readonly record: WalkMemo | undefined;
  /** The edges of the unit being visited (recording). */
  private sink: string[] | undefined;
  /** The fan-outs among them. */
  private readonly sinkFans = new Set<string>();
  private readonly whole = new Set<string>();
  private readonly jsReached = new Set<string>();
  /** Memo of `subclassesOf` (a pure function of the project, asked again for every method reached through a hierarchy). */
  private readonly subclassMemo = new Map<string, ClassRef[]>();
  /** Memo of `basesOf` and `methodsInHierarchy` (pure functions of the project, asked for every `self.m`
   *  and every class mention of every unit reached). */
  private readonly basesMemo = new Map<string, ClassRef[]>();
  private readonly hierarchyMemo = new Map<string, Unit[]>();
  /** Attribute names whose every project method a receiver of unknown type reached (`resolveAttr`). */
  private readonly fannedOut = new Set<string>();
  private readonly index: TextIndex;
  /** Routes of helper servers: pattern → handler unit. */
  private readonly routes: Route[] = [];
  /** The unit being visited (for the trace). */
  private from = '';
  private readonly trace: ((k: string) => void) | undefined;

  constructor(private readonly o: ReachOptions) {
    this.python = o.python;
    this.platform = o.platform ?? 'linux';
    this.memo = heldMemo(o, this.platform);
    this.index = this.memo?.index ?? indexTexts(o.files, o.cache);
    if (o.cache) {
      this.record = { files: new Map(o.files), platform: this.platform, index: this.index, edges: this.memo?.edges ?? new Map(), fan: this.memo?.fan ?? new Map(), spans: new Map(), whole: this.whole, entries: new Map(), changed: new Set() };
    }
    this.trace = process.env.VAUDIT_TRACE_REACH ? (k: string) => process.stderr.write(`reach ${k.replace('\0', '#')} <- ${this.from}\n`) : undefined;
  }

  /** Collect the routes, reach the entrypoints, and follow everything they mention. */
  walk(): void {
    this.collectRoutes();
    for (const e of this.o.entrypoints) this.reachEntrypoint(e);
    // a file whose main blocks a whole-module entrypoint clears (or no longer clears) has other edges
    if (this.memo) {
      for (const p of new Set([...this.memo.whole, ...this.whole])) {
        if (this.memo.whole.has(p) === this.whole.has(p)) continue;
        this.memo.edges.delete(p);
        this.memo.spans.delete(p);
      }
    }
    while (this.queue.length) {
      const tok = this.queue.pop()!;
      const file = tok.slice(0, tok.indexOf('\0'));
      const kept = this.memo?.edges.get(file)?.get(tok);
      if (kept) {
        this.from = tok.replace('\0', '#');
        for (const t of kept) this.reachTok(t);
        continue;
      }
      const u = this.pending.get(tok) ?? this.file(file)?.byTok.get(tok);
      if (!u) continue;
      const pf = this.file(u.file)!;
      this.from = u.key.replace('\0', '#');
      if (!this.record) {
        this.visitUnit(pf, u);
        continue;
      }
      const edges: string[] = (this.sink = []);
      this.sinkFans.clear();
      this.visitUnit(pf, u);
      this.sink = undefined;
      let byFile = this.record.edges.get(file);
      if (!byFile) this.record.edges.set(file, (byFile = new Map()));
      byFile.set(tok, edges);
    }
    this.pending.clear();
  }

  /** Reach a unit named by its `tok`, or every method of a name (a replayed fan-out). */
  private reachTok(t: string): void {
    if (t.startsWith(FAN)) return this.fanOut(t.slice(1));
    const h = t.indexOf('\0#');
    const key = h < 0 ? t : t.slice(0, h);
    if (this.reached.has(key)) return;
    this.reached.add(key);
    this.trace?.(key);
    this.queue.push(t);
  }

  /** Every project method named `attr` (a call on a receiver of unknown type); once per walk. */
  private fanOut(attr: string): void {
    if (this.fannedOut.has(attr)) return;
    this.fannedOut.add(attr);
    const known = this.record?.fan.get(attr);
    if (known) {
      for (const t of known) this.reachTok(t);
      return;
    }
    const hit: string[] = [];
    for (const p of this.index.defsByName.get(attr) ?? []) {
      const mf = this.file(p);
      if (!mf) continue;
      for (const u of mf.units) if (u.fn?.name === attr && u.fn.className) { hit.push(u.tok); this.reach(u); }
    }
    this.record?.fan.set(attr, hit);
  }

  private file(p: string): PyFile | undefined {
    let pf = this.pyFiles.get(p);
    if (pf !== undefined) return pf ?? undefined;
    const a = this.python.analysis(p);
    pf = a ? this.buildPyFile(a, this.index.routeFiles.includes(p) ? this.platform : 'any') : null;
    this.pyFiles.set(p, pf);
    return pf ?? undefined;
  }

  /** A file's units and blocks (from the cache: a copy, as a walk may clear its main blocks). */
  private buildPyFile(a: PythonAnalysis, platform: TargetPlatform): PyFile {
    const cache = this.o.cache;
    if (!cache) return buildPyFile(a, platform);
    let byPlatform = cache.pyFiles.get(a);
    if (!byPlatform) cache.pyFiles.set(a, (byPlatform = new Map()));
    let pf = byPlatform.get(platform);
    if (!pf) byPlatform.set(platform, (pf = buildPyFile(a, platform)));
    return { ...pf };
  }

  private mentionsOf(pf: PyFile, u: Unit): Mentions {
    const cache = this.o.cache;
    if (!cache) return mentionsOf(pf, u);
    let byMain = cache.mentions.get(u);
    if (!byMain) cache.mentions.set(u, (byMain = {}));
    const which = pf.mainBlocks.length ? 'main' : 'all';
    return (byMain[which] ??= mentionsOf(pf, u));
  }

  private reach(u: Unit | undefined): void {
    if (!u) return;
    this.sink?.push(u.tok);
    if (this.reached.has(u.key)) return;
    this.reached.add(u.key);
    this.trace?.(u.key);
    this.queue.push(u.tok);
    this.pending.set(u.tok, u);
  }

  private reachModule(p: string): void {
    this.reach(this.file(p)?.moduleUnit);
  }

  private collectRoutes(): void {
    for (const p of this.index.routeFiles) {
      const pf = this.file(p);
      if (!pf) continue;
      for (const fn of pf.a.functions()) {
        for (const d of fn.decorators) {
          const m = /^[\w.]+\.(?:route|get|post|put|delete|patch|api_route|websocket)\(\s*[rRuU]?(["'])(\/[^"']*)\1/.exec(d.text);
          if (!m || m[2] === '/') continue;
          const unit = unitOf(pf, fn);
          if (unit) this.routes.push({ re: routeRegex(m[2]!), file: p, qualname: unit.fn!.qualname, hit: false });
        }
      }
    }
  }

  private reachEntrypoint(e: Entrypoint): void {
    const lang = this.o.files.get(e.file)?.language;
    if (lang === 'javascript' || lang === 'typescript') return this.reachJs(e.file);
    if (lang !== 'python') return;
    // an entrypoint into a file the memo holds reaches what it reached (no need to load the file)
    const q = e.qualname ?? '*';
    const kept = this.memo && !this.memo.changed.has(e.file) ? this.memo.entries.get(e.file)?.get(q) : undefined;
    if (kept) {
      if (e.qualname === undefined) this.whole.add(e.file);
      for (const t of kept) this.reachTok(t);
      this.noteEntry(e.file, q, kept);
      return;
    }
    const pf = this.file(e.file);
    if (!pf) return;
    const sink = (this.sink = this.record ? [] : undefined);
    this.reach(pf.moduleUnit);
    if (e.qualname === undefined) {
      // the whole module is the verifier (its main block too)
      pf.mainBlocks = [];
      this.whole.add(e.file);
      for (const u of pf.units) this.reach(u);
    } else {
      const u = pf.byQualname.get(e.qualname) ?? unitContaining(pf, e.qualname);
      this.reach(u);
    }
    this.sink = undefined;
    if (sink) this.noteEntry(e.file, q, sink);
  }

  private noteEntry(file: string, q: string, toks: string[]): void {
    if (!this.record) return;
    let m = this.record.entries.get(file);
    if (!m) this.record.entries.set(file, (m = new Map()));
    m.set(q, toks);
  }

  // ---- one unit ------------------------------------------------------------

  private visitUnit(pf: PyFile, u: Unit): void {
    const { names, attrs, strings, dyn, imports } = this.mentionsOf(pf, u);
    // a reached function's module is loaded
    if (u.fn) this.reach(pf.moduleUnit);
    const cls = u.fn?.className ? enclosingClass(pf, u.fn) : undefined;
    for (const name of names) for (const t of this.resolveName(pf, name)) this.reachTarget(t);
    for (const { obj, attr } of attrs) {
      if (/^__\w+__$/.test(attr) && !KEEP_DUNDERS.has(attr)) continue;
      this.resolveAttr(pf, cls, obj, attr);
    }
    for (const { obj, pattern } of dyn) this.resolveDynamic(pf, cls, obj, pattern);
    for (const imp of imports) for (const m of this.importedModules(pf, imp)) this.reachModule(m);
    for (const s of strings) {
      for (const r of this.routes) {
        // recording, every request to a route is an edge (another unit may be the first next time)
        if ((r.hit && !this.sink) || !r.re.test(s)) continue;
        r.hit = true;
        this.reach(this.file(r.file)?.byQualname.get(r.qualname));
      }
    }
  }

  private reachTarget(t: Target): void {
    if (t.kind === 'module') return this.reachModule(t.file);
    const pf = this.file(t.file);
    if (!pf) return;
    this.reach(pf.moduleUnit);
    if (t.kind === 'fn') return this.reach(pf.byQualname.get(t.qualname));
    for (const m of CTOR_METHODS) for (const hit of this.methodsInHierarchy(t.file, t.qualname, m, true, false)) this.reach(hit);
  }

  // ---- name resolution -----------------------------------------------------

  /** A bare name used in `pf`: a module-level def or class, or an import. */
  private resolveName(pf: PyFile, name: string, depth = 0): Target[] {
    if (depth > 6) return [];
    const python = this.python;
    const p = pf.a.path;
    if (pf.byQualname.has(name)) return [{ kind: 'fn', file: p, qualname: name }];
    if (pf.classes.has(name)) return [{ kind: 'class', file: p, qualname: name }];
    const imp = pf.a.imports().get(name);
    if (!imp) return [];
    if (imp.name) {
      const out: Target[] = [];
      const mod = python.resolveModule(p, imp.module, imp.level);
      // `from snowflake import connector` inside snowflake.py names the library, not this file
      if (mod === p && imp.level === 0) return [];
      if (mod) {
        out.push({ kind: 'module', file: mod });
        const mf = this.file(mod);
        if (mf && mf !== pf) out.push(...this.resolveName(mf, imp.name, depth + 1));
      }
      const sub = python.resolveModule(p, imp.module ? `${imp.module}.${imp.name}` : imp.name, imp.level);
      if (sub) out.push({ kind: 'module', file: sub });
      return out;
    }
    const mod = python.resolveModule(p, imp.module, 0);
    return mod ? [{ kind: 'module', file: mod }] : [];
  }

  /** What a dotted expression names, when it is a module or class of the project; 'external' for library imports. */
  private resolveRef(pf: PyFile, obj: PyNode): Target[] | 'external' | undefined {
    if (obj.type === 'identifier') {
      const t = this.resolveName(pf, obj.text);
      if (t.length) return t;
      const imp = pf.a.imports().get(obj.text);
      return imp ? 'external' : undefined;
    }
    if (obj.type === 'attribute') {
      const inner = obj.childForFieldName('object');
      const attr = obj.childForFieldName('attribute')?.text;
      if (!inner || !attr) return undefined;
      const base = this.resolveRef(pf, inner);
      if (base === 'external') return 'external';
      if (!base) return undefined;
      const out: Target[] = [];
      for (const t of base) {
        if (t.kind !== 'module') continue;
        const mf = this.file(t.file);
        if (mf) out.push(...this.resolveName(mf, attr));
        const sub = this.python.moduleName(t.file);
        const subPath = sub !== undefined ? this.python.resolveModule(t.file, `${sub}.${attr}`, 0) : undefined;
        if (subPath) out.push({ kind: 'module', file: subPath });
      }
      return out.length ? out : undefined;
    }
    return undefined;
  }

  private resolveAttr(pf: PyFile, cls: ClassInfo | undefined, obj: PyNode, attr: string): void {
    if ((obj.text === 'self' || obj.text === 'cls') && cls) {
      for (const u of this.methodsInHierarchy(pf.a.path, cls.qualname, attr, true, true)) this.reach(u);
      return;
    }
    if (obj.type === 'call' && obj.childForFieldName('function')?.text === 'super' && cls) {
      // super(), super(X, self): every definition up the hierarchy (the MRO can skip past the nearest)
      for (const u of this.ancestorsDefining(pf.a.path, cls.qualname, attr)) this.reach(u);
      return;
    }
    const ref = this.resolveRef(pf, obj) ?? (cls ? this.selfAttrType(pf, cls, obj) : undefined);
    if (ref === 'external') return;
    if (ref) {
      for (const t of ref) {
        if (t.kind === 'module') {
          const mf = this.file(t.file);
          if (mf) for (const x of this.resolveName(mf, attr)) this.reachTarget(x);
        } else if (t.kind === 'class') {
          for (const u of this.methodsInHierarchy(t.file, t.qualname, attr, true, true)) this.reach(u);
        }
      }
      return;
    }
    // a local, parameter or call result calling a file/connection/container protocol method
    // (`browser.close()`, `conn.execute()`): a library object far more often than project code
    if (PROTOCOL_METHODS.has(attr) && !/^self\.|^cls\./.test(obj.text)) return;
    // every project method of that name is reached already (or there is none): nothing more to learn
    const defs = this.index.defsByName.get(attr);
    // recording, a fan-out another unit made first is still an edge of this one (once per unit)
    const sink = this.sink;
    if (!defs || (this.fannedOut.has(attr) && (!sink || this.sinkFans.has(attr)))) return;
    // a local holding what a library call returned (`conn = snowflake.connector.connect(…)`): not project code
    if (this.fromLibrary(pf, obj)) return;
    // receiver of unknown type: every project method of that name
    if (sink) {
      sink.push(FAN + attr);
      this.sinkFans.add(attr);
      this.sink = undefined;
      this.fanOut(attr);
      this.sink = sink;
    } else this.fanOut(attr);
  }

  /**
   * The type of `self.x` from what the class says of it: a property's return annotation, or every
   * `self.x = …` in its methods (a constructor call, or a parameter with a type annotation). Undefined
   * when any of them says nothing (the caller then falls back to every method of that name).
   */
  private selfAttrType(pf: PyFile, cls: ClassInfo, obj: PyNode): Target[] | 'external' | undefined {
    if (obj.type !== 'attribute' || obj.childForFieldName('object')?.text !== 'self') return undefined;
    const name = obj.childForFieldName('attribute')?.text;
    if (!name) return undefined;
    const typeOf = (annotation: PyNode | null | undefined): Target[] | 'external' | undefined => {
      const t = annotation?.type === 'type' ? annotation.namedChildren[0] : annotation;
      return t && (t.type === 'identifier' || t.type === 'attribute') ? this.resolveRef(pf, t) : undefined;
    };
    const prop = cls.methods.get(name);
    if (prop) return typeOf(prop.node.childForFieldName('return_type'));
    const answers: Array<Target[] | 'external' | undefined> = [];
    for (const m of cls.methods.values()) {
      walk(m.node, (n) => {
        if (n.type !== 'assignment') return;
        const l = n.childForFieldName('left');
        const r = n.childForFieldName('right');
        if (!l || !r || l.type !== 'attribute' || l.text !== `self.${name}`) return;
        if (r.type === 'call') {
          const f = r.childForFieldName('function');
          const t = f ? this.resolveRef(pf, f) : undefined;
          answers.push(t === 'external' ? 'external' : t?.filter((x) => x.kind === 'class'));
        } else if (r.type === 'identifier') {
          const params = m.node.childForFieldName('parameters');
          const p = params?.namedChildren.find((x) => (x.type === 'typed_parameter' || x.type === 'typed_default_parameter') && (x.childForFieldName('name') ?? x.namedChildren[0])?.text === r.text);
          answers.push(p ? typeOf(p.childForFieldName('type')) : undefined);
        } else answers.push(undefined);
      });
    }
    if (answers.length === 0 || answers.some((x) => x === undefined || (Array.isArray(x) && x.length === 0))) return undefined;
    if (answers.every((x) => x === 'external')) return 'external';
    const out = answers.flatMap((x) => (x === 'external' ? [] : x!));
    return out.length ? out : undefined;
  }

  private fromLibrary(pf: PyFile, obj: PyNode, depth = 0): boolean {
    if (obj.type !== 'identifier' || depth > 4) return false;
    let sources: readonly PyNode[];
    try { sources = pf.a.valueSources(obj); } catch { return false; }
    // `x = None` (or `a, x = None, None`) before `x = lib.connect()`: only the calls say what x holds
    sources = sources.filter((v) => v.type !== 'none' && !(v.type === 'identifier' && v.text === obj.text));
    if (!sources.length) return false;
    return sources.every((v) => {
      if (v.type !== 'call') return false;
      let fn = v.childForFieldName('function');
      while (fn?.type === 'attribute' || fn?.type === 'call') fn = fn.type === 'call' ? fn.childForFieldName('function') : fn.childForFieldName('object');
      if (fn?.type !== 'identifier') return false;
      if (fn.text === 'open') return true;
      return this.resolveRef(pf, fn) === 'external' || (fn.text !== obj.text && this.fromLibrary(pf, fn, depth + 1));
    });
  }

  private resolveDynamic(pf: PyFile, cls: ClassInfo | undefined, obj: PyNode, pattern: RegExp | null): void {
    if ((obj.text === 'self' || obj.text === 'cls') && cls) {
      if (pattern) this.reachDynamicSelf(pf, cls, pattern);
      return;
    }
    if (!pattern) return; // a name computed from data: nothing to follow
    const ref = this.resolveRef(pf, obj);
    if (ref === 'external') return;
    if (ref) {
      for (const t of ref) {
        if (t.kind !== 'module') continue;
        const mf = this.file(t.file);
        if (!mf) continue;
        // every function the module defines or re-exports whose name fits
        for (const u of mf.units) if (!u.fn!.className && pattern.test(u.fn!.name)) this.reach(u);
        for (const local of mf.a.imports().keys()) if (pattern.test(local)) for (const x of this.resolveName(mf, local)) if (x.kind !== 'module') this.reachTarget(x);
      }
      return;
    }
    if (pattern.source.replace(/\.\*|[\\^$]/g, '').length < 3) return;
    for (const [name, ps] of this.index.defsByName) {
      if (!pattern.test(name)) continue;
      for (const p of ps) { const mf = this.file(p); if (mf) for (const u of mf.units) if (u.fn?.name === name) this.reach(u); }
    }
  }

  /** `getattr(self, f"_eval_{kind}")`: the methods of the class (and its subclasses) whose names fit. */
  private reachDynamicSelf(pf: PyFile, cls: ClassInfo, pattern: RegExp): void {
    for (const u of this.allMethods(pf.a.path, cls.qualname)) if (pattern.test(u.fn!.name)) this.reach(u);
    // methods only subclasses define are dispatched too (`self` may be any subclass)
    for (const d of this.descendants(pf.a.path, cls.qualname)) for (const [name, fn] of this.file(d.file)?.classes.get(d.qualname)?.methods ?? []) if (pattern.test(name)) this.reach(unitOf(this.file(d.file)!, fn));
  }

  /** Project modules an import statement loads (`from .a import b`: a, and a.b when b is a module). */
  private importedModules(pf: PyFile, n: PyNode): string[] {
    const python = this.python;
    const out: string[] = [];
    const p = pf.a.path;
    const text = n.text.replace(/\s+/g, ' ');
    if (n.type === 'import_from_statement') {
      const m = /^from\s+(\.*)([\w.]*)\s+import\s+(.*)$/s.exec(text);
      if (!m) return out;
      const level = m[1]!.length;
      const mod = python.resolveModule(p, m[2]!, level);
      if (mod) out.push(mod);
      for (const part of m[3]!.replace(/[()]/g, '').split(',')) {
        const name = part.trim().split(/\s+as\s+/)[0]!.trim();
        if (!/^\w+$/.test(name)) continue;
        const sub = python.resolveModule(p, m[2] ? `${m[2]}.${name}` : name, level);
        if (sub) out.push(sub);
      }
    } else {
      for (const part of text.replace(/^import\s+/, '').split(',')) {
        const name = part.trim().split(/\s+as\s+/)[0]!.trim();
        const parts = name.split('.');
        for (let i = 1; i <= parts.length; i++) {
          const sub = python.resolveModule(p, parts.slice(0, i).join('.'), 0);
          if (sub) out.push(sub);
        }
      }
    }
    return out;
  }

  // ---- class hierarchy -----------------------------------------------------

  private basesOf(p: string, qualname: string): ClassRef[] {
    return memoised(this.basesMemo, `${p}\0${qualname}`, () => this.findBases(p, qualname));
  }

  private findBases(p: string, qualname: string): ClassRef[] {
    const pf = this.file(p);
    const c = pf?.classes.get(qualname);
    if (!pf || !c) return [];
    return c.bases.map((b) => baseRef(this.python, pf.a, b)).filter((x): x is ClassRef => !!x);
  }

  private subclassesOf(p: string, qualname: string): ClassRef[] {
    return memoised(this.subclassMemo, `${p}\0${qualname}`, () => this.findSubclasses(p, qualname));
  }

  private findSubclasses(p: string, qualname: string): ClassRef[] {
    const name = qualname.split('.').pop()!;
    const out: ClassRef[] = [];
    for (const cand of this.index.subclassCandidates.get(name) ?? []) {
      const cf = this.file(cand);
      if (!cf) continue;
      for (const c of cf.classes.values()) {
        if (!c.bases.some((b) => b.split('.').pop() === name)) continue;
        const r = c.bases.map((b) => baseRef(this.python, cf.a, b)).find((x) => x && x.file === p && x.qualname === qualname);
        if (r) out.push({ file: cand, qualname: c.qualname });
      }
    }
    return out;
  }

  /** Method `m` of the class: its own or the nearest base's; with `down`, overrides in subclasses too. */
  private methodsInHierarchy(p: string, qualname: string, m: string, up: boolean, down: boolean): Unit[] {
    return memoised(this.hierarchyMemo, `${p}\0${qualname}\0${m}\0${up ? 1 : 0}${down ? 1 : 0}`, () => this.findInHierarchy(p, qualname, m, up, down));
  }

  private findInHierarchy(p: string, qualname: string, m: string, up: boolean, down: boolean): Unit[] {
    const out: Unit[] = [];
    const seen = new Set<string>();
    const visitUp = (f: string, q: string, depth: number) => {
      if (depth > 8 || seen.has(`${f}\0${q}`)) return;
      seen.add(`${f}\0${q}`);
      const u = this.file(f)?.byQualname.get(`${q}.${m}`);
      if (u) { out.push(u); return; }
      if (up) for (const b of this.basesOf(f, q)) visitUp(b.file, b.qualname, depth + 1);
    };
    visitUp(p, qualname, 0);
    if (down) {
      const stack = [{ file: p, qualname, depth: 0 }];
      const seenDown = new Set<string>();
      while (stack.length) {
        const c = stack.pop()!;
        if (c.depth > 8 || seenDown.has(`${c.file}\0${c.qualname}`)) continue;
        seenDown.add(`${c.file}\0${c.qualname}`);
        for (const s of this.subclassesOf(c.file, c.qualname)) {
          const u = this.file(s.file)?.byQualname.get(`${s.qualname}.${m}`);
          if (u) out.push(u);
          stack.push({ ...s, depth: c.depth + 1 });
        }
      }
    }
    return out;
  }

  private descendants(p: string, qualname: string): ClassRef[] {
    const out: ClassRef[] = [];
    const seen = new Set<string>();
    const stack = [{ file: p, qualname, depth: 0 }];
    while (stack.length) {
      const c = stack.pop()!;
      if (c.depth > 8 || seen.has(`${c.file}\0${c.qualname}`)) continue;
      seen.add(`${c.file}\0${c.qualname}`);
      if (c.depth > 0) out.push(c);
      for (const s of this.subclassesOf(c.file, c.qualname)) stack.push({ ...s, depth: c.depth + 1 });
    }
    return out;
  }

  private ancestorsDefining(p: string, qualname: string, m: string): Unit[] {
    const out: Unit[] = [];
    const seen = new Set<string>();
    const stack = this.basesOf(p, qualname).map((b) => ({ ...b, depth: 0 }));
    while (stack.length) {
      const c = stack.pop()!;
      if (c.depth > 8 || seen.has(`${c.file}\0${c.qualname}`)) continue;
      seen.add(`${c.file}\0${c.qualname}`);
      const u = this.file(c.file)?.byQualname.get(`${c.qualname}.${m}`);
      if (u) out.push(u);
      for (const b of this.basesOf(c.file, c.qualname)) stack.push({ ...b, depth: c.depth + 1 });
    }
    return out;
  }

  private allMethods(p: string, qualname: string): Unit[] {
    const out: Unit[] = [];
    const pf = this.file(p);
    const c = pf?.classes.get(qualname);
    if (!pf || !c) return out;
    for (const name of c.methods.keys()) out.push(...this.methodsInHierarchy(p, qualname, name, true, true));
    for (const b of this.basesOf(p, qualname)) out.push(...this.allMethods(b.file, b.qualname).filter((u) => !c.methods.has(u.fn!.name)));
    return out;
  }

  // ---- JavaScript / TypeScript ---------------------------------------------

  private reachJs(p: string): void {
    const stack = [p];
    while (stack.length) {
      const f = stack.pop()!;
      if (this.jsReached.has(f)) continue;
      this.jsReached.add(f);
      const src = this.o.files.get(f);
      if (!src) continue;
      for (const m of src.source.text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])(\.\.?\/[^"']+)\1/g)) {
        const t = this.resolveJs(path.dirname(f), m[2]!);
        if (t) stack.push(t);
      }
    }
  }

  private resolveJs(dir: string, spec: string): string | undefined {
    const base = path.resolve(dir, spec);
    const stem = base.replace(/\.(m?js|cjs)$/, '');
    for (const c of [base, `${stem}.ts`, `${stem}.mts`, `${stem}.js`, `${stem}.mjs`, `${stem}.cjs`, `${stem}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.js')]) {
      if (this.o.files.has(c)) return c;
    }
    return undefined;
  }

  // ---- the answer ----------------------------------------------------------

  /** The reach answered by offset; keeps only the spans of each file (the project may then release its analyses). */
  result(): Reach {
    const { o, reached, jsReached } = this;
    // what onPath needs of each file, without its analysis (the project may then release it); files this
    // walk replayed keep those of the last
    const spans = this.memo?.spans ?? new Map<string, FileSpans>();
    for (const [p, pf] of this.pyFiles) {
      if (pf) spans.set(p, { units: pf.units.map((u) => ({ key: u.key, tok: u.tok, file: u.file, start: u.start, end: u.end })), mainBlocks: pf.mainBlocks, deadBranches: pf.deadBranches });
    }
    this.pyFiles.clear();
    if (this.record && this.o.cache) {
      this.record.spans = spans;
      this.o.cache.last = this.record;
    }

    const always = o.alwaysInScope ?? new Set<string>();
    return {
      reachedUnits: reached.size + jsReached.size,
      replayed: !!this.memo,
      fileReached(p) {
        const f = o.files.get(p);
        if (!f || always.has(p)) return true;
        if (f.language === 'python') return reached.has(`${p}\0<module>`);
        if (f.language === 'javascript' || f.language === 'typescript') return jsReached.has(p);
        return true;
      },
      onPath(p, offset) {
        const f = o.files.get(p);
        if (!f || always.has(p)) return true;
        if (f.language === 'javascript' || f.language === 'typescript') return jsReached.has(p);
        if (f.language !== 'python') return true;
        if (!reached.has(`${p}\0<module>`)) return false;
        const pf = spans.get(p);
        if (!pf) return true;
        if (pf.deadBranches.some(([s, e]) => offset >= s && offset < e)) return false;
        const u = unitAt(pf, offset);
        if (u) return reached.has(u.key);
        return !pf.mainBlocks.some(([s, e]) => offset >= s && offset < e);
      },
    };
  }
}

/** Everything a unit mentions: names, attributes, strings, `getattr` calls, imports (nested defs and lambdas included). */
function mentionsOf(pf: PyFile, u: Unit): Mentions {
  const found: Mentions = { names: new Set(), attrs: [], strings: [], dyn: [], imports: [] };
  const isModule = !u.fn;
  const visit = (n: PyNode): boolean | void => {
    if (isModule && !runsAtImport(pf, n)) return false;
    switch (n.type) {
      case 'type':
        return false; // annotations name types, they call nothing
      case 'import_statement':
      case 'import_from_statement':
        found.imports.push(n);
        return false; // importing runs the module's top level, not the names it binds
      case 'decorator':
        // a route declaration is not a request to it
        if (/^@\s*[\w.]+\.(?:route|get|post|put|delete|patch|api_route|websocket)\(/.test(n.text)) return false;
        break;
      case 'identifier':
        if (isNameUse(n)) found.names.add(n.text);
        break;
      case 'attribute': {
        const obj = n.childForFieldName('object');
        const attr = n.childForFieldName('attribute');
        if (obj && attr) found.attrs.push({ obj, attr: attr.text });
        break;
      }
      case 'call': {
        const fn = n.childForFieldName('function');
        if (fn?.type === 'identifier' && (fn.text === 'getattr' || fn.text === 'hasattr')) {
          const args = n.childForFieldName('arguments')?.namedChildren ?? [];
          if (args.length >= 2 && fn.text === 'getattr') found.dyn.push({ obj: args[0]!, pattern: namePattern(args[1]!) });
        }
        break;
      }
      case 'string':
        found.strings.push(stringShape(n));
        return false;
    }
    return undefined;
  };
  if (u.fn) {
    for (const d of u.fn.decorators) walk(d, visit);
    walk(u.fn.node, visit);
  } else walk(pf.a.ast, visit);
  return found;
}

/** In the module unit: false for what does not run at import (functions, their decorators, the main block). */
function runsAtImport(pf: PyFile, n: PyNode): boolean {
  if (n.type === 'function_definition') return false;
  // a function's decorators run with it (its unit), not at import
  if (n.type === 'decorated_definition' && n.childForFieldName('definition')?.type === 'function_definition') return false;
  if (n.type === 'if_statement' && pf.mainBlocks.length && isMainGuard(n)) return false;
  return true;
}

/** An identifier that uses a name (not an attribute's object, a keyword, a definition or a parameter). */
function isNameUse(n: PyNode): boolean {
  const p = n.parent;
  // `X.m`: resolved as an attribute (below), the object alone is not a use of X's constructor
  if (p?.type === 'attribute') return false;
  // base classes are followed through the class hierarchy, not as constructor calls
  if (p?.type === 'argument_list' && p.parent?.type === 'class_definition') return false;
  if (p?.type === 'keyword_argument' && p.childForFieldName('name') === n) return false;
  // names being defined (def/class names, parameters) are not uses
  if ((p?.type === 'class_definition' || p?.type === 'function_definition' || p?.type === 'default_parameter' || p?.type === 'typed_default_parameter') && p.childForFieldName('name') === n) return false;
  if (p?.type === 'parameters' || p?.type === 'lambda_parameters' || p?.type === 'typed_parameter' || p?.type === 'list_splat_pattern' || p?.type === 'dictionary_splat_pattern') return false;
  return true;
}

/** The value of `k` in a memo of a pure function, computed by `make` on the first ask. */
function memoised<V>(memo: Map<string, V>, k: string, make: () => V): V {
  let v = memo.get(k);
  if (v === undefined) memo.set(k, (v = make()));
  return v;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) { if (l[l.length - 1] !== v) l.push(v); } else m.set(k, [v]);
}

function buildPyFile(a: PythonAnalysis, platform: TargetPlatform): PyFile {
  const units: Unit[] = [];
  const byQualname = new Map<string, Unit>();
  const byTok = new Map<string, Unit>();
  for (const fn of a.functions()) {
    if (fn.qualname.includes('<locals>')) continue;
    const outer = fn.node.parent?.type === 'decorated_definition' ? fn.node.parent : fn.node;
    const key = `${a.path}\0${fn.qualname}`;
    const tok = byTok.has(key) ? `${key}\0#${units.length}` : key;
    const u: Unit = { key, tok, file: a.path, start: outer.start, end: outer.end, fn };
    units.push(u);
    byTok.set(tok, u);
    byQualname.set(fn.qualname, u);
  }
  units.sort((x, y) => x.start - y.start);
  const moduleUnit: Unit = { key: `${a.path}\0<module>`, tok: `${a.path}\0<module>`, file: a.path, start: 0, end: a.text.length };
  byTok.set(moduleUnit.tok, moduleUnit);
  const classes = new Map(a.classes().map((c) => [c.qualname, c]));
  const mainBlocks: Array<[number, number]> = [];
  for (const n of a.ast.children) if (n.type === 'if_statement' && isMainGuard(n)) mainBlocks.push([n.start, n.end]);
  return {
    a, units, byQualname, classes, mainBlocks, moduleUnit, byTok,
    deadBranches: platform === 'any' ? [] : deadPlatformBranches(a, platform),
  };
}

function unitOf(pf: PyFile, fn: FunctionInfo): Unit | undefined {
  return pf.byQualname.get(fn.qualname) ?? unitContaining(pf, fn.qualname);
}

/** The top-level unit a nested qualname (`f.<locals>.g`) belongs to. */
function unitContaining(pf: PyFile, qualname: string): Unit | undefined {
  const i = qualname.indexOf('.<locals>');
  return i > 0 ? pf.byQualname.get(qualname.slice(0, i)) : undefined;
}

/** Innermost top-level unit holding the offset (methods sit inside their class's range, not a unit). */
function unitAt(pf: FileSpans, offset: number): Unit | undefined {
  let hit: Unit | undefined;
  for (const u of pf.units) {
    if (u.start > offset) break;
    if (offset < u.end) hit = u;
  }
  return hit;
}

function enclosingClass(pf: PyFile, fn: FunctionInfo): ClassInfo | undefined {
  const q = fn.qualname.slice(0, fn.qualname.lastIndexOf('.'));
  return pf.classes.get(q);
}

function isMainGuard(n: PyNode): boolean {
  const c = n.childForFieldName('condition');
  return !!c && /^__name__\s*==\s*["']__main__["']$|^["']__main__["']\s*==\s*__name__$/.test(c.text.trim());
}

/** A string as the program sees it, with interpolations as `\u0000` (they match one path segment). */
function stringShape(n: PyNode): string {
  let out = '';
  for (const c of n.children) {
    if (c.type === 'string_content') out += c.text;
    else if (c.type === 'interpolation') out += '\u0000';
  }
  return out;
}

function routeRegex(route: string): RegExp {
  const body = route.split(/(<[^>]*>|\{[^}]*\})/).map((part, i) => (i % 2 ? '[^/?#]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`${body}/?(?:$|[?#\\u0000])`);
}

/** A regex for the attribute names a `getattr` name argument can produce, or null when unknown. */
function namePattern(n: PyNode): RegExp | null {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (n.type === 'string') {
    const parts = n.children.map((c) => (c.type === 'string_content' ? esc(c.text) : c.type === 'interpolation' ? '.*' : '')).join('');
    return new RegExp(`^${parts}$`);
  }
  if (n.type === 'binary_operator') {
    const l = n.childForFieldName('left');
    const r = n.childForFieldName('right');
    const lp = l?.type === 'string' ? namePattern(l)!.source.slice(1, -1) : '.*';
    const rp = r?.type === 'string' ? namePattern(r)!.source.slice(1, -1) : '.*';
    return lp === '.*' && rp === '.*' ? null : new RegExp(`^${lp}${rp}$`);
  }
  if (n.type === 'call') {
    const fn = n.childForFieldName('function');
    const obj = fn?.type === 'attribute' ? fn.childForFieldName('object') : undefined;
    if (obj?.type === 'string' && fn?.childForFieldName('attribute')?.text === 'format') {
      const s = obj.children.filter((c) => c.type === 'string_content').map((c) => c.text).join('');
      return new RegExp(`^${s.split(/\{[^}]*\}/).map(esc).join('.*')}$`);
    }
  }
  return null;
}

/** Branches of `if <platform test>:` chains that `platform` never takes. */
function deadPlatformBranches(a: PythonAnalysis, platform: Exclude<TargetPlatform, 'any'>): Array<[number, number]> {
  const values = PLATFORM_VALUES[platform];
  // names assigned straight from a platform expression (`os_name = platform.system()`)
  const aliases = new Map<string, string>();
  walk(a.ast, (n) => {
    if (n.type === 'assignment') {
      const l = n.childForFieldName('left');
      const r = n.childForFieldName('right');
      if (l?.type === 'identifier' && r && platformExpr(r.text) !== undefined) aliases.set(l.text, platformExpr(r.text)!);
    }
  });
  const valueOf = (n: PyNode): string | undefined => {
    let t = n.text.replace(/\s+/g, '');
    let lower = false;
    if (t.endsWith('.lower()')) { t = t.slice(0, -8); lower = true; }
    const key = platformExpr(t) ?? aliases.get(t);
    if (!key) return undefined;
    const v = values[key];
    return v === undefined ? undefined : lower ? v.toLowerCase() : v;
  };
  const lit = (n: PyNode | null | undefined): string | undefined => (n?.type === 'string' && !n.children.some((c) => c.type === 'interpolation') ? n.children.filter((c) => c.type === 'string_content').map((c) => c.text).join('') : undefined);
  const truth = (c: PyNode | null | undefined): boolean | undefined => {
    if (!c) return undefined;
    if (c.type === 'parenthesized_expression') return truth(c.namedChildren[0]);
    if (c.type === 'not_operator') { const t = truth(c.childForFieldName('argument')); return t === undefined ? undefined : !t; }
    if (c.type === 'boolean_operator') {
      const l = truth(c.childForFieldName('left'));
      const r = truth(c.childForFieldName('right'));
      const op = c.children.find((x) => !x.named)?.type;
      if (op === 'and') return l === false || r === false ? false : l === true && r === true ? true : undefined;
      return l === true || r === true ? true : l === false && r === false ? false : undefined;
    }
    if (c.type === 'comparison_operator') {
      const ops = c.children.filter((x) => !x.named).map((x) => x.type);
      const [l, r] = c.namedChildren;
      if (ops.length !== 1 || !l || !r) return undefined;
      const v = valueOf(l);
      if (v === undefined) return undefined;
      const op = ops[0];
      if (op === '==' || op === '!=') { const s = lit(r); return s === undefined ? undefined : (s === v) === (op === '=='); }
      if (op === 'in' || op === 'not in') {
        if (!/^(tuple|list|set)$/.test(r.type)) return undefined;
        const items = r.namedChildren.map(lit);
        if (items.some((x) => x === undefined)) return undefined;
        return items.includes(v) === (op === 'in');
      }
      return undefined;
    }
    if (c.type === 'call') {
      const fn = c.childForFieldName('function');
      if (fn?.type === 'attribute' && fn.childForFieldName('attribute')?.text === 'startswith') {
        const v = valueOf(fn.childForFieldName('object')!);
        const s = lit(c.childForFieldName('arguments')?.namedChildren[0]);
        if (v !== undefined && s !== undefined) return v.startsWith(s);
      }
    }
    return undefined;
  };
  const out: Array<[number, number]> = [];
  walk(a.ast, (n) => {
    if (n.type !== 'if_statement') return;
    let decided = false;
    const t = truth(n.childForFieldName('condition'));
    const cons = n.childForFieldName('consequence');
    if (t === false && cons) out.push([cons.start, cons.end]);
    if (t === true) decided = true;
    for (const alt of n.childrenForFieldName('alternative')) {
      const body = alt.childForFieldName('consequence') ?? alt.childForFieldName('body') ?? alt.namedChildren[alt.namedChildren.length - 1];
      if (decided) { out.push([alt.start, alt.end]); continue; }
      if (alt.type === 'elif_clause') {
        const at = truth(alt.childForFieldName('condition'));
        if (at === false && body) out.push([body.start, body.end]);
        if (at === true) decided = true;
      } else if (alt.type === 'else_clause' && body && t === undefined) {
        // an else after undecided tests stays
      }
    }
  });
  return out;
}

function platformExpr(t: string): string | undefined {
  const s = t.replace(/\s+/g, '');
  if (s === 'platform.system()' || s === 'sys.platform' || s === 'os.name') return s;
  return undefined;
}
