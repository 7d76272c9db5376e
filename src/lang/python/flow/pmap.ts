/**
 * A persistent string-keyed map (hash array mapped trie) for the flow analysis's states: `set` and
 * `delete` return a new map that shares every untouched subtree with the old one (O(log n) new nodes,
 * never a copy of the whole map), and `diff` visits only the entries two maps differ in, skipping the
 * subtrees they share. The flow analysis binds a name by `set` and joins branches by their differences,
 * so its cost grows with the bindings and branches of a function, not with names × bindings (issue 30).
 *
 * Keys starting with `#` (the flow's pure-atom facts) hash into the root's slot 0 and no other key does,
 * so `prefixed('#')`-style scans (`hashKeys`) visit the facts only.
 *
 * Each entry carries a digest of its value's content, given by the caller, and the map keeps the sum of
 * its entries' digests over key and value (`digest`), updated by each `set` and `delete`: maps holding
 * equal content have equal digests whatever their nodes, so different digests prove two maps differ
 * without visiting them (maps of the same content built on separate paths share no node: issue 30).
 */
import { mix32 } from './mix.js';

const BITS = 5;
const MASK = (1 << BITS) - 1;

class Leaf<V> {
  /** `digest`: the caller's digest of the value's content. */
  constructor(readonly key: string, readonly hash: number, readonly value: V, readonly digest: number) {}
}
class Branch<V> {
  constructor(readonly bitmap: number, readonly kids: Array<PNode<V>>) {}
}
/** Keys whose 32-bit hashes are equal (below the last level of branches). */
class Collision<V> {
  constructor(readonly hash: number, readonly leaves: Array<Leaf<V>>) {}
}
type PNode<V> = Leaf<V> | Branch<V> | Collision<V>;

/** FNV-1a; `#` keys land in the root's slot 0, every other key outside it. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h >>>= 0;
  if (key.charCodeAt(0) === 35) return (h & ~MASK) >>> 0;
  return (h & MASK) === 0 ? (h | 1) >>> 0 : h;
}

/** An entry's share of its map's digest (the key's hash and its value's digest, mixed together). */
const share = (l: Leaf<unknown>) => mix32(l.hash + Math.imul(l.digest, 0x9e3779b1));

/** What an `insert` or `remove` did: a key added, or the entry it replaced or removed. */
interface Change<V> {
  added: boolean;
  old: Leaf<V> | undefined;
}

const popcount = (x: number) => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
};

/** Nodes made or visited since the last `takeWork` (the flow's step budget counts them). */
let lastWork = 0;

/** The work done since the last call, and a fresh count. */
export function takeWork(): number {
  const w = lastWork;
  lastWork = 0;
  return w;
}

export class PMap<V> {
  /** `digest`: the sum of the entries' shares (`share`), modulo 2^32: equal content, equal digest. */
  private constructor(private readonly root: PNode<V> | undefined, readonly size: number, readonly hashKeys: number, readonly digest: number) {}

  private static readonly EMPTY = new PMap<never>(undefined, 0, 0, 0);
  static empty<V>(): PMap<V> {
    return PMap.EMPTY as PMap<V>;
  }

