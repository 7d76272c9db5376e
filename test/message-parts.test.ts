/** Three-part messages (what / why / fix): the engine fills each part, reporters use the parts. */
import path from 'node:path';
import { expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { buildAudit } from '../src/report/markdown.js';
import { runCli } from './helpers/run-cli.js';

const CASE = path.resolve(import.meta.dirname, '../rules/ans-mismatch/fixtures/incorrect/different-value');

it('fills every part and joins them into the message', async () => {
  const r = await lint({ paths: [CASE], cwd: CASE, rules: ['ans-mismatch'] });
  try {
    const f = r.findings.find((x) => x.ruleId === 'ans-mismatch')!;
    expect(f.parts).toBeDefined();
    const { what, why, fix } = f.parts!;
    for (const p of [what, why, fix]) expect(p).not.toMatch(/\{\{/);
    expect(f.message).toBe(`${what} ${why} ${fix}`);
    // the audit report takes the hint from the fix part, not from a sentence splitter
    const audit = buildAudit({ findings: [f], root: CASE, stats: r.stats, rules: new Map(), suppressedCount: 0, toolVersion: 'test' } as never);
    expect(audit.rows[0]!.hint).toBe(fix);
    expect(audit.rows[0]!.finding).toBe(`${what} ${why}`);
  } finally {
    r.dispose();
  }
});

it('carries the message id and parts in the JSON report', () => {
  const r = runCli(['check', '.', '--rule', 'ans-mismatch', '--format', 'json'], { cwd: CASE });
  const f = JSON.parse(r.stdout).findings[0];
  expect(f).toMatchObject({ ruleId: 'ans-mismatch', messageId: 'mismatch' });
  expect(Object.keys(f.parts)).toEqual(['what', 'why', 'fix']);
});
