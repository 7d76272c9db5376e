/**
 * The confirm stage: for each finding whose rule asked for a control case (`finding.control`),
 * the oracle named by `control.oracle` plans cases, the host runs them (batched into few Python
 * processes), and the oracle's judgement fills `finding.confirmation` in place. Every confirmation
 * that rests on a run points at its run record (`runId`); non-results pass through unchanged.
 */
import type { Confirmation, Finding } from '../core/types.js';
import type { Project } from '../contract/project.js';
import { createHost, type Host, type RunRecord } from '../host/host.js';
import { runPythonCases, type CaseResult, type PyCase } from './harness.js';
import type { Plan } from './oracle-kit.js';
import { confirmBundleFindings } from './bundle/index.js';
import { loadOracles } from './oracles.js';
import { loadRules } from '../contract/registry.js';

export type { RunRecord } from '../host/host.js';

export { loadOracles } from './oracles.js';

export interface ConfirmOptions {
  /** Parallel interpreter processes (default 2). */
  jobs?: number;
  /** Per-case time bound in ms (default 2000). */
  timeoutMs?: number;
  isolation?: 'bwrap' | 'process' | 'auto';
  /** Require bwrap: without it every case is a `sandbox` non-result. */
  requireIsolation?: boolean;
  /** Project root (`.toolchain/bin` is looked up under it). */
  root: string;
  /** The Python interpreter control cases run with (e.g. the benchmark's own virtual environment);
   *  default: `python3` from `.toolchain/bin`, then PATH. */
  python?: string;
  /** Cases of the same verifier module fork from one process that imported it once (default true);
   *  false: each case imports it itself (bench/confirm-warm.mjs compares the two). */
  warm?: boolean;
  /** A prepared host (tests, embedding); default: one built from root/isolation/requireIsolation. */
  host?: Host;
  /** Called after each batch run (progress). */
  onRun?: (r: RunRecord, done: number, total: number) => void;
  /** A terminal to draw a one-line progress indicator on (the CLI passes stderr on a TTY). */
  progress?: (text: string) => void;
}

export async function confirmFindings(findings: Finding[], project: Project | undefined, opts: ConfirmOptions): Promise<{ runs: RunRecord[] }> {
  const host = opts.host ?? createHost({ root: opts.root, isolation: opts.isolation ?? 'auto', requireIsolation: opts.requireIsolation, ...(opts.python ? { tools: { python3: opts.python } } : {}) });
  const timeoutMs = opts.timeoutMs ?? 2000;
  const planned: Array<{ finding: Finding; plan: Plan; prefix: string }> = [];
  const all: PyCase[] = [];
  const [oracles, rules] = await Promise.all([loadOracles(), loadRules()]);
  for (let i = 0; i < findings.length; i++) {
    const finding = findings[i]!;
    // A JSON-layer finding of a positional oracle needs nothing from the rule but its position.
    const positional = rules.get(finding.ruleId)?.meta.confirm?.positional === true && /\.json$/i.test(finding.file);
    const control = finding.control ?? (positional ? { oracle: finding.ruleId } : undefined);
    if (!control) continue;
    if (oracles.bundle.has(control.oracle)) continue; // bundle oracles: Node children, below
    const oracle = oracles.python.get(control.oracle);
    if (!oracle) {
      finding.confirmation = { status: 'unsupported', detail: `no oracle '${control.oracle}' (rules/${control.oracle}/oracle.ts)` };
      continue;
    }
    let plan: Plan | Confirmation;
    try {
      plan = await oracle.plan({ finding, control, project, root: opts.root, timeoutMs });
    } catch (e) {
      finding.confirmation = { status: 'crash', detail: `oracle ${oracle.id} could not plan a control case: ${(e as Error).message}` };
      continue;
    }
    if (!('cases' in plan)) {
      finding.confirmation = withoutCase(plan);
      continue;
    }
    const prefix = `${finding.ruleId}#${i}:`;
    planned.push({ finding, plan, prefix });
    for (const c of plan.cases) all.push({ ...c, id: prefix + c.id } as PyCase);
  }
  const jobs = Math.max(1, opts.jobs ?? 2);
  let done = 0;
  const progress = opts.progress;
  if (progress && all.length) progress(`\rconfirming: 0/${all.length} control cases…`);
  const userOnRun = opts.onRun;
  opts = {
    ...opts,
    onRun: (r, d, total) => {
      userOnRun?.(r, d, total);
      if (progress && total) progress(`\rconfirming: ${Math.min(d, total)}/${total} control cases…`);
    },
  };
  const results = all.length
    ? await runPythonCases(host, all, {
        jobs,
        batchSize: Math.max(20, Math.min(300, Math.ceil(all.length / jobs))),
        warm: opts.warm,
        onRun: (r) => opts.onRun?.(r, (done += r.caseIds?.length ?? 1), all.length),
      })
    : [];
  // Bundle findings (src/confirm/bundle): evaluate in Node children started by the same host.
  await confirmBundleFindings(findings, project, { host, timeoutMs, jobs, onRun: opts.onRun });
  const byId = new Map<string, CaseResult>(results.map((r) => [r.id, r]));
  for (const { finding, plan, prefix } of planned) {
    const view = new Map<string, CaseResult>();
    for (const c of plan.cases) {
      const r = byId.get(prefix + c.id);
      if (r) view.set(c.id, { ...r, id: c.id });
    }
    try {
      finding.confirmation = withRun(withRefusals(withDoubles(plan.judge(view), view), view), view);
    } catch (e) {
      finding.confirmation = withRun({ status: 'crash', detail: `oracle judgement failed: ${(e as Error).message}` }, view);
    }
  }
  if (progress && all.length) progress('\r\x1b[K');
  return { runs: host.records };
}

