/**
 * An incremental lint session for editors: the files of one project root are
 * read once and kept as SourceFiles; an edit replaces one file's text, and the
 * next `lint(targets)` re-parses only what changed (per-file caches keyed by
 * the SourceFile, i.e. by content), rebuilds the cheap project indexes, and
 * runs the rules for the requested units only (the edited file, plus the
 * task files an editor asks for, e.g. those routed to an edited verifier).
 *
 * Python analyses are dropped when their file changes or the session ends;
 * parses of code embedded in JSON strings are cached by text and swept when
 * unused, so memory stays bounded over any number of edits.
 */
import path from 'node:path';
import type { Finding, SeveritySetting } from '../core/types.js';
import type { Rule } from '../contract/rule.js';
import type { Project } from '../contract/project.js';
import type { SourceFile } from '../core/source.js';
import { SourceText } from '../core/source.js';
import { discoverFiles } from './discover.js';
import { languageOf, loadText, type FileProblem } from '../core/load.js';
import { loadRules, ruleOptionSchemas } from '../contract/registry.js';
import { parseScript, type JsParse } from '../lang/js/parse.js';
import { rel } from '../core/paths.js';
import { buildIndexes, harnessProgram, runPass, type EmbeddedParses, type ProjectIndexes } from './pass.js';
import type { CarryRecord, CarryStore } from './carry.js';
import { RouteResolutions } from '../suites/harness/resolve.js';
import { pageScripts } from './pages.js';
import { computeScope, narrowTargets, partitionFindings } from './scope.js';
import { ReachCache } from './reach.js';
import { ConfigResolver, type LoadedConfig } from '../config/load.js';
import { analysePython, createPythonProject } from '../lang/python/project.js';
import { buildBundleModel } from '../lang/ts/index.js';
import type { BundleModel } from '../lang/ts/types.js';
import type { PythonAnalysis, PythonProject } from '../lang/python/types.js';
import type { Task } from '../suites/types.js';
import { keepHarnessFacts } from '../suites/harness/file-memo.js';
import { harnessState, moduleSummary, rebaseBindings, reusableSuites, type HarnessState, type ModuleSummary } from './index-reuse.js';

export interface SessionOptions {
  /** Project root: files under it give context; relative paths are relative to it. */
  root: string;
  /** Explicit config file instead of discovery. */
  configPath?: string;
  /** Severity overrides over the config (editor settings). */
  severities?: Record<string, SeveritySetting>;
  /** Rule table (tests, embedders); default: rules/. */
  ruleSet?: ReadonlyMap<string, Rule>;
  /** Only these rule ids. */
  rules?: string[];
  /** Upper bound of cached embedded-code parses (default 4096). */
  maxEmbeddedCache?: number;
  /** Keep unit-local rules' findings in the functions an edit left unchanged (src/engine/carry.ts;
   *  default true; false: every lint visits the whole file, as tests compare). */
  keepFindings?: boolean;
}

export interface SessionLintResult {
  findings: Finding[];
  /** Findings grouped by absolute file path (every requested target has an entry, possibly empty). */
  byFile: Map<string, Finding[]>;
  durationMs: number;
  /** Python files whose project was rebuilt by this call (they parse lazily, on first use). */
  reparsed: string[];
  /** Milliseconds per phase: python project, indexes (suites, binding, bundles), verifier paths, rules pass. */
  phases: { python: number; indexes: number; scope: number; pass: number };
}

export interface SessionStats {
  files: number;
  pythonTrees: number;
  embeddedCached: number;
  lints: number;
  /** Lints that rebuilt the suite indexes, and lints that kept them over a Python edit (src/engine/index-reuse.ts). */
  indexBuilds: number;
  indexReuses: number;
  /** Functions whose unit-local findings lints kept instead of visiting them (src/engine/carry.ts). */
  keptUnits: number;
  /** Verifier-path walks that replayed the last walk's memo (no cross-file summary changed), and walks
   *  from scratch (src/engine/reach.ts). */
  reachReplays: number;
  reachWalks: number;
}

