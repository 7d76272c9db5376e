/**
 * The smaller things a maintainer met on a first real run (issue 31), each as a user meets it: a real
 * `vaudit` process on a temporary project.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'vaudit-usability-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, files: Record<string, string | Buffer>): string {
  const dir = path.join(work, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** Every top-level member the config schema allows (the "Allowed:" list must name them all). */
const TOP_LEVEL = Object.keys((JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../schemas/config.schema.json'), 'utf8')) as { properties: object }).properties).filter((k) => k !== '$schema');

const HANGS = 'import requests\n\n\ndef check(u):\n    return requests.get(u).ok\n';

describe('an invalid config', () => {
  it('lists every problem at once, in file order, at line:column, with a did-you-mean and the complete allowed list', () => {
    const cfg = '{\n  "rules": {\n    "unbound-nmae": "error",\n    "missing-timeout": ["error", { "fixTimout": 5 }]\n  },\n  "scoep": "all",\n  "platform": "linus",\n  "confirm": { "isolaton": "bwrap" }\n}\n';
    const r = runCli(['check'], { cwd: project('cfg', { 'vaudit.config.json': cfg, 'v.py': HANGS }) });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/vaudit\.config\.json: invalid configuration$/);
    expect(lines.slice(1)).toEqual([
      "  3:5 /rules/unbound-nmae: unknown rule 'unbound-nmae'. Did you mean 'unbound-name'? Run 'vaudit rules' for the list.",
      "  4:36 /rules/missing-timeout/1/fixTimout: rule 'missing-timeout' has no option 'fixTimout'. Did you mean 'fixTimeout'? Allowed: fixTimeout; see 'vaudit rules missing-timeout'.",
      `  6:3 /scoep: unknown property 'scoep'. Did you mean 'scope'? Allowed: ${TOP_LEVEL.join(', ')}.`,
      '  7:15 /platform: must be one of "linux", "windows", "darwin", "any". Did you mean \'linux\'?',
      "  8:16 /confirm/isolaton: unknown property 'isolaton'. Did you mean 'isolation'? Allowed: isolation, requireIsolation, timeoutMs, jobs, python.",
    ]);
  });

  it('is over the file size limit, binary or not UTF-8: exit 2 naming why, no part of it applied (issue 30)', () => {
    // 60,000 ignores (5.6 MB): before, the file was reported unreadable while its ignores still applied
    const ignores = Array.from({ length: 60_000 }, (_, i) => ({ files: `tasks/**/x${i}*.json`, pointer: `/evaluate/${i}`, rules: ['task-schema'], reason: 'r' }));
    const big = runCli(['check', '--format', 'json'], { cwd: project('cfg-big', { 'vaudit.config.json': JSON.stringify({ ignores }), 'v.py': HANGS }) });
    expect(big.code).toBe(2);
    expect(big.stdout).toBe('');
    expect(big.stderr.trimEnd().split('\n').slice(1)).toEqual(['  the file is 5.6 MB, over the 5 MB limit. The config is not loaded and no part of it applies.']);
    const bytes = Buffer.concat([Buffer.from('{"ignores": [{"files": "x\u00e9'), Buffer.from([0xff]), Buffer.from('.json", "rules": ["task-schema"]}]}')]);
    const latin = runCli(['check'], { cwd: project('cfg-utf8', { 'vaudit.config.json': bytes, 'v.py': HANGS }) });
    expect(latin.code).toBe(2);
    expect(latin.stderr).toMatch(/: invalid configuration\n {2}invalid UTF-8 at byte \d+\. The config is not loaded/);
  });

  it('names the line and column of a JSON syntax error', () => {
    const r = runCli(['check'], { cwd: project('cfg-syntax', { 'vaudit.config.json': '{\n  "rules": {\n    "set-collapse": "off",\n  }\n}\n', 'v.py': HANGS }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('\n  3:26 not valid JSON: Invalid JSON: trailing comma');
  });
});

describe('vaudit rules', () => {
  it('documents the findings vaudit reports itself, and lists them in the catalogue', () => {
    for (const id of ['parse-error', 'unused-suppression', 'internal-error']) {
      const r = runCli(['rules', id], { cwd: work });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')[0]).toBe(id);
      expect(r.stdout).toContain('What it does');
    }
    expect(runCli(['rules', 'unused-suppression'], { cwd: work }).stdout).toContain('Default severity: warn');
    const list = runCli(['rules'], { cwd: work }).stdout;
    expect(list).toMatch(/^Reported by vaudit itself:\nparse-error +error /m);
  });

  it('lists both severities of a rule that reports some findings as errors (unbound-name), as it reports them', () => {
    expect(runCli(['rules'], { cwd: work }).stdout).toMatch(/^unbound-name +warn\/error /m);
    expect(runCli(['rules', 'unbound-name'], { cwd: work }).stdout).toContain('Default severity: warn (error when an enclosing handler turns the NameError into a verdict)');
  });
});

describe('--rule', () => {
  it('takes comma-separated ids or the option repeated, and leaves the paths after it as paths', () => {
    const dir = project('rule', { 'a/v.py': HANGS, 'b/v.py': HANGS });
    const one = runCli(['check', '--rule', 'missing-timeout', 'a', '-f', 'json'], { cwd: dir });
    expect(one.code, one.stderr).toBe(1);
    expect((JSON.parse(one.stdout) as { findings: Array<{ file: string }> }).findings.map((f) => f.file)).toEqual(['a/v.py']);
    const both = runCli(['check', '--rule', 'set-collapse,missing-timeout', '--rule', 'unbound-name', 'a', 'b', '-f', 'json'], { cwd: dir });
    expect((JSON.parse(both.stdout) as { findings: Array<{ file: string }> }).findings.map((f) => f.file)).toEqual(['a/v.py', 'b/v.py']);
    const typo = runCli(['check', '--rule', 'missing-timout', 'a'], { cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown rule 'missing-timout' in --rule. Did you mean 'missing-timeout'?");
  });
});

describe('--cache', () => {
  it('writes a cache folder that git ignores by itself', () => {
    const dir = project('cache', { 'v.py': HANGS });
    expect(runCli(['check', '--cache'], { cwd: dir }).code).toBe(1);
    expect(readFileSync(path.join(dir, '.vaudit-cache', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
  });
});

describe('--confirm', () => {
  // bound in the builtins at run time: the static analysis says 'bound nowhere', the control case runs it
  const refutable = 'import builtins\n\n\ndef check(state):\n    builtins.expected = 1\n    return state == expected\n';

  it('a finding its control case refuted is listed but fails nothing and enters no baseline', () => {
    const dir = project('refuted', { 'v.py': refutable });
    const r = runCli(['check', '--confirm', '--isolation', 'process', '--max-warnings', '0'], { cwd: dir });
    expect(r.stdout).toMatch(/↳ refuted — witness: /);
    expect(r.code, r.stdout).toBe(0);
    expect(runCli(['check', '--max-warnings', '0'], { cwd: dir }).code).toBe(1); // the same finding, static: it counts
    const b = runCli(['check', '--confirm', '--isolation', 'process', '--baseline-write', 'baseline.json'], { cwd: dir });
    expect(b.stderr).toContain('Wrote baseline with 0 findings to baseline.json (1 refuted by their control case left out)');
  });

  it('--python naming no interpreter blames that path, not PATH', () => {
    const dir = project('python', { 'v.py': refutable });
    const r = runCli(['check', '--confirm', '--isolation', 'process', '--python', '/nonexistent/python3', '-f', 'json'], { cwd: dir });
    const f = (JSON.parse(r.stdout) as { findings: Array<{ confirmation?: { status: string; detail?: string } }> }).findings[0]!;
    expect(f.confirmation).toMatchObject({ status: 'verifierUnavailable', detail: "/nonexistent/python3, given for 'python3' (--python or confirm.python), does not exist" });
    expect(existsSync('/nonexistent/python3')).toBe(false);
  });
});

describe('messages that quote multi-line code', () => {
  it('keep each finding on one line in stylish and one table row in markdown', () => {
    const dir = project('multiline', { 'v.py': 'def check(items):\n    return set(\n        items) == set(["a", "b"])\n' });
    const stylish = runCli(['check'], { cwd: dir }).stdout;
    expect(stylish).toMatch(/^ {2}2:12 {2}warning {2}`set\( items\) == set\(\["a", "b"\]\)` compares .* set-collapse$/m);
    const rows = runCli(['check', '-f', 'markdown'], { cwd: dir }).stdout.split('\n').filter((l) => l.startsWith('| VA-'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^\| VA-001 \| warning \| `set\( items\) == set\(\["a", "b"\]\)` compares .*\|$/);
  });
});

describe('a folder inside a repository, checked alone', () => {
  it('from below the repository root with no config: says the project around it was not read, instead of asking to declare entrypoints', () => {
    const dir = project('sub', { '.git/HEAD': 'ref: refs/heads/main\n', 'sci/v.py': HANGS, 'tasks/t.json': '{}\n' });
    const inside = runCli(['check'], { cwd: path.join(dir, 'sci') }).stdout;
    expect(inside).toContain('No verifier entrypoint recognised in the folders checked: they lie inside the repository at .., whose task files (which route to this code) were not read');
    expect(inside).not.toContain('Declare entrypoints');
    // from the root, `check sci` reads the whole folder as context: a missing declaration is the cause
    expect(runCli(['check', 'sci'], { cwd: dir }).stdout).toContain('Declare entrypoints in vaudit.config.json');
    expect(runCli(['check'], { cwd: dir }).stdout).toContain('Declare entrypoints in vaudit.config.json');
    // a config at the root is the context of every folder under it
    writeFileSync(path.join(dir, 'vaudit.config.json'), '{}\n');
    expect(runCli(['check'], { cwd: path.join(dir, 'sci') }).stdout).toContain('Declare entrypoints in vaudit.config.json');
  });
});
