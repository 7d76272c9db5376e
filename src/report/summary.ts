/**
 * The closing summary block of stylish output (also printed alone when the report goes to
 * --output-file). It is a list of sections, each a small function of the report input, so a
 * new kind of line (e.g. per-suite scope) is one more entry in SECTIONS.
 */
import type { ReportInput } from './model.js';
import { countBySeverity, relPath } from './model.js';
import type { ConfirmationStatus } from '../core/types.js';
import { isolationLines, isolationSummary } from './isolation.js';

export interface Paint {
  red: (s: string) => string;
  yellow: (s: string) => string;
  green: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
}

type SummarySection = (input: ReportInput, c: Paint) => string[];

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Statuses that are neither a verdict on the defect nor "no witness reached it". */
const NON_RESULTS: ReadonlySet<ConfirmationStatus> = new Set(['verifierUnavailable', 'timeout', 'crash', 'sandbox', 'unsupported']);
const STATUS_ORDER: readonly ConfirmationStatus[] = ['confirmed', 'refuted', 'unreached', 'verifierUnavailable', 'timeout', 'crash', 'sandbox', 'unsupported'];
/** How many distinct non-result reasons the summary names. */
const TOP_REASONS = 3;
const REASON_WIDTH = 110;

/** "✖ 3 problems (2 errors, 1 warning) in 4 files, 2 tasks, 3 verifier entries." */
const headline: SummarySection = (input, c) => {
  const { error, warning } = countBySeverity(input.findings);
  const total = error + warning;
  const s = input.stats;
  const scope = `${plural(s.files, 'file')}, ${plural(s.tasks, 'task')}, ${plural(s.entries, 'verifier entry', 'verifier entries')}`;
  if (total === 0) return [c.green(`✔ No problems (${scope}).`)];
  const line = `✖ ${plural(total, 'problem')} (${plural(error, 'error')}, ${plural(warning, 'warning')}) in ${scope}.`;
  return [c.bold(error ? c.red(line) : c.yellow(line))];
};

/** Rule ids in `localeCompare` order. Ids of lower-case letters, digits and hyphens (every rule's) sort the
 *  same by code unit, which spares loading the ICU collator (≈ 10 ms of CPU) for a one-line summary. */
const PLAIN_ID = /^[a-z0-9-]*$/;
function compareIds(a: string, b: string): number {
  if (PLAIN_ID.test(a) && PLAIN_ID.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}

/** "  rules: unbound-name 2, set-collapse 1" — most frequent first. */
const perRule: SummarySection = (input, c) => {
  if (input.findings.length === 0) return [];
  const counts = new Map<string, number>();
  for (const f of input.findings) counts.set(f.ruleId, (counts.get(f.ruleId) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => b[1] - a[1] || compareIds(a[0], b[0])).map(([id, n]) => `${id} ${n}`);
  return [`  ${c.dim('rules:')} ${parts.join(', ')}`];
};

/**
 * "  confirmation: 3 confirmed, 1 refuted, 2 verifierUnavailable (5 control-case runs)" and, under
 * it, the most frequent reasons for non-results (what to install or change to get a verdict).
 */
const confirmations: SummarySection = (input, c) => {
  if (!input.runs) return [];
  const byStatus = new Map<ConfirmationStatus, number>();
  const reasons = new Map<string, { status: ConfirmationStatus; detail: string; n: number }>();
  let notRun = 0;
  for (const f of input.findings) {
    const conf = f.confirmation;
    if (!conf) {
      if (input.rules.get(f.ruleId)?.meta.confirm) notRun++;
      continue;
    }
    byStatus.set(conf.status, (byStatus.get(conf.status) ?? 0) + 1);
    if (NON_RESULTS.has(conf.status)) {
      const detail = oneLine(conf.detail ?? conf.observed ?? 'no detail recorded');
      const key = `${conf.status}\0${detail}`;
      const r = reasons.get(key) ?? { status: conf.status, detail, n: 0 };
      r.n++;
      reasons.set(key, r);
    }
  }
  const paint = (s: ConfirmationStatus, text: string) => (s === 'confirmed' ? c.red(text) : s === 'refuted' ? c.green(text) : c.yellow(text));
  const parts = STATUS_ORDER.filter((s) => byStatus.has(s)).map((s) => paint(s, `${byStatus.get(s)} ${s}`));
  if (notRun) parts.push(`${notRun} not run`);
  // a run the isolation policy refused (no sandbox available) ran nothing: it is not a control-case run
  const refused = input.runs.filter((r) => r.outcome === 'sandbox').length;
  const runs = `${plural(input.runs.length - refused, 'control-case run')}${refused ? `; ${refused} refused by the isolation policy` : ''}`;
  const out = [`  ${c.dim('confirmation:')} ${parts.length ? parts.join(', ') : 'no finding has a control case'} (${runs})`];
  const top = [...reasons.values()].sort((a, b) => b.n - a.n || a.status.localeCompare(b.status) || a.detail.localeCompare(b.detail));
  for (const r of top.slice(0, TOP_REASONS)) out.push(c.dim(`    ${r.status} ×${r.n}: ${r.detail}`));
  if (top.length > TOP_REASONS) out.push(c.dim(`    … and ${plural(top.length - TOP_REASONS, 'other reason')} (see --format json)`));
  return out;
};

const suppressions: SummarySection = (input, c) => {
  const out: string[] = [];
  if (input.suppressedCount) out.push(c.dim(`  ${input.suppressedCount} suppressed.`));
  if (input.baseline) {
    out.push(c.dim(`  ${input.baseline.matched} matched the baseline.`));
    for (const st of input.baseline.stale) out.push(c.dim(`  baseline entry no longer matches: ${st.file} ${st.ruleId} (${st.count} fewer) — rewrite it with --baseline-write.`));
  }
  return out;
};

/** What the control cases ran under, and which did not run and why (src/report/isolation.ts). */
const isolation: SummarySection = (input, c) => {
  const iso = isolationSummary(input);
  if (!iso) return [];
  const { info, warn } = isolationLines(iso);
  return [...info.map((l) => c.dim(`  ${l}`)), ...warn.map((l) => c.bold(c.yellow(`⚠ ${l}`)))];
};

/** How many notes the summary prints (all are in --format json). */
const TOP_NOTES = 5;

/** "  notes: 2 (not findings)" and the first few, each with its place: what a rule could not decide within its budget. */
const notes: SummarySection = (input, c) => {
  const all = input.stats.notes ?? [];
  if (!all.length) return [];
  const out = [`  ${c.dim('notes:')} ${all.length} (not findings)`];
  for (const n of all.slice(0, TOP_NOTES)) out.push(c.dim(`    ${relPath(input.root, n.file)}:${n.range.start.line}:${n.range.start.column} ${n.ruleId}: ${oneLine(n.message)}`));
  if (all.length > TOP_NOTES) out.push(c.dim(`    … and ${plural(all.length - TOP_NOTES, 'other note')} (see --format json)`));
  return out;
};

/** The sections, in print order. */
const SECTIONS: SummarySection[] = [headline, perRule, confirmations, suppressions, notes, isolation];

export function summaryBlock(input: ReportInput, c: Paint): string[] {
  return SECTIONS.flatMap((s) => s(input, c));
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > REASON_WIDTH ? `${t.slice(0, REASON_WIDTH - 1)}…` : t;
}
