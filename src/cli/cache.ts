/**
 * `--cache`: reuse the result of a previous static pass when nothing it read
 * has changed. The key covers
 *  - the content (sha256) of every file the run would read: the targets and,
 *    for explicitly named files, their context folder (as `lint` discovers it),
 *    plus every config file in effect;
 *  - the rule set: rule ids, the vaudit version, and a stamp (path, size,
 *    mtime) of vaudit's own code and rule modules, so a changed rule or engine
 *    never serves stale findings;
 *  - the options that change findings (--rule, --config, --force-exclude, paths).
 * Granularity is the whole run: cross-file analysis (task → verifier binding,
 * Python imports) makes per-file reuse unsound without a dependency graph, so
 * any change re-runs the full pass. A warm hit skips parsing and analysis
 * entirely. Entries live in `<location>/lint-<options hash>.cache`, written
 * atomically; a corrupt or foreign entry is a miss, never an error. A miss still
 * reuses what earlier runs found per input: the regex verdicts
 * (`<location>/redos.cache`, keyed by pattern, flags and options: recheck is the
 * slow part of a run with new regexes) and the parsed trees of unchanged Python
 * texts (`<location>/trees.cache`, keyed by text: `lang/python/tree-cache.ts`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Finding } from '../core/types.js';
import type { Project } from '../contract/project.js';
import { lint, type LintOptions, type LintResult } from '../engine/lint.js';
import { discoverFiles } from '../engine/discover.js';
import { contextRoot } from '../engine/pass.js';
import { loadRules, ruleOptionSchemas, RULES_DIR } from '../contract/registry.js';
import { writeAtomic } from '../core/write-atomic.js';
import { ConfigResolver, type RuleOptionSchemas } from '../config/load.js';
import { VERSION } from './version.js';
import { familiesOf } from '../report/markdown.js';
import { rel } from '../core/paths.js';
import { saveRedosCache, useRedosCacheFile } from '../suites/regex/redos.js';
import { saveTreeCache, useTreeCacheFile } from '../lang/python/tree-cache.js';

const DEFAULT_CACHE_LOCATION = '.vaudit-cache';
const CACHE_FORMAT = 1;
const MAX_ENTRIES = 32;

/** A lint result that may come from the cache: then `project` is absent (no parsed files). */
export type CachedLintResult = Omit<LintResult, 'project'> & {
  project?: Project;
  cacheHit: boolean;
  /** App family per file (absolute path), kept so audit reports of a cache hit still group by family. */
  families?: Record<string, string>;
};

interface Entry {
  format: number;
  key: string;
  findings: Finding[];
  suppressed: Finding[];
  stats: LintResult['stats'];
  targets: string[];
  configs: string[];
  families: Record<string, string>;
}

const here = path.dirname(fileURLToPath(import.meta.url));

function sha(s: string | Buffer): string {
  return createHash('sha256').update(s).digest('hex');
}

