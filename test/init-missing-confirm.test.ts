/**
 * init-missing's control case: a TeXstudio `file` entry whose graded path no touch writes is graded by the
 * suite's own function, with the task's members on `self`, as written and with the missing touch added.
 * Confirmed when nothing passes as written and the same file passes on the touched twin; refuted when
 * the grader does not need the initial text; compile and Lean findings are unsupported with a reason.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('runs the bound file grader as written and with the missing touch', async () => {
  // a swallowing decorator (IndexError in reverse_touch → False), read through self.manager.read_file
  expect(await confirmStatuses('init-missing', 'fixtures/incorrect/tex-file-graded')).toEqual([['noTouch', 12, 'confirmed']]);
  // a grader class elsewhere, the initial texts keyed by path (KeyError escapes), read through self.vm.fetch
  expect(await confirmStatuses('init-missing', 'fixtures/incorrect/tex-file-keyed')).toEqual([['noTouch', 10, 'confirmed']]);
  // a grader that only looks for the entry's target: the static claim does not hold, and the run says so
  expect(await confirmStatuses('init-missing', 'fixtures/incorrect/tex-file-ignores-initial')).toEqual([['noTouch', 10, 'refuted']]);
  // the fixed twin: the task touches the graded path, no finding
  expect(await confirmStatuses('init-missing', 'fixtures/correct/tex-file-graded-touched')).toEqual([]);
  // no grading code bound (file), a compile entry, Lean: no case, a reason instead
  expect(await confirmStatuses('init-missing', 'fixtures/incorrect/tex-no-touch')).toEqual([
    ['noTouch', 16, 'unsupported'],
    ['noTouch', 24, 'unsupported'],
  ]);
  expect(await confirmStatuses('init-missing', 'fixtures/incorrect/lean-no-query')).toEqual([['noQuery', 15, 'unsupported']]);
}, 120_000);
