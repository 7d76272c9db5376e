/**
 * evaluator-dispatch's control case for `memberKind`: the metric called as the harness calls it, with the
 * task's own rules and a result state that holds every value the task names, then one that holds none.
 * The same verdict for both confirms that the verdict does not depend on the state. The other findings
 * of the rule (look-ups, call shapes, set-up steps) carry no control request and get no confirmation.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms a list or object the metric tests with `in` against a state of scalars; nothing else is run', async () => {
  const all = await confirmStatuses('evaluator-dispatch', 'fixtures/incorrect/osworld-evaluators');
  expect(all.filter(([m]) => m === 'memberKind')).toEqual([
    ['memberKind', 10, 'confirmed'],
    ['memberKind', 10, 'confirmed'],
    ['memberKind', 10, 'confirmed'],
  ]);
  expect(all.filter(([m]) => m !== 'memberKind').every(([, , status]) => status === undefined)).toBe(true);
}, 120_000);

it('the fixed twins give the metric a value it can find: no memberKind finding to run', async () => {
  const all = await confirmStatuses('evaluator-dispatch', 'fixtures/correct/osworld-evaluators');
  expect(all.filter(([m]) => m === 'memberKind')).toEqual([]);
}, 120_000);
