/**
 * Oracle `unbound-name`: the flagged function runs on its witnesses under the harness's tracer;
 * a NameError/UnboundLocalError raised AT the flagged line (even if a decorator swallowed it) is
 * the defect.
 *
 * finding.control: { oracle: 'unbound-name', name?: string, ...common Python fields (see common.ts) }
 *   name: the unbound identifier (when given, the exception message must mention it).
 * In a lambda embedded in task JSON (the finding's file is the JSON file; the code comes from
 * control.code or the project's suites), the lambda is evaluated as the verifier does (builtins
 * only) and called with string, mapping, list and None arguments; a NameError for `name` confirms.
 * A lambda that returns without evaluating the name is `unreached` (never refuted: the lookup
 * would fail whenever that branch runs).
 * confirmed: the error was raised at the line · refuted: the line ran on some witness without it ·
 * unreached: no witness reached the line · non-results pass through.
 */
import type { Confirmation } from '../../src/core/types.js';
import type { PyCase } from '../../src/confirm/harness.js';
import { callCase, defaultWitnesses, embeddedAt, executedLine, firstNonResult, lambdaParams, pythonTarget, show, str, type Oracle, outcomesOf } from '../../src/confirm/oracle-kit.js';

const LAMBDA_ARGS: unknown[] = ['a.b.(1,)._name', { name: 'x', value: 1 }, ['x'], null, 0];

const oracle: Oracle = {
  id: 'unbound-name',
  async plan(ctx) {
    if (str(ctx.control.file) === undefined && /\.json$/i.test(ctx.finding.file)) {
      const facts = embeddedAt(ctx);
      if (!facts || facts.language !== 'python') return { status: 'unsupported', detail: 'unbound-name: no lambda string found at the finding' };
      const name = str(ctx.control.name);
      const n = lambdaParams(facts.code).length;
      const cases: PyCase[] = LAMBDA_ARGS.map((a, i) => ({ id: `l${i}`, op: 'lambda', source: facts.code, args: Array.from({ length: n }, () => a), timeoutMs: ctx.timeoutMs }));
      return {
        cases,
        judge(results): Confirmation {
          for (let i = 0; i < cases.length; i++) {
            const r = results.get(cases[i]!.id);
            const hit = r?.events.find((e) => e.type === 'NameError' && (!name || e.message.includes(`'${name}'`)));
            if (r && hit)
              return { status: 'confirmed', witness: `${facts.code} called with ${show((cases[i] as { args: unknown[] }).args)}`, expected: 'no NameError', observed: `NameError: ${hit.message}`, runId: r.runId };
          }
          const nr = firstNonResult(cases.map((c) => results.get(c.id)));
          if (nr) return nr;
          return { status: 'unreached', detail: `no witness evaluated ${name ?? 'the name'}`, runId: results.get('l0')?.runId };
        },
      };
    }
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
        return { status: 'unreached', detail: `none of ${cases.length} witnesses reached line ${t.line} (${outcomesOf(cases.map((c) => results.get(c.id)))})`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
