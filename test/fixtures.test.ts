/** Every rule's fixtures: incorrect cases produce exactly their annotated findings, correct cases none. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRules } from '../src/contract/registry.js';
import { formatStylishFindings } from '../src/report/stylish.js';
import { describeMismatch, lintCase, lintExample } from './helpers/lint-case.js';

const ROOT = path.resolve(import.meta.dirname, '../rules');
const rules = await loadRules();

function cases(rule: string, kind: 'incorrect' | 'correct'): string[] {
  const dir = path.join(ROOT, rule, 'fixtures', kind);
  return existsSync(dir) ? readdirSync(dir).sort().map((c) => path.join(dir, c)) : [];
}

/** Message ids each rule produced on its fixtures (checked for coverage at the end). */
const produced = new Map<string, Set<string>>();
const note = (id: string, r: { findings: Array<{ messageId: string }> }) => {
  const s = produced.get(id) ?? new Set<string>();
  for (const f of r.findings) s.add(f.messageId);
  produced.set(id, s);
};

describe.each([...rules.keys()])('%s fixtures', (id) => {
  it('has incorrect and correct cases', () => {
    expect(cases(id, 'incorrect').length, `rules/${id}/fixtures/incorrect/<case>/ missing`).toBeGreaterThan(0);
    expect(cases(id, 'correct').length, `rules/${id}/fixtures/correct/<case>/ missing`).toBeGreaterThan(0);
  });
  for (const dir of cases(id, 'incorrect')) {
    it(`incorrect/${path.basename(dir)} reports exactly its annotations`, async () => {
      const r = await lintCase(dir, id);
      note(id, r);
      expect(r.expectations.length, 'an incorrect case must annotate at least one expected finding').toBeGreaterThan(0);
      expect(describeMismatch(r)).toBe('');
      // what the catalogue lists is what is reported (issue 31: unbound-name was listed as warn, reported as error)
      const meta = rules.get(id)!.meta;
      const listed = [meta.defaultSeverity, meta.otherSeverity?.severity].map((x) => (x === 'warn' ? 'warning' : x));
      for (const f of r.findings) expect(listed, `${f.messageId} reported as ${f.severity}; rules/${id} lists ${listed.filter(Boolean).join(', ')} (meta.otherSeverity)`).toContain(f.severity);
      // the rendered diagnostics (stylish, plain, paths relative to the case): wording changes show in review
      await expect(formatStylishFindings(r.findings, dir)).toMatchFileSnapshot(path.join(ROOT, id, 'fixtures', '__snapshots__', `${path.basename(dir)}.txt`));
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

// Strict tester: every message a rule can produce is produced by one of its fixtures or docs
// examples (a message id nothing produces is untested wording, or dead code).
// Known gaps, each to be closed by a fixture (not by growing this list).
const UNPRODUCED_TODO = new Set<string>([]);

it('every message id of every rule is produced by a fixture or a docs example', async () => {
  const unproduced: string[] = [];
  for (const [id, rule] of rules) {
    const have = produced.get(id) ?? new Set<string>();
    const want = Object.keys(rule.meta.messages).filter((m) => !have.has(m));
    if (!want.length) continue;
    for (const ex of rule.meta.docs.incorrect ?? []) note(id, await lintExample(ex.files, id));
    const after = produced.get(id) ?? new Set<string>();
    unproduced.push(...want.filter((m) => !after.has(m)).map((m) => `${id}/${m}`));
  }
  expect(unproduced.filter((m) => !UNPRODUCED_TODO.has(m))).toEqual([]);
  // A gap that closed must leave the list.
  expect([...UNPRODUCED_TODO].filter((m) => !unproduced.includes(m))).toEqual([]);
}, 120_000);

// Strict tester: two case folders of one rule with the same files test the same thing twice.
it('no rule has two identical fixture cases', async () => {
  const { createHash } = await import('node:crypto');
  const { listFiles } = await import('./helpers/lint-case.js');
  const { readFileSync } = await import('node:fs');
  const dupes: string[] = [];
  for (const id of rules.keys()) {
    const seen = new Map<string, string>();
    for (const dir of [...cases(id, 'incorrect'), ...cases(id, 'correct')]) {
      const h = createHash('sha256');
      for (const f of listFiles(dir)) h.update(path.relative(dir, f)).update('\0').update(readFileSync(f)).update('\0');
      const key = h.digest('hex');
      const other = seen.get(key);
      if (other) dupes.push(`${path.relative(ROOT, dir)} = ${path.relative(ROOT, other)}`);
      else seen.set(key, dir);
    }
  }
  expect(dupes).toEqual([]);
});
