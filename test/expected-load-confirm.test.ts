/**
 * swallowed-error-verdict's control case for a handler around the load of the task's expected input:
 * the function run with the agent's output a readable file and the expected input missing (or broken);
 * an exception at the load that becomes a failing verdict confirms. A metric whose library the host
 * Python lacks is verifierUnavailable, never confirmed.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';

const RULE = join(import.meta.dirname, '..', 'rules', 'swallowed-error-verdict');

async function statuses(rel: string): Promise<Array<[string, number, string | undefined]>> {
  const root = join(RULE, rel);
  const res = await lint({ paths: [root], cwd: root, rules: ['swallowed-error-verdict'] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === 'swallowed-error-verdict');
    const { runs } = await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    const ids = new Set(runs.map((r) => r.runId));
    for (const f of mine) if (f.confirmation?.status === 'confirmed') expect(ids.has(f.confirmation.runId!)).toBe(true);
    return mine.map((f) => [f.file.split('/').pop()!, f.range.start.line, f.confirmation?.status]);
  } finally {
    res.dispose();
  }
}

it('confirms a missing gold file and missing options turned into 0 in OSWorld-family metrics', async () => {
  const got = await statuses('fixtures/incorrect/expected-load-osworld');
  expect(got).toEqual([
    ['docs.py', 13, 'verifierUnavailable'],
    ['text.py', 10, 'confirmed'],
    ['text.py', 24, 'confirmed'],
  ]);
}, 60_000);

it("confirms the verifier's own gold file, absent in the case folder, turned into 0", async () => {
  expect(await statuses('docs/incorrect/4')).toEqual([['export.py', 10, 'confirmed']]);
}, 60_000);
