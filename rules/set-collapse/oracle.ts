/**
 * Oracle `set-collapse`: a comparison made after set()/frozenset()/dict keys collapses
 * multiplicity. Witnesses duplicate one expected element and drop another occurrence, or add a
 * duplicate line; if that still passes, duplicate or missing lines pass.
 *
 * finding.control: { oracle: 'set-collapse', ...common Python fields (see common.ts),
 *   left?: string, right?: string   source of the compared expressions (the rule passes them),
 *   expectedField?: string   item field holding the expected lines (default 'value'),
 *   observed?: { param: string } | { param: string, key: string } | { self: string }
 *            where the observed output enters: a parameter, a key of a parameter (e.g. the state's
 *            `log`), or a dotted `self` attribute path whose call returns it (e.g. 'manager._call').
 *            Default: every slot the function reads (parameters, their string keys, `self.a.b(` calls)
 *            is tried, as a list and as newline-joined text. }
 * Witness pairs (a baseline with observed == expected, then the collapse witness):
 *   expected [a, b, b] / observed [a, a, b]   (one element duplicated, another occurrence dropped)
 *   expected [a, b]    / observed [a, a, b]   (one line duplicated)
 *   expected [a, b, b] / observed [a, b, c]   (a duplicate line missing, an extra one present)
 *   expected [a, b, b] / observed [a, b, c], baseline expected [a, b]   (containment checks)
 * confirmed: a baseline passes and its collapse witness passes too, at the flagged line ·
 * refuted: baselines pass and the witnesses fail · unreached: no baseline passes.
 */
import type { Confirmation } from '../../src/core/types.js';
import type { PyCase, Spec } from '../../src/confirm/harness.js';
import { boundEntries, callCase, shapedReturn, executedLine, firstNonResult, functionSource, pythonTarget, show, str, truthy, type Oracle, type Target } from '../../src/confirm/oracle-kit.js';

function selfWith(path: string, value: unknown, code: string): Spec {
  const parts = path.split('.');
  let spec: Spec = { $double: 'callable', returns: shapedReturn(code, path, value) };
  for (let i = parts.length - 1; i >= 1; i--) spec = { $double: 'object', attrs: { [parts[i]!]: spec } };
  return { $double: 'self', attrs: { [parts[0]!]: spec } };
}

type Slot = { param: string; key?: string } | { self: string } | { item: string };

function slotName(s: Slot): string {
  if ('self' in s) return `self.${s.self}()`;
  if ('item' in s) return `item[${JSON.stringify(s.item)}]`;
  return s.key ? `${s.param}[${JSON.stringify(s.key)}]` : s.param;
}

