/**
 * judge-reply-parsing's control case: the function that receives the judge's reply is called with a
 * reply that rejects the answer. Where the reply is a parameter the findings are confirmed with a run
 * record (a pass for "not consistent" / "The answer is wrong.", an AssertionError at the assert); where
 * it comes from a model call inside the function they are unreached, never confirmed.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';

const FIX = join(import.meta.dirname, '..', 'rules', 'judge-reply-parsing', 'fixtures', 'incorrect');

async function statuses(dir: string): Promise<Array<[string, number, string | undefined]>> {
  const root = join(FIX, dir);
  const res = await lint({ paths: [root], cwd: root, rules: ['judge-reply-parsing'] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === 'judge-reply-parsing');
    const { runs } = await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    const ids = new Set(runs.map((r) => r.runId));
    for (const f of mine) if (f.confirmation?.status === 'confirmed') expect(ids.has(f.confirmation.runId!)).toBe(true);
    return mine.map((f) => [f.messageId!, f.range.start.line, f.confirmation?.status]);
  } finally {
    res.dispose();
  }
}

it('confirms a crash at the assert and a default pass on a reply in other words', async () => {
  expect(await statuses('gemini-parsed-reply')).toEqual([
    ['assertedWord', 8, 'confirmed'],
    ['defaultPass', 13, 'confirmed'],
  ]);
}, 60_000);

it('confirms a token test that passes "not consistent"', async () => {
  expect(await statuses('langchain-param')).toEqual([['containsVerdict', 8, 'confirmed']]);
}, 60_000);

it('a reply produced inside the function by a model call is unreached', async () => {
  expect(await statuses('openai-v1-client')).toEqual([['containsVerdict', 19, 'unreached']]);
}, 60_000);
