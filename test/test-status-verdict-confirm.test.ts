/**
 * test-status-verdict's control case: the grading function run with the required test SKIPPED/XFAIL in
 * the status map, absent from it, or the map empty. Findings whose status map is a parameter are
 * confirmed with a run record; findings whose map the function loads itself are `unreached`, never
 * confirmed; the classification shapes (`dropped`, the if/else deny-list) carry no control case.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';

const RULE = join(import.meta.dirname, '..', 'rules', 'test-status-verdict');

async function statuses(rel: string): Promise<Array<[string, number, string | undefined]>> {
  const root = join(RULE, rel);
  const res = await lint({ paths: [root], cwd: root, rules: ['test-status-verdict'] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === 'test-status-verdict');
    const { runs } = await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    const ids = new Set(runs.map((r) => r.runId));
    for (const f of mine) if (f.confirmation?.status === 'confirmed') expect(ids.has(f.confirmation.runId!)).toBe(true);
    return mine.map((f) => [f.messageId!, f.range.start.line, f.confirmation?.status]);
  } finally {
    res.dispose();
  }
}

it('confirms XFAIL and SKIPPED accepted as a pass in an enum grader; the classifications carry no case', async () => {
  expect(await statuses('fixtures/incorrect/enum-grader')).toEqual([
    ['skipAsPass', 6, 'confirmed'],
    ['skipAsPass', 15, 'confirmed'],
    ['dropped', 21, undefined],
    ['denyList', 30, undefined],
  ]);
}, 60_000);

it('confirms the docs examples: XFAIL accepted, and an absent required test passing over a test list', async () => {
  expect(await statuses('docs/incorrect/1')).toEqual([['skipAsPass', 5, 'confirmed']]);
  expect(await statuses('docs/incorrect/2')).toEqual([['absentAsPass', 3, 'confirmed']]);
}, 60_000);

it('a status map the function loads itself is unreached, not confirmed', async () => {
  const got = await statuses('fixtures/incorrect/junit-xml');
  expect(got.map((g) => g[2])).toEqual(['unreached', 'unreached']);
}, 60_000);
