/**
 * `--shard i/n`: split one run's findings — above all its control cases, the
 * expensive part of `--confirm` — over n CI jobs. Every shard runs the same
 * static pass, so every shard sees the same findings; each keeps a
 * deterministic share: findings that carry a control case are sorted by
 * fingerprint and dealt round-robin (balanced control-case load), the others
 * likewise. The shards' JSON reports merge back into the full report
 * (`vaudit merge`), each finding exactly once.
 */
import type { Finding } from '../core/types.js';

export interface ShardSpec {
  /** 1-based shard index. */
  index: number;
  total: number;
}

export class ShardSpecError extends Error {}

export function parseShard(text: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new ShardSpecError(`--shard must look like i/n (for example 2/4), got '${text}'.`);
  const index = Number(m[1]);
  const total = Number(m[2]);
  if (total < 1 || index < 1 || index > total) throw new ShardSpecError(`--shard ${text}: need 1 <= i <= n.`);
  return { index, total };
}

function sortKey(f: Finding): string {
  return f.fingerprint ?? `${f.file}\0${String(f.range.start.offset).padStart(12, '0')}\0${f.ruleId}\0${f.message}`;
}

/** The findings shard `spec` owns, in their original order. */
export function shardFindings<T extends Finding>(findings: readonly T[], spec: ShardSpec): T[] {
  if (spec.total === 1) return [...findings];
  const owned = new Set<T>();
  for (const group of [findings.filter((f) => f.control), findings.filter((f) => !f.control)]) {
    const sorted = [...group].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
    sorted.forEach((f, i) => {
      if (i % spec.total === spec.index - 1) owned.add(f);
    });
  }
  return findings.filter((f) => owned.has(f));
}
