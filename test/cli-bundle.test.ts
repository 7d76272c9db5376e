/**
 * The single-file build (scripts/build-bundle.mjs, loaded by bin/bundle.js): `node bin/vaudit.js`
 * runs it when it is current, with the same findings as the module tree in dist/, and falls back to
 * the module tree when a file it was built from changed since or when VAUDIT_BUNDLE=0.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './helpers/run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DEMO = path.join(ROOT, 'fixtures/demo-suite');
const built = existsSync(path.join(ROOT, 'dist/vaudit.bundle.cjs'));
const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const codeLine = (stderr: string) => /vaudit debug: code: (.*)/.exec(stderr)?.[1];

/**
 * A hang guard, not a speed budget: a test here runs up to fourteen CLI processes (one with control
 * cases), 26 s alone and 44 s on a loaded machine, which once overran vitest's 30 s. No bound in this file
 * may be a time the work is expected to take; this one only ends a run that hangs.
 */
const HANG_GUARD_MS = 600_000;

function findings(env: Record<string, string>, out: string): unknown {
  const r = runCli(['check', DEMO, '--format', 'json', '--output-file', out], { cwd: ROOT, env });
  expect(r.code).toBe(1);
  return JSON.parse(readFileSync(out, 'utf8')).findings;
}

describe.skipIf(!built)('single-file build', { timeout: HANG_GUARD_MS }, () => {
  it('runs by default and reports the same findings as the module tree', () => {
    const r = runCli(['check', DEMO, '--debug', '--format', 'json', '--output-file', path.join(dir, 'debug.json')], { cwd: ROOT });
    expect(codeLine(r.stderr)).toMatch(/^single-file build \(dist\/vaudit\.bundle\.cjs\)/);
    const off = runCli(['check', DEMO, '--debug', '--format', 'json', '--output-file', path.join(dir, 'debug-off.json')], { cwd: ROOT, env: { VAUDIT_BUNDLE: '0' } });
    expect(codeLine(off.stderr)).toBe('module tree (dist/)');
    expect(findings({}, path.join(dir, 'a.json'))).toEqual(findings({ VAUDIT_BUNDLE: '0' }, path.join(dir, 'b.json')));
  });

  it('loads the packages it imports lazily (the wasm parser, the TypeScript stripper) with the same results, and no warning', () => {
    const suites = path.join(ROOT, 'fixtures/suites');
    const run = (env: Record<string, string>, out: string) => {
      const r = runCli(['check', suites, '--debug', '--format', 'json', '--output-file', out], { cwd: ROOT, env: { VAUDIT_PYTHON_PARSER: 'wasm', ...env } });
      expect(r.stderr).not.toMatch(/Warning|internal error/);
      expect(r.stderr).toContain('python parser: web-tree-sitter (wasm)');
      return { code: codeLine(r.stderr), findings: JSON.parse(readFileSync(out, 'utf8')).findings as unknown };
    };
    const bundled = run({}, path.join(dir, 'wasm-a.json'));
    const tree = run({ VAUDIT_BUNDLE: '0' }, path.join(dir, 'wasm-b.json'));
    expect(bundled.code).toMatch(/^single-file build/);
    expect(tree.code).toBe('module tree (dist/)');
    expect(bundled.findings).toEqual(tree.findings);
  });

  it('falls back to the module tree when a file it was built from changed since, and keeps its code cache per bundle', () => {
    // a copy of the package (bin/, dist/, the docs examples and schemas, the confirm harness, node_modules linked)
    const pkg = path.join(dir, 'pkg');
    // a clone that builds: its tsconfig.json is there (an installed package has none)
    for (const d of ['bin', 'dist', 'rules', 'schemas', 'package.json', 'tsconfig.json', 'src/confirm/harness']) cpSync(path.join(ROOT, d), path.join(pkg, d), { recursive: true, preserveTimestamps: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
    const bin = path.join(pkg, path.relative(ROOT, BIN));
    const debug = () => {
      const r = spawnSync(process.execPath, [bin, 'check', DEMO, '--debug', '--format', 'json', '--output-file', path.join(dir, 'pkg.json')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: HANG_GUARD_MS });
      expect(r.status).toBe(1);
      return codeLine(r.stderr);
    };
    const version = () => expect(spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: HANG_GUARD_MS }).status).toBe(0);
    // a cache made for other bytes is not used (and is replaced after the run)
    const cache = path.join(pkg, 'dist/vaudit.bundle.cache');
    cpSync(path.join(pkg, 'dist/vaudit.bundle.json'), cache);
    expect(debug()).toBe('single-file build (dist/vaudit.bundle.cjs), no code cache yet');
    // later runs change V8's tiering only after reading the cache, so it stays valid run after run
    expect(debug()).toMatch(/code cache used \(from 1 check input\); V8 optimises late \(4× interrupt budget\)$/);
    const byCheck = readFileSync(cache);
    expect(debug()).toMatch(/code cache used \(from 1 check input\); V8 optimises late/);
    // a check of the same inputs again, a run without a static pass: the cache stays as it is
    version();
    expect(readFileSync(cache).equals(byCheck)).toBe(true);
    // a cache written by a run that compiled little (the first command after an install may be
    // `--version`): the next check adds what it compiled, with V8's default flags (the next run's V8
    // takes the cache), and the check after it has nothing to add
    rmSync(cache);
    version();
    const small = statSync(cache).size;
    expect(small).toBeLessThan(byCheck.length / 2);
    expect(debug()).toMatch(/code cache used \(from 0 check inputs\); V8 optimises late/);
    const grown = readFileSync(cache);
    expect(grown.length).toBeGreaterThan(small * 2);
    expect(debug()).toMatch(/code cache used \(from 1 check input\); V8 optimises late/);
    expect(readFileSync(cache).equals(grown)).toBe(true);
    // a check of other inputs adds what it compiled once; a check with the confirm stage adds nothing
    const other = (extra: string[] = []) => spawnSync(process.execPath, [bin, 'check', path.join(DEMO, 'tasks'), '--debug', ...extra, '--format', 'json', '--output-file', path.join(dir, 'pkg-other.json')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: HANG_GUARD_MS });
    expect(other(['--confirm']).status).toBe(1);
    expect(readFileSync(cache).equals(grown)).toBe(true);
    expect(other().status).toBe(1);
    expect(codeLine(other().stderr)).toMatch(/code cache used \(from 2 check inputs\)/);
    // files named one by one (a pre-commit hook names the staged ones) count as their project: one input
    const file = (name: string) => spawnSync(process.execPath, [bin, 'check', path.join(DEMO, 'verifier', name), '--debug'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: HANG_GUARD_MS });
    file('celestia/mixin.py');
    const afterOne = readFileSync(cache);
    expect(codeLine(file('server/__init__.py').stderr)).toMatch(/code cache used \(from 3 check inputs\)/);
    expect(readFileSync(cache).equals(afterOne)).toBe(true);
    // an input rebuilt (`tsc` alone): its modification time moves
    const input = path.join(pkg, 'dist/src/engine/lint.js');
    const { mtime } = statSync(input);
    utimesSync(input, new Date(), new Date(Date.now() + 5_000));
    expect(debug()).toBe('module tree (dist/)');
    // an installed package (no tsconfig.json) is never rebuilt in place: its files' dates are the unpacking's
    // (an install from git writes the bundle before the modules), so only a changed size makes it stale
    rmSync(path.join(pkg, 'tsconfig.json'));
    expect(debug()).toMatch(/^single-file build/);
    appendFileSync(input, '\n');
    utimesSync(input, mtime, mtime);
    expect(debug()).toBe('module tree (dist/)');
  });
});