interface EmbeddedEntry {
  analysis: PythonAnalysis;
  lastUsed: number;
}

export class LintSession {
  readonly root: string;
  private opts: SessionOptions;
  private allRules: ReadonlyMap<string, Rule> = new Map();
  private configs!: ConfigResolver;
  /** Text on disk of every context file (as last read). */
  private disk = new Map<string, string>();
  private diskProblems = new Map<string, FileProblem>();
  /** Editor buffers, by absolute path. */
  private overrides = new Map<string, string>();
  /** Current SourceFile per path (a new object whenever the text changes). */
  private files = new Map<string, SourceFile>();
  private python?: { project: PythonProject; files: Map<string, SourceFile> };
  private lastProject?: Project;

  /** The project of the last lint (what control cases slice verifier code from). */
  get project(): Project | undefined {
    return this.lastProject;
  }
  private bundleCache = new WeakMap<SourceFile, { model?: BundleModel; error?: Error }>();
  private jsCache = new WeakMap<SourceFile, JsParse>();
  private embedded = new Map<string, EmbeddedEntry>();
  private indexes?: { key: Map<string, SourceFile>; value: ProjectIndexes; python: PythonProject; harness: HarnessState | undefined };
  /** Cross-file summaries of Python files (what the indexes read of them), by content. */
  private summaries = new WeakMap<SourceFile, ModuleSummary>();
  private indexCounts = { builds: 0, reuses: 0 };
  private reachCounts = { replays: 0, walks: 0 };
  /** Per-file facts of the verifier-path walk, by content (src/engine/reach.ts). */
  private reachCache = Object.assign(new ReachCache(), { iface: (f: SourceFile) => this.summaryOf(f)?.key });
  /** Per Python file, what its last lint left for the next to keep (src/engine/carry.ts). */
  private carries = new Map<string, { record: CarryRecord; pyFiles: ReadonlyMap<string, SourceFile> }>();
  private keptUnits = 0;
  private pages?: { files: ReadonlySet<string>; scripts: ReadonlySet<string> };
  private codeFiles?: readonly SourceFile[];
  /** Where the task records' module routes led (src/suites/harness/resolve.ts): a new one when a file
   *  comes or goes, or the files are read again. */
  private resolutions = new RouteResolutions();
  private generation = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  private constructor(opts: SessionOptions) {
    this.opts = { ...opts };
    this.root = path.resolve(opts.root);
  }

  /** Create a session and read the project's files once. Throws ConfigError for an invalid config. */
  static async create(opts: SessionOptions): Promise<LintSession> {
    const s = new LintSession(opts);
    s.allRules = opts.ruleSet ?? (await loadRules());
    await s.reload();
    return s;
  }

  get rules(): ReadonlyMap<string, Rule> {
    return this.allRules;
  }

  /** The config that applies to a file. */
  configFor(file: string): LoadedConfig {
    return this.configs.forFile(file);
  }

  /** Re-resolve configs and re-discover files (after a config change). Keeps editor buffers and caches. */
  reload(): Promise<void> {
    return this.exclusive(async () => {
      this.configs = new ConfigResolver(this.root, ruleOptionSchemas(this.allRules), this.opts.configPath);
      this.resolutions = new RouteResolutions();
      const cfg = this.configs.forDir(this.root);
      const found = await discoverFiles([this.root], { cwd: this.root, include: cfg.config.include, exclude: cfg.config.exclude });
      const keep = new Set(found.files);
      for (const p of [...this.disk.keys()]) if (!keep.has(p)) this.disk.delete(p);
      this.diskProblems.clear();
      await Promise.all(found.files.map(async (p) => {
        const r = await loadText(p);
        if (r.ok) this.disk.set(p, r.text);
        else this.diskProblems.set(p, r.problem);
      }));
      for (const p of new Set([...this.files.keys(), ...this.disk.keys(), ...this.overrides.keys()])) this.sync(p);
    });
  }

