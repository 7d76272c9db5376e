/**
 * Oracle `undeclared-tool` (bundle layer): runs the check's evaluate in a Node child with the recording
 * runtime port, which binds each run as the host does: a `toolId` outside the check's `requiredTools` is
 * rejected (the run's promise rejects, as an authoring defect), and a run's `checkId` is compared with
 * the check it runs in.
 *
 * finding.control: { oracle, file, checkId, checkIndex, run: {start,end}, claim: 'tool' | 'checkId',
 *   tool?: the flagged tool id, given?: the flagged checkId }
 * confirmed: a run made at the flagged call site was rejected for its tool id (claim `tool`), or was bound
 * to another check than the one it ran in (claim `checkId`); the observation says what evaluate did then ·
 * refuted: the site ran, and each of its runs (of the flagged tool) was accepted and bound to its check ·
 * unreached: no case reached the site. A non-result of the host passes through as is.
 */
import type { Confirmation } from '../../src/core/types.js';
import { executedAnswers, makeCase } from '../../src/confirm/bundle/cases.js';
import { caseLabel, endings, noCaseRan, oracleSubject, ran, runsAt, showRun, showValue, siteLine } from '../../src/confirm/bundle/judge.js';
import type { BundleCase, BundleCaseResult, BundleOracle, RecordedRun } from '../../src/confirm/bundle/types.js';

function settled(r: BundleCaseResult): string {
  if (r.status === 'returned') return `returned ${showValue(r.result)}`;
  if (r.status === 'threw') return `threw ${r.error?.type ?? 'an error'}${r.error?.message ? `: ${r.error.message}` : ''}`;
  return 'did not settle within its bound';
}

const oracle: BundleOracle = {
  id: 'undeclared-tool',
  layer: 'bundle',
  plan(ctx) {
    const b = ctx.bundle;
    const subject = oracleSubject(ctx, 'run');
    if ('status' in subject) return subject;
    const { check, site, instrumented } = subject;
    const claim = ctx.control.claim === 'checkId' ? 'checkId' : 'tool';
    const tool = typeof ctx.control.tool === 'string' ? ctx.control.tool : undefined;
    const cases: BundleCase[] = subject.inputs.map((inp) => makeCase(b, check, inp, executedAnswers(inp, check.id)[0]!, oracle.id, ctx.timeoutMs));
    const where = siteLine(b, site);
    // the site of a helper's run is shared by every call of the helper: only the flagged tool's runs count
    const flagged = (x: RecordedRun) => claim === 'checkId' || tool === undefined || x.toolId === tool;
    const expected =
      claim === 'tool'
        ? `each run made at ${where} names a tool in check \`${check.id}\`'s requiredTools and is accepted by the host`
        : `each run made at ${where} is bound to check \`${check.id}\`, the check it runs in`;
    return {
      cases,
      judge(results): Confirmation {
        let refuted: Confirmation | undefined;
        for (const c of cases) {
          const r = results.get(c.id);
          if (!ran(r)) continue;
          const at = runsAt(r, site, instrumented).filter(flagged);
          const bad = at.filter((x) => (claim === 'tool' ? x.state === 'rejected' && /requiredTools/.test(x.rejected ?? '') : x.checkIdMismatch === true));
          if (bad.length) {
            const x = bad[0]!;
            const what =
              claim === 'tool'
                ? `${showRun(b, x)} was rejected (${x.rejected})`
                : `${showRun(b, x)} was bound to checkId \`${x.checkId ?? '?'}\` while it ran in check \`${check.id}\`: the host records it under another check`;
            return { status: 'confirmed', witness: caseLabel(c), expected, observed: `${what}; evaluate then ${settled(r)}`, runId: r.runId };
          }
          if (at.length) refuted ??= { status: 'refuted', witness: caseLabel(c), expected, observed: `${at.length} run(s) at ${where}, each accepted and bound to check \`${check.id}\`; evaluate ${settled(r)}`, runId: r.runId };
        }
        if (refuted) return refuted;
        return noCaseRan(cases, results) ?? { status: 'unreached', detail: `no case reached the run at ${where}: ${endings(cases, results)}`, runId: results.get(cases[0]!.id)?.runId };
      },
    };
  },
};
export default oracle;
