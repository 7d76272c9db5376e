/** Near-miss names: the typo a user made of a name vaudit knows (config keys, rule ids, members a verifier reads). */

/** Edits (insert, delete, substitute, swap two neighbours) between two strings; any value above 2 is 3. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  if (Math.abs(m - n) > 2) return 3;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let prev2: number[] = prev;
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      // transposition counts as one edit
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j]!, prev2[j - 2]! + 1);
    }
    prev2 = prev;
    prev = cur;
  }
  return Math.min(prev[n]!, 3);
}

/** The names at the least distance from `name`, when that is at most `max` (more than one: a tie). */
export function closestNames(name: string, names: Iterable<string>, max = 2): string[] {
  let best = max + 1;
  let out: string[] = [];
  for (const n of new Set(names)) {
    if (n === name) continue;
    const d = editDistance(n, name);
    if (d > max) continue;
    if (d < best) [best, out] = [d, [n]];
    else if (d === best) out.push(n);
  }
  return out;
}
