/**
 * Oracle `verdict-composition` (shape 'branch', a check on one branch only): runs the function on its
 * default witnesses (the tasks' entries routed to it, else values built from what it reads) and looks
 * for the witness that passes without the skipped conjunct: a run that returns a passing verdict through
 * the branch taken when the value is present, and never executes a line of the other branch, whose
 * check therefore never ran.
 *
 * finding.control: { oracle: 'verdict-composition', shape: 'branch', line: first line of the present
 *   branch, skippedFrom / skippedTo: the lines of the other branch, ...common Python fields }
 * confirmed: such a run · unreached: no witness passed through the present branch. Never refuted: a run
 * that fails the agent in the present branch says nothing about the check the branch leaves out.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, defaultWitnesses, executedLine, firstNonResult, num, outcomesOf, pythonTarget, show, truthy, type Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'verdict-composition',
  async plan(ctx) {
    if (ctx.control.shape !== 'branch') return { status: 'unsupported', detail: 'verdict-composition confirms a check on one branch only' };
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const from = num(ctx.control.skippedFrom) ?? 0;
    const to = num(ctx.control.skippedTo) ?? 0;
    const ws = defaultWitnesses(t, ctx);
    const cases = ws.map((w, i) => callCase(t, `w${i}`, w, ctx));
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'every check the task needs runs before the agent passes';
        for (let i = 0; i < cases.length; i++) {
          const r = results.get(cases[i]!.id);
          if (!r || !executedLine(r, t.file, t.line)) continue;
          const skipped = (r.lines[t.file] ?? []).some((l) => l >= from && l <= to);
          if (r.status === 'returned' && truthy(r.value) && !skipped)
            return { status: 'confirmed', witness: ws[i]!.label, expected, observed: `the agent passed (returned ${show(r.value)}) and lines ${from}-${to}, the other branch's check, never ran`, runId: r.runId };
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return { status: 'unreached', detail: `no witness passed through the branch at line ${t.line} (${outcomesOf(cases.map((c) => results.get(c.id)))})`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
