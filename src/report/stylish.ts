/** ESLint-style grouped output; colour only when asked (TTY and no NO_COLOR). */
import type { ReportInput } from './model.js';
import { relPath } from './model.js';
import { summaryBlock } from './summary.js';
import { count, GROUP_MIN_FILES, groupFindings, type FindingGroup } from './groups.js';
import type { Finding } from '../core/types.js';
import { shorten } from './shorten.js';


const RESULT_STATUSES = new Set(['confirmed', 'refuted', 'unreached']);

const C = {
  red: (s: string) => `\x1b[31m${s}\x1b[39m`,
  yellow: (s: string) => `\x1b[33m${s}\x1b[39m`,
  dim: (s: string) => `\x1b[2m${s}\x1b[22m`,
  bold: (s: string) => `\x1b[1m${s}\x1b[22m`,
  underline: (s: string) => `\x1b[4m${s}\x1b[24m`,
  green: (s: string) => `\x1b[32m${s}\x1b[39m`,
};
const plain = Object.fromEntries(Object.keys(C).map((k) => [k, (s: string) => s])) as typeof C;

/** Findings by file, then the patterns repeated in many files (one block each, issue 31), then the summary. */
export function formatStylish(input: ReportInput): string {
  const c = input.color ? C : plain;
  const { groups, single } = groupFindings(input.findings);
  return [...findingLines(single, input.root, c), ...groupLines(groups, input.root, c), '', ...summaryBlock(input, c), ...scopeLines(input, c)].join('\n') + '\n';
}

/** The findings alone, grouped by file, plain, paths relative to `root` (the rule tester snapshots this). */
export function formatStylishFindings(findings: ReportInput['findings'], root: string): string {
  return findingLines(findings, root, plain).join('\n').replace(/^\n/, '') + '\n';
}

function findingLines(findings: ReportInput['findings'], root: string, c: typeof C): string[] {
  const byFile = new Map<string, typeof findings>();
  for (const f of findings) {
    let list = byFile.get(f.file);
    if (!list) byFile.set(f.file, (list = []));
    list.push(f);
  }
  const out: string[] = [];
  for (const [file, list] of byFile) {
    out.push('', c.underline(relPath(root, file)));
    // a loop, not Math.max(...): a spread of 140,000 findings of one file overflows the stack (issue 30)
    const locW = list.reduce((w, f) => Math.max(w, `${f.range.start.line}:${f.range.start.column}`.length), 0);
    for (const f of list) {
      const loc = `${f.range.start.line}:${f.range.start.column}`.padEnd(locW);
      out.push(`  ${c.dim(loc)}  ${findingLine(f, c)}`);
      // the defect's other sites (and the places it is about): `↳ also file:line:column  what is there`
      for (const r of f.related ?? []) {
        out.push(`  ${' '.repeat(locW)}  ${c.dim('↳ also')} ${relPath(root, r.file)}:${r.range.start.line}:${r.range.start.column}${r.message ? c.dim(`  ${r.message}`) : ''}`);
      }
      const conf = confirmationLine(f, c);
      if (conf) out.push(`  ${' '.repeat(locW)}  ${conf}`);
    }
  }
  return out;
}

/** `severity  message  rule-id` on one line: a message that quotes multi-line code keeps the layout. */
function findingLine(f: Finding, c: typeof C): string {
  const sev = f.severity === 'error' ? c.red('error  ') : c.yellow('warning');
  const off = f.verifierPath === false ? c.dim(' (not on a verifier path)') : '';
  return `${sev}  ${oneLine(f.message)}${off}  ${c.dim(f.ruleId)}`;
}

function confirmationLine(f: Finding, c: typeof C): string | undefined {
  const conf = f.confirmation;
  if (!conf) return undefined;
  const status = conf.status === 'confirmed' ? c.red('confirmed') : conf.status === 'refuted' ? c.green('refuted') : c.yellow(conf.status);
  // A non-result says why (a sandbox reason, a missing module), and `unreached` where the witnesses
  // stopped and why: the reason is the news.
  // `sandbox` is the same reason for every finding: the summary says it once
  const why = conf.status === 'sandbox' ? 'no isolation available (see the summary)' : (!RESULT_STATUSES.has(conf.status) || conf.status === 'unreached') && conf.detail ? conf.detail : undefined;
  const bits = [why, conf.witness && `witness: ${shorten(conf.witness)}`, conf.observed && `observed: ${shorten(conf.observed)}`, conf.runId && `run ${conf.runId}`].filter(Boolean);
  return `${c.dim('↳')} ${status}${bits.length ? c.dim(` — ${oneLine(bits.join('; '))}`) : ''}`;
}

