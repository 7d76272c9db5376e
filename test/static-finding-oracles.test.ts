/**
 * The rules whose findings no run can turn into a verdict (task-schema: the task file's structure;
 * unsafe-lambda: a safety claim; bundle-spawns-process: the bundle's process contract) answer every
 * finding with `unsupported` and a reason the user can act on, and run no control case.
 */
import { expect, it } from 'vitest';
import { join } from 'node:path';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';

const RULES = join(import.meta.dirname, '..', 'rules');

async function confirmations(rule: string, rel: string) {
  const root = join(RULES, rule, rel);
  const res = await lint({ paths: [root], cwd: root, rules: [rule] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === rule);
    const { runs } = await confirmFindings(mine, res.project, { root, jobs: 1, timeoutMs: 2000 });
    return { runs, confirmations: mine.map((f) => f.confirmation) };
  } finally {
    res.dispose();
  }
}

it.each([
  ['task-schema', 'fixtures/incorrect/missing-fields', /task file itself does not match its family's schema .*Fix the task file/],
  ['task-schema', 'fixtures/incorrect/typo-and-duplicate', /task file itself does not match/],
  ['unsafe-lambda', 'fixtures/incorrect/import-and-dunders', /safety finding, not a verdict claim.*Rewrite the lambda/],
  ['bundle-spawns-process', 'fixtures/incorrect/static-and-dynamic', /(imports `[^`]+`, which starts processes the host does not own|imports a module by a computed name).*runtime\.tools\.run/],
  ['bundle-spawns-process', 'fixtures/incorrect/cjs-require', /starts processes the host does not own/],
])('%s (%s): every finding is unsupported with its reason, and no case runs', async (rule, rel, reason) => {
  const { runs, confirmations: cs } = await confirmations(rule, rel);
  expect(cs.length).toBeGreaterThan(0);
  for (const c of cs) {
    expect(c?.status).toBe('unsupported');
    expect(c?.detail).toMatch(reason);
    expect(c?.runId).toBeUndefined();
  }
  expect(runs).toEqual([]);
});

it.each([
  ['task-schema', 'fixtures/correct/all-families'],
  ['unsafe-lambda', 'fixtures/correct/builtins-ok'],
  ['bundle-spawns-process', 'fixtures/correct/host-only'],
])('%s (%s): the fixed twin has no finding to answer', async (rule, rel) => {
  const { runs, confirmations: cs } = await confirmations(rule, rel);
  expect(cs).toEqual([]);
  expect(runs).toEqual([]);
});
