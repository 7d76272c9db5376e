/**
 * Oracle `unawaited-tool-run` (bundle layer): runs evaluate in a Node child with the recording runtime
 * port, whose answers arrive late (one at a time, newest first, once the check is idle — a legitimate
 * schedule of real tool durations in which every awaited run completes).
 *
 * finding.control: { oracle, file, checkId, checkIndex, run: {start,end} }
 * confirmed: a run made at the flagged call site is still pending when evaluate's promise settles ·
 * refuted: the site ran and each of its runs was delivered before evaluate settled · unreached: no case
 * reached the site. A non-result of the host passes through as is.
 */
import type { Confirmation } from '../../src/core/types.js';
import { executedAnswers, makeCase } from '../../src/confirm/bundle/cases.js';
import { caseLabel, endings, noCaseRan, ran, runsAt, showRun, showValue, siteLine, oracleSubject } from '../../src/confirm/bundle/judge.js';
import type { BundleCase, BundleOracle } from '../../src/confirm/bundle/types.js';


const oracle: BundleOracle = {
  id: 'unawaited-tool-run',
  layer: 'bundle',
  plan(ctx) {
    const b = ctx.bundle;
    const subject = oracleSubject(ctx, 'run');
    if ('status' in subject) return subject;
    const { check, site, instrumented } = subject;
    const inputs = subject.inputs;
    const cases: BundleCase[] = inputs.map((inp) => makeCase(b, check, inp, executedAnswers(inp, check.id)[0]!, oracle.id, ctx.timeoutMs));
    const expected = `every run made at ${siteLine(b, site)} has delivered its result before evaluate settles`;
    return {
      cases,
      judge(results): Confirmation {
        let refuted: Confirmation | undefined;
        for (const c of cases) {
          const r = results.get(c.id);
          if (!ran(r) || r.status === 'deadline') continue;
          const at = runsAt(r, site, instrumented).filter((x) => x.state !== 'rejected');
          const pending = at.filter((x) => r.pendingAtReturn.includes(x.seq));
          const settled = r.status === 'returned' ? `returned ${showValue(r.result)}` : `threw ${r.error?.type ?? 'an error'}`;
          if (pending.length)
            return {
              status: 'confirmed',
              witness: caseLabel(c),
              expected,
              observed: `${pending.map((x) => showRun(b, x)).join(', ')} ${pending.length > 1 ? 'were' : 'was'} still pending when evaluate ${settled}`,
              runId: r.runId,
            };
          if (at.length) refuted ??= { status: 'refuted', witness: caseLabel(c), expected, observed: `${at.length} run(s) at ${siteLine(b, site)}, each delivered before evaluate ${settled}`, runId: r.runId };
        }
        if (refuted) return refuted;
        return noCaseRan(cases, results) ?? { status: 'unreached', detail: `no case reached the run at ${siteLine(b, site)}: ${endings(cases, results)}`, runId: results.get(cases[0]!.id)?.runId };
      },
    };
  },
};
export default oracle;
