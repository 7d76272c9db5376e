/** Executed documentation: every rule's incorrect examples report exactly their annotations, correct ones nothing. */
import { describe, expect, it } from 'vitest';
import { loadRules } from '../src/contract/registry.js';
import { describeMismatch, lintExample } from './helpers/lint-case.js';

const rules = await loadRules();

describe.each([...rules.values()].map((r) => [r.meta.id, r] as const))('%s docs', (id, rule) => {
  it('has at least one incorrect and one correct example', () => {
    expect(rule.meta.docs.incorrect?.length, `rules/${rule.meta.id}/docs/incorrect/<n>/ missing`).toBeGreaterThan(0);
    expect(rule.meta.docs.correct?.length, `rules/${rule.meta.id}/docs/correct/<n>/ missing`).toBeGreaterThan(0);
  });
  (rule.meta.docs.incorrect ?? []).forEach((ex, i) => {
    it(`incorrect example ${i + 1} reports exactly its annotations`, async () => {
      const r = await lintExample(ex.files, id);
      expect(r.expectations.length, 'an incorrect example must annotate its findings').toBeGreaterThan(0);
      expect(describeMismatch(r)).toBe('');
    });
  });
  (rule.meta.docs.correct ?? []).forEach((ex, i) => {
    it(`correct example ${i + 1} is silent`, async () => {
      const r = await lintExample(ex.files, id);
      expect(r.expectations).toEqual([]);
      expect(describeMismatch(r)).toBe('');
    });
  });
});
