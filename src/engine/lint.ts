/**
 * One run of the static pass: discover → load → parse (once) → build the
 * project indexes → central pass per unit → severities, suppressions,
 * fingerprints. Never throws for a bad file: it becomes a `parse-error`
 * finding for that file and the run goes on.
 */
import path from 'node:path';
import { statSync } from 'node:fs';
import type { Finding, RunNote, SeveritySetting } from '../core/types.js';
import type { Rule } from '../contract/rule.js';
import type { Project } from '../contract/project.js';
import type { SourceFile } from '../core/source.js';
import { SourceText } from '../core/source.js';
import { discoverFiles } from './discover.js';
import { folderContext, readContext } from './context.js';
import { languageOf, loadTextSync, type FileProblem } from '../core/load.js';
import { loadRules, ruleOptionSchemas } from '../contract/registry.js';
import { buildIndexes, contextRoot, runPass } from './pass.js';
import { whyNoSuite } from '../suites/harness/explain.js';
import { rel } from '../core/paths.js';
import { ConfigResolver, type VauditConfig } from '../config/load.js';

type ResolvedConfirmConfig = NonNullable<VauditConfig['confirm']>;
import { analyseAllPausing, createPythonProject } from '../lang/python/project.js';
import { pythonParser, type PythonParserKind } from '../lang/python/parser.js';
import { pageScripts } from './pages.js';
import { computeScope, narrowTargets, partitionFindings, type ScopeSetting, type ScopeSummary } from './scope.js';
import type { SuiteSummary } from '../suites/entrypoints.js';
import type { ThreadTaskStart, WorkerThreads } from '../core/threads.js';
import { PARSE_AHEAD_MODULE } from '../lang/python/parse-ahead.js';
import { noteStaticPass } from '../core/dynamic-import.js';
import { collectIfGrown, collectIfLarge, heapIsLarge } from '../core/collect.js';

export { compareFindings } from './pass.js';
export interface LintOptions {
  /** Files or folders; default the cwd. */
  paths?: string[];
  cwd?: string;
  /** Only run these rule ids (tests, `--rule`). */
  rules?: string[];
  /** Explicit config file (`--config`). */
  configPath?: string;
  /** Apply config excludes to explicit files (`--force-exclude`). */
  forceExclude?: boolean;
  /** In-memory contents that replace files on disk (editor buffers, --stdin-filename). */
  overrides?: ReadonlyMap<string, string>;
  /** Severity overrides applied over config (LSP settings). */
  severities?: Record<string, SeveritySetting>;
  /** Use this rule table instead of rules/ (tests, embedders). */
  ruleSet?: ReadonlyMap<string, Rule>;
  /** Files never read, neither as targets nor as context (the run's own baseline and report files). */
  ignorePaths?: readonly string[];
  /** Report unused suppressions (default true). */
  reportUnusedSuppressions?: boolean;
  /** Verifier paths only (default, or config `scope`) or all code (`--scope all`). */
  scope?: ScopeSetting;
  /** Parse Python ahead on threads the host starts (the CLI passes `startThreads` and the spare cores);
   *  without it, or for a small suite, everything is parsed on the calling thread. */
  parseThreads?: { start: ThreadTaskStart; count: number };
  /** Nothing after the run asks for the Python analyses (a check that confirms nothing): they are
   *  dropped before the last collection, so that rendering the report reuses their memory
   *  (webarena-infinity: ≈ 190 MB of trees and facts). `project.python` parses again on demand. */
  releaseAnalyses?: boolean;
}

export interface LintStats {
  files: number;
  tasks: number;
  entries: number;
  pythonFiles: number;
  bundles: number;
  durationMs: number;
  /** CPU milliseconds per phase (`--debug`): startup (process start to `lint()`), discover, load,
   *  indexes (suites, binding; most Python parsing), scope, pass. */
  phases?: Record<string, number>;
  /** Which tree-sitter build parsed the Python (`native` addon, or the `wasm` fallback). */
  pythonParser?: PythonParserKind;
  /** Why the wasm parser ran instead of the native addon (it did not install or load), when it did. */
  pythonParserFallback?: string;
  /** Which scope applied (verifier paths or all code) and how many findings lie outside it. */
  scope?: ScopeSummary;
  /** Each suite found: its adapter, tasks, entries, entrypoints. */
  suites?: SuiteSummary[];
  /** Notes of the run (`ctx.note`): places a rule could not decide within its budget; never findings. */
  notes?: RunNote[];
}

