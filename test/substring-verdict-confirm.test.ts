/**
 * substring-verdict's control case: the check run on the counter-example its message names, on the token
 * alone and on text without it, the text carried as a string, an object's text attribute or method, or a
 * file. The counter-example passing where text without the token fails confirms; a check that matches
 * whole words fails the counter-example and is refuted.
 */
import { afterAll, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';
import { confirmStatuses } from './helpers/confirm-statuses.js';

const dir = mkdtempSync(join(tmpdir(), 'vaudit-substring-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('confirms literal tokens carried as a string, an object and a file', async () => {
  expect(await confirmStatuses('substring-verdict', 'fixtures/incorrect/py-literal-tokens')).toEqual([
    ['literal', 2, 'confirmed'],
    ['literal', 8, 'confirmed'],
    ['literal', 15, 'confirmed'],
    // every listed word is required: the counter-example of one alone fails, as text without it does
    ['literal', 21, 'unreached'],
    ['literal', 26, 'confirmed'],
  ]);
  expect(await confirmStatuses('substring-verdict', 'fixtures/incorrect/py-find-count-regex')).toEqual([
    ['literal', 5, 'confirmed'],
    ['literal', 10, 'confirmed'],
    ['literal', 15, 'confirmed'],
    ['literal', 21, 'confirmed'],
  ]);
}, 90_000);

it('confirms task values fed with the bare token the tasks give', async () => {
  expect(await confirmStatuses('substring-verdict', 'fixtures/incorrect/py-task-values')).toEqual([
    ['taskValue', 6, 'confirmed'],
    ['taskValue', 13, 'confirmed'],
    ['taskValue', 21, 'confirmed'],
  ]);
}, 90_000);

it('refutes a check whose verdict rejects the counter-example after the flagged containment ran', async () => {
  const root = join(dir, 'words');
  mkdirSync(join(root, 'checks'), { recursive: true });
  // the containment is flagged (free text, bare token), but the verdict then also requires one word without a negation
  writeFileSync(
    join(root, 'checks', 'answer.py'),
    ['def check_answer(reply: str) -> bool:', '    if "Canada" not in reply:', '        return False', '    return not reply.startswith("not ") and reply.isalpha()', ''].join('\n'),
  );
  const res = await lint({ paths: [root], cwd: root, rules: ['substring-verdict'] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === 'substring-verdict');
    await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    expect(mine.map((f) => [f.range.start.line, f.confirmation?.status])).toEqual([[2, 'refuted']]);
  } finally {
    res.dispose();
  }
}, 90_000);
