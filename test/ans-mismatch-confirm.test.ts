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

it('conflict: no run when the grader is not the one the harness runs as written (several candidates, a tool, entries its class or caller changes)', { timeout: 180_000 }, () => {
  const grader = (name: string) => [
    `def ${name}(items, kind, submitted):`,
    '    for item in items:',
    '        if item.get("type") == "stop" and (item["value"] != kind or item["args"] != submitted):',
    '            return False',
    '    return True',
    '',
  ];
  const conf = (rep: Report) => mine(rep).find((f) => f.messageId === 'conflict')?.confirmation;
  // the harness grades with a generator (any of the entries); an audit tool holds a strict loop
  const tool = project('tool-helper', {
    'bench/answers.py': ['def accepts(kind, submitted, stops):', '    return any(s["args"] == submitted for s in stops if s["value"] == kind)', ''].join('\n'),
    'tools/check_answers.py': [...grader('strict_check'), 'if __name__ == "__main__":', '    print("ok")', ''].join('\n'),
    'tasks/Maps/route.json': task('Maps', [['7'], ['9']], 'ANS 7'),
  });
  expect(conf(tool), JSON.stringify(mine(tool))).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/more than one function compares .*bench\/answers\.py.*tools\/check_answers\.py/) });
  // an old release's grader beside the current one
  const two = project('two-releases', {
    'release1/grade.py': grader('grade_entries').join('\n'),
    'app/grade.py': grader('grade_entries').join('\n'),
    'tasks/Maps/route.json': task('Maps', [['7'], ['9']], 'ANS 7'),
  });
  expect(conf(two)?.status, JSON.stringify(mine(two))).toBe('unsupported');
  // a lone grader in a scripts folder
  const script = project('script-only', { 'scripts/replay.py': grader('replay_grade').join('\n'), 'tasks/Maps/route.json': task('Maps', [['7'], ['9']], 'ANS 7') });
  expect(conf(script), JSON.stringify(mine(script))).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/script or tool folder/) });
  // the caller drops entries before grading
  const filtered = project('caller-filters', {
    'app/grade.py': [...grader('grade_entries'), '', 'def grade(task, submitted):', '    kept = [e for e in task["evaluate"] if e.get("active", True)]', '    return grade_entries(kept, "ANS", submitted)', ''].join('\n'),
    'tasks/Maps/route.json': task('Maps', [['7'], ['9']], 'ANS 7'),
  });
  expect(conf(filtered), JSON.stringify(mine(filtered))).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/caller at app\/grade\.py:\d+ passes it `kept`/) });
  // the caller passes the task's list as it is: the grader runs
  const direct = project('caller-direct', {
    'app/grade.py': [...grader('grade_entries'), '', 'def grade(task, submitted):', '    return grade_entries(task["evaluate"], "ANS", submitted)', ''].join('\n'),
    'tasks/Maps/route.json': task('Maps', [['7'], ['9']], 'ANS 7'),
  });
  expect(conf(direct)?.status, JSON.stringify(mine(direct))).toBe('confirmed');
  // a class that merges entries by kind before its grader walks them
  const merged = project('class-merges', {
    'app/task.py': [
      'import json',
      '',
      '',
      'class Task:',
      '    def __init__(self, path):',
      '        with open(path) as fh:',
      '            data = json.load(fh)',
      '        self.stops = {}',
      '        for e in data["evaluate"]:',
      '            self.stops[e["type"]] = e',
      '',
      '    def grade(self, submitted):',
      '        for e in self.stops:',
      '            if e["args"] != submitted:',
      '                return False',
      '        return True',
      '',
    ].join('\n'),
    'tasks/Maps/route.json': task('Maps', [['7'], ['9']], 'ANS 7'),
  });
  expect(conf(merged), JSON.stringify(mine(merged))).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/walks `self\.stops`, which its class builds/) });
});
