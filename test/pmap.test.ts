/**
 * The flow analysis's persistent map (src/lang/python/flow/pmap.ts) against a plain Map: random sets and
 * deletes over derived versions (old versions unchanged), `diff` reporting exactly the keys two versions
 * differ in (by identity, absent as undefined), the `#` keys listed apart, and the digest of a version
 * equal to that of a map built afresh from its entries in another order.
 */
import { describe, expect, it } from 'vitest';
import { PMap } from '../src/lang/python/flow/pmap.js';
import { defsDigest, unionDefs } from '../src/lang/python/flow/defset.js';
import { rng } from './helpers/rng.js';

type Val = { v: number };

/** `set` with the value's number as its content digest. */
const put = (p: PMap<Val>, k: string, v: Val) => p.set(k, v, v.v);

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
      else { const v = vals[Math.floor(rand() * vals.length)]!; p = put(from.p, key, v); m.set(key, v); }
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
      // the digest depends on the entries only, not on the sets and deletes that made the map
      let fresh = PMap.empty<Val>();
      for (const k of [...m.keys()].sort().reverse()) fresh = put(fresh, k, m.get(k)!);
      expect(p.digest).toBe(fresh.digest);
    }
  });

  it('diff reports exactly the keys two versions differ in', () => {
    const rand = rng(31);
    const vals = Array.from({ length: 5 }, (_, i) => ({ v: i }));
    let base = PMap.empty<Val>();
    for (let i = 0; i < 3000; i++) base = put(base, `1:n${i}`, vals[i % 5]!);
    for (let t = 0; t < 100; t++) {
      let a = base;
      let b = base;
      for (let j = 0; j < 1 + Math.floor(rand() * 20); j++) {
        const k = `1:n${Math.floor(rand() * 3200)}`;
        const v = vals[Math.floor(rand() * 5)]!;
        if (rand() < 0.5) a = rand() < 0.3 ? a.delete(k) : put(a, k, v);
        else b = rand() < 0.3 ? b.delete(k) : put(b, k, v);
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
    const m = put(put(PMap.empty<Val>(), 'a', v), 'b', { v: 2 });
    expect(put(m, 'a', v)).toBe(m);
    expect(m.delete('zz')).toBe(m);
  });
});

describe('content digests', () => {
  it('maps that differ in one entry differ in digest; the same entries made apart agree', () => {
    const vals = Array.from({ length: 40 }, (_, i) => ({ v: i }));
    let a = PMap.empty<Val>();
    let b = PMap.empty<Val>();
    for (let i = 0; i < 40; i++) a = put(a, `1:n${i}`, vals[i]!);
    // other value objects of the same content, set in another order
    for (let i = 39; i >= 0; i--) b = put(b, `1:n${i}`, { v: i });
    expect(b.digest).toBe(a.digest);
    // a value moved to another key, a changed value, a key removed
    expect(put(put(a, '1:n0', vals[1]!), '1:n1', vals[0]!).digest).not.toBe(a.digest);
    expect(put(a, '1:n7', vals[8]!).digest).not.toBe(a.digest);
    expect(a.delete('1:n3').digest).not.toBe(a.digest);
    expect(put(a.delete('1:n3'), '1:n3', { v: 3 }).digest).toBe(a.digest);
  });

  it('a set of definitions has the digest of its definitions in any order, small or large', () => {
    const defs = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, kind: 'assign' }));
    let big: ReadonlySet<{ id: number; kind: string }> = new Set(defs.slice(0, 20));
    big = unionDefs(big, new Set(defs.slice(20)), false);
    const reversed = unionDefs(new Set(defs.slice(50).reverse()), new Set(defs.slice(0, 50)), false);
    expect(defsDigest(reversed)).toBe(defsDigest(big));
    expect(defsDigest(new Set([defs[1]!, defs[0]!]))).toBe(defsDigest(new Set([defs[0]!, defs[1]!])));
    expect(defsDigest(unionDefs(big, new Set([{ id: 500, kind: 'assign' }]), false))).not.toBe(defsDigest(big));
  });
});
