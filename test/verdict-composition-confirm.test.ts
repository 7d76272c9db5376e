/**
 * verdict-composition's control case for a check on one branch only: the function run on its default
 * witnesses; a run that passes through the present branch without executing the other branch's check
 * confirms. Witnesses that cannot pass the present branch leave the finding unreached, never refuted.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';

const RULE = join(import.meta.dirname, '..', 'rules', 'verdict-composition');

async function statuses(rel: string): Promise<Array<[string, number, string | undefined]>> {
  const root = join(RULE, rel);
  const res = await lint({ paths: [root], cwd: root, rules: ['verdict-composition'] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === 'verdict-composition');
    const { runs } = await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    const ids = new Set(runs.map((r) => r.runId));
    for (const f of mine) if (f.confirmation?.status === 'confirmed') expect(ids.has(f.confirmation.runId!)).toBe(true);
    return mine.map((f) => [f.messageId!, f.range.start.line, f.confirmation?.status]);
  } finally {
    res.dispose();
  }
}

it('confirms the witness that passes without the database check (docs) and without the state read (HTTP verifier)', async () => {
  expect(await statuses('docs/incorrect/1')).toEqual([['oneBranch', 3, 'confirmed']]);
  expect(await statuses('fixtures/incorrect/http-state-branch')).toEqual([['oneBranch', 12, 'confirmed']]);
}, 60_000);

it('a method whose state the witnesses cannot build is unreached, not refuted', async () => {
  expect(await statuses('fixtures/incorrect/tau-env-method')).toEqual([['oneBranch', 22, 'unreached']]);
}, 60_000);

it('shapes other than a branch carry no control case', async () => {
  const got = await statuses('fixtures/incorrect/partial-scores');
  expect(got.map((g) => g[2])).toEqual([undefined, undefined, undefined]);
}, 60_000);
