/**
 * Done-when check of the control-case machinery on the seed-mirroring fixtures: every finding of a
 * headline rule in `rules/<rule>/fixtures/incorrect/seed-*` is confirmed by a run of the verifier's
 * own code (with a run record), and the fixed twins (`correct/seed-fixed-twin`) have no such finding
 * or a refuted one. The real engine produces the findings; the real host runs the cases.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { lint } from '../src/engine/lint.js';
import { confirmFindings, loadOracles } from '../src/confirm/index.js';

const ROOT = join(import.meta.dirname, '..', 'rules');
const ORACLES = (await loadOracles()).python;
const seeds: Array<{ rule: string; dir: string; kind: 'incorrect' | 'correct' }> = [];
for (const rule of existsSync(ROOT) ? readdirSync(ROOT) : []) {
  if (!ORACLES.has(rule)) continue;
  for (const kind of ['incorrect', 'correct'] as const) {
    const base = join(ROOT, rule, 'fixtures', kind);
    if (!existsSync(base)) continue;
    for (const d of readdirSync(base)) if (d.startsWith('seed-')) seeds.push({ rule, dir: join(base, d), kind });
  }
}

describe('control cases on the seed-mirroring fixtures', () => {
  it('there are seed fixtures to check', () => {
    expect(seeds.filter((s) => s.kind === 'incorrect').length).toBeGreaterThanOrEqual(6);
  });

  for (const s of seeds) {
    it(`${s.rule} ${s.kind}/${s.dir.split('/').pop()}`, async () => {
      const res = await lint({ paths: [s.dir], cwd: s.dir });
      const mine = res.findings.filter((f) => f.ruleId === s.rule);
      const { runs } = await confirmFindings(mine, res.project, { root: s.dir, jobs: 2, timeoutMs: 1500 });
      const ids = new Set(runs.map((r) => r.runId));
      if (s.kind === 'incorrect') {
        const confirmable = mine.filter((f) => f.control);
        expect(confirmable.length).toBeGreaterThan(0);
        for (const f of confirmable) {
          expect({ line: f.range.start.line, ...f.confirmation }).toMatchObject({ status: 'confirmed' });
          expect(ids.has(f.confirmation!.runId!)).toBe(true);
        }
      } else {
        for (const f of mine) expect(['refuted', 'unreached', undefined]).toContain(f.confirmation?.status);
        for (const f of mine) expect(f.confirmation?.status).not.toBe('confirmed');
      }
    }, 120_000);
  }
});
