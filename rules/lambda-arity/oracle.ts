/**
 * Oracle `lambda-arity`: the task's lambda called as the verifier calls it — with as many positional
 * arguments as its role gets (`key`: the state, 1; `find`/`pred`: key and value, 2), each None — by the
 * host's Python. The arguments' values do not matter: binding them to the parameters is what is tested.
 *
 * finding.control: { oracle: 'lambda-arity', code: string (the lambda's source), arity: number }
 * confirmed: the call raised the binding TypeError (`<lambda>() takes 1 positional argument but 2 were
 * given`, `missing 1 required positional argument`) · refuted: the arguments bound (the lambda returned,
 * or raised inside its body) · unreached: the string did not evaluate to a callable.
 */
import type { Confirmation } from '../../src/core/types.js';
import { firstNonResult, num, outcomeOf, str, type Oracle } from '../../src/confirm/oracle-kit.js';

/** Python's messages for arguments that do not bind to a function's parameters. */
const BINDING = /^<lambda>\(\) (takes \d+ positional argument|missing \d+ required (positional|keyword-only) argument|got (an unexpected|multiple values))/;

const oracle: Oracle = {
  id: 'lambda-arity',
  async plan(ctx) {
    const code = str(ctx.control.code);
    const arity = num(ctx.control.arity);
    if (code === undefined || arity === undefined) return { status: 'unsupported', detail: 'the rule passed no lambda and arity to call it with' };
    const args = Array.from({ length: arity }, () => null);
    return {
      cases: [{ id: 'call', op: 'lambda', source: code, args, timeoutMs: ctx.timeoutMs }],
      judge(results): Confirmation {
        const r = results.get('call');
        const witness = `${code} called with ${arity} positional argument${arity === 1 ? '' : 's'} (None each), as the verifier calls it`;
        const expected = 'the arguments bind to the lambda\'s parameters';
        if (r?.status === 'raised' && r.exception?.type === 'TypeError' && BINDING.test(r.exception.message))
          return { status: 'confirmed', witness, expected, observed: `TypeError: ${r.exception.message}`, runId: r.runId };
        if (r?.status === 'returned' || (r?.status === 'raised' && r.exception?.file === '<lambda>'))
          return { status: 'refuted', witness, expected, observed: `the arguments bound: ${outcomeOf(r)}`, runId: r.runId };
        const nr = firstNonResult([r]);
        if (nr) return nr;
        return { status: 'unreached', detail: `the lambda could not be called (${outcomeOf(r)})`, runId: r?.runId };
      },
    };
  },
};
export default oracle;
