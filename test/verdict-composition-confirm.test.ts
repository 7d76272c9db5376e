/**
 * verdict-composition's control case for a check on one branch only: the function run on its default
 * witnesses; a run that passes through the present branch without executing the other branch's check
 * confirms. Witnesses that cannot pass the present branch leave the finding unreached, never refuted.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms the witness that passes without the database check (docs) and without the state read (HTTP verifier)', async () => {
  expect(await confirmStatuses('verdict-composition', 'docs/incorrect/1')).toEqual([['oneBranch', 3, 'confirmed']]);
  expect(await confirmStatuses('verdict-composition', 'fixtures/incorrect/http-state-branch')).toEqual([['oneBranch', 12, 'confirmed']]);
}, 60_000);

it('a method whose state the witnesses cannot build is unreached, not refuted', async () => {
  expect(await confirmStatuses('verdict-composition', 'fixtures/incorrect/tau-env-method')).toEqual([['oneBranch', 22, 'unreached']]);
}, 60_000);

it('shapes other than a branch carry no control case', async () => {
  const got = await confirmStatuses('verdict-composition', 'fixtures/incorrect/partial-scores');
  expect(got.map((g) => g[2])).toEqual([undefined, undefined, undefined]);
}, 60_000);
