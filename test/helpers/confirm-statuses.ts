/** Lint one rule's case folder, confirm its findings with the real host, and list what each one got. */
import { join } from 'node:path';
import { expect } from 'vitest';
import { lint } from '../../src/engine/lint.js';
import { confirmFindings } from '../../src/confirm/index.js';

const RULES = join(import.meta.dirname, '..', '..', 'rules');

/** `[messageId, line, confirmation status]` per finding of `rule` under `rules/<rule>/<rel>`; every
 *  confirmed finding must point at a run record of the host. */
export async function confirmStatuses(rule: string, rel: string): Promise<Array<[string, number, string | undefined]>> {
  const root = join(RULES, rule, rel);
  const res = await lint({ paths: [root], cwd: root, rules: [rule] });
  try {
    const mine = res.findings.filter((f) => f.ruleId === rule);
    const { runs } = await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
    const ids = new Set(runs.map((r) => r.runId));
    for (const f of mine) if (f.confirmation?.status === 'confirmed') expect(ids.has(f.confirmation.runId!)).toBe(true);
    return mine.map((f) => [f.messageId!, f.range.start.line, f.confirmation?.status]);
  } finally {
    res.dispose();
  }
}
