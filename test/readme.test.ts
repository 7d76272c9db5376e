/** The README's rule table is generated from rule metadata; keep it in sync (`npm run readme`). */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadRules } from '../src/contract/registry.js';
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

it('the README commands build once: npm ci builds (prepare), demo/test/bench/readme only check the build stamp', () => {
  const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8'));
  expect(pkg.scripts.prepare).toBe('node scripts/build-stamp.mjs prepare');
  expect(pkg.scripts.build).toMatch(/build-stamp\.mjs write$/);
  for (const s of ['test', 'test:all', 'demo', 'bench', 'readme']) {
    expect(pkg.scripts[s], s).toMatch(/^node scripts\/build-stamp\.mjs ensure && /);
    expect(pkg.scripts[s], s).not.toContain('npm run build');
  }
});

it('scripts/build-stamp.mjs ensure runs the build only when a build input changed', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'vaudit-stamp-'));
  try {
    for (const d of ['scripts', 'src', 'rules/r1', 'schemas', 'dist/src/cli', 'dist/schemas', 'dist/grammars', 'bin']) mkdirSync(path.join(tmp, d), { recursive: true });
    copyFileSync(path.resolve(import.meta.dirname, '../scripts/build-stamp.mjs'), path.join(tmp, 'scripts/build-stamp.mjs'));
    writeFileSync(path.join(tmp, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(tmp, 'rules/r1/rule.ts'), 'export {};\n');
    writeFileSync(path.join(tmp, 'schemas/s.json'), '{}\n');
    writeFileSync(path.join(tmp, 'dist/src/cli/main.js'), '');
    writeFileSync(path.join(tmp, 'dist/schemas/task-validators.cjs'), '');
    writeFileSync(path.join(tmp, 'dist/grammars/tree-sitter-python.wasm'), '');
    writeFileSync(path.join(tmp, 'package.json'), '{ "version": "9.9.9" }\n');
    // a stand-in npm that records "npm run build" and writes the stamp, as the real build does
    const log = path.join(tmp, 'npm.log');
    writeFileSync(path.join(tmp, 'bin/npm'), `#!/bin/sh\necho "$@" >> ${JSON.stringify(log)}\nnode ${JSON.stringify(path.join(tmp, 'scripts/build-stamp.mjs'))} write\n`, { mode: 0o755 });
    const ensure = () => {
      const r = spawnSync(process.execPath, [path.join(tmp, 'scripts/build-stamp.mjs'), 'ensure'], { encoding: 'utf8', env: { ...process.env, PATH: `${path.join(tmp, 'bin')}:${process.env.PATH}` } });
      expect(r.status, r.stderr).toBe(0);
      return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0;
    };
    expect(ensure()).toBe(1); // no stamp: build
    expect(ensure()).toBe(1); // current: no build
    writeFileSync(path.join(tmp, 'rules/r1/rule.ts'), 'export const changed = true;\n');
    expect(ensure()).toBe(2); // a rule changed: build
    expect(ensure()).toBe(2);
    writeFileSync(path.join(tmp, 'rules/r1/notes.md'), 'not a build input\n');
    expect(ensure()).toBe(2);
    rmSync(path.join(tmp, 'dist/src/cli/main.js'));
    expect(ensure()).toBe(3); // output missing: build
    // npm's prepare (a git install): a current dist/ (a release tag) builds nothing, needing no tools
    writeFileSync(path.join(tmp, 'dist/src/cli/main.js'), '');
    const prepare = () => spawnSync(process.execPath, [path.join(tmp, 'scripts/build-stamp.mjs'), 'prepare'], { encoding: 'utf8', env: { ...process.env, PATH: `${path.join(tmp, 'bin')}:${process.env.PATH}` } });
    expect(prepare().status).toBe(0);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(3);
    // a stale dist/ where the compiler is not installed (a git install without dependencies) fails, saying what to install
    writeFileSync(path.join(tmp, 'src/a.ts'), 'export const a = 2;\n');
    const r = prepare();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the build tools (typescript, esbuild) are not installed');
    expect(r.stderr).toContain('#v9.9.9');
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(3);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
