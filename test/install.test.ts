/**
 * Installing vaudit into a benchmark repository as a user does (issue 31): the package `npm pack`
 * makes carries its built dist/ (and the wasm grammar) and no tests or caches; installed from that
 * tarball without devDependencies and without the optional native parser (as where tree-sitter's
 * addon cannot build), `vaudit check` runs on a Python benchmark with the wasm parser and says why;
 * and a release tag made by scripts/release.mjs, installed from its git URL, runs without building.
 *
 * npm runs with prefer-offline (the cache `npm ci` filled); the first run on a machine may fetch
 * from the registry. Every bound here is a hang guard, not a speed budget.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..');
const HANG_GUARD_MS = 1_200_000;
const work = mkdtempSync(path.join(tmpdir(), 'vaudit-install-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const VERSION = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')).version as string;
const env = {
  ...process.env,
  npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
  GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com',
  NO_COLOR: '1',
};

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env, timeout: HANG_GUARD_MS });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stderr}\n${r.stdout}`.slice(-4000));
  return r.stdout;
}

/** A Python benchmark with one verifier that can hang, and no package.json yet. */
function benchmark(name: string): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'verifiers'), { recursive: true });
  writeFileSync(path.join(dir, 'verifiers', 'task_1.py'), 'import requests\n\n\ndef verify(url):\n    return requests.get(url).ok\n');
  run('npm', ['init', '-y'], dir);
  return dir;
}

/** `npx --no vaudit check -f json` in `dir`, as the README tells users. */
function check(dir: string, ...extra: string[]): { code: number; report: { summary: Record<string, unknown>; findings: Array<{ ruleId: string; file: string }> }; stderr: string } {
  const r = spawnSync('npx', ['--no', 'vaudit', 'check', '-f', 'json', ...extra], { cwd: dir, encoding: 'utf8', env, timeout: HANG_GUARD_MS });
  return { code: r.status ?? -1, report: JSON.parse(r.stdout), stderr: r.stderr };
}

describe('the installed package', { timeout: HANG_GUARD_MS }, () => {
  let tarball = '';

  it('npm pack carries the built dist/ and the wasm grammar, and no tests, fixtures or code cache', () => {
    const out = run('npm', ['pack', '--json', '--pack-destination', work], REPO);
    const [info] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = path.join(work, info!.filename);
    const files = info!.files.map((f) => f.path);
    for (const f of ['bin/vaudit.js', 'dist/src/cli/main.js', 'dist/vaudit.bundle.cjs', 'dist/schemas/task-validators.cjs', 'dist/grammars/tree-sitter-python.wasm', 'dist/rules/missing-timeout/rule.js', 'schemas/config.schema.json']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /^(test|bench|fixtures|node_modules)\/|vaudit\.bundle\.cache$/.test(f))).toEqual([]);
  });

  it('installs from the tarball without devDependencies or the native parser; check runs on the wasm parser and says why', () => {
    const dir = benchmark('from-tarball');
    run('npm', ['install', '--save-dev', '--omit=optional', tarball], dir);
    const installed = path.join(dir, 'node_modules');
    expect(existsSync(path.join(installed, 'vaudit', 'dist', 'vaudit.bundle.cjs'))).toBe(true);
    for (const dev of ['esbuild', 'vitest', 'eslint', 'tree-sitter']) expect(existsSync(path.join(installed, dev)), dev).toBe(false);
    const r = check(dir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.report.findings.map((f) => `${f.ruleId} ${f.file}`)).toEqual(['missing-timeout verifiers/task_1.py']);
    expect(r.report.summary.pythonParser).toBe('wasm');
    expect(r.report.summary.pythonParserFallback).toMatch(/^native tree-sitter did not load: Cannot find module 'tree-sitter'/);
    const debug = spawnSync('npx', ['--no', 'vaudit', 'check', '--debug'], { cwd: dir, encoding: 'utf8', env, timeout: HANG_GUARD_MS });
    expect(debug.stderr.match(/python parser: .*/g)).toEqual([expect.stringMatching(/^python parser: web-tree-sitter \(wasm\) — native tree-sitter did not load/)]);
  });

  it('a release tag installs from its git URL and runs without building (no prepare, no devDependencies)', () => {
    const clone = path.join(work, 'vaudit-clone');
    run('git', ['clone', '-q', '--no-hardlinks', REPO, clone], work);
    // the working tree as committed here (tracked changes included), released as the lead does on main
    const changed = [...run('git', ['diff', '--name-only', '-z', 'HEAD'], REPO).split('\0'), ...run('git', ['ls-files', '--others', '--exclude-standard', '-z'], REPO).split('\0')];
    for (const rel of changed.filter(Boolean)) {
      if (existsSync(path.join(REPO, rel))) cpSync(path.join(REPO, rel), path.join(clone, rel));
      else rmSync(path.join(clone, rel), { force: true });
    }
    run('git', ['add', '-A'], clone);
    run('git', ['commit', '-qm', 'working tree', '--allow-empty', '--no-verify'], clone);
    symlinkSync(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules'));
    // the repository's own release tag (once a release is made) is not this clone's: release it anew
    spawnSync('git', ['tag', '-d', `v${VERSION}`], { cwd: clone, stdio: 'ignore' });
    const released = run(process.execPath, ['scripts/release.mjs'], clone);
    expect(released).toMatch(new RegExp(`^release: tagged v${VERSION.replace(/\./g, '\\.')} `));
    expect(run('git', ['ls-tree', '-r', '--name-only', `v${VERSION}`, '--', 'dist/vaudit.bundle.cjs', 'dist/vaudit.bundle.cache'], clone).trim()).toBe('dist/vaudit.bundle.cjs');
    expect(run('git', ['ls-tree', '--name-only', 'HEAD', '--', 'dist'], clone).trim()).toBe(''); // no branch carries dist/
    rmSync(path.join(clone, 'node_modules'));

    const dir = benchmark('from-git');
    run('npm', ['install', '--save-dev', `git+file://${clone}#v${VERSION}`], dir);
    const r = check(dir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.report.findings.map((f) => f.ruleId)).toEqual(['missing-timeout']);
    // the single-file build runs (the unpacked files' dates do not make it stale)
    const debug = spawnSync('npx', ['--no', 'vaudit', 'check', '--debug'], { cwd: dir, encoding: 'utf8', env, timeout: HANG_GUARD_MS });
    expect(debug.stderr).toMatch(/vaudit debug: code: single-file build/);
  });
});
