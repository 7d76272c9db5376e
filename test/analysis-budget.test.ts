/**
 * The analysis budget (`VAUDIT_ANALYSIS_BUDGET`) decides which Python analyses are kept and which are
 * parsed again, never what is found: the real CLI over the demo suite with a budget far smaller than
 * its modules (every module over it, analyses evicted and parsed again by later phases) reports exactly
 * what an unbounded run reports.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './helpers/run-cli.js';

const DEMO = path.resolve(import.meta.dirname, '../fixtures/demo-suite');
const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-budget-'));
cpSync(DEMO, dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The report without its timings (fields named `…Ms`). */
function report(budget: string): { json: unknown; debug: string } {
  // the subprocess bound is a hang detector (two runs on a loaded machine), not a speed assertion
  const r = spawnSync(process.execPath, [BIN, 'check', '.', '--format', 'json', '--debug'], {
    cwd: dir, encoding: 'utf8', timeout: 200_000, env: { ...process.env, NO_COLOR: '1', VAUDIT_ANALYSIS_BUDGET: budget },
  });
  if (r.error) throw r.error;
  expect(r.status).toBe(1);
  const json = JSON.parse(r.stdout, (k, v: unknown) => (k.endsWith('Ms') ? 0 : v)) as unknown;
  return { json, debug: r.stderr };
}

describe('analysis budget', () => {
  it('evicts on a small budget and finds what an unbounded run finds', { timeout: 420_000 }, () => {
    const small = report('200');
    const unbounded = report('100000000');
    expect(small.debug).toMatch(/[1-9]\d* evicted from the memory budget/);
    expect(unbounded.debug).toMatch(/ 0 evicted from the memory budget/);
    expect((small.json as { findings: unknown[] }).findings.length).toBeGreaterThan(0);
    expect(small.json).toEqual(unbounded.json);
  });
});
