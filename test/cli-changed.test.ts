/**
 * `--changed-since <rev>`: only files changed since a git revision (committed since, staged,
 * unstaged, untracked-not-ignored) are checked. git runs through the host (the only process
 * owner in src/); the test drives a real git repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedSince, withinPaths } from '../src/cli/changed.js';
import { runCli } from './helpers/run-cli.js';

const hasGit = spawnSync('git', ['--version']).status === 0;
const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-changed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function git(...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}
const write = (rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
};
const BROKEN = 'def f(:\n    pass\n';

describe.skipIf(!hasGit)('--changed-since', () => {
  beforeAll(() => {
    git('init', '-q', '-b', 'main');
    write('.gitignore', 'ignored/\n');
    write('verifier/old_broken.py', BROKEN); // broken before the base: not reported
    write('verifier/clean.py', 'x = 1\n');
    write('verifier/gone.py', 'x = 2\n');
    write('verifier/staged.py', 'x = 3\n');
    git('add', '-A');
    git('commit', '-qm', 'base');
    git('tag', 'base');
    write('verifier/committed.py', BROKEN);
    git('add', '-A');
    git('commit', '-qm', 'second');
    write('verifier/staged.py', BROKEN);
    git('add', 'verifier/staged.py');
    write('verifier/clean.py', BROKEN); // unstaged
    write('verifier/new file.py', BROKEN); // untracked
    write('ignored/x.py', BROKEN); // git-ignored
    rmSync(path.join(dir, 'verifier/gone.py')); // deleted
    write('notes.txt', 'not code');
  });

  it('lists committed, staged, unstaged and untracked changes, not ignored or deleted files', async () => {
    const c = await changedSince('base', dir);
    const rel = c.files.map((f) => path.relative(c.root, f)).sort();
    expect(rel).toEqual(['notes.txt', 'verifier/clean.py', 'verifier/committed.py', 'verifier/new file.py', 'verifier/staged.py']);
    expect(withinPaths(c.files, ['verifier/staged.py', 'notes.txt'], dir).map((f) => path.relative(dir, f))).toEqual(['notes.txt', 'verifier/staged.py']);
  });

  it('checks only the changed files', () => {
    const r = runCli(['check', '--changed-since', 'base', '-f', 'json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const files = JSON.parse(r.stdout).findings.map((f: { file: string }) => f.file).sort();
    expect(files).toEqual(['verifier/clean.py', 'verifier/committed.py', 'verifier/new file.py', 'verifier/staged.py']);
    const head = runCli(['check', '--changed-since', 'HEAD', '-f', 'json'], { cwd: dir });
    expect(JSON.parse(head.stdout).findings.map((f: { file: string }) => f.file).sort()).toEqual(['verifier/clean.py', 'verifier/new file.py', 'verifier/staged.py']);
  });

  it('restricts to the given paths, and passes cleanly when nothing relevant changed', () => {
    const r = runCli(['check', 'verifier/staged.py', '--changed-since', 'base', '-f', 'json'], { cwd: dir });
    expect(JSON.parse(r.stdout).findings.map((f: { file: string }) => f.file)).toEqual(['verifier/staged.py']);
    const none = runCli(['check', 'ignored', '--changed-since', 'base'], { cwd: dir });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('No files vaudit checks changed since base.');
  });

  it('an unknown revision or a folder outside git is a usage error (exit 2)', () => {
    const r = runCli(['check', '--changed-since', 'no-such-rev'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown revision 'no-such-rev'");
    const opt = runCli(['check', '--changed-since=--output=x'], { cwd: dir }); // never handed to git as an option
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain('is not a git revision');
    const outside = mkdtempSync(path.join(tmpdir(), 'vaudit-nogit-'));
    try {
      const o = runCli(['check', '--changed-since', 'HEAD'], { cwd: outside });
      expect(o.code).toBe(2);
      expect(o.stderr).toContain('not inside a git repository');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
