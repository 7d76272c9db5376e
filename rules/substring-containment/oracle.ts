/**
 * Oracle `substring-containment`: a predicate that tests containment on strings accepts the
 * expected value with one character added ('n: 2639750' for 'n: 263975').
 *
 * finding.control: { oracle: 'substring-containment',
 *   code?: string       the decoded `pred`/`find` lambda (default: the lambda string the finding
 *                       points into, from the project's suites),
 *   expected?: string   the expected text (default: the entry's `value` when it is a string, and the
 *                       lambda's own string constants) }
 * The lambda is called as the verifier evals it. For each assignment of expected strings to its
 * parameters that the lambda ACCEPTS (the baseline), each parameter in turn gets the string with one
 * character appended, then prepended.
 * confirmed: a baseline is accepted and one of its one-character variants too · refuted: baselines
 * are accepted and every variant rejected · unreached: no baseline is accepted.
 */
import type { Confirmation } from '../../src/core/types.js';
import type { PyCase } from '../../src/confirm/harness.js';
import { embeddedAt, firstNonResult, lambdaParams, show, stringConstants, truthy, type Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'substring-containment',
  async plan(ctx) {
    const facts = embeddedAt(ctx);
    if (!facts) return { status: 'unsupported', detail: 'vaudit found no lambda string at the finding to run; the finding stands as a static one' };
    const code = facts.code;
    const params = lambdaParams(code);
    if (!params.length || params.length > 3) return { status: 'unsupported', detail: 'substring-containment: the lambda does not take 1–3 positional parameters' };
    const exp = ctx.control.expected ?? facts.entry?.value;
    const expectedStrings = [...new Set([...(typeof exp === 'string' || typeof exp === 'number' ? [String(exp)] : []), ...stringConstants(code)])].slice(0, 3);
    if (!expectedStrings.length) return { status: 'unreached', detail: 'no expected string to build a witness from' };
    const grow = (s: string, where: 'end' | 'start') => {
      const c = /\d$/.test(s) ? '0' : 'x';
      return where === 'end' ? s + c : c + s;
    };
    // Every assignment of expected strings to the parameters (≤ 3^3).
    let assigns: string[][] = [[]];
    for (let i = 0; i < params.length; i++) assigns = assigns.flatMap((a) => expectedStrings.map((e) => [...a, e]));
    const cases: PyCase[] = [];
    const variants: Array<{ base: number; id: string; args: string[]; param: number }> = [];
    assigns.forEach((a, bi) => {
      cases.push({ id: `b${bi}`, op: 'lambda', source: code, args: a, timeoutMs: ctx.timeoutMs });
      for (let p = 0; p < a.length; p++) {
        for (const where of ['end', 'start'] as const) {
          const args = [...a];
          args[p] = grow(a[p]!, where);
          const id = `b${bi}p${p}${where}`;
          variants.push({ base: bi, id, args, param: p });
          cases.push({ id, op: 'lambda', source: code, args, timeoutMs: ctx.timeoutMs });
        }
      }
    });
    return {
      cases,
      judge(results): Confirmation {
        let refuted: Confirmation | undefined;
        for (let bi = 0; bi < assigns.length; bi++) {
          const rb = results.get(`b${bi}`);
          if (!(rb?.status === 'returned' && truthy(rb.value))) continue;
          for (const v of variants.filter((x) => x.base === bi)) {
            const r = results.get(v.id);
            if (r?.status === 'returned' && truthy(r.value)) {
              return {
                status: 'confirmed',
                witness: `${code} with ${params[v.param]}=${show(v.args[v.param])} instead of ${show(assigns[bi]![v.param])}`,
                expected: 'rejected (one character more is a different value)',
                observed: `accepted (returned ${show(r.value)})`,
                runId: r.runId,
              };
            }
          }
          refuted ??= { status: 'refuted', witness: `${code} with ${show(assigns[bi])} and its one-character variants`, expected: 'variants rejected', observed: 'variants rejected', runId: rb.runId };
        }
        if (refuted) return refuted;
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return { status: 'unreached', detail: `the lambda accepted none of the baselines built from ${show(expectedStrings)}`, runId: results.get('b0')?.runId };
      },
    };
  },
};
export default oracle;
