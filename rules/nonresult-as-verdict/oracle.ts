/**
 * Oracle `nonresult-as-verdict` (bundle layer): runs evaluate in a Node child with a runtime port that
 * answers the flagged run with a forced non-result — `timeout`, then `crash`, `verifierUnavailable` and
 * `sandbox` — and every other run with exit 0 (every run, when the call site could not be instrumented),
 * on declared cases or inputs generated from the projections.
 *
 * finding.control: { oracle, file, checkId, checkIndex, at: {start,end} (the verdict return), run: {start,end} }
 * confirmed: the flagged run received a forced non-result and evaluate still returned a verdict, produced by
 * the flagged return · refuted: the run received forced non-results and evaluate passed them through (or the
 * flagged return gave no verdict) · unreached: no case reached the run. A non-result of the host passes
 * through as is.
 */
import type { Confirmation } from '../../src/core/types.js';
import { forcedAnswers, makeCase } from '../../src/confirm/bundle/cases.js';
import { caseLabel, endings, lineOf, noCaseRan, ran, runsAt, showRun, showValue, siteLine, spanKey, oracleSubject } from '../../src/confirm/bundle/judge.js';
import type { BundleCase, BundleOracle } from '../../src/confirm/bundle/types.js';


const oracle: BundleOracle = {
  id: 'nonresult-as-verdict',
  layer: 'bundle',
  plan(ctx) {
    const b = ctx.bundle;
    const subject = oracleSubject(ctx, 'at');
    if ('status' in subject) return subject;
    const { check, inputs } = subject;
    const atSite = subject.site;
    const runSite = spanKey(ctx.control.run) ?? '';
    const atInstrumented = b.instrumented.has(atSite);
    const runInstrumented = b.instrumented.has(runSite);
    const site = runInstrumented ? { key: runSite, line: lineOf(b.text, Number(runSite.split(':')[0])) } : undefined;
    const cases: BundleCase[] = inputs.flatMap((inp) => forcedAnswers(site).map((a) => makeCase(b, check, inp, a, oracle.id, ctx.timeoutMs)));
    const expected = 'a non-result of the run is passed through unchanged, never turned into pass/fail';
    return {
      cases,
      judge(results): Confirmation {
        let refuted: Confirmation | undefined;
        for (const c of cases) {
          const r = results.get(c.id);
          if (!ran(r) || r.status === 'deadline') continue;
          const hitRuns = runsAt(r, runSite, runInstrumented).filter((x) => x.answer && x.answer.outcome !== 'executed' && x.state !== 'pending');
          if (!hitRuns.length) continue;
          const run = hitRuns[0]!;
          const fromSite = atInstrumented ? r.rets.filter((h) => h.site === atSite && h.value.kind === 'verdict') : [];
          const verdict = r.status === 'returned' && r.result?.kind === 'verdict';
          if (verdict && (!atInstrumented || fromSite.length))
            return {
              status: 'confirmed',
              witness: caseLabel(c),
              expected,
              observed: `${showRun(b, run)} answered ${run.answer!.outcome}; evaluate returned ${showValue(r.result)}${atInstrumented ? ` (from ${siteLine(b, atSite)})` : ''}`,
              runId: r.runId,
            };
          const settled = r.status === 'returned' ? `returned ${showValue(r.result)}` : `threw ${r.error?.type ?? 'an error'}: ${r.error?.message ?? ''}`;
          refuted ??= { status: 'refuted', witness: caseLabel(c), expected, observed: `${showRun(b, run)} answered ${run.answer!.outcome}; evaluate ${settled}`, runId: r.runId };
        }
        if (refuted) return refuted;
        return noCaseRan(cases, results) ?? { status: 'unreached', detail: `no case reached the run at ${siteLine(b, runSite)}: ${endings(cases, results)}`, runId: results.get(cases[0]!.id)?.runId };
      },
    };
  },
};
export default oracle;
