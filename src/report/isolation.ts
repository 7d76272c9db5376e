/**
 * What the control cases ran under, and which did not run and why (issue 17): one summary that
 * every report format prints, so a reduced isolation level or a skipped confirmation is never
 * silent. Computed from the run records the host wrote.
 */
import type { ReportInput } from './model.js';

export interface IsolationSummary {
  /** The policy the user chose (`auto`, `bwrap`, `process`). */
  policy: string;
  /** Control cases that ran, per isolation level (`bwrap`, `process`). */
  ran: Record<string, number>;
  /** Control cases that ran suite code under process isolation only. */
  suiteCodeUnderProcess: number;
  /** Control cases that ran no suite code (vaudit parsing the suite's text) under process isolation. */
  parseOnlyUnderProcess: number;
  /** Control cases that did not run because the isolation the policy requires was missing. */
  notRun: number;
  /** Distinct reasons for `notRun`, most frequent first. */
  reasons: Array<{ reason: string; cases: number; hint?: string }>;
}

function casesOf(r: Record<string, unknown>): number {
  return Array.isArray(r.caseIds) ? r.caseIds.length : 1;
}

export function isolationSummary(input: ReportInput): IsolationSummary | undefined {
  if (!input.runs) return undefined;
  const ran: Record<string, number> = {};
  const reasons = new Map<string, { cases: number; hint?: string }>();
  let notRun = 0;
  let suiteCodeUnderProcess = 0;
  let parseOnlyUnderProcess = 0;
  let policy = input.isolation;
  for (const r of input.runs as Array<Record<string, unknown>>) {
    if (typeof r.policy === 'string') policy ??= r.policy;
    const n = casesOf(r);
    if (r.outcome === 'sandbox') {
      notRun += n;
      const reason = typeof r.detail === 'string' ? r.detail : 'the required isolation is not available';
      const seen = reasons.get(reason) ?? { cases: 0, ...(typeof r.hint === 'string' ? { hint: r.hint } : {}) };
      seen.cases += n;
      reasons.set(reason, seen);
      continue;
    }
    const level = typeof r.isolation === 'string' ? r.isolation : 'none';
    if (level === 'none') continue;
    ran[level] = (ran[level] ?? 0) + n;
    if (level === 'process' && r.suiteCode !== false) suiteCodeUnderProcess += n;
    else if (level === 'process') parseOnlyUnderProcess += n;
  }
  return {
    policy: policy ?? 'auto',
    ran,
    suiteCodeUnderProcess,
    parseOnlyUnderProcess,
    notRun,
    reasons: [...reasons].map(([reason, v]) => ({ reason, ...v })).sort((a, b) => b.cases - a.cases),
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Plain sentences for a summary: what ran where, and (loud) what did not run and why.
 * `warn` lines must be shown prominently; `info` lines may be dimmed.
 */
export function isolationLines(s: IsolationSummary): { info: string[]; warn: string[] } {
  const info: string[] = [];
  const warn: string[] = [];
  const levels: string[] = [];
  if (s.ran.bwrap) levels.push(`${plural(s.ran.bwrap, 'case')} under bubblewrap`);
  if (s.suiteCodeUnderProcess) levels.push(`${plural(s.suiteCodeUnderProcess, 'case')} under process isolation`);
  if (s.parseOnlyUnderProcess) levels.push(`${plural(s.parseOnlyUnderProcess, 'parse-only case')} (no suite code) under process isolation`);
  if (s.notRun) levels.push(`${s.notRun} not run`);
  info.push(`Control-case isolation: ${s.policy}${levels.length ? ` (${levels.join(', ')})` : ''}.`);
  if (s.suiteCodeUnderProcess) {
    warn.push(
      `${plural(s.suiteCodeUnderProcess, 'control case')} ran the suite's code with process isolation only (--isolation ${s.policy}): ` +
        'not a sandbox — that code could write files outside its folder and use the network wherever the harness\'s audit-hook guard ' +
        '(a second layer, which native code goes around) does not stop it.',
    );
  }
  for (const { reason, cases, hint } of s.reasons) warn.push(`${plural(cases, 'control case')} not run: ${reason}.${hint ? ` To run them: ${hint}.` : ''}`);
  return { info, warn };
}
