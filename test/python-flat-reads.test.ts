/**
 * Questions the rules ask at every statement or name read of a function, answered without a scan of the
 * function (issue 30, item 5: a flat function of n statements cost n² in the rules once the flow itself
 * was linear): the next statement after a statement (`nextNamed`), whether a read may be unbound (the
 * large reaching-definition set counts its UNBOUND definitions), and the definitions some read uses
 * (`defUse` visits each shared part of the reads' sets once). Each must answer what the scan answered;
 * the work of the visit is counted (definitions handed over), never timed.
 */
import { describe, expect, it } from 'vitest';
import { analysePython } from '../src/lang/python/project.js';
import { defUse } from '../src/lang/python/def-use.js';
import { DefVisitor, unboundCount, unionDefs } from '../src/lang/python/flow/defset.js';
import { named, nextNamed, walk, type PyNode } from '../src/lang/python/tree.js';

interface D { id: number; kind: string }

/** The sets a name's reads see in a flat function of n statements that each bind it on some path only:
 *  every set is the one before it plus a new definition, the first holding the name's UNBOUND one. */
function chain(n: number): Array<ReadonlySet<D>> {
  const sets: Array<ReadonlySet<D>> = [new Set([{ id: 1, kind: 'unbound' }])];
  for (let i = 2; i <= n; i++) sets.push(unionDefs(sets[sets.length - 1]!, new Set([{ id: i, kind: 'assign' }]), false));
  return sets;
}

/** A flat function of n statements of every kind (bench/hostile-shapes.mjs's py-flat-statements). */
function flat(n: number): string {
  const kinds = [
    (i: number) => `    v${i} = state.get(${i})\n`,
    (i: number) => `    if v${i - 1} is None:\n        x = v${i - 1}\n    else:\n        state.log(x)  # x may be None\n`,
    (i: number) => `    for k${i} in state:\n        x = k${i}\n`,
    (i: number) => `    try:\n        x = state[${i}]\n    except KeyError:\n        pass\n`,
    (i: number) => `    # a comment between statements\n    with state.lock():\n        state.put(x, ${i})\n`,
    (i: number) => `    while state.more(${i}):\n        state.step()\n`,
  ];
  return `def grade(state):\n    x = None\n${Array.from({ length: n }, (_, i) => kinds[i % 6]!(i)).join('')}    return x == 1\n`;
}

describe('a flat function: per-read questions without a scan of the function (issue 30)', () => {
  it('a large reaching-definition set counts its UNBOUND definitions, as a walk of it does', () => {
    const sets = chain(300);
    // a union taken in the other direction too (the large set on the right)
    sets.push(unionDefs(new Set([{ id: 1000, kind: 'unbound' }, { id: 1001, kind: 'assign' }]), sets[sets.length - 1]!, false));
    for (const s of sets) expect(unboundCount(s)).toBe([...s].filter((d) => d.kind === 'unbound').length);
  });

  it('visits every definition of many sets that share their parts, each part once', () => {
    const sets = chain(2000);
    const seen = new Set<D>();
    let calls = 0;
    const v = new DefVisitor<D>();
    for (const s of sets) v.visit(s, (d) => { calls++; seen.add(d); });
    // each set holds the ones before it: the last holds every definition
    expect(seen.size).toBe(sets.length);
    for (const d of sets[sets.length - 1]!) expect(seen.has(d)).toBe(true);
    // a visit of every set in full hands over about n²/2 = 2,000,000 definitions
    expect(calls).toBeLessThan(4 * sets.length);
  });

  it('defUse of a flat function uses the definitions the reads reach, as a scan of every read finds', async () => {
    const a = await analysePython(flat(600));
    const fn = a.functions().find((f) => f.qualname === 'grade')!;
    const du = defUse(a, fn);
    const expected = new Set<unknown>();
    const use = (d: { base?: unknown[] }) => {
      if (expected.has(d)) return;
      expected.add(d);
      for (const b of d.base ?? []) use(b as { base?: unknown[] });
    };
    walk(fn.node, (n) => { if (n.type === 'identifier') for (const d of a.reachingDefs(n) ?? []) use(d); });
    expect(new Set(du.used)).toEqual(expected);
    // the read of `x` in the last `else` may be unbound on no path: `x = None` comes first
    expect(a.unboundReads()).toEqual([]);
  });

  it('nextNamed is the next named statement a scan of the parent finds, comments skipped', async () => {
    const a = await analysePython(`${flat(60)}# trailing\nclass C:\n    a = 1  # one\n    # two\n    b = 2\n`);
    let checked = 0;
    walk(a.ast, (n: PyNode) => {
      if (!n.parent || !n.named || n.type === 'comment') return;
      const sibs = named(n.parent);
      expect(nextNamed(n)).toBe(sibs[sibs.indexOf(n) + 1]);
      checked++;
    });
    expect(checked).toBeGreaterThan(500);
  });
});
