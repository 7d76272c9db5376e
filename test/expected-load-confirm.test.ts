/**
 * swallowed-error-verdict's control case for a handler around the load of the task's expected input:
 * the function run with the agent's output a readable file and the expected input missing (or broken);
 * an exception at the load that becomes a failing verdict confirms. A metric whose library the host
 * Python lacks is verifierUnavailable, never confirmed without a run.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms a missing gold file and missing options turned into 0 in OSWorld-family metrics', async () => {
  const got = await confirmStatuses('swallowed-error-verdict', 'fixtures/incorrect/expected-load-osworld');
  expect(got.map((g) => g.slice(0, 2))).toEqual([
    ['expectedLoad', 13],
    ['expectedLoad', 10],
    ['expectedLoad', 24],
  ]);
  // docs.py needs python-docx: confirmed where the host Python has it, verifierUnavailable where not
  expect(['confirmed', 'verifierUnavailable']).toContain(got[0]![2]);
  expect(got[1]![2]).toBe('confirmed'); // text.py: the options missing
  expect(got[2]![2]).toBe('confirmed'); // text.py: the gold JSON missing
}, 60_000);

it("confirms the verifier's own gold file, absent in the case folder, turned into 0", async () => {
  expect(await confirmStatuses('swallowed-error-verdict', 'docs/incorrect/4')).toEqual([['expectedLoad', 10, 'confirmed']]);
}, 60_000);
