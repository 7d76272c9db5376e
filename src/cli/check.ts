/** `vaudit check [paths]`: the static pass, optional confirmation, report, exit code. */
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { lint } from '../engine/lint.js';
import { loadRules } from '../engine/registry.js';
import { applyBaseline, buildBaseline, readBaseline, writeBaseline, writeAtomic } from '../engine/baseline.js';
import type { ReportInput, RunRecordSummary } from '../report/model.js';
import { render } from './format.js';
import { EXIT_CLEAN, EXIT_FINDINGS, UsageError } from './exit-codes.js';
import { VERSION } from './version.js';
import type { Finding } from '../engine/types.js';
import type { Project } from '../engine/project.js';

export interface CheckOptions {
  confirm?: boolean;
  format: string;
  outputFile?: string;
  maxWarnings?: number;
  quiet?: boolean;
  baseline?: string;
  baselineWrite?: string;
  forceExclude?: boolean;
  stdinFilename?: string;
  config?: string;
  rule?: string[];
  jobs?: number;
  confirmTimeout?: number;
  isolation?: 'auto' | 'bwrap' | 'process';
  color?: boolean;
}

export interface CheckIO {
  cwd: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => Promise<string>;
  isTTY: boolean;
}

type ConfirmFn = (findings: Finding[], project: Project, opts: Record<string, unknown>) => Promise<{ runs: RunRecordSummary[] }>;

async function loadConfirm(): Promise<ConfirmFn> {
  const url = new URL('../confirm/index.js', import.meta.url).href;
  const mod = (await import(url)) as { confirmFindings?: ConfirmFn };
  if (!mod.confirmFindings) throw new UsageError('This build has no confirmation support.');
  return mod.confirmFindings;
}

export async function runCheck(paths: string[], o: CheckOptions, io: CheckIO): Promise<number> {
  const rules = await loadRules();
  for (const r of o.rule ?? []) if (!rules.has(r)) throw new UsageError(`Unknown rule '${r}' in --rule. Run 'vaudit rules' for the list.`);
  let overrides: Map<string, string> | undefined;
  let targets = paths;
  if (o.stdinFilename) {
    const p = path.resolve(io.cwd, o.stdinFilename);
    overrides = new Map([[p, await io.readStdin()]]);
    targets = [p];
  }
  const result = await lint({ paths: targets, cwd: io.cwd, rules: o.rule, configPath: o.config, forceExclude: o.forceExclude, overrides });
  try {
    let findings = result.findings;
    if (o.baselineWrite) {
      writeBaseline(path.resolve(io.cwd, o.baselineWrite), buildBaseline(findings, io.cwd));
      io.stderr(`Wrote baseline with ${findings.length} finding${findings.length === 1 ? '' : 's'} to ${o.baselineWrite}.\n`);
    }
    let baselineInfo: ReportInput['baseline'];
    if (o.baseline) {
      let b;
      try { b = readBaseline(path.resolve(io.cwd, o.baseline)); } catch (err) { throw new UsageError(`Cannot read baseline: ${(err as Error).message}`); }
      const checked = new Set(result.targets.map((t) => path.relative(io.cwd, t).split(path.sep).join('/')));
      const applied = applyBaseline(findings, b, io.cwd, checked);
      findings = applied.remaining;
      baselineInfo = { matched: applied.matched, stale: applied.stale };
    }
    let runs: RunRecordSummary[] | undefined;
    if (o.confirm) {
      const confirm = await loadConfirm();
      const r = await confirm(findings, result.project, { jobs: o.jobs, timeoutMs: o.confirmTimeout, isolation: o.isolation, root: io.cwd, progress: io.isTTY ? io.stderr : undefined });
      runs = r.runs;
    }
    const shown = o.quiet ? findings.filter((f) => f.severity === 'error') : findings;
    const input: ReportInput = {
      findings: shown,
      root: io.cwd,
      stats: result.stats,
      rules,
      suppressedCount: result.suppressed.length,
      runs,
      toolVersion: VERSION,
      color: o.color ?? (io.isTTY && !process.env.NO_COLOR),
      baseline: baselineInfo,
    };
    const text = await render(o.format, input);
    if (o.outputFile) {
      const out = path.resolve(io.cwd, o.outputFile);
      writeAtomic(out, text);
      if (o.format !== 'stylish') io.stdout(await render('stylish', { ...input, color: false }).then((s) => s.split('\n').slice(-3).join('\n')));
    } else io.stdout(text);
    const errors = findings.filter((f) => f.severity === 'error').length;
    const warnings = findings.length - errors;
    if (errors > 0) return EXIT_FINDINGS;
    if (o.maxWarnings !== undefined && o.maxWarnings >= 0 && warnings > o.maxWarnings) {
      io.stderr(`vaudit found too many warnings (maximum: ${o.maxWarnings}).\n`);
      return EXIT_FINDINGS;
    }
    return EXIT_CLEAN;
  } finally {
    result.dispose();
  }
}

export { readFileSync, writeFileSync };
