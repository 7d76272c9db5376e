/**
 * regex-redos gives the same findings and notes on an idle and on a loaded machine (issue 27, item 3):
 * the analysis is budgeted by automaton size, never by time. The same check runs twice as a user runs
 * it, once alone and once while busy processes compete for every core; nothing here measures time, so
 * the test passes or fails the same way however slow the machine is.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const VERIFIER = String.raw`import re


def parse(out):
    # recheck decides it (polynomial, degree 2): the check that said "not analysed in 3000 ms" under load
    return [m.group(1) for m in re.finditer(r"display_name=(.*), number=(.*)", out)]


def grade(log):
    # exponential: a finding
    return re.match(r"^(\w+\s?)*$", log) is not None


def markers(text):
    # its reverse automaton needs 2^20 states: over the budget, a note and never a finding
    return re.search(r"x(a|b){20}a(a|b)*(c+)+y", text)
`;

const burners: ChildProcess[] = [];

/** One busy process per core (plus one), each in its own process group so that it is ended by its id. */
function startBurners(): void {
  for (let i = 0; i <= availableParallelism(); i++) {
    const p = spawn(process.execPath, ['-e', 'for (;;) {}'], { detached: true, stdio: 'ignore' });
    burners.push(p);
  }
}

afterEach(() => {
  for (const p of burners.splice(0)) if (p.pid) try { process.kill(-p.pid, 'SIGKILL'); } catch { /* already gone */ }
});

describe('regex-redos does not depend on machine load', () => {
  it('gives the same findings and notes with every core busy', () => {
    const dir = tempDir('vaudit-redos-load-');
    // degree 2 reported too, so that the slowest analysis of the three decides a finding
    writeFileSync(path.join(dir, 'vaudit.config.json'), JSON.stringify({ rules: { 'regex-redos': ['error', { polynomialDegree: 2 }] } }));
    writeFileSync(path.join(dir, 'verify.py'), VERIFIER);
    const run = () => {
      const r = runCli(['check', '.', '--rule', 'regex-redos', '--format', 'json'], { cwd: dir });
      const doc = JSON.parse(r.stdout) as { findings: Array<{ ruleId: string; messageId: string; range: { start: { line: number } }; message: string }>; summary: { notes?: unknown[] } };
      return { code: r.code, findings: doc.findings.map((f) => [f.ruleId, f.messageId, f.range.start.line, f.message]), notes: doc.summary.notes };
    };
    const idle = run();
    startBurners();
    const loaded = run();
    expect(idle.findings.map(([, id, line]) => `${id}:${line}`)).toEqual(['polynomial:6', 'exponential:11']);
    expect(idle.notes).toEqual([
      expect.objectContaining({ ruleId: 'regex-redos', file: 'verify.py', line: 16, message: expect.stringMatching(/^This regular expression was not analysed for catastrophic backtracking: its automaton is larger than the analysis budget/) }),
    ]);
    expect(loaded).toEqual(idle);
  });
});
