/**
 * Oracle `float-equality`: the comparison run with the value exactly equal to the non-integer expected
 * value and with a value one ulp off (the last bit of a double: what rounding in a correct computation
 * changes, e.g. 0.1 + 0.2 gives 0.30000000000000004, not 0.3).
 *
 * finding.control: { oracle: 'float-equality', ...common Python fields,
 *   value: number            the expected non-integer value (the literal, or the entry's `value`),
 *   other?: string           source of the compared computed operand (slots it names are tried first),
 *   field?: string           entry shape: the item key holding the expected value (the item is the bound
 *                            entry, passed as the parameter that reads this key) }
 * Witnesses: every parameter the function uses (a parameter read by key: each key it reads, or the subscript
 * path the computed operand spells out, `dump["time"]["scale"]`) holds the expected value — as a number, then as its text — in the baseline; each witness puts the value one ulp
 * off into one slot. Parameters the computed operand names are the slots when it names any.
 * confirmed: the flagged line ran in the baseline and in the witness, and the verdict differs ·
 * refuted: both ran it and the verdict is the same (the comparison absorbs the last bit) ·
 * unreached: no baseline and witness pair both returned through the flagged line.
 */
import type { Confirmation } from '../../src/core/types.js';
import type { PyCase } from '../../src/confirm/harness.js';
import { boundEntries, callCase, executedLine, firstNonResult, num, outcomesOf, pythonTarget, show, str, truthy, type Oracle } from '../../src/confirm/oracle-kit.js';

/** The double next to `x`, one unit in the last place away from zero. */
export function ulpOff(x: number): number {
  const f = new Float64Array([x]);
  const bits = new BigInt64Array(f.buffer);
  bits[0] = bits[0]! + 1n;
  return f[0]!;
}

type Slot = { param: number; path: string[] };

const oracle: Oracle = {
  id: 'float-equality',
  async plan(ctx) {
    const value = num(ctx.control.value);
    if (value === undefined || Number.isInteger(value)) return { status: 'unsupported', detail: 'the rule passed no non-integer expected value to compare' };
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const off = ulpOff(value);
    const reads = t.slice.info.reads;
    const field = str(ctx.control.field);
    const item = field ? t.params.findIndex((p) => (reads[p]?.keys ?? []).includes(field)) : -1;
    if (field && item < 0) return { status: 'unsupported', detail: `no parameter of ${t.slice.qualname} reads the entry's "${field}"` };
    const entry = field ? (boundEntries(ctx.project, t.file, t.slice.qualname).find((e) => e[field] === value) ?? { [field]: value }) : undefined;
    const other = str(ctx.control.other) ?? '';
    const used = t.params.map((p, i) => ({ p, i })).filter(({ p, i }) => p !== '_' && i !== item);
    const named = used.filter(({ p }) => new RegExp(String.raw`\b${p}\b`).test(other));
    const slots: Slot[] = [];
    const keysOf = (p: string) => (reads[p]?.keys ?? []).filter((k) => k !== field);
    for (const { p, i } of named.length ? named : used) {
      // a subscript path the computed operand spells out (`dump["time"]["scale"]`), else each key read
      const spelled = [...other.matchAll(new RegExp(String.raw`\b${p}((?:\s*\[\s*(['"])[^'"]*\2\s*\])+)`, 'g'))].map((m) => [...m[1]!.matchAll(/(['"])([^'"]*)\1/g)].map((k) => k[2]!));
      if (spelled.length) for (const path of spelled) slots.push({ param: i, path });
      else if (keysOf(p).length) for (const k of keysOf(p)) slots.push({ param: i, path: [k] });
      else slots.push({ param: i, path: [] });
    }
    if (!slots.length) return { status: 'unsupported', detail: 'the compared value is not an input of the function (no parameter carries it), so no case can set it; the finding stands as a static one' };
    const reprs: Array<(x: number) => unknown> = [(x) => x, (x) => String(x)];
    /** Arguments with every slot holding the expected value (in representation r), `at` one ulp off. */
    const build = (r: number, at?: Slot) => {
      const args: unknown[] = t.params.map(() => null);
      for (const s of slots) {
        const x = reprs[r]!(s === at ? off : value);
        if (!s.path.length) {
          args[s.param] = x;
          continue;
        }
        let o = (args[s.param] ??= {}) as Record<string, unknown>;
        s.path.slice(0, -1).forEach((k) => (o = (o[k] ??= {}) as Record<string, unknown>));
        o[s.path.at(-1)!] = x;
      }
      if (item >= 0) args[item] = entry;
      return args;
    };
    const slotName = (s: Slot) => `${t.params[s.param]}${s.path.map((k) => `[${JSON.stringify(k)}]`).join('')}`;
    const cases: PyCase[] = [];
    const chosen = slots.slice(0, 12);
    reprs.forEach((_, r) => {
      cases.push(callCase(t, `r${r}b`, { label: 'baseline', args: build(r) }, ctx));
      chosen.forEach((s, si) => cases.push(callCase(t, `r${r}s${si}`, { label: slotName(s), args: build(r, s) }, ctx)));
    });
    const label = (r: number, s: Slot) => `${slotName(s)} = ${show(reprs[r]!(off))}, one ulp from the expected ${show(reprs[r]!(value))}${entry ? ` (entry ${show(entry)})` : ''}`;
    return {
      cases,
      judge(results): Confirmation {
        const expected = `a value that differs from ${value} only in its last bit (rounding) gets the same verdict as ${value}`;
        let refuted: Confirmation | undefined;
        for (let r = 0; r < reprs.length; r++) {
          const b = results.get(`r${r}b`);
          if (b?.status !== 'returned' || !executedLine(b, t.file, t.line)) continue;
          for (let si = 0; si < chosen.length; si++) {
            const w = results.get(`r${r}s${si}`);
            if (w?.status !== 'returned' || !executedLine(w, t.file, t.line)) continue;
            if (truthy(w.value) !== truthy(b.value))
              return { status: 'confirmed', witness: label(r, chosen[si]!), expected, observed: `returned ${show(w.value)}, where the exact ${show(reprs[r]!(value))} returned ${show(b.value)}`, runId: w.runId };
            refuted ??= { status: 'refuted', witness: label(r, chosen[si]!), expected, observed: `returned ${show(w.value)}, as the exact ${show(reprs[r]!(value))} did`, runId: w.runId };
          }
        }
        if (refuted) return refuted;
        const all = cases.map((c) => results.get(c.id));
        const nr = firstNonResult(all);
        if (nr) return nr;
        return { status: 'unreached', detail: `no input returned through line ${t.line} both with the exact value and one ulp off (${outcomesOf(all)})`, runId: all.find((x) => x?.runId)?.runId };
      },
    };
  },
};
export default oracle;
