/**
 * What a new user meets on a first run (issue 16), through the real `node bin/vaudit.js` process:
 * exit codes as in ESLint and Ruff (2 for a wrong command, not 1), no silent empty runs, binary
 * files skipped rather than failing, the run's own baseline/report never linted, the summary
 * block, and messages without escape sequences.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-first-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(name: string, files: Record<string, string | Buffer>): string {
  const root = path.join(dir, name);
  mkdirSync(root, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const CLEAN = 'def f():\n    return True\n';
const BROKEN = 'def f(:\n    pass\n';

describe('paths that do not exist', () => {
  it('exit 2 with a usage error naming the path, not a parse-error finding', () => {
    const root = project('missing', { 'v.py': CLEAN });
    const r = runCli(['check', 'nope'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("vaudit: No such file or directory: 'nope'. Check the path for typing mistakes.\n");
    expect(r.stdout).toBe('');
  });

  it('exit 2 even beside a valid path, naming only the missing ones', () => {
    const root = project('missing2', { 'v.py': BROKEN });
    const r = runCli(['check', 'v.py', 'tasks/nope.json', 'gone'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("No such file or directory: 'tasks/nope.json', 'gone'. Check the paths");
    expect(r.stdout).not.toContain('parse-error');
  });

  it('-c with a config file that does not exist says so (exit 2)', () => {
    const root = project('missing-config', { 'v.py': CLEAN });
    const r = runCli(['check', '-c', 'missing.json', '.'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('vaudit: Config file not found: missing.json (given with -c/--config).\n');
    expect(r.stderr).not.toMatch(/ENOENT|not valid JSON/);
  });
});

describe('runs that check nothing', () => {
  it('an empty folder exits 2 with a clear message (a CI gate must not pass silently)', () => {
    const root = project('empty', { 'README.md': '# nothing vaudit reads\n' });
    const r = runCli(['check'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^vaudit: No files to check in '\.'\. vaudit reads \*\.json task files and \*\.py/);
    expect(r.stderr).toContain('--no-error-on-unmatched-pattern');
    const named = runCli(['check', '.'], { cwd: root });
    expect(named.code).toBe(2);
  });

  it('names the empty folder even beside one that has files', () => {
    const root = project('empty2', { 'verifier/v.py': CLEAN, 'docs/notes.txt': 'x\n' });
    const r = runCli(['check', 'verifier', 'docs'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("No files to check in 'docs'.");
  });

  it('--no-error-on-unmatched-pattern allows an empty run (exit 0)', () => {
    const root = project('empty3', {});
    const r = runCli(['check', '--no-error-on-unmatched-pattern'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No problems (0 files');
  });

  it('a named file of another type (pre-commit passes those) is not an error', () => {
    const root = project('named-other', { 'notes.txt': 'x\n', 'v.py': CLEAN });
    const r = runCli(['check', 'notes.txt'], { cwd: root });
    expect(r.code).toBe(0);
  });
});

describe('binary files', () => {
  it('a binary x.json is skipped with a warning and does not fail the run', () => {
    const root = project('binary', { 'x.json': Buffer.from([0x00, 0x01, 0x7b, 0x7d, 0xff]), 'v.py': CLEAN });
    const r = runCli(['check', '.'], { cwd: root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/x\.json\n\s+1:1\s+warning\s+Binary file \(contains NUL bytes\); skipped\./);
    expect(r.stdout).toContain('✖ 1 problem (0 errors, 1 warning)');
    // still a warning for --max-warnings, as ESLint counts its "file ignored" warnings
    expect(runCli(['check', '.', '--max-warnings', '0'], { cwd: root }).code).toBe(1);
  });
});

describe('--baseline-write', { timeout: 120_000 }, () => {
  it('exits 0, says where it wrote, and the baseline file is never linted as an input', () => {
    const root = project('baseline', { 'verifier/a.py': BROKEN, 'verifier/b.py': CLEAN });
    const before = JSON.parse(runCli(['check', '.', '-f', 'json'], { cwd: root }).stdout);
    const w = runCli(['check', '.', '--baseline-write', 'vaudit-baseline.json'], { cwd: root });
    expect(w.code, w.stdout + w.stderr).toBe(0);
    expect(w.stderr).toContain('Wrote baseline with 1 finding to vaudit-baseline.json');
    expect(w.stdout).toContain('1 matched the baseline.');
    const again = runCli(['check', '.', '--baseline-write', 'vaudit-baseline.json', '-f', 'json'], { cwd: root });
    expect(JSON.parse(again.stdout).summary.files).toBe(before.summary.files);
    const after = runCli(['check', '.', '--baseline', 'vaudit-baseline.json', '-f', 'json'], { cwd: root });
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout).summary.files).toBe(before.summary.files);
  });

  it('a JSON report written with -o is not linted by the next run', () => {
    const root = project('report-out', { 'v.py': BROKEN });
    runCli(['check', '.', '-f', 'json', '-o', 'report.json'], { cwd: root });
    const r = runCli(['check', '.', '-f', 'json', '-o', 'report.json'], { cwd: root });
    expect(r.code).toBe(1);
    expect(JSON.parse(readFileSync(path.join(root, 'report.json'), 'utf8')).summary.files).toBe(1);
  });
});

describe('options', () => {
  it('check --help lists the --format choices', () => {
    const r = runCli(['check', '--help'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('output format (choices: "stylish", "json", "sarif", "github", "markdown", "html", default: "stylish")');
  });

  it('an unknown --format is a usage error naming the choices', () => {
    const r = runCli(['check', '-f', 'xml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Allowed choices are stylish, json, sarif, github, markdown, html.');
  });

  it.each([['--jobs', '0'], ['--jobs', '-1'], ['--jobs', '1.5'], ['--confirm-timeout', '0']])('%s %s is rejected (exit 2)', (opt, v) => {
    const r = runCli(['check', opt, v], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`option '${opt}`);
    expect(r.stderr).toMatch(/must be (an integer|at least 1)/);
  });
});

describe('messages', () => {
  it('a Python syntax error quotes the code without escape sequences', () => {
    const root = project('syntax', { 'v.py': 'if x\n    y = 1\nz = "abc\n' });
    const r = runCli(['check', '.'], { cwd: root });
    expect(r.code).toBe(1);
    const line = r.stdout.split('\n').find((l) => l.includes('Python syntax error'))!;
    expect(line).toContain('Python syntax error: unexpected `if x …`.');
    expect(line).not.toContain('\\n');
    expect(line).not.toContain('\\"');
  });
});

describe('the stylish summary block', { timeout: 120_000 }, () => {
  it('counts findings per rule, most frequent first', () => {
    const root = project('summary', {
      'a.py': BROKEN,
      'b.py': 'x = 1  # vaudit: ignore[no-such-rule]\ny = 2  # vaudit: ignore[other-rule]\n',
    });
    const r = runCli(['check', '.'], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✖ 3 problems (1 error, 2 warnings) in 2 files, 0 tasks, 0 verifier entries.\n  rules: unused-suppression 2, parse-error 1\n');
    // printed alone when the report goes to a file
    const o = runCli(['check', '.', '-f', 'sarif', '-o', 'out.sarif'], { cwd: root });
    expect(o.stdout).toContain('  rules: unused-suppression 2, parse-error 1\n');
  });
});
