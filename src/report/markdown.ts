/**
 * The audit report (`--format markdown`): the document a benchmark publishes
 * with its suite, shaped like the seed audit — scope, a summary per app
 * family and per rule, then the findings table (ID, severity, finding,
 * confirmation evidence, resolution hint) with links to file:line.
 * `buildAudit` is shared with the HTML report.
 */
import path from 'node:path';
import type { Finding } from '../core/types.js';
import type { Project } from '../contract/project.js';
import type { ReportInput } from './model.js';
import { countBySeverity, relPath } from './model.js';
import { isolationLines, isolationSummary } from './isolation.js';
import { count, groupFindings } from './groups.js';
import { shorten } from './shorten.js';


const NO_FAMILY = '(no family)';

interface AuditRow {
  /** Report-local id, `VA-001`… in report order. */
  id: string;
  severity: Finding['severity'];
  ruleId: string;
  family: string;
  /** What is wrong (and why), without the resolution sentence. */
  finding: string;
  /** What to do, split from the message (empty when the message has no separate hint). */
  hint: string;
  /** `path:line:column` as shown. */
  location: string;
  /** Link target relative to the link base, with a `#L<line>` fragment (GitHub style). */
  href: string;
  pointer?: string;
  /** The defect's other sites and the places it is about: `path:line:column` as shown, link, what is there. */
  related: Array<{ location: string; href: string; message: string }>;
  evidence: { status: string; text: string };
  fingerprint?: string;
  /** Set when the row stands for a pattern repeated in many files (src/report/groups.ts): the row's
   *  location is the first of them. */
  repeated?: { findings: number; files: number };
}

/** "and 2,379 more in 2,380 files (all listed in the JSON report)" for a grouped row. */
export function repeatedText(r: AuditRow): string {
  if (!r.repeated) return '';
  return `and ${count(r.repeated.findings - 1)} more in ${count(r.repeated.files)} files (all listed in the JSON report)`;
}

export interface AuditSummaryRow {
  key: string;
  total: number;
  errors: number;
  warnings: number;
  confirmed: number;
  description?: string;
}

export interface Audit {
  title: string;
  scope: ReportInput['stats'];
  totals: { total: number; errors: number; warnings: number; confirmed: number; suppressed: number };
  families: AuditSummaryRow[];
  rules: AuditSummaryRow[];
  rows: AuditRow[];
  baseline?: ReportInput['baseline'];
  shard?: ReportInput['shard'];
  toolVersion: string;
  controlRuns?: number;
  /** What control cases ran under and what did not run (issue 17), as sentences. */
  isolation?: string[];
}

/** Families per file: a task file's own family; a verifier module gets the families of the tasks routed to it. */
export function familiesOf(project: Pick<Project, 'suites'>): Record<string, string> {
  const sets = new Map<string, Set<string>>();
  const add = (file: string, fam: string) => {
    if (!fam) return;
    let s = sets.get(file);
    if (!s) sets.set(file, (s = new Set()));
    s.add(fam);
  };
  for (const suite of project.suites) {
    for (const task of suite.tasks) {
      add(task.file.path, task.family);
      for (const e of task.entries) if (e.binding) add(e.binding.file, task.family);
    }
  }
  const out: Record<string, string> = {};
  for (const [f, s] of sets) out[f] = [...s].sort().join(', ');
  return out;
}

function evidence(f: Finding, confirmable: boolean, confirmRan: boolean): AuditRow['evidence'] {
  const c = f.confirmation;
  if (c) {
    const bits = [
      c.witness && `witness ${shorten(c.witness)}`,
      c.expected !== undefined && `expected ${c.expected}`,
      c.observed !== undefined && `observed ${shorten(c.observed)}`,
      c.detail,
      c.runId && `run ${c.runId}`,
    ].filter((b): b is string => !!b);
    return { status: c.status, text: bits.join('; ') };
  }
  if (!confirmable) return { status: 'static', text: 'Static finding (this rule has no control case).' };
  return confirmRan ? { status: 'not run', text: 'No control case ran for this finding.' } : { status: 'not run', text: 'Confirmable: run with --confirm to execute its control case.' };
}

