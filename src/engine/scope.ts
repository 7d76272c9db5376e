/**
 * Scope of a run: which findings lie on a verifier path.
 *
 * Policy (README "Verifier paths"): by default (`scope: "verifier"`) vaudit
 * reports findings in code reached from a verifier entrypoint, in task files
 * (the JSON layer and the code embedded in it) and in correctness-model
 * bundles; findings elsewhere (set-up and provisioning code, endpoints no
 * verifier calls, platform branches the suite's VM never takes, app code,
 * files shipped as task data) are not reported, only counted. `--scope all`
 * (config `"scope": "all"`) reports them too, each marked "not on a verifier
 * path". A project with no recognisable entrypoint falls back to all code and
 * the summary says so.
 */
import type { Finding } from '../core/types.js';
import type { Project } from '../contract/project.js';
import type { SourceFile } from '../core/source.js';
import type { Task } from '../suites/types.js';
import type { LoadedConfig } from '../config/load.js';
import { findEntrypoints, type SuiteSummary } from '../suites/entrypoints.js';
import { computeReach, type Reach, type ReachCache, type TargetPlatform } from './reach.js';

export type ScopeSetting = 'verifier' | 'all';

/** What the report says about scope (JSON `summary.scope`, SARIF run properties, stylish summary). */
export interface ScopeSummary {
  /** What was asked: config or `--scope`. */
  requested: ScopeSetting;
  /** What applied: `all` when asked, or when no entrypoint was found (`fallback`). */
  applied: ScopeSetting;
  fallback: boolean;
  entrypoints: number;
  /** Platform assumed for the helper server's VM. */
  platform: TargetPlatform;
  /** Findings not on a verifier path: hidden (applied `verifier`) or shown marked (applied `all`). */
  outside: number;
  /** Code files with no verifier code, not analysed at all (applied `verifier`). */
  skippedFiles: number;
  /** With `fallback`: why nothing was recognised, one line per shape tried. */
  why?: string[];
}

export interface RunScope {
  reach?: Reach;
  summary: ScopeSummary;
  suites: SuiteSummary[];
  /** Task-class registries: declaring file and task count (their tasks have no task file). */
  registries: Array<{ file: string; tasks: number }>;
}

/** `reachCache`: per-file facts an editor session keeps between lints (src/engine/reach.ts). */
export function computeScope(project: Project, sorted: readonly SourceFile[], cfg: LoadedConfig, requested: ScopeSetting | undefined, reachCache?: ReachCache): RunScope {
  const req: ScopeSetting = requested ?? cfg.config.scope ?? 'verifier';
  const platform: TargetPlatform = cfg.config.platform ?? 'linux';
  const ep = findEntrypoints({
    root: project.root,
    files: sorted,
    suites: project.suites,
    python: project.python,
    declared: cfg.config.entrypoints,
    declaredDir: cfg.dir,
    detect: cfg.config.detect,
  });
  const summary: ScopeSummary = { requested: req, applied: req, fallback: false, entrypoints: ep.entrypoints.length, platform, outside: 0, skippedFiles: 0 };
  if (ep.entrypoints.length === 0) {
    summary.applied = 'all';
    summary.fallback = true;
    return { summary, suites: ep.suites, registries: ep.registries };
  }
  const reach = computeReach({
    files: project.files,
    python: project.python,
    entrypoints: ep.entrypoints,
    alwaysInScope: new Set(project.bundles.keys()),
    platform,
    cache: reachCache,
  });
  return { reach, summary, suites: ep.suites, registries: ep.registries };
}

/** Files to run the rules on: with scope `verifier`, code files with no reached code are skipped. */
export function narrowTargets(reportOn: Set<string>, scope: RunScope, tasksByFile: ReadonlyMap<string, readonly Task[]>): Set<string> {
  if (scope.summary.applied !== 'verifier' || !scope.reach) return reportOn;
  const out = new Set<string>();
  for (const f of reportOn) if (tasksByFile.has(f) || scope.reach.fileReached(f)) out.add(f);
  scope.summary.skippedFiles = reportOn.size - out.size;
  return out;
}

/**
 * Split findings by scope. Task files (JSON layer and embedded code) are always in scope.
 * Applied `all`: every finding is kept, those off the verifier paths marked `verifierPath: false`.
 */
export function partitionFindings(findings: Finding[], scope: RunScope, tasksByFile: ReadonlyMap<string, readonly Task[]>): Finding[] {
  const reach = scope.reach;
  if (!reach) return findings;
  const kept: Finding[] = [];
  let outside = 0;
  for (const f of findings) {
    const on = tasksByFile.has(f.file) || reach.onPath(f.file, f.range.start.offset);
    if (on) { kept.push(f); continue; }
    outside++;
    if (scope.summary.applied === 'all') kept.push({ ...f, verifierPath: false });
  }
  scope.summary.outside = outside;
  return kept;
}