  get(key: string): V | undefined {
    let n = this.root;
    const h = hashOf(key);
    let shift = 0;
    while (n) {
      if (n instanceof Branch) {
        const bit = 1 << ((h >>> shift) & MASK);
        if (!(n.bitmap & bit)) return undefined;
        n = n.kids[popcount(n.bitmap & (bit - 1))];
        shift += BITS;
      } else if (n instanceof Leaf) return n.key === key ? n.value : undefined;
      else {
        for (const l of n.leaves) if (l.key === key) return l.value;
        return undefined;
      }
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The map with `key` bound to `value` (this map itself when it already holds that very value).
   *  `digest`: the value's content digest (values of equal content must be given equal digests). */
  set(key: string, value: V, digest: number): PMap<V> {
    const leaf = new Leaf(key, hashOf(key), value, digest >>> 0);
    const ch: Change<V> = { added: !this.root, old: undefined };
    const root = this.root ? insert(this.root, 0, leaf, ch) : leaf;
    if (root === this.root) return this;
    const fact = key.charCodeAt(0) === 35;
    const sum = (this.digest + share(leaf) - (ch.old ? share(ch.old) : 0)) >>> 0;
    return new PMap(root, this.size + (ch.added ? 1 : 0), this.hashKeys + (ch.added && fact ? 1 : 0), sum);
  }

  /** The map without `key` (this map itself when it has no such key). */
  delete(key: string): PMap<V> {
    if (!this.root) return this;
    const ch: Change<V> = { added: false, old: undefined };
    const root = remove(this.root, 0, key, hashOf(key), ch);
    if (root === this.root) return this;
    return new PMap(root ?? undefined, this.size - 1, this.hashKeys - (key.charCodeAt(0) === 35 ? 1 : 0), (this.digest - share(ch.old!)) >>> 0);
  }

  forEach(f: (value: V, key: string) => void): void {
    if (this.root) each(this.root, f);
  }

  /** Every `#` key (the root's slot 0 holds them all). */
  hashKeyList(): string[] {
    const out: string[] = [];
    if (!this.hashKeys || !this.root) return out;
    const r = this.root;
    const take = (_: V, k: string) => { if (k.charCodeAt(0) === 35) out.push(k); };
    if (r instanceof Branch) { if (r.bitmap & 1) each(r.kids[0]!, take); }
    else each(r, take);
    return out;
  }

  /**
   * Call `f(key, a, b)` for every key whose value differs between `a` and `b` (by identity; undefined
   * where a map lacks the key), visiting only the subtrees the two maps do not share.
   */
  static diff<V>(a: PMap<V>, b: PMap<V>, f: (key: string, va: V | undefined, vb: V | undefined) => void | boolean): void {
    if (a.root === b.root) return;
    diffNodes(a.root, b.root, 0, f);
  }
}

function insert<V>(n: PNode<V>, shift: number, leaf: Leaf<V>, ch: Change<V>): PNode<V> {
  lastWork++;
  if (n instanceof Branch) {
    const bit = 1 << ((leaf.hash >>> shift) & MASK);
    const i = popcount(n.bitmap & (bit - 1));
    if (!(n.bitmap & bit)) {
      ch.added = true;
      const kids = n.kids.slice();
      kids.splice(i, 0, leaf);
      return new Branch(n.bitmap | bit, kids);
    }
    const old = n.kids[i]!;
    const kid = insert(old, shift + BITS, leaf, ch);
    if (kid === old) return n;
    const kids = n.kids.slice();
    kids[i] = kid;
    return new Branch(n.bitmap, kids);
  }
  if (n instanceof Leaf) {
    if (n.key === leaf.key) {
      if (n.value === leaf.value) return n;
      ch.old = n;
      return leaf;
    }
    ch.added = true;
    return merge(n, leaf, shift);
  }
  // collision
  if (n.hash === leaf.hash) {
    const j = n.leaves.findIndex((l) => l.key === leaf.key);
    if (j >= 0) {
      if (n.leaves[j]!.value === leaf.value) return n;
      ch.old = n.leaves[j];
      const leaves = n.leaves.slice();
      leaves[j] = leaf;
      return new Collision(n.hash, leaves);
    }
    ch.added = true;
    return new Collision(n.hash, [...n.leaves, leaf]);
  }
  ch.added = true;
  return merge(n, leaf, shift);
}

/** A node holding two nodes of different keys whose hashes agree below `shift`. */
function merge<V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, shift: number): PNode<V> {
  if (shift >= 32) return new Collision(a.hash, a instanceof Collision ? [...a.leaves, b] : [a, b]);
  const ia = (a.hash >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  if (ia === ib) return new Branch(1 << ia, [merge(a, b, shift + BITS)]);
  return new Branch((1 << ia) | (1 << ib), ia < ib ? [a, b] : [b, a]);
}

/** The node without `key` (null when it becomes empty; `n` itself when it has no such key). */
function remove<V>(n: PNode<V>, shift: number, key: string, h: number, ch: Change<V>): PNode<V> | null {
  lastWork++;
  if (n instanceof Leaf) {
    if (n.key !== key) return n;
    ch.old = n;
    return null;
  }
  if (n instanceof Collision) {
    const j = n.leaves.findIndex((l) => l.key === key);
    if (j < 0) return n;
    ch.old = n.leaves[j];
    const leaves = n.leaves.filter((_, i) => i !== j);
    return leaves.length === 1 ? leaves[0]! : new Collision(n.hash, leaves);
  }
  const bit = 1 << ((h >>> shift) & MASK);
  if (!(n.bitmap & bit)) return n;
  const i = popcount(n.bitmap & (bit - 1));
  const old = n.kids[i]!;
  const kid = remove(old, shift + BITS, key, h, ch);
  if (kid === old) return n;
  if (kid) {
    // a branch left with one leaf below the root collapses into it (the trie stays canonical)
    if (n.kids.length === 1 && !(kid instanceof Branch) && shift > 0) return kid;
    const kids = n.kids.slice();
    kids[i] = kid;
    return new Branch(n.bitmap, kids);
  }
  if (n.kids.length === 1) return null;
  const kids = n.kids.filter((_, j) => j !== i);
  if (kids.length === 1 && !(kids[0] instanceof Branch) && shift > 0) return kids[0]!;
  return new Branch(n.bitmap & ~bit, kids);
}

function each<V>(n: PNode<V>, f: (value: V, key: string) => void): void {
  if (n instanceof Leaf) f(n.value, n.key);
  else if (n instanceof Collision) for (const l of n.leaves) f(l.value, l.key);
  else for (const k of n.kids) each(k, f);
}

/** Every entry of `n` into `out` by key. */
function collect<V>(n: PNode<V> | undefined, out: Map<string, V>): void {
  if (n) each(n, (v, k) => { lastWork++; out.set(k, v); });
}

/** Returns true to stop (when `f` returned true). */
function diffNodes<V>(a: PNode<V> | undefined, b: PNode<V> | undefined, shift: number, f: (key: string, va: V | undefined, vb: V | undefined) => void | boolean): boolean {
  lastWork++;
  if (a === b) return false;
  if (a instanceof Branch && b instanceof Branch) {
    const all = a.bitmap | b.bitmap;
    for (let bits = all; bits; bits &= bits - 1) {
      const bit = bits & -bits;
      const ka = a.bitmap & bit ? a.kids[popcount(a.bitmap & (bit - 1))] : undefined;
      const kb = b.bitmap & bit ? b.kids[popcount(b.bitmap & (bit - 1))] : undefined;
      if (ka !== kb && diffNodes(ka, kb, shift + BITS, f)) return true;
    }
    return false;
  }
  if (a instanceof Leaf && b instanceof Leaf && a.key === b.key) return a.value !== b.value && f(a.key, a.value, b.value) === true;
  // shapes differ (a leaf where the other map has a subtree, one side empty): compare entry by entry
  const ma = new Map<string, V>();
  const mb = new Map<string, V>();
  collect(a, ma);
  collect(b, mb);
  for (const [k, va] of ma) {
    const vb = mb.get(k);
    if (va !== vb && f(k, va, vb) === true) return true;
  }
  for (const [k, vb] of mb) if (!ma.has(k) && f(k, undefined, vb) === true) return true;
  return false;
}
