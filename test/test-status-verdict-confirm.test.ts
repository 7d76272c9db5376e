/**
 * test-status-verdict's control case: the grading function run with the required test SKIPPED/XFAIL in
 * the status map, absent from it, or the map empty. Findings whose status map is a parameter are
 * confirmed with a run record; findings whose map the function loads itself are `unsupported` (no case ran), never
 * confirmed; the classification shapes (`dropped`, the if/else deny-list) carry no control case.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms XFAIL and SKIPPED accepted as a pass in an enum grader; the classifications carry no case', async () => {
  expect(await confirmStatuses('test-status-verdict', 'fixtures/incorrect/enum-grader')).toEqual([
    ['skipAsPass', 6, 'confirmed'],
    ['skipAsPass', 15, 'confirmed'],
    ['dropped', 21, undefined],
    ['denyList', 30, undefined],
  ]);
}, 60_000);

it('confirms the docs examples: XFAIL accepted, and an absent required test passing over a test list', async () => {
  expect(await confirmStatuses('test-status-verdict', 'docs/incorrect/1')).toEqual([['skipAsPass', 5, 'confirmed']]);
  expect(await confirmStatuses('test-status-verdict', 'docs/incorrect/2')).toEqual([['absentAsPass', 3, 'confirmed']]);
}, 60_000);

it('a status map the function loads itself is unsupported (no case ran), not confirmed', async () => {
  const got = await confirmStatuses('test-status-verdict', 'fixtures/incorrect/junit-xml');
  expect(got.map((g) => g[2])).toEqual(['unsupported', 'unsupported']);
}, 60_000);
