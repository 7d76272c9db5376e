/**
 * Verifier entrypoints: the functions, methods and modules a task run enters
 * to grade a task. Everything vaudit calls "on a verifier path" is reached
 * from one of these (see src/engine/reach.ts).
 *
 * Sources, in order (all are combined):
 * - bound entries: every `VerifierEntry.binding` an adapter or `binding.ts` set
 *   (reference adapter: `_eval_<kind>` methods; any adapter that binds through
 *   the same model plugs in with no code here), and every `VerifierEntry.target`
 *   (a module, or a module export, that a task names directly);
 * - adapter declarations: `SuiteAdapter.entrypoints(suite)` (e.g. the reference
 *   adapter's per-family `eval` methods, which dispatch to `_eval_<kind>`);
 * - task-class registries (recognised without config, src/suites/harness/registry.ts):
 *   collections of task classes and factories that build them, graded by the method
 *   every registered class has, the runner calls with its result used, and whose
 *   implementations return verdicts;
 * - config `entrypoints`: `[{"files": glob, "export"?: name, "class"?: glob, "method"?: name}]`.
 */
import path from 'node:path';
import { compileGlobs } from '../core/match.js';
import type { SourceFile } from '../core/source.js';
import type { PythonProject } from '../lang/python/types.js';
import { ADAPTERS } from './adapters.js';
import { classRegistries } from './harness/registry.js';
import type { Suite } from './types.js';
import type { EntrypointDecl } from './adapter.js';

type EntrypointSource = 'binding' | 'target' | 'adapter' | 'registry' | 'config';

export interface Entrypoint {
  /** Absolute path. */
  file: string;
  /** Python qualname of a function or method; undefined = the whole module (every function in it). */
  qualname?: string;
  via: EntrypointSource;
}

/** Per-suite counts for the report. */
export interface SuiteSummary {
  adapter: string;
  /** Suite root, relative to the run's root ('.' for the root itself). */
  root: string;
  tasks: number;
  entries: number;
  /** Entries bound to verifier code (a function or a module). */
  bound: number;
  unbound: number;
  /** Distinct entrypoints this suite contributes. */
  entrypoints: number;
}

export interface EntrypointResult {
  entrypoints: Entrypoint[];
  suites: SuiteSummary[];
  /** Task-class registries (no task files): the file declaring each and its task count, for the run's totals. */
  registries: Array<{ file: string; tasks: number }>;
}

export interface EntrypointInput {
  root: string;
  files: readonly SourceFile[];
  suites: readonly Suite[];
  python: PythonProject;
  /** Config-declared entrypoints and the folder their globs are relative to. */
  declared?: readonly EntrypointDecl[];
  declaredDir?: string;
  /** false: no class registries recognised (config `detect`). */
  detect?: boolean;
}

/** Entrypoints told apart by file and qualname (a map per file: a suite of thousands of entries spent its
 *  time building and hashing one `file\0qualname` string per entry). */
class EntrypointSet {
  private readonly byFile = new Map<string, Set<string>>();
  size = 0;
  /** False when it was in already. */
  add(e: Entrypoint): boolean {
    let qs = this.byFile.get(e.file);
    if (!qs) this.byFile.set(e.file, (qs = new Set()));
    const q = e.qualname ?? '*';
    if (qs.has(q)) return false;
    qs.add(q);
    this.size++;
    return true;
  }
}

