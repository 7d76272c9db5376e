/**
 * Oracle `evaluator-dispatch`, shape 'memberKind': the task gives a list (or an object) where the metric
 * tests `expect in result` / `expect not in result` against a result state of scalars. The metric is called
 * as the harness calls it, `metric(result_state, expected_state)`, with the task's own rules as the expected
 * state and two result states: one holding every value the task names, one holding none of them.
 *
 * finding.control: { oracle: 'evaluator-dispatch', shape: 'memberKind', ...common Python fields (the metric's
 *   file, the `in` test's line, its qualname), rules: the expected state the task's getter hands over,
 *   member: the key of the list (or object) tested, op: 'in' | 'not in' }
 * confirmed: both calls ran the test and got the same verdict (the verdict does not depend on the state) ·
 * refuted: both ran it and the verdicts differ · unreached: a call did not return through the test.
 * Other evaluator-dispatch findings (look-ups, signatures, set-up steps) have no control case.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, executedLine, firstNonResult, outcomesOf, pythonTarget, show, str, type Oracle } from '../../src/confirm/oracle-kit.js';

/** The scalar values a task member names (a list's items, an object's keys and values), as text. */
function named(v: unknown): unknown[] {
  const items = Array.isArray(v) ? v : v && typeof v === 'object' ? [...Object.keys(v), ...Object.values(v)] : [v];
  return items.flatMap((x) => (Array.isArray(x) || (x && typeof x === 'object') ? named(x) : [x])).filter((x) => x !== null);
}

const oracle: Oracle = {
  id: 'evaluator-dispatch',
  async plan(ctx) {
    if (ctx.control.shape !== 'memberKind') return { status: 'unsupported', detail: 'evaluator-dispatch runs a control case for a task value tested with `in` against a state that cannot hold it; this finding is about the evaluator\'s routing or call shape, which the static check decides' };
    const rules = ctx.control.rules;
    const member = str(ctx.control.member);
    if (!rules || typeof rules !== 'object' || member === undefined) return { status: 'unsupported', detail: 'the rule passed no task value to call the metric with' };
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    if (t.params.length < 2) return { status: 'unsupported', detail: `${t.slice.qualname} does not take a result and an expected state` };
    const values = [...new Set(named((rules as Record<string, unknown>)[member]))];
    if (!values.length) return { status: 'unsupported', detail: `the task's "${member}" names no value a result state could hold` };
    const holding = [...values, 'vaudit-other'];
    const none = ['vaudit-other'];
    const rest = t.params.slice(2).map(() => null);
    const ws = [
      { label: `result state ${show(holding)} (holds every value the task names), expected state ${show(rules)}`, args: [holding, rules, ...rest] },
      { label: `result state ${show(none)} (holds none of them), expected state ${show(rules)}`, args: [none, rules, ...rest] },
    ];
    const cases = ws.map((w, i) => callCase(t, `s${i}`, w, ctx));
    return {
      cases,
      judge(results): Confirmation {
        const [h, n] = [results.get('s0'), results.get('s1')];
        const ran = (r: typeof h) => r?.status === 'returned' && executedLine(r, t.file, t.line);
        const expected = `a verdict that depends on whether the state holds ${show(values)}`;
        if (ran(h) && ran(n)) {
          if (JSON.stringify(h!.value) === JSON.stringify(n!.value))
            return { status: 'confirmed', witness: ws[0]!.label, expected, observed: `returned ${show(h!.value)}, as the state that holds none of them did (${show(n!.value)})`, runId: h!.runId };
          return { status: 'refuted', witness: ws[0]!.label, expected, observed: `returned ${show(h!.value)}, where the state that holds none of them returned ${show(n!.value)}`, runId: h!.runId };
        }
        const nr = firstNonResult([h, n]);
        if (nr) return nr;
        return { status: 'unreached', detail: `the metric did not return through line ${t.line} for both states (${outcomesOf([h, n])})`, runId: h?.runId ?? n?.runId };
      },
    };
  },
};
export default oracle;
