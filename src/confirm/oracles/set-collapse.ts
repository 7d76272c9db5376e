/**
 * Oracle `set-collapse`: a comparison made after set()/dict-keys collapses multiplicity. The
 * witness duplicates one expected element and drops a distinct one; if that still compares equal,
 * duplicate or missing lines pass.
 *
 * finding.control: { oracle: 'set-collapse', ...common Python fields (see common.ts),
 *   expectedField?: string   item field holding the expected lines (default 'value'),
 *   observed?: { param: string } | { self: string }   where the observed output enters: a parameter
 *             name, or a dotted `self` attribute path whose call returns it (e.g. 'manager._call').
 *             Default: a parameter (other than the item) or a `self.a.b(` call named in the compared
 *             expressions `left`/`right` (which the rule passes), else the last parameter. }
 * Two witness pairs, each a baseline (observed == expected) and a collapse witness:
 *   expected [a, b, b] / observed [a, a, b]  (one element duplicated, another occurrence dropped)
 *   expected [a, b]    / observed [a, a, b]  (one line duplicated)
 * confirmed: a baseline passes and its collapse witness passes too · refuted: baselines pass and the
 * witnesses fail · unreached: no baseline passes (the witness never reached the comparison).
 */
import type { Confirmation } from '../../engine/types.js';
import type { PyCase, Spec } from '../harness.js';
import { boundEntries, callCase, firstNonResult, pythonTarget, show, str, truthy, type Oracle } from './common.js';

function selfWith(path: string, value: unknown): Spec {
  const parts = path.split('.');
  let spec: Spec = { $double: 'callable', returns: value };
  for (let i = parts.length - 1; i >= 1; i--) spec = { $double: 'object', attrs: { [parts[i]!]: spec } };
  return { $double: 'self', attrs: { [parts[0]!]: spec } };
}

const oracle: Oracle = {
  id: 'set-collapse',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const field = str(ctx.control.expectedField) ?? 'value';
    const entries = boundEntries(ctx.project, t.file, t.slice.qualname);
    const base: Record<string, unknown> = entries.find((e) => Array.isArray(e[field]) || typeof e[field] === 'string') ?? { type: 'info', [field]: 'alpha\nbeta' };
    const raw = base[field];
    const asList = Array.isArray(raw);
    let lines: unknown[] = asList ? (raw as unknown[]) : String(raw).split('\n');
    if (new Set(lines.map((x) => JSON.stringify(x))).size < 2) lines = asList ? ['alpha', 'beta'] : ['alpha', 'beta'];
    const pack = (ls: unknown[]) => (asList ? ls : ls.join('\n'));
    const [a, b] = lines as [unknown, unknown];
    const rest = lines.slice(2);
    // W1: expected [a, b, b, …], observed [a, a, b, …]: one expected element duplicated, another
    //     occurrence dropped: same length, same set, different multiset.
    // W2: expected [a, b, …], observed [a, a, b, …]: one duplicated line.
    const variants = [
      { exp: pack([a, b, b, ...rest]), obs: pack([a, a, b, ...rest]), what: 'one expected element duplicated, another occurrence dropped' },
      { exp: pack([a, b, ...rest]), obs: pack([a, a, b, ...rest]), what: 'one line duplicated' },
    ];
    let obs = ctx.control.observed as { param?: string; self?: string } | undefined;
    if (!obs) {
      const sides = `${str(ctx.control.left) ?? ''} ${str(ctx.control.right) ?? ''}`;
      const p = t.params.slice(1).find((x) => new RegExp(`\\b${x}\\b`).test(sides));
      const selfCall = /\bself\.((?:\w+\.)*\w+)\s*\(/.exec(sides)?.[1];
      obs = p ? { param: p } : selfCall ? { self: selfCall } : undefined;
    }
    const build = (expectedVal: unknown, observed: unknown) => {
      const item = { ...base, [field]: expectedVal };
      if (obs?.self) return { self: selfWith(obs.self, observed), args: [item, ...t.params.slice(1).map(() => null)] };
      const idx = obs?.param ? t.params.indexOf(obs.param) : t.params.length - 1;
      if (idx <= 0) return undefined;
      const args: unknown[] = t.params.map(() => null);
      args[0] = item;
      args[idx] = observed;
      return { args };
    };
    const cases: PyCase[] = [];
    const labels: string[] = [];
    for (let i = 0; i < variants.length; i++) {
      const v = variants[i]!;
      const bl = build(v.exp, v.exp);
      const w = build(v.exp, v.obs);
      if (!bl || !w) return { status: 'unsupported', detail: 'set-collapse needs control.observed (the parameter or self call that carries the observed output)' };
      labels.push(`expected ${show(v.exp)}, observed ${show(v.obs)} (${v.what})`);
      cases.push(callCase(t, `baseline${i}`, { label: 'observed equal to expected', ...bl }, ctx), callCase(t, `collapse${i}`, { label: labels[i], ...w }, ctx));
    }
    return {
      cases,
      judge(results): Confirmation {
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        const expected = 'a different multiset of lines fails the check';
        let refuted: Confirmation | undefined;
        let unreached: Confirmation | undefined;
        for (let i = 0; i < variants.length; i++) {
          const rb = results.get(`baseline${i}`)!;
          const rw = results.get(`collapse${i}`)!;
          if (!(rb.status === 'returned' && truthy(rb.value))) {
            unreached ??= { status: 'unreached', detail: `the baseline (observed equal to expected) did not pass: ${rb.status} ${show(rb.value ?? rb.exception)}`, runId: rb.runId };
            continue;
          }
          if (rw.status === 'returned' && truthy(rw.value)) return { status: 'confirmed', witness: labels[i], expected, observed: `the check passed (returned ${show(rw.value)})`, runId: rw.runId };
          refuted ??= { status: 'refuted', witness: labels.join('; '), expected, observed: rw.status === 'returned' ? `returned ${show(rw.value)}` : `raised ${rw.exception?.type}`, runId: rw.runId };
        }
        return refuted ?? unreached!;
      },
    };
  },
};
export default oracle;
