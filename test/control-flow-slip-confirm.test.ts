/**
 * control-flow-slip's control case for a loop that decides on its first item: when the collection is a
 * parameter, two items in both orders; a verdict that changes with the order confirms. A collection the
 * function builds itself (a file's lines, a report it loads) is unsupported (no case can set it), never refuted.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms rows, tags and records whose verdict depends on their order', async () => {
  expect(await confirmStatuses('control-flow-slip', 'fixtures/incorrect/first-row-param')).toEqual([
    ['firstItem', 2, 'confirmed'],
    ['firstItem', 11, 'confirmed'],
  ]);
  expect(await confirmStatuses('control-flow-slip', 'fixtures/incorrect/first-test-case')).toEqual([
    ['firstItem', 7, 'unsupported'],
    ['firstItem', 15, 'confirmed'],
    // the loop whose else calls a helper that always raises: the first run's conclusion decides
    ['firstItem', 30, 'confirmed'],
  ]);
}, 90_000);

it('a loop over lines the function reads itself is unsupported (no case ran)', async () => {
  expect(await confirmStatuses('control-flow-slip', 'fixtures/incorrect/first-line')).toEqual([['firstItem', 9, 'unsupported']]);
}, 60_000);
