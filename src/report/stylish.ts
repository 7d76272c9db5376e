/** ESLint-style grouped output; colour only when asked (TTY and no NO_COLOR). */
import type { ReportInput } from './model.js';
import { relPath } from './model.js';
import { summaryBlock } from './summary.js';

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
  return [...findingLines(input.findings, input.root, c), '', ...summaryBlock(input, c), ...scopeLines(input, c)].join('\n') + '\n';
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
    const locW = Math.max(...list.map((f) => `${f.range.start.line}:${f.range.start.column}`.length));
    for (const f of list) {
      const loc = `${f.range.start.line}:${f.range.start.column}`.padEnd(locW);
      const sev = f.severity === 'error' ? c.red('error  ') : c.yellow('warning');
      const off = f.verifierPath === false ? c.dim(' (not on a verifier path)') : '';
      out.push(`  ${c.dim(loc)}  ${sev}  ${f.message}${off}  ${c.dim(f.ruleId)}`);
      // the defect's other sites (and the places it is about): `↳ also file:line:column  what is there`
      for (const r of f.related ?? []) {
        out.push(`  ${' '.repeat(locW)}  ${c.dim('↳ also')} ${relPath(root, r.file)}:${r.range.start.line}:${r.range.start.column}${r.message ? c.dim(`  ${r.message}`) : ''}`);
      }
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
    if (sc.fallback) {
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
