/**
 * ans-mismatch's control case: for `conflict` (two stop/ANS entries expecting different answers) the suite's
 * own grader of stop entries — found by what it does, a function comparing an entry's "args" with the
 * submitted answer — runs on the task with each expected answer, after a baseline (the task with only the
 * first ANS entry) that passes its own answer. The other findings are about the task's data, which the
 * grader never reads: `unsupported`, saying so. Real `vaudit check --confirm` runs on projects written here,
 * in two grader forms (a task class walking `self.<entries>` and comparing `.__name__`; a plain function
 * iterating an entries parameter) and a grader where a later entry replaces an earlier one (refuted).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-confirm-ans-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Conf {
  status: string;
  witness?: string;
  observed?: string;
  detail?: string;
}
interface Report {
  findings: Array<{ ruleId: string; messageId: string; file: string; range: { start: { line: number } }; confirmation?: Conf | null }>;
}

const task = (family: string, answers: string[][], ans?: string) =>
  JSON.stringify(
    {
      type: family,
      sort: 'VM',
      steps: 10,
      instruction: 'Count them. Answer ANS <n>.',
      evaluate: [{ type: 'info', key: 'lambda dump: True', value: true }, ...answers.map((args) => ({ type: 'stop', value: 'ANS', args }))],
      ...(ans !== undefined ? { ans } : {}),
    },
    null,
    2,
  );

function project(name: string, files: Record<string, string>): Report {
  const root = path.join(dir, name);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), text);
  }
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  return JSON.parse(r.stdout) as Report;
}

const mine = (rep: Report) => rep.findings.filter((f) => f.ruleId === 'ans-mismatch');

it('conflict: a task class that walks self.<entries> and deletes each one it passes (the reference form): confirmed', { timeout: 120_000 }, () => {
  const rep = project('class-form', {
    'sci/base/task.py': [
      'import json',
      '',
      '',
      'class AnswerTask:',
      '    EARLY_STOP = "stop"',
      '',
      '    def __init__(self, path):',
      '        with open(path) as fh:',
      '            self.config = json.load(fh)',
      '        self.checks = self.config["evaluate"]',
      '',
      '    def grade(self, stop_type, stop_args):',
      '        index = 0',
      '        while index < len(self.checks):',
      '            item = self.checks[index]',
      '            if item["type"] != AnswerTask.EARLY_STOP:',
      '                index += 1',
      '            elif item["value"] != stop_type.__name__:',
      '                return False',
      '            elif item["args"] != stop_args:',
      '                return False',
      '            else:',
      '                del self.checks[index]',
      '        return True',
      '',
    ].join('\n'),
    'tasks/ChimeraX/two.json': task('ChimeraX', [['1234'], ['1243']], 'ANS 1234'),
    'tasks/Celestia/distance.json': task('Celestia', [['0.5']], 'ANS 0.25'),
  });
  const all = JSON.stringify(mine(rep).map((f) => [f.messageId, f.file.split('/').pop(), f.confirmation]));
  const conflict = mine(rep).find((f) => f.messageId === 'conflict')?.confirmation;
  expect(conflict, all).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/ANS 1234: returned false; ANS 1243: returned false: no answer passes/i) });
  expect(conflict!.witness).toMatch(/AnswerTask\.grade .*baseline, the task with only the first ANS entry, passed ANS 1234/);
  // the top-level "ans" is read by no grader: no run can show a mismatch
  expect(mine(rep).find((f) => f.messageId === 'mismatch')?.confirmation, all).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/never reads the top-level "ans"/) });
});

it('conflict: a plain function over an entries parameter, comparing the value itself: confirmed; a grader where the last entry wins: refuted', { timeout: 120_000 }, () => {
  const rep = project('function-form', {
    'grading/stops.py': [
      'def grade_stop(entries, kind, answer):',
      '    for entry in entries:',
      '        if entry.get("type") != "stop":',
      '            continue',
      '        if entry["value"] != kind or entry["args"] != answer:',
      '            return False',
      '    return True',
      '',
    ].join('\n'),
    'tasks/GrassGIS/cells.json': task('GrassGIS', [['42'], ['24']], 'ANS 42'),
  });
  const all = JSON.stringify(mine(rep).map((f) => [f.messageId, f.confirmation]));
  expect(mine(rep).find((f) => f.messageId === 'conflict')?.confirmation, all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/grade_stop/) });

  // a grader that keeps only the last ANS entry's answer: one answer passes, so the claim is refuted
  const last = project('last-wins', {
    'grading/stops.py': [
      'def grade_stop(entries, kind, answer):',
      '    expected = None',
      '    for entry in entries:',
      '        if entry.get("type") == "stop" and entry["value"] == kind:',
      '            expected = entry',
      '    return expected is not None and expected["args"] == answer',
      '',
    ].join('\n'),
    'tasks/GrassGIS/cells.json': task('GrassGIS', [['42'], ['24']], 'ANS 42'),
  });
  const all2 = JSON.stringify(mine(last).map((f) => [f.messageId, f.confirmation]));
  expect(mine(last).find((f) => f.messageId === 'conflict')?.confirmation, all2).toMatchObject({ status: 'refuted', observed: 'returned true' });
});

it('conflict with no grader in the project: unsupported, saying what to do', { timeout: 60_000 }, () => {
  const rep = project('no-grader', { 'tasks/ChimeraX/two.json': task('ChimeraX', [['1'], ['2']], 'ANS 1') });
  expect(mine(rep).find((f) => f.messageId === 'conflict')?.confirmation).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/no grader of stop entries.*keep one expected answer/) });
});