export function findEntrypoints(input: EntrypointInput): EntrypointResult {
  const seen = new EntrypointSet();
  const out: Entrypoint[] = [];
  const add = (e: Entrypoint) => {
    if (seen.add(e)) out.push(e);
    return e;
  };
  const summaries: SuiteSummary[] = [];
  const relRoot = (p: string) => path.relative(input.root, p).split(path.sep).join('/') || '.';

  for (const suite of input.suites) {
    const mine = new EntrypointSet();
    let entries = 0;
    let bound = 0;
    for (const task of suite.tasks) {
      for (const entry of task.entries) {
        entries++;
        const eps: Entrypoint[] = [];
        if (entry.binding) eps.push({ file: entry.binding.file, qualname: entry.binding.qualname, via: 'binding' });
        for (const r of entry.routes ?? []) if (r.binding) eps.push({ file: r.binding.file, qualname: r.binding.qualname, via: 'binding' });
        if (entry.target) {
          const fn = entry.target.export;
          eps.push({ file: entry.target.file, qualname: fn, via: 'target' });
        }
        if (eps.length) bound++;
        for (const e of eps) mine.add(add(e));
      }
    }
    const adapter = ADAPTERS.find((a) => a.id === suite.adapter);
    const decls = adapter?.entrypoints?.(suite) ?? [];
    for (const e of resolveDecls(decls, suiteBase(suite), input, 'adapter')) mine.add(add(e));
    summaries.push({ adapter: suite.adapter, root: relRoot(suite.root), tasks: suite.tasks.length, entries, bound, unbound: entries - bound, entrypoints: mine.size });
  }

  const registries: EntrypointResult['registries'] = [];
  for (const reg of input.detect === false ? [] : classRegistries(input.python)) {
    registries.push({ file: reg.registry.file, tasks: reg.registry.ids.length });
    const eps = reg.graders.map((g) => ({ file: g.file, qualname: g.qualname, via: 'registry' as const }));
    for (const e of eps) add(e);
    const n = reg.registry.ids.length;
    summaries.push({ adapter: 'class-registry', root: relRoot(path.dirname(reg.registry.file)), tasks: n, entries: n, bound: n, unbound: 0, entrypoints: eps.length });
  }

  if (input.declared?.length) {
    // one "entry" per declaration: bound when it names at least one function or module
    let boundDecls = 0;
    const eps: Entrypoint[] = [];
    for (const d of input.declared) {
      const mine = resolveDecls([d], input.declaredDir ?? input.root, input, 'config');
      if (mine.length) boundDecls++;
      eps.push(...mine);
    }
    for (const e of eps) add(e);
    summaries.push({ adapter: 'config', root: relRoot(input.declaredDir ?? input.root), tasks: 0, entries: input.declared.length, bound: boundDecls, unbound: input.declared.length - boundDecls, entrypoints: eps.length });
  }
  return { entrypoints: out, suites: summaries, registries };
}

/** Folder a suite's adapter globs are relative to: the parent of its `tasks` folder (also when outside the run's root). */
function suiteBase(suite: Suite): string {
  const first = suite.tasks[0]?.file.path;
  if (first) {
    for (let d = path.dirname(first); path.dirname(d) !== d; d = path.dirname(d)) if (path.basename(d) === 'tasks') return path.dirname(d);
  }
  return suite.root;
}

/** Compiled globs by their text (an editor session asks for the same few on every lint). */
const matchers = new Map<string, (s: string) => boolean>();
function matcher(globs: string | string[], files: boolean): (s: string) => boolean {
  const key = `${files ? 'f' : 'c'}${JSON.stringify(globs)}`;
  let m = matchers.get(key);
  if (!m) {
    if (matchers.size >= 256) matchers.clear();
    const list = Array.isArray(globs) ? globs : [globs];
    matchers.set(key, (m = files ? compileGlobs(list, { dot: true, nocase: true }) : compileGlobs(list)));
  }
  return m;
}

/** Files matching a declaration's globs (relative to `base`; case-insensitive, so `**\/lean/**` finds `Lean/`). */
function matchFiles(decl: EntrypointDecl, base: string, files: readonly SourceFile[]): SourceFile[] {
  const globs = Array.isArray(decl.files) ? decl.files : [decl.files];
  const m = matcher(globs, true);
  return files.filter((f) => {
    const r = path.relative(base, f.path).split(path.sep).join('/');
    return !r.startsWith('..') && m(r);
  });
}

function resolveDecls(decls: readonly EntrypointDecl[], base: string, input: EntrypointInput, via: EntrypointSource): Entrypoint[] {
  const out: Entrypoint[] = [];
  for (const d of decls) {
    for (const f of matchFiles(d, base, input.files)) {
      if (f.language !== 'python') {
        if (f.language === 'javascript' || f.language === 'typescript') out.push({ file: f.path, via }); // JS/TS: module granularity
        continue;
      }
      if (!d.export && !d.method && !d.class) { out.push({ file: f.path, via }); continue; }
      const a = input.python.analysis(f.path);
      if (!a) continue;
      if (d.export) {
        const fn = a.functions().find((x) => x.qualname === d.export);
        if (fn) out.push({ file: f.path, qualname: fn.qualname, via });
        else if (a.classes().some((c) => c.qualname === d.export)) out.push({ file: f.path, qualname: `${d.export}.__call__`, via }, { file: f.path, qualname: `${d.export}.__init__`, via });
        continue;
      }
      const cm = matcher(d.class ?? '*', false);
      for (const c of a.classes()) {
        if (!cm(c.name)) continue;
        if (!d.method) { for (const m of c.methods.values()) out.push({ file: f.path, qualname: m.qualname, via }); continue; }
        const m = c.methods.get(d.method);
        if (m) out.push({ file: f.path, qualname: m.qualname, via });
      }
    }
  }
  return out;
}
