/** Dogfood: vaudit's own sources, rules, scripts and benches pass vaudit (its Python harness included). */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';

it('vaudit reports nothing on its own code', async () => {
  const root = path.resolve(import.meta.dirname, '..');
  // rules/<id>/*.ts (rule and oracle), not rules/<id>/fixtures: those hold defects on purpose.
  const ruleModules = readdirSync(path.join(root, 'rules'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /^[^/]+\/[^/]+\.ts$/.test(f.split(path.sep).join('/')))
    .map((f) => path.join('rules', f));
  const r = await lint({ paths: ['src', ...ruleModules, 'bench', 'scripts', 'bin'], cwd: root });
  try {
    const shown = r.findings.map((f) => `${f.ruleId} ${path.relative(root, f.file)}:${f.range.start.line} ${f.message}`);
    expect(shown).toEqual([]);
    expect(r.stats.files).toBeGreaterThan(100);
  } finally {
    r.dispose();
  }
}, 120_000); // all of vaudit's own code: generous for a loaded machine
