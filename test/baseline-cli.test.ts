/**
 * Baseline (ESLint-style counts per file per rule), as a user meets it through the CLI:
 * written atomically, only findings beyond the baseline fail, stale entries are reported.
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'vaudit-baseline-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dir: string;
let n = 0;
const write = (rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
};
const BROKEN = 'def f(:\n    pass\n';
const UNUSED = (k: number) => Array.from({ length: k }, (_, i) => `x${i} = ${i}  # vaudit: ignore[no-such-rule-${i}]\n`).join('');

beforeEach(() => {
  dir = path.join(root, `case-${n++}`);
  mkdirSync(dir);
  write('verifier/a.py', BROKEN);
  write('verifier/b.py', UNUSED(2));
});

describe('vaudit check --baseline-write / --baseline', () => {
  it('writes counts per file per rule', () => {
    const r = runCli(['check', '.', '--baseline-write', 'vaudit-baseline.json'], { cwd: dir });
    expect(r.code).toBe(0); // as ESLint's --suppress-all: the findings are recorded, the run passes
    expect(r.stderr).toContain('Wrote baseline with 3 findings');
    expect(JSON.parse(readFileSync(path.join(dir, 'vaudit-baseline.json'), 'utf8'))).toEqual({
      version: 1,
      files: { 'verifier/a.py': { 'parse-error': 1 }, 'verifier/b.py': { 'unused-suppression': 2 } },
    });
  });

  it('writes atomically: a new file replaces the old one by rename, no temp file is left', () => {
    const file = path.join(dir, 'vaudit-baseline.json');
    writeFileSync(file, '{"version":1,"files":{}}\n');
    linkSync(file, path.join(dir, 'old-inode.json')); // an in-place write would change this too
    const r = runCli(['check', '.', '--baseline-write', 'vaudit-baseline.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'old-inode.json'), 'utf8')).toBe('{"version":1,"files":{}}\n');
    expect(JSON.parse(readFileSync(file, 'utf8')).files['verifier/a.py']).toEqual({ 'parse-error': 1 });
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('passes when every finding is in the baseline, and says how many matched', () => {
    expect(runCli(['check', '.', '--baseline-write', 'bl.json'], { cwd: dir }).code).toBe(0);
    const r = runCli(['check', '.', '--baseline', 'bl.json', '--max-warnings', '0'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('3 matched the baseline');
    const j = runCli(['check', '.', '--baseline', 'bl.json', '--format', 'json'], { cwd: dir });
    const doc = JSON.parse(j.stdout);
    expect(doc.findings).toEqual([]);
    expect(doc.summary.baseline).toEqual({ matched: 3, stale: [] });
  });

  it('fails on new findings only: a new file, and a finding beyond the recorded count', () => {
    runCli(['check', '.', '--baseline-write', 'bl.json'], { cwd: dir });
    write('verifier/c.py', BROKEN);
    write('verifier/b.py', UNUSED(3));
    const r = runCli(['check', '.', '--baseline', 'bl.json', '--max-warnings', '0', '--format', 'json'], { cwd: dir });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.findings.map((f: { file: string; ruleId: string }) => `${f.file} ${f.ruleId}`)).toEqual([
      'verifier/b.py unused-suppression',
      'verifier/c.py parse-error',
    ]);
    expect(doc.summary.baseline.matched).toBe(3);
  });

  it('reports entries that no longer match, so the baseline can shrink', () => {
    runCli(['check', '.', '--baseline-write', 'bl.json'], { cwd: dir });
    write('verifier/a.py', 'def f():\n    pass\n');
    write('verifier/b.py', UNUSED(1));
    const r = runCli(['check', '.', '--baseline', 'bl.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('baseline entry no longer matches: verifier/a.py parse-error (1 fewer)');
    expect(r.stdout).toContain('baseline entry no longer matches: verifier/b.py unused-suppression (1 fewer)');
    const doc = JSON.parse(runCli(['check', '.', '--baseline', 'bl.json', '-f', 'json'], { cwd: dir }).stdout);
    expect(doc.summary.baseline.stale).toEqual([
      { file: 'verifier/a.py', ruleId: 'parse-error', count: 1 },
      { file: 'verifier/b.py', ruleId: 'unused-suppression', count: 1 },
    ]);
  });

  it('checking some files (pre-commit) does not call the other entries stale', () => {
    runCli(['check', '.', '--baseline-write', 'bl.json'], { cwd: dir });
    const r = runCli(['check', 'verifier/b.py', '--baseline', 'bl.json', '-f', 'json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary.baseline).toEqual({ matched: 2, stale: [] });
  });

  it('a missing or foreign baseline is a usage error (exit 2), not a pass', () => {
    const r = runCli(['check', '.', '--baseline', 'nope.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Cannot read baseline');
    write('foreign.json', '{"rules": []}');
    expect(runCli(['check', 'verifier', '--baseline', 'foreign.json'], { cwd: dir }).code).toBe(2);
    expect(existsSync(path.join(dir, 'nope.json'))).toBe(false);
  });
});
