/**
 * unset-dependency's control case: the function that takes the dependency, called with it left at
 * None. A function that calls the dependency itself is confirmed by the crash at the unguarded call (with
 * a run record); one that hands it to an evaluator it builds has no case (only the harness calls the
 * evaluator), and says so.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';

const FIX = join(import.meta.dirname, '..', 'rules', 'unset-dependency', 'fixtures', 'incorrect');

describe('unset-dependency --confirm', () => {
  for (const [dir, status] of [['judge-param', 'confirmed'], ['client-keyword', 'unsupported'], ['router-captioning', 'unsupported']] as const) {
    it(`incorrect/${dir}: ${status}`, async () => {
      const root = join(FIX, dir);
      const res = await lint({ paths: [root], cwd: root });
      const mine = res.findings.filter((f) => f.ruleId === 'unset-dependency');
      const { runs } = await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
      expect(mine.map((f) => f.confirmation?.status)).toEqual([status]);
      const c = mine[0]!.confirmation!;
      if (status === 'confirmed') {
        expect(runs.map((r) => r.runId)).toContain(c.runId);
        expect(c.observed).toMatch(/AttributeError: 'NoneType' object has no attribute 'complete'/);
        expect(c.witness).toMatch(/judge=None/);
      } else expect(c.detail).toMatch(/only the harness calls/);
      res.dispose();
    }, 60_000);
  }
});
