/**
 * Oracle `order-dependent-match`: the verdict depends on which of several matches comes first
 * (first match of dict/set/listdir iteration). The same state is given in two insertion orders;
 * two verdicts is the defect.
 *
 * finding.control: { oracle: 'order-dependent-match', ...common Python fields (see common.ts),
 *   witnesses?: [Witness, Witness]   the same matches in two orders (explicit pair), }
 * Default pairs: for each routed entry with a `find` lambda (and, for an absence request, the same
 * entry as a value check), then two synthesized entries, the harness builds two keys that the
 * entry's own `find` accepts, whose (`key`-transformed) targets hold the expected value and another
 * value (`$witness: 'order-state'`), in both orders; the state is the function's second parameter.
 * confirmed: the two orders give different verdicts · refuted: same verdict and the flagged line ran ·
 * unreached: the line never ran, or no two matches could be synthesized.
 */
import type { Confirmation } from '../../src/core/types.js';
import { boundEntries, callCase, executedLine, firstNonResult, itemWitnesses, pythonTarget, show, truthy, type Oracle, type Target, type Witness, outcomesOf } from '../../src/confirm/oracle-kit.js';

function isItem(t: Target): boolean {
  const p = t.params[0];
  return t.params.length >= 2 && !!p && (t.slice.info.reads[p]?.keys.length ?? 0) > 0;
}

const oracle: Oracle = {
  id: 'order-dependent-match',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const pairs: Array<[Witness, Witness]> = [];
    const explicit = ctx.control.witnesses as Witness[] | undefined;
    if (Array.isArray(explicit) && explicit.length >= 2) pairs.push([explicit[0]!, explicit[1]!]);
    else {
      const entries: Array<Record<string, unknown>> = [];
      for (const e of boundEntries(ctx.project, t.file, t.slice.qualname).filter((x) => typeof x.find === 'string')) {
        entries.push(e);
        // an absence request (`value: null`) never compares the matched value: also as a value check
        if (e.value === null || e.value === undefined) entries.push({ ...e, value: 'expected' });
      }
      entries.push(
        { type: 'states', find: 'lambda key, value: key.endswith("._name")', value: 'expected' },
        { type: 'states', find: 'lambda key, value: key.endswith("._name")', key: 'lambda key: key[:-len("._name")] + "._color"', value: 'expected' },
      );
      for (const e of entries.slice(0, 8)) {
        const mk = (order: number): Witness => ({
          label: `${show(e)} with two matches, ${order ? 'second' : 'first'} order`,
          args: [e, { $witness: 'order-state', find: e.find, key: e.key, value: e.value ?? 'expected', order }, ...t.params.slice(2).map(() => null)],
        });
        pairs.push([mk(0), mk(1)]);
      }
    }
      // Entries without a `find` lambda (e.g. `k.endswith(entry["suffix"])`): two state keys built
      // around each string the item carries, one holding the expected value and one another value.
      if (isItem(t)) {
        for (const it of itemWitnesses(t, ctx, 8)) {
          const item: Record<string, unknown> = { ...it, value: 'expected' };
          const strs = Object.entries(item).filter(([k, v]) => k !== 'value' && k !== 'type' && typeof v === 'string' && !/^\s*lambda\b/.test(v)).map(([, v]) => v as string);
          if (!strs.length) continue;
          const first: Array<[string, unknown]> = [];
          const second: Array<[string, unknown]> = [];
          for (const v of strs) {
            first.push([`a.${v}`, 'expected'], [`${v}.a`, 'expected']);
            second.push([`b.${v}`, 'vaudit-other'], [`${v}.b`, 'vaudit-other']);
          }
          const rest = t.params.slice(2).map(() => null);
          pairs.push([
            { label: `${show(item)} with two matching keys, first order`, args: [item, Object.fromEntries([...first, ...second]), ...rest] },
            { label: `${show(item)} with two matching keys, second order`, args: [item, Object.fromEntries([...second, ...first]), ...rest] },
          ]);
          if (pairs.length >= 16) break;
        }
      }
    // Only pairs whose two matches are guaranteed (by the task's own `find`, or given by the rule)
    // can refute; the generic string-field pairs can only confirm.
    const readsFind = !!t.params[0] && (t.slice.info.reads[t.params[0]]?.keys ?? []).includes('find');
    const refuting = new Set(
      pairs.map((_, i) => i).filter((i) => (Array.isArray(explicit) && explicit.length >= 2) || (readsFind && !/with two matching keys/.test(pairs[i]![0].label ?? ''))),
    );
    const cases = pairs.flatMap(([a, b], i) => [callCase(t, `p${i}a`, a, ctx), callCase(t, `p${i}b`, b, ctx)]);
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'the same verdict for both orders of the same matches';
        let refuted: Confirmation | undefined;
        let nowitness: string | undefined;
        for (let i = 0; i < pairs.length; i++) {
          const ra = results.get(`p${i}a`);
          const rb = results.get(`p${i}b`);
          if (ra?.status === 'nowitness' || rb?.status === 'nowitness') {
            nowitness = ra?.detail ?? rb?.detail;
            continue;
          }
          if (firstNonResult([ra, rb])) continue;
          const va = ra!.status === 'returned' ? truthy(ra!.value) : `raised ${ra!.exception?.type}`;
          const vb = rb!.status === 'returned' ? truthy(rb!.value) : `raised ${rb!.exception?.type}`;
          const reached = executedLine(ra, t.file, t.line) || executedLine(rb, t.file, t.line);
          if (va !== vb && reached)
            return { status: 'confirmed', witness: pairs[i]![0].label?.replace(/, first order$/, ' in two orders'), expected, observed: `first order → ${va}, second order → ${vb}`, runId: ra!.runId };
          if (reached && refuting.has(i) && ra!.status === 'returned' && rb!.status === 'returned')
            refuted ??= { status: 'refuted', witness: pairs[i]![0].label, expected, observed: `both orders → ${va}`, runId: ra!.runId };
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)));
        if (nr) return nr;
        return refuted ?? { status: 'unreached', detail: nowitness ?? `no witness reached line ${t.line} (${outcomesOf(cases.map((c) => results.get(c.id)))})` };
      },
    };
  },
};
export default oracle;
