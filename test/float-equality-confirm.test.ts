/**
 * float-equality's control case: the function run with the compared input exactly the expected value
 * and one ulp off. A verdict that flips on the last bit is confirmed; a comparison that rounds first
 * gets the same verdict both times and is refuted; a value fetched over HTTP is no input of the case.
 */
import { afterAll, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';
import { confirmStatuses } from './helpers/confirm-statuses.js';
import { ulpOff } from '../rules/float-equality/oracle.js';

const dir = mkdtempSync(join(tmpdir(), 'vaudit-float-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('one ulp off is the double next to the value', () => {
  expect(ulpOff(0.3)).toBe(0.30000000000000004);
  expect(ulpOff(0.3)).toBe(0.1 + 0.2);
  expect(ulpOff(109.03)).toBe(109.03000000000002);
});

it('confirms a literal and an entry value whose verdict flips on the last bit', async () => {
  expect(await confirmStatuses('float-equality', 'fixtures/incorrect/literal-and-local')).toEqual([
    ['literal', 2, 'confirmed'],
    ['literal', 7, 'confirmed'],
  ]);
  expect(await confirmStatuses('float-equality', 'fixtures/incorrect/entry-routes-to-equality')).toEqual([['entry', 7, 'confirmed']]);
}, 90_000);

it('a state fetched over HTTP is no input of the case: unreached, never refuted', async () => {
  const got = await confirmStatuses('float-equality', 'fixtures/incorrect/app-computed-numbers');
  expect(got.length).toBeGreaterThan(0);
  for (const [, , status] of got) expect(status).toBe('unreached');
}, 90_000);

it('refutes a comparison that rounds before it compares', async () => {
  const root = join(dir, 'rounded');
  mkdirSync(join(root, 'checks'), { recursive: true });
  writeFileSync(
    join(root, 'checks', 'totals.py'),
    ['def total_ok(report):', '    return round(report["total"], 6) == 0.3', '', '', 'def ratio_ok(ratio):', '    return ratio == 0.3', ''].join('\n'),
  );
  const res = await lint({ paths: [root], cwd: root, rules: ['float-equality'] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === 'float-equality');
    await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    expect(mine.map((f) => [f.range.start.line, f.confirmation?.status])).toEqual([
      [2, 'refuted'],
      [6, 'confirmed'],
    ]);
  } finally {
    res.dispose();
  }
}, 90_000);
