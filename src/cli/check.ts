/** `vaudit check [paths]`: the static pass, optional confirmation, report, exit code. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { lint } from '../engine/lint.js';
import { loadRules } from '../contract/registry.js';
import { applyBaseline, buildBaseline, readBaseline, writeBaseline } from './baseline.js';
import { writeAtomic } from '../core/write-atomic.js';
import type { ReportInput, RunRecordSummary } from '../report/model.js';
import type { Finding } from '../core/types.js';
import { render } from './format.js';
import { formatSummary } from '../report/stylish.js';
import { EXIT_CLEAN, EXIT_FINDINGS, UsageError } from './exit-codes.js';
import { VERSION } from './version.js';
import { lintWithCache, type CachedLintResult } from './cache.js';
import { changedSince, withinPaths, ChangedSinceError } from './changed.js';
import { shardFindings, type ShardSpec } from './shard.js';
import { languageOf } from '../core/load.js';
import { familiesOf } from '../report/markdown.js';
import { rel } from '../core/paths.js';
import { parseStats, pythonParser } from '../lang/python/parser.js';
import { treeCacheStats } from '../lang/python/tree-cache.js';
import { aheadStats } from '../lang/python/parse-ahead.js';
import { closePrestarted, spareCores, startThreads } from '../host/threads.js';
import { redosStats } from '../suites/regex/redos.js';
import { codeOrigin } from '../core/dynamic-import.js';
import { loadConfirmStage, type ConfirmFindings } from './confirm-stage.js';
import { fixSummary, lintAndFix } from './fix.js';
import { closestNames } from '../core/names.js';

export interface CheckOptions {
  confirm?: boolean;
  format: string;
  outputFile?: string;
  maxWarnings?: number;
  quiet?: boolean;
  baseline?: string;
  baselineWrite?: string;
  forceExclude?: boolean;
  stdinFilename?: string;
  config?: string;
  rule?: string[];
  jobs?: number;
  confirmTimeout?: number;
  isolation?: 'auto' | 'bwrap' | 'process';
  /** Python interpreter for control cases. */
  python?: string;
  color?: boolean;
  /** Reuse the previous static result when nothing changed (issue 7). */
  cache?: boolean;
  cacheLocation?: string;
  /** Check only files changed since this git revision. */
  changedSince?: string;
  /** Keep only this shard of the findings / control cases. */
  shard?: ShardSpec;
  /** Print what ran (parser, regex analysis, time, memory) to stderr. */
  debug?: boolean;
  /** false (`--no-error-on-unmatched-pattern`): a folder with nothing to check is not an error. */
  errorOnUnmatchedPattern?: boolean;
  /** Verifier paths only (default) or all code. */
  scope?: 'verifier' | 'all';
  /** Apply the findings' safe fixes to the files, then report what is left. */
  fix?: boolean;
  /** As `fix`, writing nothing: print the changes as a diff. */
  fixDryRun?: boolean;
}

export interface CheckIO {
  cwd: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => Promise<string>;
  isTTY: boolean;
  /** stderr is a terminal: progress redraws one line; otherwise it prints a line every few seconds. */
  stderrIsTTY?: boolean;
}

async function loadConfirm(): Promise<ConfirmFindings> {
  const confirm = await loadConfirmStage();
  if (!confirm) throw new UsageError('This build has no confirmation support.');
  return confirm;
}