function encodePath(p: string): string {
  return p.split('/').map((seg) => encodeURIComponent(seg).replace(/[()'!*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('/');
}

export function buildAudit(input: ReportInput): Audit {
  const base = input.linkBase ?? input.root;
  const confirmRan = !!input.runs;
  // a pattern repeated in many files is one row, where its first finding is
  const { groups } = groupFindings(input.findings);
  const groupOf = new Map(groups.flatMap((g) => g.findings.map((f) => [f, g] as const)));
  const shown = input.findings.filter((f) => {
    const g = groupOf.get(f);
    return !g || g.findings[0] === f;
  });
  const width = Math.max(3, String(shown.length).length);
  const rows: AuditRow[] = shown.map((f, i) => {
    // what is wrong and why it matters, then what to do
    const finding = [f.parts.what, f.parts.why].filter(Boolean).join(' ');
    const hint = f.parts.fix;
    const link = (file: string) => encodePath(path.isAbsolute(path.relative(base, file)) ? file : path.relative(base, file).split(path.sep).join('/'));
    const g = groupOf.get(f);
    return {
      id: `VA-${String(i + 1).padStart(width, '0')}`,
      severity: f.severity,
      ruleId: f.ruleId,
      family: input.families?.[f.file] ?? NO_FAMILY,
      finding,
      hint,
      location: `${relPath(input.root, f.file)}:${f.range.start.line}:${f.range.start.column}`,
      href: `${link(f.file)}#L${f.range.start.line}`,
      pointer: f.pointer,
      related: (f.related ?? []).map((r) => ({
        location: `${relPath(input.root, r.file)}:${r.range.start.line}:${r.range.start.column}`,
        href: `${link(r.file)}#L${r.range.start.line}`,
        message: r.message,
      })),
      evidence: evidence(f, !!input.rules.get(f.ruleId)?.meta.confirm, confirmRan),
      fingerprint: f.fingerprint,
      ...(g ? { repeated: { findings: g.findings.length, files: g.files } } : {}),
    };
  });
  // the summaries count every finding, grouped or not
  const summarise = (key: (f: Finding) => string, describe?: (k: string) => string | undefined): AuditSummaryRow[] => {
    const m = new Map<string, AuditSummaryRow>();
    for (const f of input.findings) {
      const k = key(f);
      let s = m.get(k);
      if (!s) m.set(k, (s = { key: k, total: 0, errors: 0, warnings: 0, confirmed: 0, description: describe?.(k) }));
      s.total++;
      if (f.severity === 'error') s.errors++;
      else s.warnings++;
      if (f.confirmation?.status === 'confirmed') s.confirmed++;
    }
    return [...m.values()].sort((a, b) => b.errors - a.errors || b.total - a.total || a.key.localeCompare(b.key));
  };
  const families = summarise((f) => input.families?.[f.file] ?? NO_FAMILY).sort((a, b) => (a.key === NO_FAMILY ? 1 : 0) - (b.key === NO_FAMILY ? 1 : 0));
  const rules = summarise((f) => f.ruleId, (k) => input.rules.get(k)?.meta.description);
  const sev = countBySeverity(input.findings);
  return {
    title: 'Verifier audit',
    scope: input.stats,
    totals: {
      total: input.findings.length,
      errors: sev.error,
      warnings: sev.warning,
      confirmed: input.findings.filter((f) => f.confirmation?.status === 'confirmed').length,
      suppressed: input.suppressedCount,
    },
    families,
    rules,
    rows,
    baseline: input.baseline,
    shard: input.shard,
    toolVersion: input.toolVersion,
    controlRuns: input.runs?.length,
    isolation: (() => {
      const iso = isolationSummary(input);
      if (!iso) return undefined;
      const { info, warn } = isolationLines(iso);
      return [...info, ...warn.map((w) => `⚠ ${w}`)];
    })(),
  };
}

/** Escape text for a GitHub-flavoured Markdown table cell. Balanced `code spans` stay code
 *  (only `|` is escaped inside them, which GFM tables require); everything else is literal. */
function mdCell(s: string): string {
  const text = s.replace(/[ \t]*(\r\n|\r|\n)\s*/g, ' '); // quoted multi-line code: one line, no run of indentation
  const plain = (t: string) => t.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/([*_`[\]<>#~])/g, '\\$1');
  const ticks = (text.match(/`/g) ?? []).length;
  if (ticks === 0 || ticks % 2 === 1) return plain(text);
  return text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') && part.endsWith('`') && part.length >= 2 ? part.replace(/\|/g, '\\|') : plain(part)))
    .join('');
}

function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function scopeSentence(a: Audit): string {
  const s = a.scope;
  return `vaudit ${a.toolVersion} checked ${plural(s.files, 'file')}: ${plural(s.tasks, 'task')} with ${plural(s.entries, 'verifier entry', 'verifier entries')}, ${plural(s.pythonFiles, 'Python verifier module')} and ${plural(s.bundles, 'correctness bundle')}.`;
}

export function totalsSentence(a: Audit): string {
  const t = a.totals;
  if (t.total === 0) return `No findings${t.suppressed ? ` (${t.suppressed} suppressed)` : ''}.`;
  return `${plural(t.total, 'finding')} (${plural(t.errors, 'error')}, ${plural(t.warnings, 'warning')}), ${t.confirmed} confirmed by a control case${t.suppressed ? `, ${t.suppressed} suppressed` : ''}.`;
}

export function formatMarkdown(input: ReportInput): string {
  const a = buildAudit(input);
  const out: string[] = [`# ${a.title}`, '', '## Scope', '', scopeSentence(a), '', totalsSentence(a)];
  if (a.shard) out.push('', `This report covers shard ${a.shard.index} of ${a.shard.total}; merge the shards with \`vaudit merge\`.`);
  if (a.controlRuns !== undefined) out.push('', `Control cases: ${plural(a.controlRuns, 'run')} executed by the host.`);
  for (const l of a.isolation ?? []) out.push('', mdCell(l));
  if (a.baseline) {
    out.push('', `Baseline: ${plural(a.baseline.matched, 'finding')} matched the baseline and ${a.baseline.matched === 1 ? 'is' : 'are'} not listed.`);
    for (const s of a.baseline.stale) out.push(`- Stale baseline entry: \`${mdCell(s.file)}\` ${mdCell(s.ruleId)} (${s.count} fewer); rewrite it with \`--baseline-write\`.`);
  }
  if (a.rows.length) {
    out.push('', '## Summary by family', '', '| Family | Findings | Errors | Warnings | Confirmed |', '| --- | ---: | ---: | ---: | ---: |');
    for (const f of a.families) out.push(`| ${mdCell(f.key)} | ${f.total} | ${f.errors} | ${f.warnings} | ${f.confirmed} |`);
    out.push('', '## Summary by rule', '', '| Rule | Findings | Errors | Warnings | Confirmed | Checks |', '| --- | ---: | ---: | ---: | ---: | --- |');
    for (const r of a.rules) out.push(`| \`${r.key}\` | ${r.total} | ${r.errors} | ${r.warnings} | ${r.confirmed} | ${mdCell(r.description ?? '')} |`);
    out.push('', '## Findings', '', '| ID | Severity | Finding | Confirmation evidence | Resolution hint |', '| --- | --- | --- | --- | --- |');
    for (const r of a.rows) {
      const where = `[${mdCell(r.location)}](${r.href})${r.pointer ? ` \`${r.pointer.replace(/`/g, "'").replace(/\|/g, '\\|')}\`` : ''}`;
      const also = r.related.map((l) => `<br>also [${mdCell(l.location)}](${l.href})${l.message ? ` ${mdCell(l.message)}` : ''}`).join('');
      const finding = `${mdCell(r.finding)}<br>${where}${r.repeated ? ` ${mdCell(repeatedText(r))}` : ''} · \`${r.ruleId}\`${also}`;
      const ev = `**${mdCell(r.evidence.status)}**${r.evidence.text ? `: ${mdCell(r.evidence.text)}` : ''}`;
      out.push(`| ${r.id} | ${r.severity} | ${finding} | ${ev} | ${mdCell(r.hint)} |`);
    }
  }
  return out.join('\n') + '\n';
}