  /** Change settings; takes effect on the next lint. A config path change needs `reload()`. */
  configure(o: Pick<SessionOptions, 'severities' | 'configPath' | 'rules'>): boolean {
    const needsReload = o.configPath !== this.opts.configPath;
    this.opts = { ...this.opts, ...o };
    return needsReload;
  }

  /** Does the session cover this path (under its root, a language vaudit reads)? */
  covers(file: string): boolean {
    const r = path.relative(this.root, file);
    return !!languageOf(file) && !r.startsWith('..') && !path.isAbsolute(r);
  }

  /** Set (text) or clear (undefined) the editor buffer of a file. Cheap: nothing is parsed until `lint`. */
  setDocument(file: string, text: string | undefined): void {
    // the summary of what the indexes were built from, for keepIndexes after this edit (its analysis is
    // at hand now; the project that holds it is replaced at the next lint)
    // (and for the verifier-path walk's memo, src/engine/reach.ts: whatever the indexes were built from)
    const was = this.files.get(file);
    if (was?.language === 'python') this.summaryOf(was);
    if (text === undefined) this.overrides.delete(file);
    else this.overrides.set(file, text);
    this.sync(file);
  }

  /** A file changed on disk (watcher): re-read it, or forget it when deleted. */
  fileChanged(file: string, deleted = false): Promise<void> {
    return this.exclusive(async () => {
      if (deleted) {
        this.disk.delete(file);
        this.diskProblems.delete(file);
      } else if (languageOf(file)) {
        const r = await loadText(file);
        if (r.ok) { this.disk.set(file, r.text); this.diskProblems.delete(file); }
        else { this.disk.delete(file); this.diskProblems.set(file, r.problem); }
      }
      this.sync(file);
    });
  }

  private sync(file: string): void {
    const text = this.overrides.get(file) ?? this.disk.get(file);
    const language = languageOf(file);
    const cur = this.files.get(file);
    if (!cur !== (text === undefined || !language)) this.resolutions = new RouteResolutions();
    if (text === undefined || !language) {
      this.files.delete(file);
      return;
    }
    if (cur && cur.source.text === text) return;
    this.files.set(file, { path: file, relPath: rel(this.root, file), language, source: new SourceText(text) });
  }

  /** The current SourceFile of a path. */
  file(p: string): SourceFile | undefined {
    return this.files.get(p);
  }

  /** The tasks a task file declares (from the last lint); empty for other files. */
  tasks(p: string): readonly Task[] {
    return this.indexes?.value.tasksByFile.get(p) ?? [];
  }

  /** Task files with an entry routed to a function of `module` (from the last lint). */
  tasksRoutingTo(module: string): string[] {
    const out: string[] = [];
    for (const t of [...(this.indexes?.value.tasksByFile.values() ?? [])].flat()) {
      if (t.entries.some((e) => e.binding?.file === module) && !out.includes(t.file.path)) out.push(t.file.path);
    }
    return out;
  }

  /** Parsed Python of a project file (from the last lint). */
  pythonAnalysis(p: string): PythonAnalysis | undefined {
    return this.python?.project.analysis(p);
  }

  stats(): SessionStats {
    return {
      files: this.files.size,
      pythonTrees: this.python?.files.size ?? 0,
      embeddedCached: this.embedded.size,
      lints: this.generation,
      indexBuilds: this.indexCounts.builds,
      indexReuses: this.indexCounts.reuses,
      keptUnits: this.keptUnits,
      reachReplays: this.reachCounts.replays,
      reachWalks: this.reachCounts.walks,
    };
  }

  /** Lint these files (absolute paths) against the current buffers. Runs one at a time. */
  lint(targets: readonly string[]): Promise<SessionLintResult> {
    return this.exclusive(() => this.lintNow(targets));
  }

