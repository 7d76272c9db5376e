/**
 * Oracle `ignored-exit-code` (bundle layer): runs evaluate in a Node child twice per input and tool output,
 * the flagged run answering exit 0 in one case and exit 1 (the tool rejected the artifact) with the same
 * stdout in the other; every other run exits 0 with that stdout. Outputs tried: stdout = stdin (a `cat`-like
 * tool), and each short text the bundle tests output for (`stdout.includes('OK')`, `=== 'ok'`), so a check
 * that reads the output can pass.
 *
 * finding.control: { oracle, file, checkId, checkIndex, run: {start,end} }
 * confirmed: the flagged run answered exit 1 and evaluate returned `pass` — the verdict it returned when the
 * run answered exit 0 with the same output · refuted: with some output evaluate passed on exit 0 and did not
 * on exit 1 (the exit code decided) · unreached: no output made the check pass on exit 0 through the flagged
 * run. A non-result of the host passes through as is.
 */
import type { Confirmation } from '../../src/core/types.js';
import { makeCase } from '../../src/confirm/bundle/cases.js';
import { caseLabel, endings, lineOf, noCaseRan, ran, runsAt, showValue, siteLine, oracleSubject } from '../../src/confirm/bundle/judge.js';
import type { BundleCase, BundleCaseResult, BundleOracle, ScriptedAnswer } from '../../src/confirm/bundle/types.js';

/** Short texts the bundle tests tool output for: `.includes('OK')`, `.startsWith("ok")`, `=== 'passed'`. */
function outputTexts(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\.(?:includes|startsWith|endsWith|indexOf|match|test)\(\s*(['"`])([^'"`\n\\]{1,40})\1/g)) out.add(m[2]!);
  for (const m of text.matchAll(/(?:stdout|stderr|output)[\w.()]*\s*===?\s*(['"`])([^'"`\n\\]{1,40})\1/g)) out.add(m[2]!);
  return [...out].slice(0, 6);
}

const oracle: BundleOracle = {
  id: 'ignored-exit-code',
  layer: 'bundle',
  plan(ctx) {
    const b = ctx.bundle;
    const subject = oracleSubject(ctx, 'run');
    if ('status' in subject) return subject;
    const { check, site, instrumented } = subject;
    if (!instrumented) return { status: 'unsupported', detail: 'vaudit could not instrument the flagged run call, so no case can answer it apart from the others' };
    const line = lineOf(b.text, Number(site.split(':')[0]));
    const outputs: Array<{ what: string; answer: (exit: number) => ScriptedAnswer }> = [
      { what: 'stdout = stdin', answer: (exitCode) => ({ outcome: 'executed', exitCode, stderr: '', echoStdin: true }) },
      ...outputTexts(b.text).map((s) => ({ what: `stdout ${JSON.stringify(s + '\n')}`, answer: (exitCode: number): ScriptedAnswer => ({ outcome: 'executed', exitCode, stdout: `${s}\n`, stderr: '' }) })),
    ];
    const pairs: Array<{ ok: BundleCase; rejected: BundleCase }> = [];
    for (const inp of subject.inputs)
      for (const o of outputs) {
        const mk = (exit: number) =>
          makeCase(b, check, inp, { label: `exit ${exit} at line ${line}, exit 0 elsewhere, ${o.what}`, default: o.answer(0), atSite: { site, answer: o.answer(exit) } }, oracle.id, ctx.timeoutMs);
        pairs.push({ ok: mk(0), rejected: mk(1) });
      }
    const cases = pairs.flatMap((p) => [p.ok, p.rejected]);
    const expected = `evaluate does not pass when the run at line ${line} exits 1 (the tool rejected the artifact)`;
    const delivered = (r: BundleCaseResult, exit: number) => runsAt(r, site, true).some((x) => x.state !== 'pending' && x.state !== 'rejected' && x.answer?.outcome === 'executed' && x.answer.exitCode === exit);
    const passed = (r: BundleCaseResult | undefined): boolean => ran(r) && r.status === 'returned' && r.result?.kind === 'verdict' && r.result.verdict === 'pass';
    return {
      cases,
      judge(results): Confirmation {
        let refuted: Confirmation | undefined;
        for (const p of pairs) {
          const [r0, r1] = [results.get(p.ok.id), results.get(p.rejected.id)];
          if (!ran(r0) || !passed(r0) || !delivered(r0, 0) || !ran(r1) || r1.status === 'deadline' || !delivered(r1, 1)) continue;
          if (passed(r1))
            return { status: 'confirmed', witness: caseLabel(p.rejected), expected, observed: `evaluate returned ${showValue(r1.result)}, as it did when the run exited 0 with the same output`, runId: r1.runId };
          const settled = r1.status === 'returned' ? `returned ${showValue(r1.result)}` : `threw ${r1.error?.type ?? 'an error'}`;
          refuted ??= { status: 'refuted', witness: caseLabel(p.rejected), expected, observed: `evaluate ${settled}, where the same output with exit 0 passed`, runId: r1.runId };
        }
        if (refuted) return refuted;
        return noCaseRan(cases, results) ?? { status: 'unreached', detail: `no output made the check pass through the run at ${siteLine(b, site)} when it exited 0: ${endings(cases, results)}`, runId: results.get(cases[0]!.id)?.runId };
      },
    };
  },
};
export default oracle;
