/**
 * ignored-exit-code's control case: evaluate run with the flagged tool run answering exit 0, then exit 1
 * with the same output. A check that passes both times is confirmed; the fixed twins read the exit code and
 * have no finding.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms discarded results and results whose exit code is never read', async () => {
  expect(await confirmStatuses('ignored-exit-code', 'fixtures/incorrect/discarded-and-stdout-only')).toEqual([
    ['discarded', 10, 'confirmed'],
    ['notRead', 11, 'confirmed'],
  ]);
  expect(await confirmStatuses('ignored-exit-code', 'fixtures/incorrect/helper-reads-output')).toEqual([['notRead', 15, 'confirmed']]);
  expect(await confirmStatuses('ignored-exit-code', 'fixtures/correct/exit-code-read-forms')).toEqual([]);
}, 120_000);