export async function runCheck(paths: string[], o: CheckOptions, io: CheckIO): Promise<number> {
  const rules = await loadRules();
  for (const r of o.rule ?? []) {
    if (rules.has(r)) continue;
    const near = closestNames(r, rules.keys());
    throw new UsageError(`Unknown rule '${r}' in --rule.${near.length === 1 ? ` Did you mean '${near[0]}'?` : ''} Run 'vaudit rules' for the list.`);
  }
  checkPathsExist(paths, o, io.cwd);
  let overrides: Map<string, string> | undefined;
  let targets = paths;
  if (o.stdinFilename) {
    const p = path.resolve(io.cwd, o.stdinFilename);
    overrides = new Map([[p, await io.readStdin()]]);
    targets = [p];
  }
  let forceExclude = o.forceExclude;
  if (o.changedSince && !o.stdinFilename) {
    let changed;
    try { changed = await changedSince(o.changedSince, io.cwd); } catch (e) {
      if (e instanceof ChangedSinceError) throw new UsageError(e.message);
      throw e;
    }
    targets = withinPaths(changed.files, paths, io.cwd).filter((f) => languageOf(f));
    forceExclude = true; // named files: config excludes still apply
    if (targets.length === 0) {
      io.stderr(`No files vaudit checks changed since ${o.changedSince}.\n`);
      const empty: ReportInput = {
        findings: [], root: io.cwd, rules, suppressedCount: 0, toolVersion: VERSION, color: false, shard: o.shard,
        stats: { files: 0, tasks: 0, entries: 0, pythonFiles: 0, bundles: 0, durationMs: 0 },
      };
      const text = await render(o.format, empty);
      if (o.outputFile) writeAtomic(path.resolve(io.cwd, o.outputFile), text);
      else io.stdout(text);
      return EXIT_CLEAN;
    }
  }
  // the run's own files (baseline, report) are never inputs
  const ignorePaths = [o.baseline, o.baselineWrite, o.outputFile].filter((f): f is string => !!f).map((f) => path.resolve(io.cwd, f));
  const lintOpts = { paths: targets, cwd: io.cwd, rules: o.rule, configPath: o.config, forceExclude, overrides, ignorePaths, scope: o.scope, parseThreads: parseThreads(), releaseAnalyses: !o.confirm };
  const fixing = o.fix || o.fixDryRun;
  if (fixing && o.stdinFilename) throw new UsageError('--fix and --fix-dry-run fix files; they cannot be used with --stdin-filename.');
  let result: CachedLintResult;
  if (fixing) {
    const fixed = await lintAndFix(lintOpts, !!o.fix && !o.fixDryRun);
    result = fixed.result;
    io.stderr(fixSummary(fixed.files, io.cwd, !!o.fixDryRun));
  } else {
    result = o.cache && !o.confirm
      ? await lintWithCache(lintOpts, { location: o.cacheLocation })
      : { ...(await lint(lintOpts)), cacheHit: false };
  }
  // threads started before the CLI loaded that this run did not use (a small suite, a cached result)
  closePrestarted();
  try {
    if (o.errorOnUnmatchedPattern !== false && !o.stdinFilename && !o.changedSince) checkSomethingRead(paths, result, io.cwd);
    let findings = result.findings;
    let baselineInfo: ReportInput['baseline'];
    if (o.baseline && !o.baselineWrite) {
      let b;
      try { b = readBaseline(path.resolve(io.cwd, o.baseline)); } catch (err) { throw new UsageError(`Cannot read baseline: ${(err as Error).message}`); }
      const checked = new Set(result.targets.map((t) => rel(io.cwd, t)));
      const applied = applyBaseline(findings, b, io.cwd, checked);
      findings = applied.remaining;
      baselineInfo = { matched: applied.matched, stale: applied.stale };
    }
    if (o.shard) findings = shardFindings(findings, o.shard);
    let runs: RunRecordSummary[] | undefined;
    let isolation: CheckOptions['isolation'];
    if (o.confirm) {
      const confirm = await loadConfirm();
      if (!result.project) throw new Error('confirmation needs the parsed project');
      isolation = o.isolation ?? result.confirmConfig?.isolation ?? 'auto';
      const progress = io.stderrIsTTY ?? io.isTTY ? { write: io.stderr, stop: () => {} } : periodicProgress(io.stderr);
      try {
        const r = await confirm(findings, result.project, {
          jobs: o.jobs ?? result.confirmConfig?.jobs,
          timeoutMs: o.confirmTimeout ?? result.confirmConfig?.timeoutMs,
          isolation,
          requireIsolation: result.confirmConfig?.requireIsolation,
          python: o.python ? path.resolve(io.cwd, o.python) : result.confirmConfig?.python,
          root: io.cwd,
          progress: progress.write,
        });
        runs = r.runs.map((run) => ({ ...run }));
      } finally {
        progress.stop();
      }
    }
    if (o.baselineWrite) {
      baselineInfo = recordBaseline(findings, o.baselineWrite, io);
      findings = [];
    }
    const shown = o.quiet ? findings.filter((f) => f.severity === 'error') : findings;
    const input: ReportInput = {
      findings: shown,
      root: io.cwd,
      stats: result.stats,
      rules,
      suppressedCount: result.suppressed.length,
      runs,
      isolation,
      toolVersion: VERSION,
      color: o.color ?? (io.isTTY && !process.env.NO_COLOR),
      baseline: baselineInfo,
      families: result.families ?? (result.project ? familiesOf(result.project) : undefined),
      shard: o.shard,
      linkBase: o.outputFile ? path.dirname(path.resolve(io.cwd, o.outputFile)) : undefined,
      ...(result.stats.scope?.fallback ? enclosingProject(paths, io.cwd) : {}),
    };
    if (o.debug) io.stderr(await debugLines(result));
    const text = await render(o.format, input);
    if (o.outputFile) {
      const out = path.resolve(io.cwd, o.outputFile);
      writeAtomic(out, text);
      if (o.format !== 'stylish') io.stdout(formatSummary(input));
    } else io.stdout(text);
    // a finding its control case refuted is listed with its evidence, and fails nothing
    const counted = findings.filter((f) => f.confirmation?.status !== 'refuted');
    const errors = counted.filter((f) => f.severity === 'error').length;
    const warnings = counted.length - errors;
    if (errors > 0) return EXIT_FINDINGS;
    if (o.maxWarnings !== undefined && o.maxWarnings >= 0 && warnings > o.maxWarnings) {
      io.stderr(`vaudit found too many warnings (maximum: ${o.maxWarnings}).\n`);
      return EXIT_FINDINGS;
    }
    return EXIT_CLEAN;
  } finally {
    result.dispose();
  }
}


