/**
 * Confirmation of bundle findings: the oracles named by the bundle rules (`non-leaf-tool-input`,
 * `unawaited-tool-run`, `ungrounded-pass`, `nonresult-as-verdict`) plan control cases — one check of a
 * bundle, on one input, with one scripted tool answer — which run in Node children started by the host
 * (batched: several cases, and several bundles, per child; cases shared by findings run once). Each
 * oracle's judgement fills `finding.confirmation`, pointing at the child's run record (`runId`). A
 * non-result of the host passes through as is.
 */
import type { Confirmation, Finding } from '../../core/types.js';
import type { Project } from '../../contract/project.js';
import type { Host, RunRecord } from '../../host/host.js';
import { inputsFor } from './cases.js';
import { prepareBundle, type PreparedBundle } from './load.js';
import { runBundleCases } from './run.js';
import type { BundleCase, BundleCaseResult, BundleOracle, BundlePlan } from './types.js';
import { loadOracles } from '../oracles.js';

export type * from './types.js';
export { prepareBundle } from './load.js';
export { runBundleCases } from './run.js';
export { proveBundle } from './prove.js';


export interface BundleConfirmOptions {
  host: Host;
  /** Bound for one evaluate to settle (ms, default 2000). */
  timeoutMs?: number;
  /** Parallel Node children (default 2). */
  jobs?: number;
  /** Cases per child (default 64). */
  batchSize?: number;
  onRun?: (r: RunRecord, done: number, total: number) => void;
}


/** Confirm the bundle findings among `findings` (others are left alone); fills `finding.confirmation`. */
export async function confirmBundleFindings(findings: Finding[], project: Project | undefined, opts: BundleConfirmOptions): Promise<{ cases: number; runs: RunRecord[] }> {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const bundles = new Map<string, PreparedBundle>();
  const planned: Array<{ finding: Finding; plan: BundlePlan }> = [];
  const all = new Map<string, BundleCase>();
  // Sites of every finding on a file, so one instrumented copy serves them all.
  const extraSites = new Map<string, Set<string>>();
  const oracles = (await loadOracles()).bundle;
  const mine = findings.filter((f) => !!f.control && oracles.has(f.control.oracle));
  for (const f of mine) {
    const file = typeof f.control!.file === 'string' ? f.control!.file : f.file;
    const s = extraSites.get(file) ?? new Set<string>();
    for (const k of ['run', 'at'] as const) {
      const v = f.control![k] as { start?: number; end?: number } | undefined;
      if (v && typeof v.start === 'number' && typeof v.end === 'number') s.add(`${v.start}:${v.end}`);
    }
    extraSites.set(file, s);
  }
  for (const finding of mine) {
    const control = finding.control!;
    const oracle: BundleOracle = oracles.get(control.oracle)!;
    const file = typeof control.file === 'string' ? control.file : finding.file;
    let plan: BundlePlan | Confirmation;
    try {
      let b = bundles.get(file);
      if (!b) {
        b = prepareBundle(file, extraSites.get(file));
        bundles.set(file, b);
      }
      plan = oracle.plan({ finding, control, project, bundle: b, inputs: inputsFor(b), timeoutMs });
    } catch (e) {
      finding.confirmation = { status: 'crash', detail: `oracle ${oracle.id} could not plan a control case: ${(e as Error).message}` };
      continue;
    }
    if (!('cases' in plan)) {
      finding.confirmation = plan;
      continue;
    }
    planned.push({ finding, plan });
    for (const c of plan.cases) {
      const have = all.get(c.id);
      if (have) {
        if (!have.ruleIds.includes(oracle.id)) have.ruleIds.push(oracle.id);
      } else all.set(c.id, { ...c, ruleIds: [...c.ruleIds] });
    }
  }
  const runs: RunRecord[] = [];
  let done = 0;
  const results: ReadonlyMap<string, BundleCaseResult> = all.size
    ? await runBundleCases(opts.host, [...all.values()], bundles, {
        jobs: opts.jobs,
        batchSize: opts.batchSize,
        onRun: (r) => {
          runs.push(r);
          opts.onRun?.(r, (done += r.caseIds?.length ?? 1), all.size);
        },
      })
    : new Map();
  for (const { finding, plan } of planned) {
    try {
      finding.confirmation = plan.judge(results);
    } catch (e) {
      finding.confirmation = { status: 'crash', detail: `oracle judgement failed: ${(e as Error).message}` };
    }
  }
  return { cases: all.size, runs };
}
