/**
 * An editor session keeps what each harness file taught (module routes, Python task containers) per file
 * while the texts it read are the same (src/suites/harness/file-memo.ts). A call of a loader helper
 * added in another module's body is read again (the scan for callers by name changes): the session
 * learns the route and binds the tasks, as a fresh session does; a body edit of a verifier module keeps
 * the indexes, with findings equal to a fresh session's. A class added to a class registry's literal (a
 * body edit: the indexes are kept) puts its grader on the verifier paths, as in a fresh session. A module
 * a route names that is saved to disk while its buffer is open (no file comes or goes in the session) is
 * found at the next load of the suites, as a fresh session finds it: whether a path is a file is asked
 * again at every load.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LintSession } from '../src/engine/session.js';
import type { Finding } from '../src/core/types.js';

const key = (f: Finding) => `${f.ruleId} ${f.file} ${f.range.start.offset}-${f.range.end.offset} ${f.pointer ?? ''} ${f.message}`;

async function fresh(root: string, docs: ReadonlyMap<string, string>, targets: string[]) {
  const s = await LintSession.create({ root });
  try {
    for (const [f, t] of docs) s.setDocument(f, t);
    const r = await s.lint(targets);
    return { findings: r.findings.map(key).sort(), bound: s.project!.suites.flatMap((su) => su.tasks.flatMap((t) => t.entries.flatMap((e) => (e.binding ? [`${t.id} ${e.binding.file}:${e.binding.qualname}`] : [])))).sort() };
  } finally {
    await s.dispose();
  }
}

describe('harness facts kept per file over edits', () => {
  it('a loader call added in another module is learned; a verifier body edit keeps the indexes', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'vaudit-harness-memo-'));
    try {
      mkdirSync(path.join(root, 'checks'));
      mkdirSync(path.join(root, 'tasks'));
      writeFileSync(path.join(root, 'loader.py'), [
        'import importlib.util',
        '',
        'def load_checker(path):',
        '    spec = importlib.util.spec_from_file_location("c", path)',
        '    mod = importlib.util.module_from_spec(spec)',
        '    spec.loader.exec_module(mod)',
        '    return mod.grade',
        '',
      ].join('\n'));
      const runBefore = [
        'import json',
        'from loader import load_checker',
        '',
        'def run(task_file):',
        '    with open(task_file) as f:',
        '        task = json.load(f)',
        '    return task',
        '',
      ].join('\n');
      const runAfter = runBefore.replace('    return task\n', '    grade = load_checker("checks/" + task["check"])\n    return grade(task)\n');
      const run = path.join(root, 'run.py');
      writeFileSync(run, runBefore);
      writeFileSync(path.join(root, 'tasks/all.json'), JSON.stringify([{ id: 'a', check: 'a.py' }, { id: 'b', check: 'b.py' }], null, 2));
      const check = path.join(root, 'checks/a.py');
      const checkText = 'import subprocess\n\ndef grade(state):\n    out = subprocess.run(["true"])\n    return out.returncode == 0\n';
      writeFileSync(check, checkText);
      writeFileSync(path.join(root, 'checks/b.py'), 'def grade(state):\n    return state == 1\n');

      const s = await LintSession.create({ root });
      try {
        await s.lint([]);
        const targets = [...s.project!.files.keys()].filter((p) => /\.(py|json)$/.test(p)).sort();
        const docs = new Map<string, string>();
        const state = async () => ({ findings: (await s.lint(targets)).findings.map(key).sort(), bound: s.project!.suites.flatMap((su) => su.tasks.flatMap((t) => t.entries.flatMap((e) => (e.binding ? [`${t.id} ${e.binding.file}:${e.binding.qualname}`] : [])))).sort() });
        const edit = async (file: string, text: string) => {
          docs.set(file, text);
          s.setDocument(file, text);
          const b = s.stats();
          const got = await state();
          const a = s.stats();
          expect(got).toEqual(await fresh(root, docs, targets));
          return { got, builds: a.indexBuilds - b.indexBuilds, reuses: a.indexReuses - b.indexReuses };
        };
        const first = await state();
        expect(first.bound).toEqual([]);

        // the caller is added in run.py's body: the loader's route is learned again, the tasks bound
        const added = await edit(run, runAfter);
        expect(added.got.bound).toEqual([`a ${check}:grade`, `b ${path.join(root, 'checks/b.py')}:grade`]);
        expect(added).toMatchObject({ builds: 1, reuses: 0 });

        // a body edit of a verifier module: the indexes are kept
        const body = await edit(check, checkText.replace('    out = ', '    outcome = ').replace('out.returncode', 'outcome.returncode'));
        expect(body).toMatchObject({ builds: 0, reuses: 1 });

        // and the caller removed again: no route, no tasks
        const removed = await edit(run, runBefore);
        expect(removed.got.bound).toEqual([]);
        expect(removed).toMatchObject({ builds: 1, reuses: 0 });
      } finally {
        await s.dispose();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);

  it('a class added to a registry literal is read again: its grader is on the verifier paths, as in a fresh session', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'vaudit-registry-memo-'));
    try {
      cpSync(path.resolve(import.meta.dirname, '../fixtures/suites/class-registry-literal'), root, { recursive: true });
      const clock = path.join(root, 'phonebench/tasks/clock.py');
      const registry = path.join(root, 'phonebench/registry.py');
      const snooze = '\n\nclass Snooze(base.PhoneTask):\n    def succeeded(self, env) -> float:\n        reply = subprocess.run(["adb", "shell", "snooze"], capture_output=True)\n        return float(reply.returncode == 0)\n';
      writeFileSync(clock, readFileSync(clock, 'utf8') + snooze);
      const before = readFileSync(registry, 'utf8');
      const after = before.replace('"stop_timer": clock.StopTimer,', '"stop_timer": clock.StopTimer,\n        "snooze": clock.Snooze,');
      expect(after).not.toBe(before);
      const s = await LintSession.create({ root });
      try {
        await s.lint([]);
        const targets = [...s.project!.files.keys()].filter((p) => p.endsWith('.py')).sort();
        const docs = new Map<string, string>();
        const first = (await s.lint(targets)).findings.map(key).sort();
        const edit = async (file: string, text: string) => {
          docs.set(file, text);
          s.setDocument(file, text);
          const got = (await s.lint(targets)).findings.map(key).sort();
          expect(got).toEqual((await fresh(root, docs, targets)).findings);
          return got;
        };
        const added = await edit(registry, after);
        // the snooze grader's call without a timeout is on a verifier path now
        expect(added.filter((k) => k.startsWith('missing-timeout') && k.includes('clock.py')).length).toBeGreaterThan(first.filter((k) => k.startsWith('missing-timeout') && k.includes('clock.py')).length);
        await edit(clock, readFileSync(clock, 'utf8').replace(/reply/g, 'result'));
        await edit(registry, before);
      } finally {
        await s.dispose();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
  it('a routed module saved to disk while its buffer is open is found at the next load, as in a fresh session', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'vaudit-route-files-'));
    try {
      mkdirSync(path.join(root, 'graders'));
      const runner = [
        'import importlib.util',
        'import json',
        '',
        'def grade_task(task_path, state):',
        '    task = json.load(open(task_path))',
        '    spec = importlib.util.spec_from_file_location("g", "graders/" + task["grader"])',
        '    mod = importlib.util.module_from_spec(spec)',
        '    spec.loader.exec_module(mod)',
        '    return mod.grade(state)',
        '',
      ].join('\n');
      const run = path.join(root, 'runner.py');
      writeFileSync(run, runner);
      writeFileSync(path.join(root, 'task.json'), JSON.stringify({ id: 'late', grader: 'late.py' }, null, 2));
      const grader = path.join(root, 'graders/late.py');
      const graderText = 'def grade(state):\n    return state == "done"\n';
      const s = await LintSession.create({ root });
      try {
        await s.lint([]);
        const docs = new Map<string, string>();
        const bound = () => s.project!.suites.flatMap((su) => su.tasks.flatMap((t) => t.entries.flatMap((e) => (e.binding ? [`${t.id} ${e.binding.file}:${e.binding.qualname}`] : [])))).sort();
        const edit = async (file: string, text: string) => {
          docs.set(file, text);
          s.setDocument(file, text);
          return (await s.lint([file])).findings.map(key).sort();
        };
        // an unsaved buffer of the module, then an edit of the runner: the route is resolved, no file yet
        await edit(grader, graderText);
        const unsaved = await edit(run, `${runner}\ndef first_helper():\n    return 1\n`);
        expect(bound()).toEqual([]);
        expect(unsaved.join('\n')).not.toContain('late.py');
        // saved (the open buffer wins: nothing comes or goes in the session), then the runner edited again
        writeFileSync(grader, graderText);
        const saved = await edit(run, `${runner}\ndef second_helper():\n    return 2\n`);
        expect(bound()).toEqual([`late ${grader}:grade`]);
        const cold = await fresh(root, docs, [run]);
        expect(saved).toEqual(cold.findings);
        expect(bound()).toEqual(cold.bound);
      } finally {
        await s.dispose();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
