/**
 * time-dependent's control case: the lambda or verifier function run with the host clock at two instants.
 * Lambdas and functions whose result follows the clock are confirmed; a lambda of no parameters whose
 * value does not change between the instants is refuted, and a function whose inputs never exercise the
 * date is unreached, never refuted.
 */
import { afterAll, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';
import { confirmStatuses } from './helpers/confirm-statuses.js';

const dir = mkdtempSync(join(tmpdir(), 'vaudit-time-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('confirms lambdas whose value or verdict follows the clock', async () => {
  expect(await confirmStatuses('time-dependent', 'fixtures/incorrect/value-lambda')).toEqual([
    ['lambda', 10, 'confirmed'],
    ['lambda', 16, 'confirmed'],
  ]);
  expect(await confirmStatuses('time-dependent', 'fixtures/incorrect/date-in-lambda')).toEqual([
    ['lambda', 11, 'confirmed'],
    ['lambda', 16, 'confirmed'],
    ['lambda', 25, 'confirmed'],
  ]);
}, 90_000);

it('confirms verifier functions graded at two instants; an input the check cannot date is unreached', async () => {
  expect(await confirmStatuses('time-dependent', 'fixtures/incorrect/verifier-clock')).toEqual([
    ['verdict', 7, 'confirmed'],
    ['verdict', 11, 'confirmed'],
    // `stamp.date()` needs a datetime object: no witness reaches a verdict
    ['verdict', 18, 'unreached'],
  ]);
  expect(await confirmStatuses('time-dependent', 'fixtures/incorrect/clock-against-fixed-date')).toEqual([
    ['verdict', 9, 'confirmed'],
    ['verdict', 13, 'confirmed'],
  ]);
}, 90_000);

it('refutes a lambda whose value is the same at both instants; a function that ignores the date is never refuted', async () => {
  const root = join(dir, 'twin');
  mkdirSync(join(root, 'tasks', 'ChimeraX'), { recursive: true });
  mkdirSync(join(root, 'checks'), { recursive: true });
  const task = {
    type: 'ChimeraX',
    sort: 'VM',
    steps: 10,
    instruction: 'Save the notes.',
    evaluate: [{ type: 'file', key: '/home/user/notes.txt', value: "lambda: str(__import__('datetime').date.today().year >= 2000)" }],
  };
  writeFileSync(join(root, 'tasks', 'ChimeraX', 'notes.json'), JSON.stringify(task, null, 2));
  writeFileSync(join(root, 'checks', 'age.py'), 'import time\n\n\ndef recent(mtime):\n    return time.time() - float(mtime) < 10 ** 12\n');
  const res = await lint({ paths: [root], cwd: root, rules: ['time-dependent'] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === 'time-dependent');
    await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    expect(mine.map((f) => [f.messageId, f.range.start.line, f.confirmation?.status])).toEqual([
      ['verdict', 5, 'unreached'],
      ['lambda', 10, 'refuted'],
    ]);
  } finally {
    res.dispose();
  }
}, 90_000);
