/**
 * Oracle `control-flow-slip` (shape 'firstItem'): a loop that returns on every path decides on its first
 * item. When the collection is a parameter, the function runs with two items in one order and then in the
 * other (every other parameter one plain value); a verdict that changes with the order shows
 * the loop never looked past the first item. Items are drawn from the function's own string constants,
 * the other witnesses' string values, and a few plain values, so one of them can match the item test.
 *
 * finding.control: { oracle: 'control-flow-slip', shape: 'firstItem', collection: index of the parameter
 *   iterated (-1: not a parameter), ...common Python fields }
 * confirmed: two runs that reach the loop give different verdicts for [a, b] and [b, a] · unreached: the
 * collection is not a parameter, or no pair gave different verdicts (never refuted: pairs that agree may
 * only mean that no item matched).
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, executedLine, firstNonResult, functionSource, num, outcomesOf, pythonTarget, show, stringConstants, truthy, type Oracle, type Witness } from '../../src/confirm/oracle-kit.js';

const MAX_PAIRS = 12;

const oracle: Oracle = {
  id: 'control-flow-slip',
  async plan(ctx) {
    if (ctx.control.shape !== 'firstItem') return { status: 'unsupported', detail: 'control-flow-slip confirms a loop that decides on its first item' };
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const coll = num(ctx.control.collection) ?? -1;
    if (coll < 0 || coll >= t.params.length) return { status: 'unreached', detail: 'the loop iterates something the function builds itself, not a parameter: no witness can reorder it' };
    // the other parameters all hold one plain value (so an item equal to it can match)
    const consts = stringConstants(functionSource(t));
    const bases = [...new Set(['state.name', ...consts.slice(0, 1)])];
    const keys = consts.filter((k) => /^[A-Za-z_][\w-]*$/.test(k));
    const record = (v: unknown) => Object.fromEntries(keys.map((k) => [k, v]));
    const runs: Array<{ label: string; a: Witness; b: Witness }> = [];
    for (const base of bases) {
      const pool = [...new Set([base, ...consts, 'other item', ''])].slice(0, 6);
      const pairs: Array<[unknown, unknown]> = [];
      for (let i = 0; i < pool.length; i++) for (let j = i + 1; j < pool.length; j++) pairs.push([pool[i]!, pool[j]!]);
      // items that are records (`row["status"]`, `cell.get("source")`): every constant of the function a key
      const recordPairs: Array<[unknown, unknown]> = keys.length ? pairs.map(([x, y]) => [record(x), record(y)]) : [];
      for (const [x, y] of [...pairs.slice(0, MAX_PAIRS / 2), ...recordPairs.slice(0, MAX_PAIRS / 2)]) {
        const witness = (items: unknown[]): Witness => {
          const args: unknown[] = t.params.map((_, i) => (i === coll ? items : base));
          return { label: `${t.params[coll]}=${show(items)}${t.params.length > 1 ? `, the other parameters ${show(base)}` : ''}`, args: args as Witness['args'] };
        };
        runs.push({ label: `${show([x, y])} and ${show([y, x])}`, a: witness([x, y]), b: witness([y, x]) });
      }
    }
    const cases = runs.flatMap((r, k) => [callCase(t, `p${k}a`, r.a, ctx), callCase(t, `p${k}b`, r.b, ctx)]);
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'the verdict does not depend on the order of the items';
        for (let k = 0; k < runs.length; k++) {
          const ra = results.get(`p${k}a`);
          const rb = results.get(`p${k}b`);
          if (!ra || !rb || !executedLine(ra, t.file, t.line) || !executedLine(rb, t.file, t.line) || ra.status !== 'returned' || rb.status !== 'returned') continue;
          if (truthy(ra.value) !== truthy(rb.value))
            return { status: 'confirmed', witness: `${t.params[coll]}=${runs[k]!.label}`, expected, observed: `returned ${show(ra.value)} for one order and ${show(rb.value)} for the other`, runId: ra.runId };
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        // never refuted: pairs that agree may only mean no item matched
        return { status: 'unreached', detail: `no pair of items gave different verdicts in the two orders (${outcomesOf(cases.map((c) => results.get(c.id)))})`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
