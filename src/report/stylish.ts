/** ESLint-style grouped output; colour only when asked (TTY and no NO_COLOR). */
import type { ReportInput } from './model.js';
import { countBySeverity, relPath } from './model.js';
import { isolationLines, isolationSummary } from './isolation.js';

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

export function formatStylish(input: ReportInput): string {
  const c = input.color ? C : plain;
  const byFile = new Map<string, typeof input.findings>();
  for (const f of input.findings) {
    let list = byFile.get(f.file);
    if (!list) byFile.set(f.file, (list = []));
    list.push(f);
  }
  const out: string[] = [];
  for (const [file, list] of byFile) {
    out.push('', c.underline(relPath(input.root, file)));
    const locW = Math.max(...list.map((f) => `${f.range.start.line}:${f.range.start.column}`.length));
    for (const f of list) {
      const loc = `${f.range.start.line}:${f.range.start.column}`.padEnd(locW);
      const sev = f.severity === 'error' ? c.red('error  ') : c.yellow('warning');
      out.push(`  ${c.dim(loc)}  ${sev}  ${f.message}  ${c.dim(f.ruleId)}`);
      const conf = f.confirmation;
      if (conf) {
        const status = conf.status === 'confirmed' ? c.red('confirmed') : conf.status === 'refuted' ? c.green('refuted') : c.yellow(conf.status);
        // A non-result says why (a sandbox reason, a missing module): the reason is the news.
        const why = !RESULT_STATUSES.has(conf.status) && conf.detail ? conf.detail : undefined;
        const bits = [why, conf.witness && `witness: ${conf.witness}`, conf.observed && `observed: ${conf.observed}`, conf.runId && `run ${conf.runId}`].filter(Boolean);
        out.push(`  ${' '.repeat(locW)}  ${c.dim('↳')} ${status}${bits.length ? c.dim(` — ${bits.join('; ')}`) : ''}`);
      }
    }
  }
  out.push('', ...summaryLines(input, c));
  return out.join('\n') + '\n';
}

/** The closing summary (counts, scope, suppressions, baseline, confirmations). */
function summaryLines(input: ReportInput, c: typeof C): string[] {
  const out: string[] = [];
  const { error, warning } = countBySeverity(input.findings);
  const total = error + warning;
  const s = input.stats;
  const scope = `${s.files} file${s.files === 1 ? '' : 's'}, ${s.tasks} task${s.tasks === 1 ? '' : 's'}, ${s.entries} verifier entr${s.entries === 1 ? 'y' : 'ies'}`;
  if (total === 0) out.push(c.green(`✔ No problems (${scope}).`));
  else {
    const line = `✖ ${total} problem${total === 1 ? '' : 's'} (${error} error${error === 1 ? '' : 's'}, ${warning} warning${warning === 1 ? '' : 's'}) in ${scope}.`;
    out.push(c.bold(error ? c.red(line) : c.yellow(line)));
  }
  if (input.suppressedCount) out.push(c.dim(`  ${input.suppressedCount} suppressed.`));
  if (input.baseline) {
    out.push(c.dim(`  ${input.baseline.matched} matched the baseline.`));
    for (const st of input.baseline.stale) out.push(c.dim(`  baseline entry no longer matches: ${st.file} ${st.ruleId} (${st.count} fewer) — rewrite it with --baseline-write.`));
  }
  const confirmed = input.findings.filter((f) => f.confirmation?.status === 'confirmed').length;
  if (input.runs) out.push(c.dim(`  ${confirmed} confirmed by control cases (${input.runs.length} run${input.runs.length === 1 ? '' : 's'}).`));
  const iso = isolationSummary(input);
  if (iso) {
    const { info, warn } = isolationLines(iso);
    for (const l of info) out.push(c.dim(`  ${l}`));
    for (const l of warn) out.push(c.bold(c.yellow(`⚠ ${l}`)));
  }
  return out;
}

/** Just the summary, plain (printed when the report itself went to --output-file). */
export function formatSummary(input: ReportInput): string {
  return summaryLines(input, plain).join('\n') + '\n';
}
