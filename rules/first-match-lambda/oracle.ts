/**
 * Oracle `first-match-lambda`: `[… for x in SRC if COND][0]` in a task lambda. Run by the host's
 * Python exactly as the verifier evals it: with SRC empty it raises IndexError; with two matches in
 * two orders it gives two results.
 *
 * finding.control: { oracle: 'first-match-lambda', code?: string (the decoded lambda; default: the
 *   lambda string the finding points into, from the project's suites),
 *   empty?: Spec[]           arguments for which no element matches (default: synthesized from the
 *                            subscript path of SRC, e.g. `dump['layers']` → [{"layers": []}]),
 *   orders?: [Spec[], Spec[]]   the same matches in two orders (optional) }
 * confirmed: IndexError (or StopIteration for `next()` without a default) on the empty witness, or different results for the two orders ·
 * refuted: neither · unreached: no witness could be built (and none given).
 */
import type { Confirmation } from '../../src/core/types.js';
import type { PyCase, Spec } from '../../src/confirm/harness.js';
import { embeddedAt, firstNonResult, lambdaParams, show, type Oracle } from '../../src/confirm/oracle-kit.js';

/** Arguments under which the comprehension source is an empty list. */
export function emptyArgs(code: string): Spec[] | undefined {
  const params = lambdaParams(code);
  if (!params.length) return undefined;
  const SUBS = String.raw`((?:\s*\[\s*(?:'[^']*'|"[^"]*"|\d+)\s*\])*)`;
  // `[… for x in SRC if …]` / `next(… for x in SRC …)`: SRC empty. `list(SRC.keys())[0]`: SRC an empty mapping.
  const forM = new RegExp(String.raw`\bfor\s+[\w, ()]+?\s+in\s+([A-Za-z_]\w*)` + SUBS).exec(code);
  const filterM = new RegExp(String.raw`\b(?:filter|map)\(.*,\s*([A-Za-z_]\w*)` + SUBS + String.raw`\s*\)`).exec(code);
  const viewM = new RegExp(String.raw`\b(?:list|tuple)\(\s*([A-Za-z_]\w*)` + SUBS + String.raw`\.(?:keys|values|items)\(\)\s*\)`).exec(code);
  // positional record: `dump['layers'][0]` — the state array empty
  const posM = new RegExp(String.raw`\b([A-Za-z_]\w*)((?:\s*\[\s*(?:'[^']*'|"[^"]*")\s*\])+)\s*\[\s*-?\d+\s*\]`).exec(code);
  const ok = (x: RegExpExecArray | null): x is RegExpExecArray => !!x && params.includes(x[1]!);
  const m = ok(forM) ? forM : ok(filterM) ? filterM : ok(viewM) ? viewM : ok(posM) ? posM : undefined;
  if (!m) return undefined;
  const path = [...m[2]!.matchAll(/\[\s*(?:'([^']*)'|"([^"]*)"|(\d+))\s*\]/g)].map((x) => (x[3] !== undefined ? Number(x[3]) : (x[1] ?? x[2])!));
  let v: Spec = m === viewM ? {} : [];
  for (let i = path.length - 1; i >= 0; i--) {
    const k = path[i]!;
    v = typeof k === 'number' ? Array.from({ length: k + 1 }, (_, j) => (j === k ? v : null)) : { [k]: v };
  }
  return params.map((p) => (p === m[1] ? v : null));
}

const oracle: Oracle = {
  id: 'first-match-lambda',
  async plan(ctx) {
    const code = embeddedAt(ctx)?.code;
    if (code === undefined) return { status: 'unsupported', detail: 'vaudit found no lambda string at the finding to run; the finding stands as a static one' };
    const empty = (ctx.control.empty as Spec[] | undefined) ?? emptyArgs(code);
    const orders = ctx.control.orders as [Spec[], Spec[]] | undefined;
    const cases: PyCase[] = [];
    if (empty) cases.push({ id: 'empty', op: 'lambda', source: code, args: empty, timeoutMs: ctx.timeoutMs });
    if (orders) cases.push({ id: 'a', op: 'lambda', source: code, args: orders[0], timeoutMs: ctx.timeoutMs }, { id: 'b', op: 'lambda', source: code, args: orders[1], timeoutMs: ctx.timeoutMs });
    if (!cases.length) return { status: 'unsupported', detail: 'vaudit could not build an input for this lambda (no empty list or reordered list it can call it with); no control case ran, and the finding stands as a static one' };
    return {
      cases,
      judge(results): Confirmation {
        const re = results.get('empty');
        if (re?.status === 'raised' && (re.exception?.type === 'IndexError' || re.exception?.type === 'StopIteration'))
          return { status: 'confirmed', witness: `${code} called with ${show(empty)}`, expected: 'a failed check when nothing matches', observed: `${re.exception.type}: ${re.exception.message}`, runId: re.runId };
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