export interface LintResult {
  findings: Finding[];
  /** Findings removed by a suppression. */
  suppressed: Finding[];
  project: Project;
  stats: LintStats;
  /** Files reported on (absolute). */
  targets: string[];
  /** Configs in effect (absolute paths). */
  configs: string[];
  /** The `confirm` section of the first input's config (isolation policy, bounds). */
  confirmConfig?: ResolvedConfirmConfig;
  dispose(): void;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export async function lint(opts: LintOptions = {}): Promise<LintResult> {
  const threads: { started?: WorkerThreads } = {};
  try {
    return await runLint(opts, threads);
  } catch (e) {
    threads.started?.close();
    throw e;
  }
}

/** Python files from which threads parse ahead: fewer are parsed sooner than a thread starts. */
const MIN_AHEAD_FILES = 8;

async function runLint(opts: LintOptions, threads: { started?: WorkerThreads }): Promise<LintResult> {
  const t0 = performance.now();
  // CPU time (user + system) per phase, stable on a loaded machine; the first phase counts from the
  // process start (module loading and the CLI)
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const marks: Array<[string, number]> = [['startup', cpu()]];
  const mark = (name: string) => marks.push([name, cpu()]);
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const allRules = opts.ruleSet ?? (await loadRules());
  const configs = new ConfigResolver(cwd, ruleOptionSchemas(allRules), opts.configPath);
  const inputs = opts.paths?.length ? opts.paths : ['.'];

  // 1. discovery: targets, plus context for explicitly named files
  // (the config of the first input also chooses the suite adapter, below)
  const firstCfg = configs.forDir(path.resolve(cwd, inputs[0]!));
  const virtual = new Set([...(opts.overrides?.keys() ?? [])].map((o) => path.resolve(cwd, o)));
  const onDisk = inputs.filter((i) => !virtual.has(path.resolve(cwd, i)));
  const targetsFound = onDisk.length === 0 ? { files: [], problems: [] } : await discoverFiles(onDisk, {
    cwd,
    include: firstCfg.config.include,
    exclude: firstCfg.config.exclude,
    forceExclude: opts.forceExclude,
    base: firstCfg.path ? firstCfg.dir : undefined,
  });
  const ignored = new Set((opts.ignorePaths ?? []).map((p) => path.resolve(cwd, p)));
  const problems: FileProblem[] = [...targetsFound.problems];
  const targets = new Set(targetsFound.files.filter((f) => !ignored.has(f)));
  for (const o of opts.overrides?.keys() ?? []) if (languageOf(o)) targets.add(path.resolve(cwd, o));
  const explicitFiles = [...targets].filter((f) => inputs.some((i) => path.resolve(cwd, i) === f));
  const contextFiles = new Set<string>(targets);
  const roots = new Set(explicitFiles.map((f) => contextRoot(f, configs)));
  // a folder inside a suite is checked in the context of the whole suite: the config folder decides
  // the project, else the current folder when the folder lies inside it
  for (const i of onDisk) {
    const dir = path.resolve(cwd, i);
    if (!isDirectory(dir)) continue;
    const r = folderContext(dir, cwd, configs);
    if (r !== dir) roots.add(r);
  }
  const context = await readContext(roots, configs, ignored);
  for (const f of context.files) contextFiles.add(f);

  // threads that parse ahead start now, so that their start-up overlaps loading
  const py = opts.parseThreads?.count ? [...contextFiles].filter((f) => languageOf(f) === 'python').length : 0;
  if (py >= MIN_AHEAD_FILES) threads.started = opts.parseThreads!.start(PARSE_AHEAD_MODULE, opts.parseThreads!.count);
  mark('discover');
  // 2. load every file once
  const files = new Map<string, SourceFile>();
  for (const p of contextFiles) {
    const override = opts.overrides?.get(p);
    const r = override !== undefined ? { ok: true as const, text: override } : loadTextSync(p);
    if (!r.ok) {
      if (targets.has(p)) problems.push(r.problem);
      continue;
    }
    files.set(p, { path: p, relPath: rel(cwd, p), language: languageOf(p)!, source: new SourceText(r.text) });
  }
  const sorted = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));

  mark('load');
  // 3. project indexes
  const python = await createPythonProject(sorted, { threads: threads.started });
  // every module parsed here, pausing so that the native parser's trees are freed as it goes
  await analyseAllPausing(python);
  const { suites, suiteProblems, bundles, problems: bundleProblems, tasksByFile, routes, kinds } = await buildIndexes(sorted, {
    root: cwd,
    rootConfig: firstCfg,
    python,
    targets,
  });
  problems.push(...bundleProblems);
  const project: Project = { root: cwd, files, suites, python, bundles, pageScripts: await pageScripts(new Set(files.keys())) };

  // Report on targets, and on task files whose entries route to a module named explicitly (a
  // pre-commit hook names the staged verifier); a folder's report is that folder's part of the suite's
  const reportOn = new Set([...targets].filter((t) => files.has(t)));
  const named = new Set(explicitFiles);
  for (const t of [...tasksByFile.values()].flat()) {
    if (t.entries.some((e) => e.binding && named.has(e.binding.file))) reportOn.add(t.file.path);
  }

  mark('indexes');
  // 3b. verifier entrypoints and the code they reach (src/engine/scope.ts)
  const scope = computeScope(project, sorted, firstCfg, opts.scope);
  if (scope.summary.fallback) scope.summary.why = whyNoSuite({ root: cwd, python, routes, kinds });
  const passOn = narrowTargets(reportOn, scope, tasksByFile);

  // a large run drops what it can compute again: the calls the indexes described (≈ 10 MB on webarena-
  // infinity, mostly of modules the pass never visits) and, in the pass, each file's facts once used
  const large = heapIsLarge();
  if (large) python.releaseCallFacts();
  // the analyses of every module are built and kept for the pass: collect the garbage the indexes and
  // the scope made, so that the heap grows from what is live (src/core/collect.ts)
  collectIfLarge();
  mark('scope');
  // 4–6. the central pass, suppressions, order and fingerprints
  const { findings: all, suppressed, notes } = await runPass({
    cwd, project, reportOn: passOn, tasksByFile, bundles, suiteProblems, problems, configs, allRules,
    rules: opts.rules, severities: opts.severities, reportUnusedSuppressions: opts.reportUnusedSuppressions, between: collectIfLarge,
    releaseFacts: large, afterFile: collectIfGrown,
  });
  const kept = partitionFindings(all, scope, tasksByFile);
  // files still unparsed are parsed on demand (confirmation, an editor) by the caller's thread
  python.releaseThreads();
  if (opts.releaseAnalyses) python.dispose();
  // and the pass's (also between its files and its task files), before the report is rendered
  collectIfLarge();
  mark('pass');
  // what the run checked, for the code cache: named files count as their project (a pre-commit hook
  // names other staged files at every commit), folders as themselves
  const checked = new Set([...inputs.map((i) => path.resolve(cwd, i)).filter((p) => !explicitFiles.includes(p)), ...roots]);
  noteStaticPass([...checked].sort().join('\0'));

  let entries = 0;
  let tasks = 0;
  for (const t of [...tasksByFile.values()].flat()) {
    if (!reportOn.has(t.file.path)) continue;
    tasks++;
    entries += t.entries.length;
  }
  // a registry's tasks are its classes (one grading entry each): counted with the file declaring them
  for (const r of scope.registries) {
    if (!reportOn.has(r.file)) continue;
    tasks += r.tasks;
    entries += r.tasks;
  }
  return {
    findings: kept,
    suppressed,
    project,
    targets: [...reportOn].sort(),
    configs: [...new Set([...files.keys()].map((f) => configs.forFile(f).path).filter((p): p is string => !!p))],
    // a config's python path is relative to the config's folder
    confirmConfig: firstCfg.config.confirm?.python ? { ...firstCfg.config.confirm, python: path.resolve(firstCfg.dir, firstCfg.config.confirm.python) } : firstCfg.config.confirm,
    stats: {
      files: reportOn.size + problems.length,
      tasks,
      entries,
      pythonFiles: [...reportOn].filter((p) => files.get(p)?.language === 'python').length,
      bundles: [...bundles.keys()].filter((p) => reportOn.has(p)).length,
      durationMs: performance.now() - t0,
      phases: Object.fromEntries(marks.map(([n, t], i) => [n, t - (i ? marks[i - 1]![1] : 0)])),
      ...(await parserStats()),
      scope: scope.summary,
      suites: scope.suites,
      ...(notes.length || context.notes.length ? { notes: [...context.notes, ...notes] } : {}),
    },
    dispose: () => python.dispose(),
  };
}

async function parserStats(): Promise<Pick<LintStats, 'pythonParser' | 'pythonParserFallback'>> {
  const p = await pythonParser();
  return { pythonParser: p.kind, ...(p.fallbackReason ? { pythonParserFallback: p.fallbackReason } : {}) };
}
