/** GitHub Actions workflow commands (`::error file=…,line=…::message`), escaped per the runner's rules. */
import type { ReportInput } from './model.js';
import { relPath } from './model.js';
import { isolationLines, isolationSummary } from './isolation.js';

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function formatGithub(input: ReportInput): string {
  const lines: string[] = [];
  for (const f of input.findings) {
    const cmd = f.severity === 'error' ? 'error' : 'warning';
    const props = [`file=${escapeProperty(relPath(input.root, f.file))}`, `line=${f.range.start.line}`];
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
    props.push(`title=${escapeProperty(`vaudit(${f.ruleId})`)}`);
    let msg = f.message;
    if (f.confirmation) msg += `\nConfirmation: ${f.confirmation.status}${f.confirmation.observed ? ` — ${f.confirmation.observed}` : ''}`;
    lines.push(`::${cmd} ${props.join(',')}::${escapeData(msg)}`);
  }
  const iso = isolationSummary(input);
  if (iso) {
    // Only what needs attention: suite code run without a sandbox, control cases not run.
    for (const l of isolationLines(iso).warn) lines.push(`::warning title=vaudit isolation::${escapeData(l)}`);
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}