/** A finding whose oracle planned no case: `unreached` would claim a case ran and missed the line, so
 *  it is `unsupported`, saying no case ran. */
function withoutCase(c: Confirmation): Confirmation {
  if (c.status !== 'unreached' || c.runId) return c;
  return { status: 'unsupported', detail: `${c.detail ? `${c.detail}; ` : ''}no control case ran, and the finding stands as a static one` };
}

/** Every status that rests on a case run points at its run record (the first case's, when the oracle
 *  named none). */
function withRun(c: Confirmation, view: Map<string, CaseResult>): Confirmation {
  if (c.runId) return c;
  const runId = [...view.values()].find((r) => r.runId)?.runId;
  return runId ? { ...c, runId } : c;
}

/** A verdict reached on one witness while the guard refused another (`sandbox`: e.g. a case that needs
 *  bubblewrap to bind a fixture) keeps the refusal in sight: the refused witnesses never ran, and the user
 *  can act on the reason (install bubblewrap) to have them run too. */
export function withRefusals(c: Confirmation, view: Map<string, CaseResult>): Confirmation {
  if (c.status === 'sandbox') return c;
  const refused = [...view.values()].filter((r) => r.status === 'sandbox');
  if (!refused.length) return c;
  const reason = refused[0]!.detail ? `: ${refused[0]!.detail}` : '';
  const note = `${refused.length} of ${view.size} witness${view.size === 1 ? '' : 'es'} did not run, refused by the guard (sandbox)${reason}`;
  return { ...c, detail: c.detail ? `${c.detail}; ${note}` : note };
}

/** A result reached through vaudit's functional doubles of libraries this Python lacks says so. */
function withDoubles(c: Confirmation, view: Map<string, CaseResult>): Confirmation {
  const functional = [...new Set([...view.values()].flatMap((r) => r.functionalDoubles ?? []))].sort();
  if (!functional.length || c.status === 'verifierUnavailable') return c;
  const note = `ran with vaudit's functional double of ${functional.join(' and ')} (not installed in this Python; the run record lists them under moduleDoubles)`;
  return { ...c, detail: c.detail ? `${c.detail}; ${note}` : note };
}
