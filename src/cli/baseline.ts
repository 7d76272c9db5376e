/**
 * Baseline for adopting vaudit on a suite with existing findings (ESLint-style:
 * counts per file per rule). Only findings beyond the recorded counts fail;
 * entries that no longer match are reported so the baseline can shrink.
 */
import { readFileSync } from 'node:fs';
import { writeAtomic } from '../core/write-atomic.js';
import type { Finding } from '../core/types.js';
import { rel } from '../core/paths.js';

export interface BaselineFile {
  version: 1;
  /** relative file → rule id → count */
  files: Record<string, Record<string, number>>;
}


export function buildBaseline(findings: readonly Finding[], root: string): BaselineFile {
  const files: BaselineFile['files'] = {};
  for (const f of findings) {
    const r = rel(root, f.file);
    const byRule = (files[r] ??= {});
    byRule[f.ruleId] = (byRule[f.ruleId] ?? 0) + 1;
  }
  const sorted: BaselineFile['files'] = {};
  for (const k of Object.keys(files).sort()) sorted[k] = Object.fromEntries(Object.entries(files[k]!).sort());
  return { version: 1, files: sorted };
}

/** Write atomically (temp file + rename in the same folder). */
export function writeBaseline(file: string, baseline: BaselineFile): void {
  writeAtomic(file, JSON.stringify(baseline, null, 2) + '\n');
}

export function readBaseline(file: string): BaselineFile {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as BaselineFile;
  if (doc?.version !== 1 || typeof doc.files !== 'object') throw new Error(`${file}: not a vaudit baseline (expected {"version": 1, "files": {...}})`);
  return doc;
}

export interface BaselineResult {
  /** Findings not covered by the baseline. */
  remaining: Finding[];
  matched: number;
  stale: Array<{ file: string; ruleId: string; count: number }>;
}

/** Findings of a (file, rule) pair up to the recorded count are baselined; the first ones in file order are kept as baselined. */
export function applyBaseline(findings: readonly Finding[], baseline: BaselineFile, root: string, checkedFiles?: ReadonlySet<string>): BaselineResult {
  const budget = new Map<string, number>();
  for (const [file, rules] of Object.entries(baseline.files)) for (const [rule, n] of Object.entries(rules)) budget.set(`${file}\0${rule}`, n);
  const remaining: Finding[] = [];
  let matched = 0;
  for (const f of findings) {
    const key = `${rel(root, f.file)}\0${f.ruleId}`;
    const left = budget.get(key) ?? 0;
    if (left > 0) {
      budget.set(key, left - 1);
      matched++;
    } else remaining.push(f);
  }
  const stale: BaselineResult['stale'] = [];
  for (const [key, n] of budget) {
    if (n <= 0) continue;
    const [file, ruleId] = key.split('\0') as [string, string];
    if (checkedFiles && !checkedFiles.has(file)) continue;
    stale.push({ file, ruleId, count: n });
  }
  return { remaining, matched, stale };
}