/** `--baseline-write` (ESLint's --suppress-all): the findings are recorded, so this run passes. A finding
 *  its control case refuted is not a finding to carry. */
function recordBaseline(findings: readonly Finding[], file: string, io: CheckIO): NonNullable<ReportInput['baseline']> {
  const kept = findings.filter((f) => f.confirmation?.status !== 'refuted');
  writeBaseline(path.resolve(io.cwd, file), buildBaseline(kept, io.cwd));
  const refuted = findings.length - kept.length;
  io.stderr(`Wrote baseline with ${kept.length} finding${kept.length === 1 ? '' : 's'} to ${file}${refuted ? ` (${refuted} refuted by their control case left out)` : ''}; later runs with --baseline ${file} fail only on new findings.\n`);
  return { matched: kept.length, stale: [] };
}

/**
 * The repository the folders checked lie inside of, when the run read less than it: a folder's context
 * is its config's folder, else the current folder (src/engine/lint.ts), so without a config, a check from
 * a folder below the repository's root (`cd sci && vaudit check`) reads none of the task files that route
 * to its code. Undefined when a config governs the folders or the context reaches the repository root.
 */
function enclosingProject(paths: readonly string[], cwd: string): { partOf?: string } {
  const dirs = (paths.length ? paths : ['.']).map((p) => path.resolve(cwd, p));
  if (!dirs.every((d) => existsSync(d) && statSync(d).isDirectory())) return {};
  const above = (d: string, name: string): string | undefined => {
    for (let up = d; ; up = path.dirname(up)) {
      if (existsSync(path.join(up, name))) return up;
      if (path.dirname(up) === up) return undefined;
    }
  };
  if (dirs.some((d) => above(d, 'vaudit.config.json') !== undefined)) return {};
  const roots = new Set(dirs.map((d) => {
    const context = d === cwd || d.startsWith(cwd + path.sep) ? cwd : d;
    const repo = above(d, '.git');
    return repo !== undefined && context.startsWith(repo + path.sep) ? repo : undefined;
  }));
  const [root] = roots;
  return roots.size === 1 && root !== undefined ? { partOf: rel(cwd, root) || '.' } : {};
}

/** CPU time of the main thread alone (Linux: /proc), the run's critical path when threads parse ahead. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Math.round(((Number(f[11]) + Number(f[12])) * 1000) / 100);
  } catch {
    return undefined;
  }
}

/** Threads that parse Python ahead: `VAUDIT_PARSE_THREADS` (0 turns them off), else the spare cores
 *  (`spareCores`: one on two cores), at most 3. `bin/prestart.js` starts as many before the CLI loads. */
function parseThreads(): { start: typeof startThreads; count: number } {
  const env = process.env.VAUDIT_PARSE_THREADS;
  const n = env !== undefined && /^\d+$/.test(env) ? Number(env) : Math.min(spareCores(), 3);
  return { start: startThreads, count: n };
}

