/**
 * judge-reply-parsing's control case: the function that receives the judge's reply is called with a
 * reply that rejects the answer. Where the reply is a parameter the findings are confirmed with a run
 * record (a pass for "not consistent" / "The answer is wrong.", an AssertionError at the assert); where
 * it comes from a model call inside the function they are unsupported (no case can set it), never confirmed.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms a crash at the assert and a default pass on a reply in other words', async () => {
  expect(await confirmStatuses('judge-reply-parsing', 'fixtures/incorrect/gemini-parsed-reply')).toEqual([
    ['assertedWord', 8, 'confirmed'],
    ['defaultPass', 13, 'confirmed'],
  ]);
}, 60_000);

it('confirms a token test that passes "not consistent"', async () => {
  expect(await confirmStatuses('judge-reply-parsing', 'fixtures/incorrect/langchain-param')).toEqual([['containsVerdict', 8, 'confirmed']]);
}, 60_000);

it('a reply produced inside the function by a model call is unsupported (no case ran) or unreached', async () => {
  expect(await confirmStatuses('judge-reply-parsing', 'fixtures/incorrect/openai-v1-client')).toEqual([
    ['containsVerdict', 19, 'unsupported'],
    ['containsVerdict', 28, 'unreached'],
  ]);
}, 60_000);
