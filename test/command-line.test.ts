/** The CLI as a user meets it: real processes, real files, exit codes 0/1/2. */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vaudit-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const root = path.join(dir, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe('vaudit (no command)', () => {
  it('prints its version', () => {
    const r = runCli(['--version'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
  it('exits 2 on an unknown option', () => {
    const r = runCli(['check', '--no-such-flag'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option/);
  });
});

describe('vaudit rules', () => {
  it('lists every rule, and shows one rule\'s docs', () => {
    const list = runCli(['rules', '--format', 'json'], { cwd: dir });
    expect(list.code).toBe(0);
    const rules = JSON.parse(list.stdout) as Array<{ id: string }>;
    expect(rules.length).toBeGreaterThan(0);
    const one = runCli(['rules', rules[0]!.id], { cwd: dir });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('Why is this bad?');
    expect(one.stdout).toContain('Incorrect');
  });
  it('exits 2 for an unknown rule', () => {
    const r = runCli(['rules', 'no-such-rule'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown rule 'no-such-rule'/);
  });
});

describe('vaudit check', () => {
  it('exits 0 with a clean summary on a clean project', () => {
    const root = project('clean', { 'v.py': 'def f():\n    return True\n' });
    const r = runCli(['check', '.'], { cwd: root });
    expect(r.stdout).toContain('No problems');
    expect(r.code).toBe(0);
  });

  it('exits 1 and names the file, position and rule for a bad file, and goes on', () => {
    const root = project('bad', { 'a.py': 'def f(:\n  pass\n', 'b.py': 'x = 1\n' });
    const r = runCli(['check'], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/a\.py\n\s+1:\d+\s+error\s+Python syntax error/);
    expect(r.stdout).toContain('parse-error');
    expect(r.stdout).not.toMatch(/\x1b\[/); // no colour when piped
  });

  it('writes a versioned JSON report with a summary', () => {
    const root = project('json', { 'a.py': 'def f(:\n', 'ok.py': 'y = 2\n' });
    const r = runCli(['check', '--format', 'json'], { cwd: root });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.version).toBe(1);
    expect(doc.summary).toMatchObject({ files: 2, tasks: 0, verifierEntries: 0, findings: { total: 1, error: 1, warning: 0 } });
    expect(doc.findings[0]).toMatchObject({ ruleId: 'parse-error', file: 'a.py', range: { start: { line: 1 } } });
    expect(doc.findings[0].fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });

  it('reports an invalid config with its JSON pointer and exits 2', () => {
    const root = project('badcfg', { 'vaudit.config.json': JSON.stringify({ rules: { 'parse-error': 'loud' }, colour: true }), 'v.py': 'x = 1\n' });
    const r = runCli(['check'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('vaudit.config.json');
    expect(r.stderr).toMatch(/\d+:\d+ \/colour: unknown property 'colour'/);
  });

  it('writes --output-file without touching anything else, and honours --quiet', () => {
    const root = project('out', { 'a.py': 'def f(:\n' });
    const r = runCli(['check', '--format', 'json', '--output-file', 'report.json', '--quiet'], { cwd: root });
    expect(r.code).toBe(1);
    const doc = JSON.parse(readFileSync(path.join(root, 'report.json'), 'utf8'));
    expect(doc.findings).toHaveLength(1);
    expect(readFileSync(path.join(root, 'a.py'), 'utf8')).toBe('def f(:\n');
  });

  it('lints standard input as --stdin-filename', () => {
    const root = project('stdin', { 'keep.py': 'x = 1\n' });
    const r = runCli(['check', '--stdin-filename', 'virtual.py', '--format', 'json'], { cwd: root, input: 'def g(:\n' });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.findings.map((f: { file: string }) => f.file)).toEqual(['virtual.py']);
    expect(existsSync(path.join(root, 'virtual.py'))).toBe(false);
  });

  it('exits 1 when warnings exceed --max-warnings, 0 otherwise', () => {
    const root = project('warn', { 'v.py': 'x = 1  # vaudit: ignore[parse-error]\n' });
    // an unused suppression is a warning
    const over = runCli(['check', '--max-warnings', '0'], { cwd: root });
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/too many warnings/);
    const under = runCli(['check', '--max-warnings', '1'], { cwd: root });
    expect(under.code).toBe(0);
  });

  it('emits GitHub workflow commands', () => {
    const root = project('gh', { 'a.py': 'def f(:\n' });
    const r = runCli(['check', '--format', 'github'], { cwd: root });
    expect(r.stdout).toMatch(/^::error file=a\.py,line=1,col=\d+,endColumn=\d+,title=vaudit\(parse-error\)::Python syntax error/m);
  });
});
