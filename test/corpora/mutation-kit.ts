/**
 * What the mutation tests on real code share (missed-mutations, rule-mutations): the corpora's root, a
 * copy of the suite's files in a temp folder, a CLI check of that copy and whether a finding is at the
 * case's site.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

export const ROOT = process.env.VAUDIT_CORPORA ? path.resolve(process.env.VAUDIT_CORPORA) : path.resolve(import.meta.dirname, '../../../shared/corpora');

export interface Finding {
  ruleId: string;
  file: string;
  pointer?: string;
  message: string;
  range: { start: { line: number } };
}

/** Where a case's finding is: its rule, file, and line (code) or JSON pointer (task files). */
export interface Site {
  rule: string;
  file: string;
  line?: number;
  pointer?: string;
}

/** The findings of `rule` in `dir` (a real process), with files relative to `dir`. */
export function check(dir: string, rule: string): Finding[] {
  const r = runCli(['check', '.', '--format', 'json', '--rule', rule], { cwd: dir });
  expect([0, 1], r.stderr).toContain(r.code);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings.map((f) => ({ ...f, file: path.relative(dir, path.resolve(dir, f.file)).split(path.sep).join('/') }));
}

export const at = (c: Site, f: Finding) => f.ruleId === c.rule && f.file === c.file && (c.pointer !== undefined ? f.pointer === c.pointer : f.range.start.line === c.line);

/** A temp folder holding `copy` (files or folders) of `suite`, removed after the describe block. */
export function copyOfSuite(suite: string, copy: readonly string[], prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const p of copy) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    cpSync(path.join(ROOT, suite, p), path.join(dir, p), { recursive: true });
  }
  return dir;
}
