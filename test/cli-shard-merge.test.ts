/**
 * `--shard i/n` partitions findings (control cases first) deterministically; the shards'
 * JSON reports merge (`vaudit merge`) back into exactly the unsharded report.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShard, shardFindings } from '../src/cli/shard.js';
import type { Finding } from '../src/core/types.js';
import { parts, range } from './helpers/report-input.js';
import { runCli } from './helpers/run-cli.js';

function finding(i: number, control: boolean): Finding {
  return {
    ruleId: control ? 'r-confirm' : 'r-static', messageId: 'm', ...parts(`m${i}.`), severity: 'error', file: `/p/f${i % 5}.py`,
    range: range(i + 1, 1, i + 1, 2, i * 10), fingerprint: `fp-${String(i * 7919 % 1000).padStart(4, '0')}-${i}`,
    ...(control ? { control: { oracle: 'x' } } : {}),
  };
}

describe('shardFindings', () => {
  const all = Array.from({ length: 23 }, (_, i) => finding(i, i % 3 !== 0));

  it('partitions: every finding in exactly one shard, order kept', () => {
    for (const n of [1, 2, 3, 4, 7, 30]) {
      const parts = Array.from({ length: n }, (_, i) => shardFindings(all, { index: i + 1, total: n }));
      const seen = parts.flat();
      expect(new Set(seen).size).toBe(all.length);
      expect(seen).toHaveLength(all.length);
      for (const p of parts) expect(p).toEqual(all.filter((f) => p.includes(f)));
    }
  });

  it('is deterministic (independent of input order) and balances control cases', () => {
    const shuffled = [...all].reverse();
    for (let i = 1; i <= 4; i++) {
      const a = shardFindings(all, { index: i, total: 4 }).map((f) => f.fingerprint).sort();
      const b = shardFindings(shuffled, { index: i, total: 4 }).map((f) => f.fingerprint).sort();
      expect(b).toEqual(a);
    }
    const counts = [1, 2, 3, 4].map((i) => shardFindings(all, { index: i, total: 4 }).filter((f) => f.control).length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    expect(counts.reduce((x, y) => x + y)).toBe(all.filter((f) => f.control).length);
  });

  it('parses i/n and rejects nonsense', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, total: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, total: 1 });
    for (const bad of ['0/3', '4/3', '1/0', 'x', '1-3', '-1/3']) expect(() => parseShard(bad)).toThrow(/--shard/);
  });
});

describe('vaudit check --shard + vaudit merge', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-shard-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let full: { findings: Array<{ fingerprint: string }> };

  beforeAll(() => {
    mkdirSync(path.join(dir, 'verifier'));
    for (let i = 0; i < 7; i++) writeFileSync(path.join(dir, 'verifier', `m${i}.py`), i % 2 ? 'def f(:\n' : `x = 1  # vaudit: ignore[nope-${i}]\n`);
    // a regex over the analysis budget: a note of the run, which every shard repeats and the merge keeps once
    writeFileSync(path.join(dir, 'verifier', 'markers.py'), 'import re\n\n\ndef f(t):\n    return re.search(r"x(a|b){20}a(a|b)*(c+)+y", t)\n');
    const r = runCli(['check', 'verifier', '-f', 'json'], { cwd: dir });
    expect(r.code).toBe(1);
    full = JSON.parse(r.stdout);
    expect(full.findings).toHaveLength(7);
    expect((full as any).summary.notes).toEqual([expect.objectContaining({ ruleId: 'regex-redos', file: 'verifier/markers.py', line: 5 })]);
    for (let i = 1; i <= 3; i++) {
      const s = runCli(['check', 'verifier', '--shard', `${i}/3`, '-f', 'json', '-o', `shard-${i}.json`], { cwd: dir });
      expect([0, 1]).toContain(s.code);
    }
  });

  it('each shard report is marked and holds a share; merged = the unsharded report', () => {
    const parts = [1, 2, 3].map((i) => JSON.parse(readFileSync(path.join(dir, `shard-${i}.json`), 'utf8')));
    parts.forEach((p, i) => expect(p.shard).toEqual({ index: i + 1, total: 3 }));
    expect(parts.map((p) => p.findings.length).sort()).toEqual([2, 2, 3]);
    const m = runCli(['merge', 'shard-3.json', 'shard-1.json', 'shard-2.json', '-o', 'merged.json'], { cwd: dir });
    expect(m.code, m.stderr).toBe(1); // errors present: merge gates like check
    expect(m.stderr).toContain('Merged 3 reports (3 shards): 7 findings.');
    const merged = JSON.parse(readFileSync(path.join(dir, 'merged.json'), 'utf8'));
    expect(merged.findings).toEqual(full.findings);
    expect(merged).not.toHaveProperty('shard');
    expect({ ...merged.summary, durationMs: 0 }).toEqual({ ...(full as any).summary, durationMs: 0 });
  });

  it('refuses an incomplete or inconsistent set of shards (exit 2)', () => {
    const missing = runCli(['merge', 'shard-1.json', 'shard-3.json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing shard 2/3');
    const twice = runCli(['merge', 'shard-1.json', 'shard-1.json', 'shard-2.json', 'shard-3.json'], { cwd: dir });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('Shard 1/3 appears twice');
    writeFileSync(path.join(dir, 'other.json'), '{"hello": 1}');
    expect(runCli(['merge', 'other.json'], { cwd: dir }).code).toBe(2);
    const bad = runCli(['check', '.', '--shard', '4/3'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('need 1 <= i <= n');
  });

  it('merges into other formats (the audit report of a CI matrix)', () => {
    const m = runCli(['merge', 'shard-1.json', 'shard-2.json', 'shard-3.json', '-f', 'markdown'], { cwd: dir });
    expect(m.code).toBe(1);
    expect(m.stdout).toContain('## Findings');
    expect(m.stdout.match(/^\| VA-\d+ /gm)).toHaveLength(7);
    const s = runCli(['merge', 'shard-1.json', 'shard-2.json', 'shard-3.json', '-f', 'sarif'], { cwd: dir });
    expect(JSON.parse(s.stdout).runs[0].results).toHaveLength(7);
  });

  it('a finding present in two reports is kept once', () => {
    const m = runCli(['merge', 'merged.json', 'merged.json', '-f', 'json'], { cwd: dir });
    expect(JSON.parse(m.stdout).findings).toHaveLength(7);
  });
});
