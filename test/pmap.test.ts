/**
 * The flow analysis's persistent map (src/lang/python/flow/pmap.ts) against a plain Map: random sets and
 * deletes over derived versions (old versions unchanged), `diff` reporting exactly the keys two versions
 * differ in (by identity, absent as undefined), and the `#` keys listed apart.
 */
import { describe, expect, it } from 'vitest';
import { PMap } from '../src/lang/python/flow/pmap.js';
import { rng } from './helpers/rng.js';

type Val = { v: number };

function entries(m: PMap<Val>): Map<string, Val> {
  const out = new Map<string, Val>();
  m.forEach((v, k) => out.set(k, v));
  return out;
}

describe('PMap', () => {
  it('matches a Map under random sets and deletes, and keeps every earlier version', () => {
    const rand = rng(30);
    const versions: Array<{ p: PMap<Val>; m: Map<string, Val> }> = [{ p: PMap.empty<Val>(), m: new Map() }];
    const vals = Array.from({ length: 50 }, (_, i) => ({ v: i }));
    for (let step = 0; step < 4000; step++) {
      const from = versions[Math.floor(rand() * versions.length)]!;
      const key = `${rand() < 0.1 ? '#' : ''}${Math.floor(rand() * 3)}:k${Math.floor(rand() * 600)}`;
      let p: PMap<Val>;
      const m = new Map(from.m);
      if (rand() < 0.25) { p = from.p.delete(key); m.delete(key); }
      else { const v = vals[Math.floor(rand() * vals.length)]!; p = from.p.set(key, v); m.set(key, v); }
      versions.push({ p, m });
      if (versions.length > 200) versions.splice(1, 1);
    }
    for (const { p, m } of versions) {
      expect(p.size).toBe(m.size);
      expect(entries(p)).toEqual(m);
      for (const [k, v] of m) expect(p.get(k)).toBe(v);
      expect(p.get('nope')).toBeUndefined();
      expect(p.hashKeyList().sort()).toEqual([...m.keys()].filter((k) => k.startsWith('#')).sort());
      expect(p.hashKeys).toBe([...m.keys()].filter((k) => k.startsWith('#')).length);
    }
  });

  it('diff reports exactly the keys two versions differ in', () => {
    const rand = rng(31);
    const vals = Array.from({ length: 5 }, (_, i) => ({ v: i }));
    let base = PMap.empty<Val>();
    for (let i = 0; i < 3000; i++) base = base.set(`1:n${i}`, vals[i % 5]!);
    for (let t = 0; t < 100; t++) {
      let a = base;
      let b = base;
      for (let j = 0; j < 1 + Math.floor(rand() * 20); j++) {
        const k = `1:n${Math.floor(rand() * 3200)}`;
        const v = vals[Math.floor(rand() * 5)]!;
        if (rand() < 0.5) a = rand() < 0.3 ? a.delete(k) : a.set(k, v);
        else b = rand() < 0.3 ? b.delete(k) : b.set(k, v);
      }
      const ea = entries(a);
      const eb = entries(b);
      const want = new Map<string, [Val | undefined, Val | undefined]>();
      for (const k of new Set([...ea.keys(), ...eb.keys()])) if (ea.get(k) !== eb.get(k)) want.set(k, [ea.get(k), eb.get(k)]);
      const got = new Map<string, [Val | undefined, Val | undefined]>();
      PMap.diff(a, b, (k, va, vb) => { expect(got.has(k)).toBe(false); got.set(k, [va, vb]); });
      expect(got).toEqual(want);
    }
  });

  it('a set of the value already held returns the same map', () => {
    const v = { v: 1 };
    const m = PMap.empty<Val>().set('a', v).set('b', { v: 2 });
    expect(m.set('a', v)).toBe(m);
    expect(m.delete('zz')).toBe(m);
  });
});
