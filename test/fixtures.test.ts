/** Every rule's fixtures: incorrect cases produce exactly their annotated findings, correct cases none. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRules } from '../src/engine/registry.js';
import { describeMismatch, lintCase } from './helpers/lint-case.js';

const ROOT = path.resolve(import.meta.dirname, '../rules');
const rules = await loadRules();

function cases(rule: string, kind: 'incorrect' | 'correct'): string[] {
  const dir = path.join(ROOT, rule, 'fixtures', kind);
  return existsSync(dir) ? readdirSync(dir).sort().map((c) => path.join(dir, c)) : [];
}

describe.each([...rules.keys()])('%s fixtures', (id) => {
  it('has incorrect and correct cases', () => {
    expect(cases(id, 'incorrect').length, `rules/${id}/fixtures/incorrect/<case>/ missing`).toBeGreaterThan(0);
    expect(cases(id, 'correct').length, `rules/${id}/fixtures/correct/<case>/ missing`).toBeGreaterThan(0);
  });
  for (const dir of cases(id, 'incorrect')) {
    it(`incorrect/${path.basename(dir)} reports exactly its annotations`, async () => {
      const r = await lintCase(dir, id);
      expect(r.expectations.length, 'an incorrect case must annotate at least one expected finding').toBeGreaterThan(0);
      expect(describeMismatch(r)).toBe('');
    });
  }
  for (const dir of cases(id, 'correct')) {
    it(`correct/${path.basename(dir)} is silent`, async () => {
      const r = await lintCase(dir, id);
      expect(r.expectations, 'a correct case must not annotate findings of its rule').toEqual([]);
      expect(describeMismatch(r)).toBe('');
    });
  }
});

// Folders under rules/ that do not hold a registered rule would be silently skipped: reject them.
it('every rules/ folder is a registered rule', () => {
  const stray = readdirSync(ROOT).filter((d) => !rules.has(d));
  expect(stray).toEqual([]);
});