/** `--debug`: which parser ran, what the regex analysis cost, time and memory of the run. */
async function debugLines(result: CachedLintResult): Promise<string> {
  const out: string[] = [];
  const p = await pythonParser();
  const kind = result.stats.pythonParser ?? p.kind;
  out.push(`code: ${codeOrigin()}`);
  out.push(`python parser: ${kind === 'native' ? 'native tree-sitter (Node addon)' : 'web-tree-sitter (wasm)'}${p.fallbackReason ? ` — ${p.fallbackReason}` : ''}`);
  if (result.cacheHit) out.push('result: from the --cache entry (nothing parsed)');
  const r = redosStats;
  out.push(`regex analysis: ${r.calls} patterns, ${r.prefiltered} safe by the structural screen, ${r.recheckCalls} analysed by recheck (${Math.round(r.recheckMs)} ms), ${r.cacheHits - r.diskHits} repeated in this run, ${r.diskHits} from the --cache folder`);
  const main = mainThreadCpuMs();
  const all = process.cpuUsage();
  out.push(`static pass: ${Math.round(result.stats.durationMs)} ms over ${result.stats.files} files; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB; CPU ${Math.round((all.user + all.system) / 1000)} ms${main === undefined ? '' : `, of which the main thread ${main} ms`}`);
  const ph = result.stats.phases;
  if (ph) out.push(`CPU per phase: ${Object.entries(ph).map(([n, ms]) => `${n} ${Math.round(ms)} ms`).join(', ')}`);
  const s = parseStats;
  const py = result.project?.python.stats();
  const tc = treeCacheStats;
  const fromCache = tc.hits || tc.stored || tc.entries ? `; --cache trees: ${tc.hits} rebuilt from the ${tc.entries} in the cache folder, ${tc.stored} parsed and stored` : '';
  if (s.parses || tc.hits) out.push(`python parsing: ${s.parses} parses of ${s.chars} characters, tree-sitter ${Math.round(s.parseMs)} ms, plain-tree copy ${Math.round(s.convertMs)} ms${fromCache}${py ? `; project files analysed ${py.parsed} times, ${py.evicted} evicted from the memory budget` : ''}`);
  const a = aheadStats;
  out.push(a.threads
    ? `parsing ahead: ${a.threads} thread${a.threads === 1 ? '' : 's'}; ${a.taken} files parsed ahead, rebuilt in ${Math.round(a.decodeMs)} ms; the main thread waited ${Math.round(a.waitMs - a.helpMs)} ms for them, and parsed ${a.helped} ahead itself meanwhile (${Math.round(a.helpMs)} ms)`
    : 'parsing ahead: no threads (one core, a suite under 60,000 or over 2 million characters of Python, the wasm parser, or VAUDIT_PARSE_THREADS=0)');
  return out.map((l) => `vaudit debug: ${l}\n`).join('');
}

/** A named path that does not exist is a usage error (exit 2), as in ESLint and Ruff, even beside valid ones. */
function checkPathsExist(paths: readonly string[], o: CheckOptions, cwd: string): void {
  if (o.config && !existsSync(path.resolve(cwd, o.config))) {
    throw new UsageError(`Config file not found: ${o.config} (given with -c/--config).`);
  }
  if (o.stdinFilename) return;
  const missing = paths.filter((p) => !existsSync(path.resolve(cwd, p)));
  if (missing.length) {
    throw new UsageError(`No such file or directory: ${missing.map((m) => `'${m}'`).join(', ')}. Check the path${missing.length === 1 ? '' : 's'} for typing mistakes.`);
  }
}

/**
 * A folder in which vaudit found nothing to read is a usage error (exit 2), as ESLint's "No files
 * matching the pattern": a CI gate that checks nothing must not pass silently. Named files that
 * are excluded or of another type (pre-commit passes those) are not an error.
 */
function checkSomethingRead(paths: readonly string[], result: CachedLintResult, cwd: string): void {
  const seen = [...result.targets, ...result.findings.map((f) => f.file)];
  const empty = (paths.length ? paths : ['.']).filter((p) => {
    const abs = path.resolve(cwd, p);
    if (!statSync(abs).isDirectory()) return false;
    const prefix = abs.endsWith(path.sep) ? abs : abs + path.sep;
    return !seen.some((f) => f.startsWith(prefix));
  });
  if (empty.length === 0) return;
  const cfg = result.configs.length ? ` and the include/exclude globs of ${rel(cwd, result.configs[0]!)}` : '';
  throw new UsageError(
    `No files to check in ${empty.map((e) => `'${e}'`).join(', ')}. vaudit reads *.json task files and *.py, *.js/*.mjs/*.cjs, *.ts/*.mts/*.cts verifier code` +
      ` (skipping node_modules, dist, build, virtual environments…)${cfg}. Pass --no-error-on-unmatched-pattern to allow an empty run.`,
  );
}

/** Interval of the non-TTY progress line (VAUDIT_PROGRESS_MS overrides it). */
const PROGRESS_MS = 5000;

/**
 * Progress for a non-terminal stderr (CI logs): instead of redrawing one line, print the latest
 * state with the elapsed time as a plain line every few seconds (also when it did not change, so
 * a long batch shows the run is alive), and the final state when the run ends.
 */
function periodicProgress(write: (s: string) => void, everyMs = Number(process.env.VAUDIT_PROGRESS_MS ?? PROGRESS_MS)) {
  const t0 = Date.now();
  let last = '';
  let printed = '';
  const print = () => {
    if (!last) return;
    printed = last;
    write(`vaudit: ${last} (${Math.round((Date.now() - t0) / 1000)} s)\n`);
  };
  const timer = everyMs > 0 ? setInterval(print, everyMs) : undefined;
  timer?.unref();
  return {
    write: (text: string) => {
      // eslint-disable-next-line no-control-regex -- the progress text's own erase-line escape
      const t = text.replace(/\r|\x1b\[K/g, '').trim();
      if (!t) return;
      last = t.replace(/\u2026$/, ''); // a trailing ellipsis
      if (everyMs <= 0) print();
    },
    stop: () => {
      clearInterval(timer);
      if (last !== printed && printed) print();
    },
  };
}
