/**
 * Oracle `vacuous-absence`: an absence check ("value: null" → the item must not exist) is run with
 * the item PRESENT in the state. If the function still reports success, the check is vacuous.
 *
 * finding.control: { oracle: 'vacuous-absence', ...common Python fields (see common.ts) }
 *   witnesses (optional) should be absence requests whose state CONTAINS the item.
 * Default witnesses: each routed entry (or a synthesized item) with `value: null`, and a state that
 * holds the item's key (and keys built from the lambdas' string constants for `find`/`key` lambdas).
 * An item that names nothing gets a populated state only when control.always (the rule saw the
 * operand None on every path).
 * confirmed: the flagged line ran and the function returned a truthy verdict with the item present ·
 * refuted: it ran and returned a falsy verdict · unreached: the line never ran.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, executedLine, firstNonResult, itemWitnesses, presentState, pythonTarget, show, truthy, type Oracle, type Witness, outcomesOf } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'vacuous-absence',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    let ws = ctx.control.witnesses as Witness[] | undefined;
    if (!Array.isArray(ws) || !ws.length) {
      ws = [];
      const absences: Array<Record<string, unknown>> = itemWitnesses(t, ctx, 32).map((it) => ({ ...it, value: null }));
      for (const it of [...new Map(absences.map((a) => [JSON.stringify(a), a])).values()]) {
        const st = presentState(it);
        // "present" must mean the item the entry names is in the state — unless the rule saw the
        // operand is None on every path (`always`), where any populated state is a witness.
        const names = Object.keys(st).some((k) => Object.values(it).includes(k) || (typeof it.find === 'string' && it.find.length > 0));
        if (!names && ctx.control.always !== true) continue;
        const rest = t.params.slice(2).map(() => null);
        ws.push({ label: `${show(it)} with the item present: ${show(st)}`, args: t.params.length >= 2 ? [it, st, ...rest] : [it] });
      }
      if (!ws.length && t.params.length >= 2) {
        const it = { key: 'present.key', value: null };
        ws.push({ label: `${show(it)} with the item present`, args: [it, { 'present.key': 'present' }, ...t.params.slice(2).map(() => null)] });
      }
    }
    const wl = ws;
    const cases = wl.map((w, i) => callCase(t, `w${i}`, w, ctx));
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'the absence check fails when the item is present';
        let refuted: Confirmation | undefined;
        for (let i = 0; i < cases.length; i++) {
          const r = results.get(cases[i]!.id);
          if (!r || !executedLine(r, t.file, t.line)) continue;
          if (r.status === 'returned' && truthy(r.value))
            return { status: 'confirmed', witness: wl[i]!.label, expected, observed: `the check passed (returned ${show(r.value)}) with the item present`, runId: r.runId };
          if (r.status === 'returned' || r.status === 'raised')
            refuted ??= { status: 'refuted', witness: wl[i]!.label, expected, observed: r.status === 'returned' ? `returned ${show(r.value)}` : `raised ${r.exception?.type}`, runId: r.runId };
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return refuted ?? { status: 'unreached', detail: `no witness reached line ${t.line} (${outcomesOf(cases.map((c) => results.get(c.id)))})`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
