/**
 * vacuous-verdict's control case: the flagged function run with the named collection empty. The
 * incorrect fixtures whose collection is a parameter (or a plain copy of one) are confirmed with a
 * run record; the fixed twins produce no finding.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { confirmFindings } from '../src/confirm/index.js';

const FIX = join(import.meta.dirname, '..', 'rules', 'vacuous-verdict', 'fixtures');

describe('vacuous-verdict --confirm', () => {
  for (const dir of ['fail-only-loop', 'zip-truncation', 'all-over-result', 'dead-guard']) {
    it(`incorrect/${dir}: every finding with a parameter collection is confirmed on the empty input`, async () => {
      const root = join(FIX, 'incorrect', dir);
      const res = await lint({ paths: [root], cwd: root });
      const mine = res.findings.filter((f) => f.ruleId === 'vacuous-verdict');
      const { runs } = await confirmFindings(mine, res.project, { root, jobs: 2, timeoutMs: 3000 });
      const ids = new Set(runs.map((r) => r.runId));
      const statuses = mine.map((f) => [f.range.start.line, f.confirmation?.status]);
      // the notebook zip reads two files inside the function: no witness can empty it
      const built = dir === 'zip-truncation' ? [13] : [];
      expect(statuses).toEqual(mine.map((f) => [f.range.start.line, built.includes(f.range.start.line) ? 'unsupported' : 'confirmed']));
      for (const f of mine) if (f.confirmation?.status === 'confirmed') expect(ids.has(f.confirmation.runId!)).toBe(true);
      res.dispose();
    }, 60_000);
  }
});
