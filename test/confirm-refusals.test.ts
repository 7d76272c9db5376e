/**
 * A verdict reached on one witness while the guard refused another (`sandbox`) keeps the refusal in
 * sight: the refused witnesses never ran, and the reason says what to do about it.
 */
import { expect, it } from 'vitest';
import { withRefusals } from '../src/confirm/index.js';
import type { CaseResult } from '../src/confirm/harness.js';

const result = (id: string, status: CaseResult['status'], detail?: string): CaseResult => ({ id, status, runId: 'run-test', events: [], lines: {}, ...(detail ? { detail } : {}) });

it('a confirmed finding whose other witness hit a guard refusal still shows the refusal', () => {
  const view = new Map([
    ['w0', result('w0', 'returned')],
    ['w1', result('w1', 'sandbox', 'needs bubblewrap to bind /home/user/.elan/bin/lake')],
  ]);
  const c = withRefusals({ status: 'confirmed', witness: 'w0', detail: 'ran with a double' }, view);
  expect(c.status).toBe('confirmed');
  expect(c.detail).toBe('ran with a double; 1 of 2 witnesses did not run, refused by the guard (sandbox): needs bubblewrap to bind /home/user/.elan/bin/lake');
});

it('no refusal, or a sandbox status itself, is left as it is', () => {
  const ran = new Map([['w0', result('w0', 'returned')]]);
  expect(withRefusals({ status: 'refuted' }, ran)).toEqual({ status: 'refuted' });
  const refused = new Map([['w0', result('w0', 'sandbox', 'no bubblewrap')]]);
  expect(withRefusals({ status: 'sandbox', detail: 'no bubblewrap' }, refused)).toEqual({ status: 'sandbox', detail: 'no bubblewrap' });
});
