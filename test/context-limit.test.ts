/**
 * A folder checked from a current folder nobody declared as the project (a home, /tmp) is read with
 * that folder as context only while it stays small: past CONTEXT_LIMIT the named folder is checked
 * alone, its findings intact, and a `context` note says why (src/engine/context.ts). A declared
 * project (a config with "root") is read whatever its size.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-context-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A verifier with one finding everywhere: an HTTP call without a timeout. */
const VERIFIER = 'import requests\n\ndef check(url):\n    return requests.get(url).status_code == 200\n';

function workspace(name: string, padding: (dir: string) => void): string {
  const root = path.join(tmp, name);
  mkdirSync(path.join(root, 'suite'), { recursive: true });
  writeFileSync(path.join(root, 'suite', 'verify.py'), VERIFIER);
  padding(root);
  return root;
}

function manyFiles(n: number) {
  return (root: string) => {
    for (let d = 0; d * 1000 < n; d++) {
      const dir = path.join(root, 'other', `d${d}`);
      mkdirSync(dir, { recursive: true });
      for (let i = d * 1000; i < Math.min(n, (d + 1) * 1000); i++) writeFileSync(path.join(dir, `m${i}.py`), 'x = 1\n');
    }
  };
}

interface Report { summary: { notes?: Array<{ ruleId: string; file: string; message: string }> }; findings: Array<{ ruleId: string; file: string }> }

function check(cwd: string, target: string): { code: number; report: Report } {
  const r = runCli(['check', target, '--format', 'json'], { cwd });
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
}

describe('the context a named folder is read in', { timeout: 120_000 }, () => {
  it('a current folder of more than 10,000 files is not read: the folder is checked alone, with a note', () => {
    const root = workspace('big', manyFiles(10_001));
    const { code, report } = check(root, 'suite');
    expect(code).toBe(1);
    expect(report.findings.map((f) => `${f.ruleId} ${f.file}`)).toEqual(['missing-timeout suite/verify.py']);
    const notes = report.summary.notes ?? [];
    expect(notes.map((n) => [n.ruleId, n.file])).toEqual([['context', '.']]);
    expect(notes[0]!.message).toMatch(/holds 10,00[12] files, more than the 10,000 files read for context/);
  });

  it('a current folder of more than 64 MB is not read either', () => {
    const root = workspace('heavy', (r) => {
      mkdirSync(path.join(r, 'data'));
      writeFileSync(path.join(r, 'data', 'dump.json'), `[${'0,'.repeat(34 * 1024 * 1024)}0]`);
    });
    const { code, report } = check(root, 'suite');
    expect(code).toBe(1);
    expect(report.findings.map((f) => f.file)).toEqual(['suite/verify.py']);
    expect(report.summary.notes?.[0]?.message).toMatch(/more than 64 MB of files/);
  });

  it('a small current folder is read as context, with no note', () => {
    const root = workspace('small', manyFiles(50));
    const { report } = check(root, 'suite');
    expect(report.findings.map((f) => f.file)).toEqual(['suite/verify.py']);
    expect(report.summary.notes).toBeUndefined();
  });

  it('a project a config declares is read whatever its size', () => {
    const root = workspace('declared', manyFiles(10_001));
    writeFileSync(path.join(root, 'vaudit.config.json'), '{"root": true}\n');
    const { report } = check(root, 'suite');
    expect(report.findings.map((f) => f.file)).toEqual(['suite/verify.py']);
    expect(report.summary.notes).toBeUndefined();
  });
});