  private async lintNow(targets: readonly string[]): Promise<SessionLintResult> {
    if (this.disposed) throw new Error('session disposed');
    const t0 = performance.now();
    const gen = ++this.generation;
    const sorted = [...this.files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));

    // Python: rebuild the project only when a .py file changed; only changed files are re-parsed.
    const reparsed = await this.syncPython(sorted);
    const t1 = performance.now();

    // Indexes (suites, binding, bundles): rebuilt when any file changed, unless only Python files changed
    // and each kept its cross-file summary; JSON parses are cached per SourceFile.
    const targetSet = new Set(targets);
    const ix = await this.currentIndexes(sorted);
    const t2 = performance.now();
    const project: Project = { root: this.root, files: this.files, suites: ix.suites, python: this.python!.project, bundles: ix.bundles, pageScripts: await this.pageScripts() };
    this.lastProject = project;
    // the verifier paths, as `vaudit check` finds them (src/engine/scope.ts): files with no reached code are
    // not checked, and findings off a verifier path are dropped (or marked, with scope `all`)
    const scope = computeScope(project, sorted, this.configs.forDir(this.root), undefined, this.reachCache);
    const tScope = performance.now();
    if (scope.reach) this.reachCounts[scope.reach.replayed ? 'replays' : 'walks']++;
    const reportOn = narrowTargets(new Set(targets.filter((t) => this.files.has(t))), scope, ix.tasksByFile);
    const problems: FileProblem[] = [];
    for (const t of targets) {
      const p = this.diskProblems.get(t);
      if (p && !this.overrides.has(t)) problems.push(p);
    }
    for (const p of ix.problems) if (targetSet.has(p.path)) problems.push(p);

    const { findings: all } = await runPass({
      cwd: this.root,
      project,
      reportOn,
      tasksByFile: ix.tasksByFile,
      bundles: ix.bundles,
      suiteProblems: ix.suiteProblems,
      problems,
      configs: this.configs,
      allRules: this.allRules,
      rules: this.opts.rules,
      severities: this.opts.severities,
      jsParse: (f) => this.jsParse(f),
      embedded: this.embeddedParses(gen),
      carry: this.opts.keepFindings === false ? undefined : this.carryStore(),
    });
    this.sweepEmbedded(gen);
    const findings = partitionFindings(all, scope, ix.tasksByFile);
    const t3 = performance.now();

