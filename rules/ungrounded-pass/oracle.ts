/**
 * Oracle `ungrounded-pass` (bundle layer): runs evaluate in a Node child with the recording runtime port
 * (tools answer exit 0, then exit 1), on declared cases or inputs generated from the projections —
 * including empty and malformed public input, which is how loops that may run zero times and catch
 * blocks are reached.
 *
 * finding.control: { oracle, file, checkId, checkIndex, at: {start,end} (the verdict return) }
 * confirmed: evaluate returns `pass`, from the flagged return, with no completed tool run · refuted: the
 * flagged return ran, but only after a completed run or without `pass` · unreached: no case reached it.
 * A non-result of the host passes through as is.
 */
import type { Confirmation } from '../../src/core/types.js';
import { executedAnswers, makeCase } from '../../src/confirm/bundle/cases.js';
import { caseLabel, endings, noCaseRan, ran, showValue, siteLine, oracleSubject } from '../../src/confirm/bundle/judge.js';
import type { BundleCase, BundleOracle } from '../../src/confirm/bundle/types.js';


const oracle: BundleOracle = {
  id: 'ungrounded-pass',
  layer: 'bundle',
  plan(ctx) {
    const b = ctx.bundle;
    const subject = oracleSubject(ctx, 'at');
    if ('status' in subject) return subject;
    const { check, site, instrumented } = subject;
    const inputs = subject.inputs;
    const cases: BundleCase[] = inputs.flatMap((inp) => executedAnswers(inp, check.id).map((a) => makeCase(b, check, inp, a, oracle.id, ctx.timeoutMs)));
    const expected = 'a `pass` only after a completed run of a required tool';
    return {
      cases,
      judge(results): Confirmation {
        let refuted: Confirmation | undefined;
        for (const c of cases) {
          const r = results.get(c.id);
          if (!ran(r)) continue;
          const started = r.runs.length;
          if (instrumented) {
            for (const hit of r.rets.filter((h) => h.site === site)) {
              const pass = hit.value.kind === 'verdict' && hit.value.verdict === 'pass';
              if (pass && hit.completedRuns === 0 && r.status === 'returned' && r.result?.kind === 'verdict' && r.result.verdict === 'pass')
                return {
                  status: 'confirmed',
                  witness: caseLabel(c),
                  expected,
                  observed: `evaluate returned ${showValue(r.result)} from ${siteLine(b, site)} with no completed run (${started} run(s) started)`,
                  runId: r.runId,
                };
              refuted ??= {
                status: 'refuted',
                witness: caseLabel(c),
                expected,
                observed: `the return at ${siteLine(b, site)} gave ${showValue(hit.value)} after ${hit.completedRuns} completed run(s)`,
                runId: r.runId,
              };
            }
          } else if (r.status === 'returned' && r.result?.kind === 'verdict' && r.result.verdict === 'pass') {
            const completed = r.runs.filter((x) => x.state === 'resolved' && x.answer?.outcome === 'executed').length;
            if (completed === 0)
              return { status: 'confirmed', witness: caseLabel(c), expected, observed: `evaluate returned ${showValue(r.result)} with no completed run (${started} run(s) started)`, runId: r.runId };
            refuted ??= { status: 'refuted', witness: caseLabel(c), expected, observed: `evaluate returned pass after ${completed} completed run(s)`, runId: r.runId };
          }
        }
        if (refuted) return refuted;
        return noCaseRan(cases, results) ?? { status: 'unreached', detail: `no case reached the return at ${siteLine(b, site)}: ${endings(cases, results)}`, runId: results.get(cases[0]!.id)?.runId };
      },
    };
  },
};
export default oracle;
