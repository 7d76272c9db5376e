/**
 * Oracle `swallowed-error-verdict`.
 *
 * Shape 'swallowed': calls the function holding the handler (for a decorator factory's handler, a function
 * it decorates) on the default witnesses; an exception raised in the guarded code that ends in a returned
 * value confirms (the exception became the verdict). Never refuted: a witness that raises nothing says
 * nothing about the handler.
 *
 * Shape 'expectedLoad': the handler around the load of the task's
 * expected input. Calls the function with the agent's output a readable file (a line of JSON) and the expected
 * input missing (then present but not of its format), every other parameter None and no options; when the expected
 * input is the verifier's own file, on the default witnesses (its own file is absent in the case folder).
 *
 * finding.control: { oracle: 'swallowed-error-verdict', shape: 'expectedLoad', loadLine: the load's line,
 *   expected / agent: parameter indexes (-1: not a parameter), ...common Python fields }
 * confirmed: an exception was raised at the load and the function returned a failing verdict ·
 * refuted: the exception surfaced (the call raised) · unreached: no witness made the load raise.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, defaultWitnesses, firstNonResult, num, outcomesOf, pythonTarget, show, truthy, type Oracle, type OracleContext, type Plan, type Witness } from '../../src/confirm/oracle-kit.js';

const AGENT_FILE = 'vaudit-agent-output.txt';
const MISSING = 'vaudit-missing-expected.json';
const BROKEN = 'vaudit-broken-expected.json';

const oracle: Oracle = {
  id: 'swallowed-error-verdict',
  async plan(ctx) {
    if (ctx.control.shape === 'swallowed') return swallowedPlan(ctx);
    if (ctx.control.shape !== 'expectedLoad') return { status: 'unsupported', detail: 'swallowed-error-verdict confirms a handler that swallows the guarded code\'s exceptions, or the load of the expected input' };
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const loadLine = num(ctx.control.loadLine) ?? t.line;
    const agent = num(ctx.control.agent) ?? -1;
    // a load of the options (no expected index): the routed expected input is the parameter after the agent's
    const given = num(ctx.control.expected) ?? -1;
    const expected = given >= 0 ? given : agent >= 0 && agent + 1 < t.params.length ? agent + 1 : -1;
    let ws: Witness[];
    if (expected >= 0 && expected < t.params.length) {
      const files = { [AGENT_FILE]: '{"agent": "output"}\n', [BROKEN]: '\u0000 not the expected format {' };
      ws = [MISSING, BROKEN].map((gold) => {
        const args: unknown[] = t.params.map(() => null);
        if (agent >= 0 && agent < args.length) args[agent] = AGENT_FILE;
        args[expected] = gold;
        const label = `${agent >= 0 ? `${t.params[agent]}=${show(AGENT_FILE)} (readable), ` : ''}${t.params[expected]}=${show(gold)} (${gold === MISSING ? 'missing' : 'broken'})`;
        return { label, args: args as Witness['args'], files };
      });
    } else ws = defaultWitnesses(t, ctx);
    const cases = ws.map((w, i) => callCase(t, `w${i}`, w, ctx));
    return {
      cases,
      judge(results): Confirmation {
        const expectedText = 'a missing or broken expected input surfaces as an error, not as a failing verdict';
        let refuted: Confirmation | undefined;
        for (let i = 0; i < cases.length; i++) {
          const r = results.get(cases[i]!.id);
          const raisedAtLoad = r?.events.find((e) => e.file === t.file && e.line === loadLine);
          if (!r || !raisedAtLoad) continue;
          if (r.status === 'returned' && !truthy(r.value))
            return { status: 'confirmed', witness: ws[i]!.label, expected: expectedText, observed: `${raisedAtLoad.type} at line ${loadLine} (the load) became the verdict ${show(r.value)}`, runId: r.runId };
          if (r.status === 'raised') refuted ??= { status: 'refuted', witness: ws[i]!.label, expected: expectedText, observed: `the call raised ${r.exception?.type}`, runId: r.runId };
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return refuted ?? { status: 'unreached', detail: `no witness made the load at line ${loadLine} raise (${outcomesOf(cases.map((c) => results.get(c.id)))})`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
/** Shape 'swallowed': an exception raised between `tryFrom` and `tryTo` (the guarded code, or the decorated
 *  function's body) that ends in a returned value instead of surfacing. */
async function swallowedPlan(ctx: OracleContext): Promise<Plan | Confirmation> {
  const t = await pythonTarget(ctx);
  if (!('slice' in t)) return t;
  const from = num(ctx.control.tryFrom) ?? t.line;
  const to = num(ctx.control.tryTo) ?? t.line;
  const ws = defaultWitnesses(t, ctx);
  const cases = ws.map((w, i) => callCase(t, `s${i}`, w, ctx));
  return {
    cases,
    judge(results): Confirmation {
      const expected = 'an exception in the check surfaces as an error, not as a verdict';
      for (let i = 0; i < cases.length; i++) {
        const r = results.get(cases[i]!.id);
        const e = r?.events.find((x) => x.file === t.file && x.line >= from && x.line <= to);
        if (r?.status === 'returned' && e)
          return { status: 'confirmed', witness: ws[i]!.label, expected, observed: `${e.type} at line ${e.line} (${e.message.slice(0, 80)}) became the verdict ${show(r.value)}`, runId: r.runId };
      }
      const nr = firstNonResult(cases.map((c) => results.get(c.id)));
      if (nr) return nr;
      return { status: 'unreached', detail: `no witness raised between lines ${from} and ${to} (${outcomesOf(cases.map((c) => results.get(c.id)))})`, runId: results.get(cases[0]?.id ?? '')?.runId };
    },
  };
}

export default oracle;
