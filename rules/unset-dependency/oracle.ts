/**
 * Oracle `unset-dependency`: calls the function that takes the dependency with the dependency left at
 * its default None (the way the omitting caller calls it) and the other parameters from the usual
 * witnesses (routed task entries, else values built from what the function reads).
 *
 * finding.control: { oracle: 'unset-dependency', param: index of the dependency among the parameters,
 *   direct: whether the function itself calls it, line: the unguarded call, ...common Python fields }
 * confirmed: a witness reached the unguarded call and it raised TypeError/AttributeError there ·
 * refuted: a witness ran that line and it did not raise · unreached: no witness got to the line (where
 * they stopped) · unsupported: the call is in a method of an object the function builds, which only the
 * harness calls later.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, defaultWitnesses, executedLine, firstNonResult, num, outcomesOf, pythonTarget, show, type Oracle, type Witness } from '../../src/confirm/oracle-kit.js';

const CRASH = new Set(['TypeError', 'AttributeError']);

const oracle: Oracle = {
  id: 'unset-dependency',
  async plan(ctx) {
    if (ctx.control.direct !== true)
      return { status: 'unsupported', detail: 'the dependency is called in a method of the evaluator this function builds; only the harness calls that method, so no single call shows it (run the entry point that omits the argument to see the crash)' };
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const param = num(ctx.control.param) ?? -1;
    if (param < 0 || param >= t.params.length) return { status: 'unsupported', detail: 'the dependency is not a positional parameter the case can leave at None' };
    const witnesses: Witness[] = defaultWitnesses(t, ctx, 12).map((w) => {
      const args = [...w.args];
      args[param] = null;
      return { ...w, args, label: t.params.map((p, i) => `${p}=${i === param ? 'None' : show(args[i])}`).join(', ') };
    });
    const cases = witnesses.map((w, i) => callCase(t, `w${i}`, w, ctx));
    return {
      cases,
      judge(results): Confirmation {
        const expected = `a task reaching line ${t.line} is graded`;
        const rs = cases.map((c) => results.get(c.id));
        for (const [i, r] of rs.entries()) {
          const e = r?.status === 'raised' ? r.exception : undefined;
          if (e && CRASH.has(e.type) && e.line === t.line && /None/.test(e.message))
            return { status: 'confirmed', witness: witnesses[i]!.label, expected, observed: `the grading crashed at line ${t.line}: ${e.type}: ${e.message}`, runId: r!.runId };
        }
        for (const [i, r] of rs.entries()) {
          if (r && executedLine(r, t.file, t.line) && r.status === 'returned')
            return { status: 'refuted', witness: witnesses[i]!.label, expected, observed: `line ${t.line} ran and the call did not fail`, runId: r.runId };
        }
        return firstNonResult(rs) ?? { status: 'unreached', detail: `no witness reached line ${t.line} (${outcomesOf(rs)})`, runId: rs.find((r) => r)?.runId };
      },
    };
  },
};
export default oracle;