/** Where expected and observed values can enter this function. */
function slots(t: Target, ctx: Parameters<Oracle['plan']>[0]): { expected: Slot[]; observed: Slot[] } {
  const field = str(ctx.control.expectedField) ?? 'value';
  const code = functionSource(t);
  const sides = `${str(ctx.control.left) ?? ''} ${str(ctx.control.right) ?? ''}`.trim() || code;
  const reads = t.slice.info.reads;
  const expected: Slot[] = [];
  const observed: Slot[] = [];
  const given = ctx.control.observed as { param?: string; key?: string; self?: string } | undefined;
  const firstKeys = t.params[0] ? (reads[t.params[0]]?.keys ?? []) : [];
  const itemLike = firstKeys.length > 0 || boundEntries(ctx.project, t.file, t.slice.qualname).length > 0;
  if (itemLike) expected.push({ item: firstKeys.includes(field) || !firstKeys.length ? field : firstKeys[0]! });
  // `_` parameters are ignored by the function: no slots spent on them
  const used = t.params.filter((p) => p !== '_');
  for (const p of used) {
    if (itemLike && p === t.params[0]) continue;
    expected.push({ param: p });
  }
  if (given?.self) observed.push({ self: given.self });
  else if (given?.param) observed.push({ param: given.param, ...(given.key ? { key: given.key } : {}) });
  else {
    for (const p of used) {
      if (itemLike && p === t.params[0]) continue;
      for (const k of reads[p]?.keys ?? []) observed.push({ param: p, key: k });
      observed.push({ param: p });
    }
    const selfCall = /\bself\.((?:\w+\.)*\w+)\s*\(/.exec(sides)?.[1] ?? /\bself\.((?:\w+\.)*\w+)\s*\(/.exec(code)?.[1];
    if (selfCall) observed.push({ self: selfCall });
  }
  return { expected, observed };
}

const oracle: Oracle = {
  id: 'set-collapse',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const entries = boundEntries(ctx.project, t.file, t.slice.qualname);
    const base: Record<string, unknown> = entries[0] ?? {};
    const { expected: expSlots, observed: obsSlots } = slots(t, ctx);
    const variants = [
      { exp: ['alpha', 'beta', 'beta'], obs: ['alpha', 'alpha', 'beta'], what: 'one expected element duplicated, another occurrence dropped' },
      { exp: ['alpha', 'beta'], obs: ['alpha', 'alpha', 'beta'], what: 'one line duplicated' },
      { exp: ['alpha', 'beta', 'beta'], obs: ['alpha', 'beta', 'gamma'], what: 'a duplicate line missing, an extra line present' },
      // containment checks: the baseline is a superset ([a, b] within [a, b, gamma]), the witness
      // expects a line twice that the output has once.
      { bexp: ['alpha', 'beta'], exp: ['alpha', 'beta', 'beta'], obs: ['alpha', 'beta', 'gamma'], what: 'an expected line required twice, present once' },
    ] as Array<{ bexp?: string[]; exp: string[]; obs: string[]; what: string }>;
    const reprs = [(ls: string[]) => ls, (ls: string[]) => ls.join('\n')];
    const combos: Array<{ e: Slot; o: Slot; er: number; or: number }> = [];
    for (const e of expSlots)
      for (const o of obsSlots) {
        if ('param' in e && 'param' in o && e.param === o.param) continue;
        for (let er = 0; er < 2; er++) for (let or = 0; or < 2; or++) combos.push({ e, o, er, or });
      }
    if (!combos.length) return { status: 'unsupported', detail: 'vaudit found no parameter or state call through which a control case can hand the function an output; the finding stands as a static one' };
    const chosen = combos.slice(0, 24);
    const build = (c: (typeof chosen)[number], exp: string[], obs: string[]) => {
      const args: unknown[] = t.params.map(() => null);
      let self: Spec | undefined;
      const ev = reprs[c.er]!(exp);
      const ov = reprs[c.or]!(obs);
      if ('item' in c.e) args[0] = { ...base, [c.e.item]: ev };
      else if ('param' in c.e) args[t.params.indexOf(c.e.param)] = ev;
      if ('self' in c.o) self = selfWith(c.o.self, ov, functionSource(t));
      else if ('param' in c.o) {
        const i = t.params.indexOf(c.o.param);
        args[i] = c.o.key ? { ...((args[i] as object | null) ?? {}), [c.o.key]: ov } : ov;
      }
      return { args, ...(self ? { self } : {}) };
    };
    const cases: PyCase[] = [];
    const labels = new Map<string, string>();
    chosen.forEach((c, ci) => {
      variants.forEach((v, vi) => {
        cases.push(callCase(t, `c${ci}v${vi}b`, { label: 'baseline', ...build(c, v.bexp ?? v.exp, v.bexp ? v.obs : v.exp) }, ctx));
        const id = `c${ci}v${vi}w`;
        labels.set(id, `expected ${slotName(c.e)} = ${show(reprs[c.er]!(v.exp))}, observed ${slotName(c.o)} = ${show(reprs[c.or]!(v.obs))} (${v.what})`);
        cases.push(callCase(t, id, { label: labels.get(id), ...build(c, v.exp, v.obs) }, ctx));
      });
    });
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'a different multiset of lines fails the check';
        let refuted: Confirmation | undefined;
        let anyBaseline = false;
        for (let ci = 0; ci < chosen.length; ci++) {
          for (let vi = 0; vi < variants.length; vi++) {
            const rb = results.get(`c${ci}v${vi}b`);
            const rw = results.get(`c${ci}v${vi}w`);
            if (!(rb?.status === 'returned' && truthy(rb.value) && executedLine(rb, t.file, t.line))) continue;
            anyBaseline = true;
            if (rw?.status === 'returned' && truthy(rw.value) && executedLine(rw, t.file, t.line))
              return { status: 'confirmed', witness: labels.get(`c${ci}v${vi}w`), expected, observed: `the check passed (returned ${show(rw.value)})`, runId: rw.runId };
            if (rw && (rw.status === 'returned' || rw.status === 'raised'))
              refuted ??= { status: 'refuted', witness: labels.get(`c${ci}v${vi}w`), expected, observed: rw.status === 'returned' ? `returned ${show(rw.value)}` : `raised ${rw.exception?.type}`, runId: rw.runId };
          }
        }
        if (refuted) return refuted;
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return { status: 'unreached', detail: anyBaseline ? 'no collapse witness ran the flagged comparison' : `no baseline (observed equal to expected) passed through line ${t.line}`, runId: results.get(cases[0]?.id ?? '')?.runId };
      },
    };
  },
};
export default oracle;
