/**
 * Oracle `substring-containment`: a predicate that tests `expected in observed` on strings accepts
 * the expected value with one character added ('n: 2639750' for 'n: 263975').
 *
 * finding.control: { oracle: 'substring-containment', code: string (the decoded `pred`/`find` lambda,
 *   called as the verifier does: pred(observed, expected)), expected: string (the entry's value),
 *   argOrder?: 'observed-expected' | 'expected-observed' (default 'observed-expected') }
 * Cases: a baseline (observed == expected, must be accepted) and two witnesses (a character appended,
 * and prepended).
 * confirmed: baseline accepted and a witness accepted · refuted: baseline accepted, witnesses
 * rejected · unreached: the baseline itself is rejected.
 */
import type { Confirmation } from '../../engine/types.js';
import type { PyCase } from '../harness.js';
import { firstNonResult, show, str, truthy, type Oracle } from './common.js';

const oracle: Oracle = {
  id: 'substring-containment',
  async plan(ctx) {
    const code = str(ctx.control.code);
    const exp = ctx.control.expected;
    if (code === undefined || (typeof exp !== 'string' && typeof exp !== 'number')) return { status: 'unsupported', detail: 'substring-containment needs control.code and control.expected' };
    const expected = String(exp);
    const extra = /\d$/.test(expected) ? '0' : 'x';
    const swap = ctx.control.argOrder === 'expected-observed';
    const call = (id: string, observed: string): PyCase => ({ id, op: 'lambda', source: code, args: swap ? [expected, observed] : [observed, expected], timeoutMs: ctx.timeoutMs });
    const wits = [expected + extra, extra + expected];
    const cases = [call('baseline', expected), call('appended', wits[0]!), call('prepended', wits[1]!)];
    return {
      cases,
      judge(results): Confirmation {
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        const rb = results.get('baseline')!;
        if (!(rb.status === 'returned' && truthy(rb.value))) return { status: 'unreached', detail: `the predicate rejects the expected value itself (${rb.status} ${show(rb.value ?? rb.exception?.type)})`, runId: rb.runId };
        for (const [id, obs] of [['appended', wits[0]!], ['prepended', wits[1]!]] as const) {
          const r = results.get(id)!;
          if (r.status === 'returned' && truthy(r.value))
            return { status: 'confirmed', witness: `observed ${show(obs)} for expected ${show(expected)}`, expected: 'rejected', observed: `accepted (returned ${show(r.value)})`, runId: r.runId };
        }
        return { status: 'refuted', witness: `observed ${show(wits[0])} / ${show(wits[1])} for expected ${show(expected)}`, expected: 'rejected', observed: 'rejected', runId: rb.runId };
      },
    };
  },
};
export default oracle;
