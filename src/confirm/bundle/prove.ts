/**
 * The seed's "Prove" step for a bundle with declared cases: run every check on every declared case
 * (valid, wrong-but-valid, malformed, equivalent-valid) with the tool answering what the case declares
 * the native tool answers, and compare each verdict with the case's `expect`. A check that passes a
 * wrong-but-valid case, or fails an equivalent-valid one, does not discriminate.
 */
import type { Host, RunRecord } from '../../host/host.js';
import { executedAnswers, makeCase, readDeclaredCases } from './cases.js';
import { prepareBundle } from './load.js';
import { runBundleCases } from './run.js';
import type { BundleCaseResult, CaseKind } from './types.js';

export interface ProveRow {
  checkId: string;
  caseId: string;
  kind: CaseKind;
  /** How the tool answered (declared). */
  answer: string;
  /** What evaluate returned: 'pass' / 'fail', a non-result outcome, or how it failed. */
  got: string;
  expected?: 'pass' | 'fail';
  /** `undefined` when the case declares no expectation for this check. */
  agrees?: boolean;
  runId: string;
}

function describeResult(r: BundleCaseResult | undefined): string {
  if (!r) return 'no answer';
  if (r.status === 'returned') {
    const v = r.result;
    if (v?.kind === 'verdict') return v.verdict ?? '?';
    if (v?.kind === 'nonresult') return `non-result ${v.outcome}`;
    return `returned ${v?.preview ?? v?.kind}`;
  }
  if (r.status === 'threw') return `threw ${r.error?.type}: ${r.error?.message}`;
  return `${r.status}${r.detail ? ` (${r.detail})` : ''}`;
}

export async function proveBundle(file: string, opts: { host: Host; timeoutMs?: number; jobs?: number }): Promise<{ rows: ProveRow[]; runs: RunRecord[] } | { error: string }> {
  const inputs = readDeclaredCases(file);
  if (!inputs) return { error: 'the bundle declares no cases (see src/confirm/bundle/README.md)' };
  if (!Array.isArray(inputs)) return inputs;
  const b = prepareBundle(file);
  const checks = (b.model?.checks ?? []).filter((c) => c.id).map((c) => ({ id: c.id!, index: c.index }));
  const planned = checks.flatMap((check) =>
    inputs.flatMap((inp) => executedAnswers(inp, check.id).map((a) => ({ check, inp, a, c: makeCase(b, check, inp, a, 'prove', opts.timeoutMs ?? 2000) }))),
  );
  const runs: RunRecord[] = [];
  const results = await runBundleCases(opts.host, planned.map((p) => p.c), new Map([[file, b]]), { jobs: opts.jobs, onRun: (r) => runs.push(r) });
  const rows = planned.map(({ check, inp, a, c }) => {
    const r = results.get(c.id);
    const got = describeResult(r);
    const expected = inp.expect?.[check.id];
    return { checkId: check.id, caseId: inp.id, kind: inp.kind, answer: a.label, got, ...(expected ? { expected, agrees: got === expected } : {}), runId: r?.runId ?? '' };
  });
  return { rows, runs };
}
