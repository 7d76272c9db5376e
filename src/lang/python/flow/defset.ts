/**
 * A persistent insertion-ordered set of definitions, for the reaching definitions a join makes large.
 * A name bound on some paths only (`if c: x = …`, a loop or `try` that binds it) keeps every earlier
 * definition, so its set grows with the function; a join that copied the set (a native `Set` cannot
 * put the branch's own definition first and share the rest) made a flat function of n such statements
 * cost n² (issue 30). `unionDefs(a, b)` is a's definitions then b's new ones, as adding b to a copy of a
 * would give, at the cost of the smaller set: the result shares both sets' membership trie and order.
 *
 * Sets of up to `SMALL` definitions stay native `Set`s (built as before); both kinds are read only
 * through `ReadonlySet` (`size`, `has`, iteration in order).
 */
import { mix32 } from './mix.js';

/** What the set holds: a flow definition (`Def` of state.ts, which imports this module), known here by its
 *  id and kind (a set counts its UNBOUND definitions). */
interface Def {
  readonly id: number;
  readonly kind?: string;
}

const isUnbound = (d: Def) => (d.kind === 'unbound' ? 1 : 0);

/** A definition's share of a set's digest (`defsDigest`). */
const idShare = (d: Def) => mix32(d.id);

const BITS = 5;
const MASK = (1 << BITS) - 1;
/** A union of at most this many definitions is a native `Set`. */
const SMALL = 32;

/** Membership: a hash array mapped trie keyed by the definition's id (ids are unique: no collisions). */
class Branch {
  constructor(readonly bitmap: number, readonly kids: ReadonlyArray<Branch | Def>) {}
}
type Trie = Branch | Def | undefined;

const popcount = (x: number) => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
};

function trieHas(t: Trie, d: Def): boolean {
  const id = d.id;
  let shift = 0;
  while (t) {
    if (!(t instanceof Branch)) return t === d;
    const bit = 1 << ((id >>> shift) & MASK);
    if (!(t.bitmap & bit)) return false;
    t = t.kids[popcount(t.bitmap & (bit - 1))];
    shift += BITS;
  }
  return false;
}

/** The trie with `d` (`t` itself when it holds `d`). */
function trieAdd(t: Trie, d: Def, shift: number): Branch | Def {
  if (!t) return d;
  if (!(t instanceof Branch)) {
    if (t === d) return t;
    return pair(t, d, shift);
  }
  const bit = 1 << ((d.id >>> shift) & MASK);
  const i = popcount(t.bitmap & (bit - 1));
  if (!(t.bitmap & bit)) {
    const kids = t.kids.slice();
    kids.splice(i, 0, d);
    return new Branch(t.bitmap | bit, kids);
  }
  const old = t.kids[i]!;
  const kid = trieAdd(old, d, shift + BITS);
  if (kid === old) return t;
  const kids = t.kids.slice();
  kids[i] = kid;
  return new Branch(t.bitmap, kids);
}

function pair(a: Def, b: Def, shift: number): Branch {
  const ia = (a.id >>> shift) & MASK;
  const ib = (b.id >>> shift) & MASK;
  if (ia === ib) return new Branch(1 << ia, [pair(a, b, shift + BITS)]);
  return new Branch((1 << ia) | (1 << ib), ia < ib ? [a, b] : [b, a]);
}

/** Order: the definitions of the left part, then the right's (a definition already met is skipped). */
class Cat {
  constructor(readonly left: Seq, readonly right: Seq) {}
}
type Seq = readonly Def[] | Cat;

function* walk(seq: Seq, dups: boolean): Generator<Def, undefined, unknown> {
  const seen = dups ? new Set<Def>() : undefined;
  const stack: Seq[] = [seq];
  while (stack.length) {
    const s = stack.pop()!;
    if (s instanceof Cat) {
      stack.push(s.right, s.left);
      continue;
    }
    for (const d of s) {
      if (seen) {
        if (seen.has(d)) continue;
        seen.add(d);
      }
      yield d;
    }
  }
  return undefined;
}

class DefSet implements ReadonlySet<Def> {
  /** The definitions in order, made by the first iteration (the rules read a set at a name read
   *  several times: unbound counts, value sources, def-use). */
  private list: readonly Def[] | undefined;
  /** `raw`: the definitions `seq` lists, counting those listed again (then iteration skips them);
   *  `unbound`: how many of the definitions are UNBOUND ones; `digest`: the sum of their shares (`defsDigest`). */
  private constructor(private readonly trie: Trie, readonly seq: Seq, readonly size: number, private readonly raw: number, readonly unbound: number, readonly digest: number) {}

  private all(): readonly Def[] {
    if (!this.list) this.list = this.seq instanceof Cat || this.raw !== this.size ? [...walk(this.seq, this.raw !== this.size)] : this.seq;
    return this.list;
  }

