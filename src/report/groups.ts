/**
 * One finding per pattern at scale (issue 31): findings with the same rule, severity, message, code
 * shape, confirmation status and scope in at least GROUP_MIN_FILES files are one group. The
 * stylish, markdown, HTML and GitHub reports print a group once, with an example location;
 * JSON and SARIF keep every location (SARIF: every result of a group shares a correlationGuid).
 */
import { createHash } from 'node:crypto';
import type { Finding } from '../core/types.js';

/** A pattern is grouped when it occurs in at least this many files. */
export const GROUP_MIN_FILES = 3;

export interface FindingGroup {
  /** The group's findings in report order; the first is its representative. */
  findings: Finding[];
  /** Distinct files among them. */
  files: number;
}

/** What must be equal for two findings to be the same pattern; undefined: the finding has no shape. */
function patternKey(f: Finding): string | undefined {
  if (f.shape === undefined) return undefined;
  return [f.ruleId, f.severity, f.message, f.shape, f.confirmation?.status ?? '', f.verifierPath === false ? 'off' : ''].join('\0');
}

/**
 * The groups (most findings first) and, in report order, every finding in none. `minFiles` below
 * GROUP_MIN_FILES is for tests.
 */
export function groupFindings(findings: readonly Finding[], minFiles = GROUP_MIN_FILES): { groups: FindingGroup[]; single: Finding[] } {
  const byKey = new Map<string, { findings: Finding[]; files: Set<string> }>();
  for (const f of findings) {
    const key = patternKey(f);
    if (key === undefined) continue;
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = { findings: [], files: new Set() }));
    g.findings.push(f);
    g.files.add(f.file);
  }
  const grouped = new Set<Finding>();
  const groups: FindingGroup[] = [];
  for (const g of byKey.values()) {
    if (g.files.size < minFiles) continue;
    groups.push({ findings: g.findings, files: g.files.size });
    for (const f of g.findings) grouped.add(f);
  }
  groups.sort((a, b) => b.findings.length - a.findings.length || (a.findings[0]!.severity === 'error' ? -1 : 0) - (b.findings[0]!.severity === 'error' ? -1 : 0));
  return { groups, single: findings.filter((f) => !grouped.has(f)) };
}

/** A GUID (RFC 4122 layout, version 5 style) derived from a group's pattern: the same pattern gets the
 *  same id in every run, so SARIF consumers can follow it across runs. */
export function groupGuid(group: FindingGroup): string {
  const h = createHash('sha256').update(patternKey(group.findings[0]!)!).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** "1,234": counts in grouped lines are often large (no Intl: a report line need not load ICU). */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