function oneLine(s: string): string {
  return s.replace(/[ \t]*\r?\n\s*/g, ' ');
}

/** Longest code shape a grouped block shows. */
const SHAPE_SHOWN = 100;

/**
 * One block per pattern repeated in many files: what is wrong and what to do (the why is the same for
 * every finding of the rule: `vaudit rules <id>`), the code unless the message quotes it, one example:
 *   2,380 files  error  `requests.get(…)` has no timeout. Pass `timeout=` …  missing-timeout
 *                code: requests.get(f"{server_url}/api/state")
 *                e.g. a/task_1.py:5:12 (+2,379 more; --format json lists every one)
 */
function groupLines(groups: readonly FindingGroup[], root: string, c: typeof C): string[] {
  if (groups.length === 0) return [];
  const out = ['', c.underline(`Repeated in ${GROUP_MIN_FILES} or more files (one block per pattern)`)];
  const counts = groups.map((g) => (g.files === g.findings.length ? `${count(g.files)} files` : `${count(g.findings.length)} in ${count(g.files)} files`));
  const w = Math.max(...counts.map((s) => s.length));
  const pad = ' '.repeat(w + 4);
  groups.forEach((g, i) => {
    const f = g.findings[0]!;
    const text = [f.parts.what, f.parts.fix].filter(Boolean).join(' ') || f.message;
    out.push(`  ${c.bold(counts[i]!.padStart(w))}  ${findingLine({ ...f, message: text }, c)}`);
    if (!text.includes(`\`${f.shape}\``)) out.push(`${pad}${c.dim('code:')} ${f.shape!.length > SHAPE_SHOWN ? `${f.shape!.slice(0, SHAPE_SHOWN - 1)}…` : f.shape}`);
    const conf = confirmationLine(f, c);
    if (conf) out.push(`${pad}${conf}`);
    const more = g.findings.length - 1;
    out.push(`${pad}${c.dim(`e.g. ${relPath(root, f.file)}:${f.range.start.line}:${f.range.start.column} (+${count(more)} more; --format json lists every one)`)}`);
  });
  return out;
}

/** Just the summary, plain (printed when the report itself went to --output-file). */
export function formatSummary(input: ReportInput): string {
  return [...summaryBlock(input, plain), ...scopeLines(input, plain)].join('\n') + '\n';
}

/** Scope and suites: which code was treated as verifier code, and each suite found (issue 13). */
function scopeLines(input: ReportInput, c: typeof C): string[] {
  const out: string[] = [];
  const sc = input.stats.scope;
  if (sc) {
    if (sc.fallback && input.partOf !== undefined) {
      out.push(c.dim(`  No verifier entrypoint recognised in the folders checked: they lie inside the repository at ${input.partOf}, whose task files (which route to this code) were not read, so all code was checked. Check from the suite's folder, or put a vaudit.config.json there (a folder is checked in the context of its config's folder), to check verifier paths only.`));
    } else if (sc.fallback) {
      out.push(c.dim('  No verifier entrypoint recognised: all code was checked. Declare entrypoints in vaudit.config.json ("entrypoints") to check verifier paths only.'));
      for (const w of sc.why ?? []) out.push(c.dim(`    ${w}`));
    }
    else if (sc.applied === 'verifier') {
      const hidden = [
        sc.outside ? `${sc.outside} finding${sc.outside === 1 ? '' : 's'} not on a verifier path hidden` : '',
        sc.skippedFiles ? `${sc.skippedFiles} file${sc.skippedFiles === 1 ? '' : 's'} with no verifier code not checked` : '',
      ].filter(Boolean).join(', ');
      out.push(c.dim(`  Scope: verifier paths (${sc.entrypoints} entrypoint${sc.entrypoints === 1 ? '' : 's'})${hidden ? `; ${hidden} (--scope all shows them)` : ''}.`));
    } else out.push(c.dim(`  Scope: all code (${sc.entrypoints} entrypoint${sc.entrypoints === 1 ? '' : 's'}; ${sc.outside} finding${sc.outside === 1 ? '' : 's'} not on a verifier path).`));
  }
  for (const s of input.stats.suites ?? []) {
    out.push(c.dim(`  Suite ${s.root} (${s.adapter}): ${s.tasks} task${s.tasks === 1 ? '' : 's'}, ${s.entries} entr${s.entries === 1 ? 'y' : 'ies'}, ${s.bound} bound, ${s.unbound} unbound, ${s.entrypoints} entrypoint${s.entrypoints === 1 ? '' : 's'}.`));
  }
  return out;
}