  /** The persistent set of a native set's definitions (each native set is converted once). */
  static of(s: ReadonlySet<Def>): DefSet {
    if (s instanceof DefSet) return s;
    let d = converted.get(s);
    if (!d) {
      const list = [...s];
      let t: Trie;
      let unbound = 0;
      let digest = 0;
      for (const x of list) {
        t = trieAdd(t, x, 0);
        unbound += isUnbound(x);
        digest = (digest + idShare(x)) >>> 0;
      }
      d = new DefSet(t, list, list.length, list.length, unbound, digest);
      converted.set(s, d);
    }
    return d;
  }

  has(d: Def): boolean {
    return trieHas(this.trie, d);
  }

  [Symbol.iterator](): SetIterator<Def> {
    return this.all().values();
  }
  values(): SetIterator<Def> {
    return this.all().values();
  }
  keys(): SetIterator<Def> {
    return this.all().values();
  }
  *entries(): SetIterator<[Def, Def]> {
    for (const d of this) yield [d, d];
    return undefined;
  }
  forEach(f: (value: Def, value2: Def, set: ReadonlySet<Def>) => void, thisArg?: unknown): void {
    for (const d of this) f.call(thisArg, d, d, this);
  }

  /** a's definitions, then b's that a lacks; costs the smaller set (and a flattening when the order
   *  lists more than twice the definitions it holds). */
  static union(a: DefSet, b: DefSet): DefSet {
    if (b.size <= a.size) {
      const add: Def[] = [];
      let t = a.trie;
      let unbound = a.unbound;
      let digest = a.digest;
      for (const d of b) {
        if (trieHas(t, d)) continue;
        add.push(d);
        t = trieAdd(t, d, 0);
        unbound += isUnbound(d);
        digest = (digest + idShare(d)) >>> 0;
      }
      if (!add.length) return new DefSet(a.trie, a.seq, a.size, a.raw, a.unbound, a.digest);
      return new DefSet(t, new Cat(a.seq, add), a.size + add.length, a.raw + add.length, unbound, digest);
    }
    let t = b.trie;
    let common = 0;
    let unbound = b.unbound;
    let digest = b.digest;
    for (const d of a) {
      if (trieHas(t, d)) common++;
      else {
        t = trieAdd(t, d, 0);
        unbound += isUnbound(d);
        digest = (digest + idShare(d)) >>> 0;
      }
    }
    const size = a.size + b.size - common;
    const raw = a.raw + b.raw;
    const seq = new Cat(a.seq, b.seq);
    if (raw > 2 * size + SMALL) {
      const list = [...walk(seq, true)];
      return new DefSet(t, list, size, size, unbound, digest);
    }
    return new DefSet(t, seq, size, raw, unbound, digest);
  }
}

const converted = new WeakMap<ReadonlySet<Def>, DefSet>();

/**
 * The union of `a` and `b` in order (a's definitions, then b's new ones), always a new set: `a` itself
 * when `mine` (a native set made by the caller, not yet shared) and the union stays small.
 */
export function unionDefs<T extends Def>(a: ReadonlySet<T>, b: ReadonlySet<T>, mine: boolean): ReadonlySet<T> {
  if (a.size + b.size <= SMALL && !(a instanceof DefSet)) {
    const u = mine ? (a as Set<T>) : new Set(a);
    for (const x of b) u.add(x);
    return u;
  }
  // a DefSet holds only what it was given: the union of two sets of T is a set of T
  return DefSet.union(DefSet.of(a), DefSet.of(b)) as unknown as ReadonlySet<T>;
}

/**
 * A digest of the definitions a set holds, whatever their order: the sum of a share of each one's id
 * (modulo 2^32). Sets holding the same definitions have the same digest, so a different digest proves
 * two sets differ; a large set keeps its own (summed as unions build it), a small one is summed here.
 */
export function defsDigest(s: ReadonlySet<Def>): number {
  if (s instanceof DefSet) return s.digest;
  let h = 0;
  for (const d of s) h = (h + idShare(d)) >>> 0;
  return h;
}

/** How many UNBOUND definitions a set holds (a large set knows it: no walk over its order). */
export function unboundCount(s: ReadonlySet<Def>): number {
  if (s instanceof DefSet) return s.unbound;
  let n = 0;
  for (const d of s) n += isUnbound(d);
  return n;
}

/**
 * Visit the definitions of many sets, each part of their shared order once: `f` sees every definition of
 * every set given, and may see a definition again (from another part or a small set). The sets at the
 * reads of a function share their parts (each join adds to the sets before it), so a visit of every
 * read's set in full cost the reads × the definitions (issue 30: a flat function of n statements, n²);
 * this one costs the parts made, which the flow analysis made one by one.
 */
export class DefVisitor<T extends Def> {
  private readonly seen = new Set<Seq>();

  visit(s: ReadonlySet<T>, f: (d: T) => void): void {
    if (!(s instanceof DefSet)) {
      for (const d of s) f(d);
      return;
    }
    const stack: Seq[] = [s.seq];
    while (stack.length) {
      const q = stack.pop()!;
      if (this.seen.has(q)) continue;
      this.seen.add(q);
      if (q instanceof Cat) stack.push(q.right, q.left);
      // a DefSet holds only what it was given: the sets of T list only T
      else for (const d of q) f(d as T);
    }
  }
}
