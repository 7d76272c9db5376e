/**
 * GitHub Actions workflow commands (`::error file=…,line=…::message`), escaped per the runner's rules.
 * GitHub shows at most ANNOTATIONS_PER_KIND error and as many warning annotations per step (the
 * rest of a step's commands are dropped silently: actions/toolkit docs/problem-matchers.md), so a
 * pattern repeated in many files is one annotation (src/report/groups.ts), annotations go to the
 * largest patterns first, every finding past the limit is a plain log line, and a summary closes
 * the output saying how many were annotated.
 */
import type { Finding } from '../core/types.js';
import type { ReportInput } from './model.js';
import { countBySeverity, relPath } from './model.js';
import { isolationLines, isolationSummary } from './isolation.js';
import { count, groupFindings, type FindingGroup } from './groups.js';

/** Error (and, apart, warning) annotations GitHub shows per step. */
export const ANNOTATIONS_PER_KIND = 10;

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** Where an annotation points: file, line and, on one line, columns. */
function placeProps(root: string, f: Finding): string[] {
  const props = [`file=${escapeProperty(relPath(root, f.file))}`, `line=${f.range.start.line}`];
  // A range that ends at column 1 of a later line ends, visibly, on the line before.
  const endsAtLineStart = f.range.end.line > f.range.start.line && f.range.end.column === 1;
  const endLine = Math.max(endsAtLineStart ? f.range.end.line - 1 : f.range.end.line, f.range.start.line);
  if (endLine !== f.range.start.line) {
    // GitHub ignores columns on multi-line annotations: drop them.
    props.push(`endLine=${endLine}`);
  } else if (endsAtLineStart) {
    props.push(`col=${f.range.start.column}`); // to the end of the line: no endColumn
  } else {
    props.push(`col=${f.range.start.column}`, `endColumn=${Math.max(f.range.end.column, f.range.start.column)}`);
  }
  return props;
}

/** The annotation's text: the message, the repetition of a pattern, the confirmation. */
function messageOf(f: Finding, group: FindingGroup | undefined): string {
  let msg = f.message;
  if (group) msg += `\nThe same code (\`${f.shape}\`) has this finding in ${count(group.files)} files, ${count(group.findings.length)} places in all; each is listed in the JSON report.`;
  if (f.confirmation) msg += `\nConfirmation: ${f.confirmation.status}${f.confirmation.observed ? ` — ${f.confirmation.observed}` : ''}`;
  return msg;
}

/** A finding past the annotation limit: one plain log line. */
function logLine(root: string, f: Finding, group: FindingGroup | undefined): string {
  const where = `${relPath(root, f.file)}:${f.range.start.line}:${f.range.start.column}`;
  const times = group ? ` (and ${count(group.findings.length - 1)} more in ${count(group.files)} files)` : '';
  return `${where}: ${f.severity}: ${f.message.replace(/\s*\r?\n\s*/g, ' ')} [${f.ruleId}]${times}`;
}

export function formatGithub(input: ReportInput): string {
  const lines: string[] = [];
  const budget = { error: ANNOTATIONS_PER_KIND, warning: ANNOTATIONS_PER_KIND };
  const iso = isolationSummary(input);
  // What needs attention about the control cases first: suite code run without a sandbox, cases not run.
  for (const l of iso ? isolationLines(iso).warn : []) {
    lines.push(`::warning title=vaudit isolation::${escapeData(l)}`);
    budget.warning--;
  }
  const { groups, single } = groupFindings(input.findings);
  const items: Array<{ f: Finding; group?: FindingGroup }> = [...groups.map((g) => ({ f: g.findings[0]!, group: g })), ...single.map((f) => ({ f }))];
  const annotated = { error: 0, warning: 0 };
  const unannotated: string[] = [];
  for (const { f, group } of items) {
    const kind = f.severity === 'error' ? 'error' : 'warning';
    if (budget[kind] <= 0) {
      unannotated.push(logLine(input.root, f, group));
      continue;
    }
    budget[kind]--;
    annotated[kind] += group ? group.findings.length : 1;
    const props = [...placeProps(input.root, f), `title=${escapeProperty(`vaudit(${f.ruleId})`)}`];
    lines.push(`::${kind} ${props.join(',')}::${escapeData(messageOf(f, group))}`);
  }
  if (unannotated.length) {
    lines.push(`vaudit: past GitHub's ${ANNOTATIONS_PER_KIND} annotations of each kind per step:`);
    // a loop, not push(...): a spread of 140,000 lines overflows the stack (issue 30)
    for (const l of unannotated) lines.push(l);
  }
  lines.push(...summaryLines(input, annotated, unannotated.length > 0));
  return lines.join('\n') + '\n';
}

/** The closing summary: a notice when some findings have no annotation of their own, else a log line. */
function summaryLines(input: ReportInput, annotated: { error: number; warning: number }, past: boolean): string[] {
  const { error, warning } = countBySeverity(input.findings);
  const s = input.stats;
  const n = (k: number, one: string) => `${count(k)} ${one}${k === 1 ? '' : 's'}`;
  if (error + warning === 0) return [`vaudit: no problems in ${n(s.files, 'file')}.`];
  const text = `${n(error + warning, 'problem')} (${n(error, 'error')}, ${n(warning, 'warning')}) in ${n(s.files, 'file')}.`;
  if (!past && annotated.error === error && annotated.warning === warning) return [`vaudit: ${text}`];
  const shown = `Annotations cover ${count(annotated.error)} of the errors and ${count(annotated.warning)} of the warnings (a pattern repeated in many files is one annotation; GitHub shows ${ANNOTATIONS_PER_KIND} of each kind per step); the log lists the rest and --format json or sarif every location.`;
  return [`::notice title=vaudit summary::${escapeData(`${text} ${shown}`)}`];
}
