/**
 * Oracle `vacuous-verdict`: runs the flagged function with the named collection EMPTY (for `zip`,
 * the other side holding one item) and every other parameter None. A passing verdict proves the
 * check compares nothing on that input.
 *
 * For a guard that cannot fire (shape 'guard'), the empty parameter is the one the guard tests or the
 * guarded local is built from: a passing verdict proves the guard let the empty input through.
 *
 * finding.control: { oracle: 'vacuous-verdict', shape: 'zip' | 'loop' | 'all' | 'guard', empty: <param index>,
 *   other: <param index or -1>, ...common Python fields (see oracle-kit.ts) }
 * confirmed: the flagged line ran and the function returned a truthy verdict with the empty collection ·
 * refuted: it ran and returned a falsy verdict (or raised) · unreached: the collection is not a
 * parameter (no witness can set it) or the line never ran.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, executedLine, firstNonResult, pythonTarget, show, truthy, type Oracle, type Witness } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'vacuous-verdict',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const empty = typeof ctx.control.empty === 'number' ? ctx.control.empty : -1;
    const other = typeof ctx.control.other === 'number' ? ctx.control.other : -1;
    if (empty < 0 || empty >= t.params.length)
      return { status: 'unreached', detail: 'the collection is built inside the function, not passed in: no witness can make it empty' };
    const args: unknown[] = t.params.map(() => null);
    args[empty] = [];
    if (other >= 0 && other < args.length) args[other] = ['expected item'];
    const w: Witness = { label: `${t.params[empty]}=[]${other >= 0 ? `, ${t.params[other]}=["expected item"]` : ''}`, args: args as Witness['args'] };
    const cases = [callCase(t, 'empty', w, ctx)];
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'the check fails when there is nothing to compare';
        const r = results.get(cases[0]!.id);
        if (r && executedLine(r, t.file, t.line)) {
          if (r.status === 'returned' && truthy(r.value))
            return { status: 'confirmed', witness: w.label, expected, observed: `the check passed (returned ${show(r.value)}) with ${t.params[empty]} empty`, runId: r.runId };
          if (r.status === 'returned' || r.status === 'raised')
            return { status: 'refuted', witness: w.label, expected, observed: r.status === 'returned' ? `returned ${show(r.value)}` : `raised ${r.exception?.type}`, runId: r.runId };
        }
        const nr = firstNonResult([r]);
        if (nr) return nr;
        return { status: 'unreached', detail: `the witness did not reach line ${t.line}`, runId: r?.runId };
      },
    };
  },
};
export default oracle;
