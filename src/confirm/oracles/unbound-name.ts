/**
 * Oracle `unbound-name`: the flagged function runs on its witnesses under the harness's tracer;
 * a NameError/UnboundLocalError raised AT the flagged line (even if a decorator swallowed it) is
 * the defect.
 *
 * finding.control: { oracle: 'unbound-name', name?: string, ...common Python fields (see common.ts) }
 *   name: the unbound identifier (when given, the exception message must mention it).
 * confirmed: the error was raised at the line · refuted: the line ran on some witness without it ·
 * unreached: no witness reached the line · non-results pass through.
 */
import type { Confirmation } from '../../engine/types.js';
import { callCase, defaultWitnesses, executedLine, firstNonResult, pythonTarget, str, type Oracle } from './common.js';

const oracle: Oracle = {
  id: 'unbound-name',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const name = str(ctx.control.name);
    const ws = defaultWitnesses(t, ctx);
    const cases = ws.map((w, i) => callCase(t, `w${i}`, w, ctx));
    return {
      cases,
      judge(results): Confirmation {
        const expected = `no NameError at line ${t.line}`;
        for (let i = 0; i < cases.length; i++) {
          const r = results.get(cases[i]!.id);
          if (!r) continue;
          const hit = r.events.find(
            (e) => (e.type === 'NameError' || e.type === 'UnboundLocalError') && e.file === t.file && e.line === t.line && (!name || e.message.includes(`'${name}'`)),
          );
          if (hit) {
            const swallowed = r.status === 'returned';
            return {
              status: 'confirmed',
              witness: ws[i]!.label,
              expected,
              observed: `${hit.type}: ${hit.message} at line ${hit.line}${swallowed ? `, swallowed: the function returned ${JSON.stringify(r.value)}` : ''}`,
              runId: r.runId,
            };
          }
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        const reached = cases.findIndex((c) => executedLine(results.get(c.id), t.file, t.line));
        if (reached >= 0) {
          const r = results.get(cases[reached]!.id)!;
          return { status: 'refuted', witness: ws[reached]!.label, expected, observed: `line ${t.line} ran without a NameError`, runId: r.runId };
        }
        return { status: 'unreached', detail: `none of ${cases.length} witnesses reached line ${t.line}`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
