/**
 * Oracle `non-leaf-tool-input` (bundle layer): runs the external check's evaluate in a Node child with the
 * recording runtime port, on the bundle's declared cases or on inputs generated from its projections.
 * Every recorded `files`/`stdin` value carries its origin, found by comparing bytes with the case's
 * declared leaves.
 *
 * finding.control: { oracle, file, checkId, checkIndex, run: {start,end}, input: { role, key } }
 * confirmed: a run made at the flagged call site receives, for the flagged file (or stdin), bytes whose
 * origin is `authored:derived` · refuted: the site ran and received only leaves · unreached: no case
 * reached the site. A non-result of the host passes through as is.
 */
import type { Confirmation } from '../../src/core/types.js';
import { executedAnswers, makeCase } from '../../src/confirm/bundle/cases.js';
import { caseLabel, endings, noCaseRan, ran, runsAt, showInput, showRun, siteLine, oracleSubject } from '../../src/confirm/bundle/judge.js';
import type { BundleCase, BundleOracle, RecordedInput } from '../../src/confirm/bundle/types.js';


const oracle: BundleOracle = {
  id: 'non-leaf-tool-input',
  layer: 'bundle',
  plan(ctx) {
    const b = ctx.bundle;
    const subject = oracleSubject(ctx, 'run');
    if ('status' in subject) return subject;
    const { check, site, instrumented } = subject;
    const inputs = subject.inputs;
    const want = (ctx.control.input ?? {}) as { role?: string; key?: string | null };
    const matches = (i: RecordedInput): boolean => {
      if (want.role === 'stdin') return i.role === 'stdin';
      if (typeof want.key === 'string') return i.role === 'file' && i.key === want.key;
      return i.role === 'file' || i.role === 'files';
    };
    const cases: BundleCase[] = inputs.map((inp) => makeCase(b, check, inp, executedAnswers(inp, check.id)[0]!, oracle.id, ctx.timeoutMs));
    const what = want.role === 'stdin' ? 'stdin' : typeof want.key === 'string' ? `file \`${want.key}\`` : 'the `files` values';
    const expected = `${what} of the run at ${siteLine(b, site)} holds only declared leaves (artifact:<name>, publicInput:<path>, json:<projection>)`;
    return {
      cases,
      judge(results): Confirmation {
        let refuted: Confirmation | undefined;
        let weak: Confirmation | undefined;
        for (const c of cases) {
          const r = results.get(c.id);
          if (!ran(r)) continue;
          for (const run of runsAt(r, site, instrumented)) {
            for (const i of (run.inputs ?? []).filter(matches)) {
              if (i.origin === 'authored:derived') {
                const conf: Confirmation = { status: 'confirmed', witness: caseLabel(c), expected, observed: `${showRun(b, run)} received ${showInput(i)}`, runId: r.runId };
                if (i.bytes !== undefined) return conf;
                weak ??= conf;
              } else {
                refuted ??= { status: 'refuted', witness: caseLabel(c), expected, observed: `${showRun(b, run)} received ${showInput(i)}`, runId: r.runId };
              }
            }
          }
        }
        if (weak) return weak;
        if (refuted) return refuted;
        return noCaseRan(cases, results) ?? { status: 'unreached', detail: `no case reached the run at ${siteLine(b, site)} with ${what}: ${endings(cases, results)}`, runId: results.get(cases[0]!.id)?.runId };
      },
    };
  },
};
export default oracle;
