/**
 * Oracle `first-match-lambda`: `[… for x in SRC if COND][0]` in a task lambda. Run by the host's
 * Python exactly as the verifier evals it: with SRC empty it raises IndexError; with two matches in
 * two orders it gives two results.
 *
 * finding.control: { oracle: 'first-match-lambda', code: string (the decoded lambda),
 *   empty?: Spec[]           arguments for which no element matches (default: synthesized from the
 *                            subscript path of SRC, e.g. `dump['layers']` → [{"layers": []}]),
 *   orders?: [Spec[], Spec[]]   the same matches in two orders (optional) }
 * confirmed: IndexError on the empty witness, or different results for the two orders ·
 * refuted: neither · unreached: no witness could be built (and none given).
 */
import type { Confirmation } from '../../engine/types.js';
import type { PyCase, Spec } from '../harness.js';
import { firstNonResult, show, str, type Oracle } from './common.js';

/** Arguments under which the comprehension source is an empty list. */
export function emptyArgs(code: string): Spec[] | undefined {
  const params = /^\s*lambda\s*([^:]*):/.exec(code)?.[1]?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!params?.length) return undefined;
  const m = /\bfor\s+[\w, ()]+\s+in\s+([A-Za-z_]\w*)((?:\s*\[\s*(?:'[^']*'|"[^"]*"|\d+)\s*\])*)/.exec(code);
  if (!m || !params.includes(m[1]!)) return undefined;
  const path = [...m[2]!.matchAll(/\[\s*(?:'([^']*)'|"([^"]*)"|(\d+))\s*\]/g)].map((x) => (x[3] !== undefined ? Number(x[3]) : (x[1] ?? x[2])!));
  let v: Spec = [];
  for (let i = path.length - 1; i >= 0; i--) {
    const k = path[i]!;
    v = typeof k === 'number' ? Array.from({ length: k + 1 }, (_, j) => (j === k ? v : null)) : { [k]: v };
  }
  return params.map((p) => (p === m[1] ? v : null));
}

const oracle: Oracle = {
  id: 'first-match-lambda',
  async plan(ctx) {
    const code = str(ctx.control.code);
    if (code === undefined) return { status: 'unsupported', detail: 'first-match-lambda needs control.code' };
    const empty = (ctx.control.empty as Spec[] | undefined) ?? emptyArgs(code);
    const orders = ctx.control.orders as [Spec[], Spec[]] | undefined;
    const cases: PyCase[] = [];
    if (empty) cases.push({ id: 'empty', op: 'lambda', source: code, args: empty, timeoutMs: ctx.timeoutMs });
    if (orders) cases.push({ id: 'a', op: 'lambda', source: code, args: orders[0], timeoutMs: ctx.timeoutMs }, { id: 'b', op: 'lambda', source: code, args: orders[1], timeoutMs: ctx.timeoutMs });
    if (!cases.length) return { status: 'unreached', detail: 'no witness could be built for this lambda (give control.empty or control.orders)' };
    return {
      cases,
      judge(results): Confirmation {
        const re = results.get('empty');
        if (re?.status === 'raised' && re.exception?.type === 'IndexError')
          return { status: 'confirmed', witness: `${code} called with ${show(empty)}`, expected: 'a failed check when nothing matches', observed: `IndexError: ${re.exception.message}`, runId: re.runId };
        const ra = results.get('a');
        const rb = results.get('b');
        if (ra?.status === 'returned' && rb?.status === 'returned' && JSON.stringify(ra.value) !== JSON.stringify(rb.value))
          return { status: 'confirmed', witness: `the same matches in two orders`, expected: 'one result', observed: `${show(ra.value)} vs ${show(rb.value)}`, runId: ra.runId };
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return { status: 'refuted', witness: show(empty ?? orders), expected: 'IndexError or order-dependent result', observed: `${re ? `${re.status} ${show(re.value ?? re.exception?.type)}` : ''}`, runId: (re ?? ra)?.runId };
      },
    };
  },
};
export default oracle;
