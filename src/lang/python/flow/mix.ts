/**
 * The bit mixer of the flow analysis's content digests (`PMap.digest`, `defsDigest`): digests are sums
 * of mixed parts, and a sum of unmixed ids or hashes would make unrelated contents agree far more often
 * (each agreement costs a full comparison, never a wrong answer).
 */

/** murmur3's 32-bit finaliser: every bit of `h` reaches every bit of the result. */
export function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
