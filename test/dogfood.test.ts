/** Dogfood: vaudit's own sources, rules, scripts and benches pass vaudit (its Python harness included). */
import path from 'node:path';
import { expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';

it('vaudit reports nothing on its own code', async () => {
  const root = path.resolve(import.meta.dirname, '..');
  const r = await lint({ paths: ['src', 'rules', 'bench', 'scripts', 'bin'], cwd: root });
  try {
    const shown = r.findings.map((f) => `${f.ruleId} ${path.relative(root, f.file)}:${f.range.start.line} ${f.message}`);
    expect(shown).toEqual([]);
    expect(r.stats.files).toBeGreaterThan(100);
  } finally {
    r.dispose();
  }
});
