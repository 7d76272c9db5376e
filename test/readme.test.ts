/** The README's rule table is generated from rule metadata; keep it in sync (`npm run readme`). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadRules } from '../src/engine/registry.js';
import { renderRuleTable } from '../src/report/rule-docs.js';

it('README rule table matches the rules (run `npm run readme`)', async () => {
  const readme = readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');
  const m = /<!-- rules:start[^>]*-->\n([\s\S]*?)\n<!-- rules:end -->/.exec(readme);
  expect(m, 'README.md rule table markers').not.toBeNull();
  const rules = await loadRules();
  expect(m![1]).toBe(renderRuleTable([...rules.values()].map((r) => r.meta)));
});

it('README documents the two fresh-clone commands that package.json defines', () => {
  const readme = readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');
  const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8'));
  expect(readme).toContain('npm ci && npm run demo');
  expect(readme).toContain('npm ci && npm run test:all');
  expect(pkg.scripts.demo).toContain('fixtures/demo-suite');
  expect(pkg.scripts['test:all']).toMatch(/vitest run$/); // every project: what .ci/run runs
  expect(pkg.scripts.test).toContain('vitest run --project fast');
});
