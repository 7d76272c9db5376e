/** Picks the reporter for --format. */
import type { ReportInput } from '../report/model.js';
import { formatStylish } from '../report/stylish.js';
import { formatJson } from '../report/json.js';
import { formatSarif } from '../report/sarif.js';
import { formatGithub } from '../report/github.js';
import { UsageError } from './exit-codes.js';

const FORMATS = ['stylish', 'json', 'sarif', 'github'] as const;

const extra: Record<string, (i: ReportInput) => string | Promise<string>> = {};

/** Register an additional reporter (markdown, html…). */
export function registerFormat(name: string, fn: (i: ReportInput) => string | Promise<string>): void {
  extra[name] = fn;
}

/** Every --format name (built-in, then registered). */
export function formatNames(): string[] {
  return [...FORMATS, ...Object.keys(extra)];
}

export async function render(format: string, input: ReportInput): Promise<string> {
  switch (format) {
    case 'stylish': return formatStylish(input);
    case 'json': return formatJson(input);
    case 'sarif': return formatSarif(input);
    case 'github': return formatGithub(input);
    default: {
      const fn = extra[format];
      if (!fn) throw new UsageError(`Unknown --format '${format}'. Use one of: ${formatNames().join(', ')}.`);
      return fn(input);
    }
  }
}