    const byFile = new Map<string, Finding[]>();
    for (const t of targets) byFile.set(t, []);
    for (const f of findings) {
      let list = byFile.get(f.file);
      if (!list) byFile.set(f.file, (list = []));
      list.push(f);
    }
    // the summaries the next edit's index check compares with (the pass has parsed these files)
    for (const t of targets) {
      const f = this.files.get(t);
      if (f?.language === 'python') this.summaryOf(f);
    }
    return { findings, byFile, durationMs: performance.now() - t0, reparsed, phases: { python: t1 - t0, indexes: t2 - t1, scope: tScope - t2, pass: t3 - tScope } };
  }

  /**
   * The findings of unit-local rules this lint may keep from the previous lint of a file
   * (src/engine/carry.ts): they hold while no other Python file changed since (a function of another
   * module may be what a call there resolves to); unit-local rules read nothing else outside the file.
   */
  private carryStore(): CarryStore {
    const py = this.python!.files;
    for (const p of this.carries.keys()) if (!py.has(p)) this.carries.delete(p);
    return {
      get: (p) => {
        const c = this.carries.get(p);
        if (!c || c.pyFiles.size !== py.size) return undefined;
        for (const [q, f] of py) if (q !== p && c.pyFiles.get(q) !== f) return undefined;
        return c.record;
      },
      set: (p, record) => void this.carries.set(p, { record, pyFiles: py }),
      kept: (n) => void (this.keptUnits += n),
    };
  }

  private async currentIndexes(sorted: readonly SourceFile[]): Promise<ProjectIndexes> {
    const python = this.python!.project;
    const prev = this.indexes;
    if (prev && prev.python === python && sameFiles(prev.key, this.files)) return prev.value;
    const kept = prev && this.keepIndexes(prev, sorted);
    if (prev && kept) {
      this.indexCounts.reuses++;
      this.indexes = { key: new Map(this.files), value: prev.value, python, harness: kept };
      return prev.value;
    }
    const value = await buildIndexes(sorted, {
      root: this.root,
      rootConfig: this.configs.forDir(this.root),
      python,
      targets: new Set(this.files.keys()),
      bundleOf: (f) => this.bundleOf(f),
      harnessFiles: this.harnessFiles(sorted),
      resolutions: this.resolutions,
    });
    this.indexCounts.builds++;
    // what the loading learned from Python bodies (memoised: no second walk), for the next edit's keepIndexes
    const harness = reusableSuites(value.suites) ? harnessState({ python, files: this.harnessFiles(sorted), programOf: harnessProgram }, value.suites) : undefined;
    this.indexes = { key: new Map(this.files), value, python, harness };
    return value;
  }

  /**
   * Do the previous indexes hold for the current files? Yes when only Python files changed, each
   * with the cross-file summary it had (a body edit); the bindings into them are moved to the new
   * offsets. No when a JSON or other file changed, a file came or went, or an adapter binds by itself.
   */
  private keepIndexes(prev: NonNullable<LintSession['indexes']>, sorted: readonly SourceFile[]): HarnessState | undefined {
    if (prev.key.size !== this.files.size || prev.harness === undefined || !reusableSuites(prev.value.suites)) return undefined;
    const changed: Array<{ path: string; before: ModuleSummary; after: ModuleSummary }> = [];
    for (const [p, f] of this.files) {
      const was = prev.key.get(p);
      if (was === f) continue;
      if (!was || f.language !== 'python') return undefined;
      const before = this.summaries.get(was);
      if (!before) return undefined;
      const after = this.summaryOf(f);
      if (after?.key !== before.key) return undefined;
      changed.push({ path: p, before, after });
    }
    // the harness's routes and dispatches, and tasks written as Python data, are learned from bodies
    const harness = harnessState({ python: this.python!.project, files: this.harnessFiles(sorted), programOf: harnessProgram }, prev.value.suites, { state: prev.harness, changed: new Set(changed.map((c) => c.path)) });
    if (harness.key !== prev.harness.key) return undefined;
    // a rebase that fails part-way leaves the old suites half moved: they are rebuilt from scratch then
    return changed.every((c) => rebaseBindings(prev.value.suites, c.path, c.before, c.after)) ? harness : undefined;
  }

  /**
   * The code files (every file but JSON) in path order: the same array while none of them changed, so what
   * the suites' loading learns from the harness (memoised per array, src/suites/harness/learn.ts) is not
   * learned again after an edit of a task file.
   */
  private harnessFiles(sorted: readonly SourceFile[]): readonly SourceFile[] {
    const code = sorted.filter((f) => f.language !== 'json');
    const prev = this.codeFiles;
    if (prev && prev.length === code.length && prev.every((f, i) => f === code[i])) return prev;
    return (this.codeFiles = code);
  }

  private summaryOf(f: SourceFile): ModuleSummary | undefined {
    let s = this.summaries.get(f);
    if (!s) {
      const a = this.python?.files.get(f.path) === f ? this.python.project.analysis(f.path) : undefined;
      if (!a) return undefined;
      this.summaries.set(f, (s = moduleSummary(a)));
    }
    return s;
  }

  private async syncPython(sorted: readonly SourceFile[]): Promise<string[]> {
    const py = sorted.filter((f) => f.language === 'python');
    const prev = this.python;
    const changed = !prev || prev.files.size !== py.length || py.some((f) => prev.files.get(f.path) !== f);
    if (!changed) return [];
    const reparsed = py.filter((f) => prev?.files.get(f.path) !== f).map((f) => f.path);
    const project = await this.pythonProject(py, prev);
    prev?.project.dispose();
    this.python = { project, files: new Map(py.map((f) => [f.path, f])) };
    return reparsed;
  }

  /**
   * A PythonProject over `py`. The analysis core resolves calls across modules
   * (its analyses link to their project), so the project is rebuilt when a .py
   * file changes; the analyses of the unchanged files are taken over (re-linked),
   * so only the changed file is parsed again.
   */
  private async pythonProject(py: readonly SourceFile[], prev: LintSession['python']): Promise<PythonProject> {
    // editor buffers are what gets edited: their trees are kept for an incremental re-parse
    const project = await createPythonProject(py, { reuse: prev?.project, keepTrees: new Set(this.overrides.keys()) });
    // what each harness file taught (routes, task containers) is kept per file while the texts it read are
    // the same; module resolution reads the set of files, so a file that came or went starts afresh
    const sameSet = !!prev && prev.files.size === py.length && py.every((f) => prev.files.has(f.path));
    keepHarnessFacts(project, sameSet ? prev.project : undefined);
    return project;
  }

  /** Classic scripts of the project's HTML pages (src/engine/pages.ts), read again when the set of files changes. */
  private async pageScripts(): Promise<ReadonlySet<string>> {
    // the same set of files: every path of the last set is still here (a path list sorted and joined on
    // each lint cost more than the rest of a task file's lint on a 2,500-file suite)
    const prev = this.pages;
    if (prev && prev.files.size === this.files.size && [...prev.files].every((p) => this.files.has(p))) return prev.scripts;
    const files = new Set(this.files.keys());
    this.pages = { files, scripts: await pageScripts(files) };
    return this.pages.scripts;
  }

  private bundleOf(f: SourceFile): BundleModel | undefined {
    let c = this.bundleCache.get(f);
    if (!c) {
      try { c = { model: buildBundleModel(f) }; } catch (err) { c = { error: err as Error }; }
      this.bundleCache.set(f, c);
    }
    if (c.error) throw c.error;
    return c.model;
  }

  private jsParse(f: SourceFile): JsParse {
    let r = this.jsCache.get(f);
    if (!r) this.jsCache.set(f, (r = parseScript(f.language as 'javascript' | 'typescript', f.source.text)));
    return r;
  }

  private embeddedParses(gen: number): EmbeddedParses {
    return {
      acquire: async (code) => {
        const hit = this.embedded.get(code);
        if (hit) { hit.lastUsed = gen; return hit.analysis; }
        const analysis = await analysePython(code);
        this.embedded.set(code, { analysis, lastUsed: gen });
        return analysis;
      },
      release: () => {},
    };
  }

  /** Free parses of embedded code not used by the last two lints, and keep the cache under its bound. */
  private sweepEmbedded(gen: number): void {
    const max = this.opts.maxEmbeddedCache ?? 4096;
    for (const [k, e] of this.embedded) {
      if (e.lastUsed < gen - 1) { this.embedded.delete(k); }
    }
    if (this.embedded.size > max) {
      const old = [...this.embedded].sort((a, b) => a[1].lastUsed - b[1].lastUsed).slice(0, this.embedded.size - max);
      for (const [k] of old) this.embedded.delete(k);
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Free every tree. The session is unusable afterwards. */
  dispose(): Promise<void> {
    return this.exclusive(async () => {
      if (this.disposed) return;
      this.disposed = true;
      this.python?.project.dispose();
      this.python = undefined;
      this.embedded.clear();
      this.indexes = undefined;
    });
  }
}

function sameFiles(a: ReadonlyMap<string, SourceFile>, b: ReadonlyMap<string, SourceFile>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
