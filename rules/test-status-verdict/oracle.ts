/**
 * Oracle `test-status-verdict`: runs the grading function with a required test that did not pass —
 * its status a skip status (SKIPPED, XFAIL…, in the case the code wrote it and in upper and lower
 * case), absent from the status map, or the map empty — and reads the verdict.
 *
 * finding.control: { oracle: 'test-status-verdict', shape: 'status' | 'absent' | 'empty',
 *   status: the skip word the code accepts, value: index of a parameter holding the status itself,
 *   map: index of the status-map parameter, key: index of the test-name parameter (keyList: it is a
 *   list the function iterates), ...common Python fields (see oracle-kit.ts) }
 * Other parameters are None. A witness is built only when the status (or the map) is a parameter.
 * confirmed: the flagged line ran and the function returned a passing verdict for a test that did not
 * pass · refuted: it ran and returned a failing verdict (or raised) for every witness · unreached:
 * no parameter carries the status, or no witness ran the line.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, executedLine, firstNonResult, num, outcomesOf, pythonTarget, show, str, truthy, type Oracle, type Witness } from '../../src/confirm/oracle-kit.js';

const TEST = 'tests/test_feature.py::test_required';

function witnesses(params: string[], control: Record<string, unknown>): Witness[] {
  const shape = str(control.shape) ?? 'status';
  const value = num(control.value) ?? -1;
  const map = num(control.map) ?? -1;
  const key = num(control.key) ?? -1;
  const word = str(control.status) || 'SKIPPED';
  const spellings = [...new Set([word, word.toUpperCase(), word.toLowerCase()])];
  const base = (): unknown[] => params.map(() => null);
  const out: Witness[] = [];
  if (shape === 'status' && value >= 0) {
    for (const w of spellings) {
      const args = base();
      args[value] = w;
      out.push({ label: `${params[value]}=${show(w)}`, args: args as Witness['args'] });
    }
    return out;
  }
  if (map < 0) return out;
  const withKey = (args: unknown[]) => {
    if (key >= 0) args[key] = control.keyList === true ? [TEST] : TEST;
    return args;
  };
  const keyLabel = key >= 0 ? `, ${params[key]}=${show(control.keyList === true ? [TEST] : TEST)}` : '';
  if (shape === 'status')
    for (const w of spellings) {
      const args = withKey(base());
      args[map] = { [TEST]: w };
      out.push({ label: `${params[map]}=${show({ [TEST]: w })}${keyLabel}`, args: args as Witness['args'] });
    }
  else {
    const args = withKey(base());
    args[map] = {};
    out.push({ label: `${params[map]}={} (${shape === 'empty' ? 'the suite never ran' : 'the required test is absent'})${keyLabel}`, args: args as Witness['args'] });
  }
  return out;
}

const oracle: Oracle = {
  id: 'test-status-verdict',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const ws = witnesses(t.params, ctx.control);
    if (!ws.length) return { status: 'unreached', detail: 'the status map (or the status) is not a parameter of the function: no witness can set it' };
    const cases = ws.map((w, i) => callCase(t, `w${i}`, w, ctx));
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'a required test that did not pass fails the grade';
        let refuted: Confirmation | undefined;
        for (let i = 0; i < cases.length; i++) {
          const r = results.get(cases[i]!.id);
          if (!r || !executedLine(r, t.file, t.line)) continue;
          if (r.status === 'returned' && truthy(r.value))
            return { status: 'confirmed', witness: ws[i]!.label, expected, observed: `the grade passed (returned ${show(r.value)})`, runId: r.runId };
          if (r.status === 'returned' || r.status === 'raised')
            refuted ??= { status: 'refuted', witness: ws[i]!.label, expected, observed: r.status === 'returned' ? `returned ${show(r.value)}` : `raised ${r.exception?.type}`, runId: r.runId };
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return refuted ?? { status: 'unreached', detail: `no witness reached line ${t.line} (${outcomesOf(cases.map((c) => results.get(c.id)))})`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
