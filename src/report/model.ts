/** What every reporter receives. */
import path from 'node:path';
import type { Finding } from '../core/types.js';
import type { LintStats } from '../engine/lint.js';
import type { RuleMeta } from '../contract/rule.js';

export interface RunRecordSummary {
  runId: string;
  [key: string]: unknown;
}

export interface ReportInput {
  findings: Finding[];
  /** Root that relative paths are computed from (usually the cwd). */
  root: string;
  stats: LintStats;
  rules: ReadonlyMap<string, { meta: RuleMeta }>;
  suppressedCount: number;
  /** Run records of control cases, when --confirm ran. */
  runs?: RunRecordSummary[];
  /** The isolation policy control cases ran under (`auto`, `bwrap`, `process`), when --confirm ran. */
  isolation?: string;
  toolVersion: string;
  /** Colour output (stylish). */
  color?: boolean;
  /** Baseline bookkeeping, when --baseline was given. */
  baseline?: { matched: number; stale: Array<{ file: string; ruleId: string; count: number }> };
  /** App family (or families, comma-joined) per absolute file path, for the audit reports. */
  families?: Readonly<Record<string, string>>;
  /** Set when this report covers one shard of a `--shard i/n` run. */
  shard?: { index: number; total: number };
  /** Folder that file links in markdown/html reports are relative to (default: root). */
  linkBase?: string;
  /** The repository the folders checked lie inside of when the run's context stopped below its root (no
   *  config; a check from a subfolder): its task files, which route to the code checked, were not read
   *  (the hint names that, not a missing declaration). */
  partOf?: string;
}

/** True when `file` lies outside `root` (so it has no relative path under it). */
export function isOutside(root: string, file: string): boolean {
  const r = path.relative(root, file);
  return r === '..' || r.startsWith(`..${path.sep}`) || path.isAbsolute(r);
}

/** `file` relative to `root` with `/` separators; absolute when it lies outside `root`. */
export function relPath(root: string, file: string): string {
  // the root itself (a note on the project folder) is "."
  return (isOutside(root, file) ? file : path.relative(root, file) || '.').split(path.sep).join('/');
}

export function countBySeverity(findings: readonly Finding[]): { error: number; warning: number } {
  let error = 0;
  let warning = 0;
  for (const f of findings) {
    if (f.severity === 'error') error++;
    else warning++;
  }
  return { error, warning };
}
