/**
 * Data flows one way (README "Architecture"): lower layers never import higher ones. Imports are
 * read with the TypeScript compiler's own pre-processor (type-only imports count too).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes('/fixtures/'));
}

/** `src/<top>` or `rules/<id>` of a repository-relative path. */
const unitOf = (rel: string) => rel.split('/').slice(0, 2).join('/');

function imports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((f) => f.startsWith('.'))
    .map((f) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), f)).split(path.sep).join('/'));
}

/** For each layer, the layers it must never import. */
const FORBIDDEN: Record<string, string[]> = {
  'src/lang': ['src/cli', 'src/lsp', 'src/report', 'src/confirm', 'rules'],
  'src/suites': ['src/cli', 'src/lsp', 'src/report', 'src/confirm', 'rules'],
  'src/config': ['src/cli', 'src/lsp', 'src/report', 'src/confirm', 'rules'],
  'src/engine': ['src/cli', 'src/lsp', 'src/report', 'src/confirm', 'rules'],
  'src/report': ['src/cli', 'src/lsp', 'src/confirm', 'rules'],
  'src/confirm': ['src/cli', 'src/lsp', 'src/report'],
};

it('reads imports as the compiler resolves them (the check can see a violation)', () => {
  expect(imports('src/cli/cache.ts')).toContain('src/report/markdown.js');
  expect(unitOf('src/report/markdown.js')).toBe('src/report');
});

it('no module imports a layer above its own', () => {
  const files = [...tsFiles('src'), ...tsFiles('rules')];
  expect(files.length).toBeGreaterThan(100);
  const bad: string[] = [];
  for (const f of files) {
    const unit = unitOf(f);
    const layer = unit.startsWith('rules/') ? 'rules' : unit;
    for (const target of imports(f)) {
      const t = unitOf(target);
      const tLayer = t.startsWith('rules/') ? 'rules' : t;
      if (FORBIDDEN[layer]?.includes(tLayer)) bad.push(`${f} → ${target}`);
      // rules never import the CLI, the language server, the host or each other
      if (layer === 'rules') {
        if (tLayer === 'src/cli' || tLayer === 'src/lsp' || /^src\/confirm\/host(\.[jt]s)?$/.test(target)) bad.push(`${f} → ${target}`);
        if (tLayer === 'rules' && t !== unit) bad.push(`${f} → ${target} (another rule)`);
      }
    }
  }
  expect(bad).toEqual([]);
});