let codeStampMemo: string | undefined;
/** Stamp of vaudit's own code (src or dist/src) and rules: any rebuild or edit changes it. */
function codeStamp(): string {
  if (codeStampMemo) return codeStampMemo;
  const h = createHash('sha256');
  const walk = (dir: string) => {
    let names: string[];
    try { names = readdirSync(dir).sort(); } catch { return; }
    for (const n of names) {
      const p = path.join(dir, n);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        if (n !== 'fixtures') walk(p); // rule fixtures are test data, not code
      } else if (/\.(m?js|ts|json|py)$/.test(n) && !n.endsWith('.map')) h.update(`${p}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  walk(path.resolve(here, '..')); // src/ or dist/src/
  walk(RULES_DIR);
  codeStampMemo = h.digest('hex');
  return codeStampMemo;
}

/** Every file `lint(opts)` would read, as lint discovers them (targets + context of explicit files). */
async function inputFiles(opts: LintOptions & { cwd: string }, ruleIds: RuleOptionSchemas): Promise<{ files: string[]; configs: string[] }> {
  const cwd = opts.cwd;
  const configs = new ConfigResolver(cwd, ruleIds, opts.configPath);
  const inputs = opts.paths?.length ? opts.paths : ['.'];
  const firstCfg = configs.forDir(path.resolve(cwd, inputs[0]!));
  const found = await discoverFiles(inputs, { cwd, include: firstCfg.config.include, exclude: firstCfg.config.exclude, forceExclude: opts.forceExclude, base: firstCfg.path ? firstCfg.dir : undefined });
  const ignored = new Set((opts.ignorePaths ?? []).map((p) => path.resolve(cwd, p)));
  const all = new Set(found.files.filter((f) => !ignored.has(f)));
  const explicit = found.files.filter((f) => inputs.some((i) => path.resolve(cwd, i) === f));
  for (const r of new Set(explicit.map((f) => contextRoot(f, configs)))) {
    const cfg = configs.forDir(r);
    for (const f of (await discoverFiles([r], { cwd: r, include: cfg.config.include, exclude: cfg.config.exclude })).files) if (!ignored.has(f)) all.add(f);
  }
  const cfgFiles = new Set<string>();
  if (opts.configPath) cfgFiles.add(path.resolve(cwd, opts.configPath));
  for (const f of all) {
    const c = configs.forFile(f).path;
    if (c) cfgFiles.add(c);
  }
  for (const i of inputs) {
    const c = configs.forDir(path.resolve(cwd, i)).path;
    if (c) cfgFiles.add(c);
  }
  // Unreadable named paths become findings: they are part of the key by name.
  for (const p of found.problems) all.add(p.path);
  return { files: [...all].sort(), configs: [...cfgFiles].sort() };
}

/** Read synchronously: suites are many small files, and a promise per file costs 3-4 times the read (1,046 Spider2-V files: 40 ms against 140-430 ms). */
function contentHash(file: string): string {
  try {
    return sha(readFileSync(file));
  } catch (e) {
    return `unreadable:${(e as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

function optionsKey(opts: LintOptions & { cwd: string }): string {
  return JSON.stringify({
    cwd: opts.cwd,
    paths: (opts.paths?.length ? opts.paths : ['.']).map((p) => path.resolve(opts.cwd, p)),
    rules: opts.rules ? [...opts.rules].sort() : null,
    config: opts.configPath ? path.resolve(opts.cwd, opts.configPath) : null,
    forceExclude: !!opts.forceExclude,
    unused: opts.reportUnusedSuppressions !== false,
    severities: opts.severities ?? null,
    ignorePaths: (opts.ignorePaths ?? []).map((p) => path.resolve(opts.cwd, p)).sort(),
    scope: opts.scope ?? null,
  });
}

function relFinding(f: Finding, root: string): Finding {
  return { ...f, file: rel(root, f.file), related: f.related?.map((r) => ({ ...r, file: rel(root, r.file) })) };
}

function absFinding(f: Finding, root: string): Finding {
  const abs = (p: string) => path.resolve(root, p);
  return { ...f, file: abs(f.file), related: f.related?.map((r) => ({ ...r, file: abs(r.file) })) };
}

function prune(dir: string): void {
  try {
    const entries = readdirSync(dir)
      .filter((n) => n.startsWith('lint-') && n.endsWith('.cache'))
      .map((n) => ({ p: path.join(dir, n), t: statSync(path.join(dir, n)).mtimeMs }))
      .sort((a, b) => b.t - a.t);
    for (const e of entries.slice(MAX_ENTRIES)) unlinkSync(e.p);
  } catch {
    // pruning is best effort
  }
}

/**
 * The cache folder ignores itself: a `.gitignore` holding `*` (as pytest's and Ruff's caches do), so it
 * never shows as untracked and needs no line in the project's own .gitignore. Written once, when absent.
 */
function ignoredByGit(dir: string): void {
  const f = path.join(dir, '.gitignore');
  if (existsSync(f)) return;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(f, '# Created by vaudit --cache: the cache is local to this machine.\n*\n');
  } catch {
    // an unwritable cache folder only costs speed
  }
}

export interface CacheOptions {
  /** Cache folder (default `.vaudit-cache` under the cwd). */
  location?: string;
}

/**
 * `lint(opts)` through the cache. Overrides (stdin, editor buffers) and
 * `ruleSet` bypass it. Returns `cacheHit: true` when the stored result was reused.
 */
export async function lintWithCache(opts: LintOptions & { cwd: string }, cache: CacheOptions = {}): Promise<CachedLintResult> {
  if (opts.overrides?.size || opts.ruleSet) return { ...(await lint(opts)), cacheHit: false };
  const t0 = performance.now();
  const cwd = path.resolve(opts.cwd);
  const o = { ...opts, cwd };
  const rules = await loadRules();
  const ruleIds = new Set(rules.keys());
  const dir = path.resolve(cwd, cache.location ?? DEFAULT_CACHE_LOCATION);
  const oKey = optionsKey(o);
  const file = path.join(dir, `lint-${sha(oKey).slice(0, 24)}.cache`); // not .json: never discovered as input
  ignoredByGit(dir);

  const { files, configs } = await inputFiles(o, ruleOptionSchemas(rules));
  const hashes = files.map(contentHash);
  const cfgHashes = configs.map(contentHash);
  const key = sha(
    JSON.stringify({
      format: CACHE_FORMAT,
      version: VERSION,
      code: codeStamp(),
      rules: [...ruleIds].sort(),
      options: oKey,
      files: files.map((f, i) => [path.relative(cwd, f), hashes[i]]),
      configs: configs.map((f, i) => [path.relative(cwd, f), cfgHashes[i]]),
    }),
  );

  if (existsSync(file)) {
    try {
      const e = JSON.parse(readFileSync(file, 'utf8')) as Entry;
      if (e.format === CACHE_FORMAT && e.key === key) {
        return {
          findings: e.findings.map((f) => absFinding(f, cwd)),
          suppressed: e.suppressed.map((f) => absFinding(f, cwd)),
          stats: { ...e.stats, durationMs: performance.now() - t0 },
          targets: e.targets.map((t) => path.resolve(cwd, t)),
          configs: e.configs.map((c) => path.resolve(cwd, c)),
          families: Object.fromEntries(Object.entries(e.families ?? {}).map(([f, fam]) => [path.resolve(cwd, f), fam])),
          dispose: () => {},
          cacheHit: true,
        };
      }
    } catch {
      // a corrupt entry is a miss
    }
  }

  // recheck's verdicts on regexes outlive this entry: any later run with --cache reuses them
  useRedosCacheFile(path.join(dir, 'redos.cache'), codeStamp());
  // so do the parsed trees of unchanged Python: a run after one edit parses the edited file only
  useTreeCacheFile(path.join(dir, 'trees.cache'), codeStamp());
  let result: LintResult;
  try {
    result = await lint(o);
    saveRedosCache();
    saveTreeCache();
  } finally {
    useRedosCacheFile(undefined);
    useTreeCacheFile(undefined);
  }
  // Store only when every file the pass read was covered by the key (else the key could miss a change).
  const covered = new Set(files);
  const complete = [...result.project.files.keys()].every((f) => covered.has(f)) && result.configs.every((c) => configs.includes(c));
  if (complete) {
    const entry: Entry = {
      format: CACHE_FORMAT,
      key,
      findings: result.findings.map((f) => relFinding(f, cwd)),
      suppressed: result.suppressed.map((f) => relFinding(f, cwd)),
      stats: result.stats,
      targets: result.targets.map((t) => path.relative(cwd, t)),
      configs: result.configs.map((c) => path.relative(cwd, c)),
      families: Object.fromEntries(Object.entries(familiesOf(result.project)).map(([f, fam]) => [path.relative(cwd, f), fam])),
    };
    try {
      mkdirSync(dir, { recursive: true });
      writeAtomic(file, JSON.stringify(entry));
      prune(dir);
    } catch {
      // an unwritable cache folder only costs speed
    }
  }
  return { ...result, cacheHit: false };
}
