/**
 * Oracle `judge-reply-parsing`: calls the flagged function with a judge reply that rejects the answer
 * — one that holds the tested word inside a longer word or phrase ("incorrect", "not consistent"), or
 * one in other words ("The answer is wrong.") — as the parameter the reply arrives in; every other
 * parameter is None.
 *
 * finding.control: { oracle: 'judge-reply-parsing', param: index of the reply parameter (-1: the reply
 *   comes from a model call inside the function), reply: the witness reply, expect: 'pass' | 'raise',
 *   ...common Python fields (see oracle-kit.ts) }
 * confirmed: the flagged line ran and the function returned a passing verdict (expect 'pass'), or raised
 * AssertionError at the flagged assert (expect 'raise') · refuted: it ran and returned a failing verdict
 * (or raised something else) · unreached: the reply is not a parameter, or the line never ran.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, executedLine, firstNonResult, num, outcomeOf, pythonTarget, show, str, truthy, type Oracle, type Witness } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'judge-reply-parsing',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const param = num(ctx.control.param) ?? -1;
    const reply = str(ctx.control.reply) ?? 'The answer is wrong.';
    const expect = str(ctx.control.expect) === 'raise' ? 'raise' : 'pass';
    if (param < 0 || param >= t.params.length) return { status: 'unreached', detail: 'the reply comes from a model call inside the function: no witness can set it without the model' };
    const args: unknown[] = t.params.map(() => null);
    args[param] = reply;
    const w: Witness = { label: `${t.params[param]}=${show(reply)}`, args: args as Witness['args'] };
    const cases = [callCase(t, 'reply', w, ctx)];
    return {
      cases,
      judge(results): Confirmation {
        const r = results.get('reply');
        const expected = expect === 'raise' ? 'an unexpected reply fails the task without crashing the grading' : 'a reply that rejects the answer fails the task';
        const at = r?.status === 'raised' && r.exception?.line === t.line;
        if (expect === 'raise' && at && r.exception?.type === 'AssertionError')
          return { status: 'confirmed', witness: w.label, expected, observed: `the grading crashed: AssertionError at line ${t.line}`, runId: r.runId };
        if (r && executedLine(r, t.file, t.line)) {
          if (expect === 'pass' && r.status === 'returned' && truthy(r.value))
            return { status: 'confirmed', witness: w.label, expected, observed: `the task passed (returned ${show(r.value)})`, runId: r.runId };
          if (r.status === 'returned' || r.status === 'raised') return { status: 'refuted', witness: w.label, expected, observed: outcomeOf(r), runId: r.runId };
        }
        return firstNonResult([r]) ?? { status: 'unreached', detail: `the witness did not reach line ${t.line} (${outcomeOf(r)})`, runId: r?.runId };
      },
    };
  },
};
export default oracle;
