/**
 * Tasks written as Python data (issue 26 item 2): one scenario suite per form in fixtures/suites/py-data-*,
 * recognised only because harness code loads the collection as tasks and routes its records by a member.
 * Lines marked `vaudit-expect: <rule>` are the findings; each suite's fixed twin (the defect corrected
 * in a copy) reports none and keeps its task count. Collections the code iterates but routes nothing
 * by (`catalog.py`, `settings.py`) are never task files. Every run is the real CLI.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const SUITES = path.resolve(import.meta.dirname, '../fixtures/suites');

interface Report {
  summary: { suites: Array<{ adapter: string; root: string; tasks: number; entries: number; bound: number }> };
  findings: Array<{ ruleId: string; file: string; message: string; range: { start: { line: number } } }>;
}

function check(dir: string): Report {
  const r = runCli(['check', '.', '--format', 'json'], { cwd: dir });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Report;
}

function expected(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) visit(p);
      else if (n.endsWith('.py')) {
        readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
          const m = /#\s*vaudit-expect:\s*([\w-]+)/.exec(line);
          if (m) out.push(`${path.relative(dir, p).split(path.sep).join('/')}:${i + 1} ${m[1]}`);
        });
      }
    }
  };
  visit(dir);
  return out.sort();
}

const got = (r: Report) => r.findings.map((f) => `${f.file}:${f.range.start.line} ${f.ruleId}`).sort();

const CASES: Array<{ dir: string; tasks: number[]; message: RegExp; fix: Array<[file: string, from: string, to: string]> }> = [
  {
    // tau-bench's form: Task(...) calls of Step(...) calls, replayed through a dict keyed by the tools' declared names
    dir: 'py-data-actions',
    tasks: [2, 2],
    message: /"cancel_orders" is not a key of `self\.tools_map`, where the harness at env\.py:36 looks it up \(its keys: cancel_order, lookup_order\)/,
    fix: [['shopsim/tasks_test.py', '"cancel_orders"', '"cancel_order"']],
  },
  {
    // dicts in a list built by concatenation, keyed by id, routed by getattr on a module
    dir: 'py-data-checks',
    tasks: [4],
    message: /does not define `row_counts`, which the harness at grade\.py:8 takes from it/,
    fix: [['gradebook/cases.py', '"row_counts"', '"row_count"'], ['gradebook/cases.py', '{"id": "c1", "check": "file_exists", "args": {"path": "summary.txt"}}', '{"id": "c4", "check": "file_exists", "args": {"path": "summary.txt"}}']],
  },
  {
    // dataclass instances with positional arguments, indexed by a runner class, routed by a dict display
    dir: 'py-data-dataclass',
    tasks: [3],
    message: /"fuzzy" is not a key of `GRADERS`/,
    fix: [['labtasks/catalog.py', '"fuzzy"', '"approx"']],
  },
];

describe.each(CASES)('Python data tasks: $dir', ({ dir, tasks, message, fix }) => {
  const root = path.join(SUITES, dir);

  it('recognises the tasks from the harness and reports the defect at the task line', () => {
    const r = check(root);
    const suites = r.summary.suites.filter((s) => s.adapter === 'python-data');
    expect(suites.map((s) => s.tasks)).toEqual(tasks);
    expect(suites.every((s) => s.bound > 0)).toBe(true);
    expect(got(r)).toEqual(expected(root));
    expect(r.findings.some((f) => message.test(f.message))).toBe(true);
  });

  it('the fixed twin reports nothing and keeps its tasks', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-pydata-'));
    try {
      cpSync(root, tmp, { recursive: true });
      for (const [file, from, to] of fix) {
        const p = path.join(tmp, file);
        const text = readFileSync(p, 'utf8');
        expect(text).toContain(from);
        writeFileSync(p, text.replace(from, to));
      }
      const r = check(tmp);
      expect(r.findings.filter((f) => f.ruleId === 'evaluator-dispatch')).toEqual([]);
      expect(r.summary.suites.filter((s) => s.adapter === 'python-data').map((s) => s.tasks)).toEqual(tasks);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('Python data that the harness does not load as tasks', () => {
  it('a collection the code iterates and reads members of, routing nothing by them, is not a task container', () => {
    for (const dir of ['py-data-actions', 'py-data-checks']) {
      const r = check(path.join(SUITES, dir));
      expect(r.findings.map((f) => f.file).filter((f) => /catalog|settings/.test(f))).toEqual([]);
      expect(r.summary.suites.filter((s) => s.adapter === 'python-data')).toHaveLength(dir === 'py-data-actions' ? 2 : 1);
    }
  });

  it('the same records with no harness that loads them are no tasks', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-pydata-'));
    try {
      cpSync(path.join(SUITES, 'py-data-dataclass'), tmp, { recursive: true });
      rmSync(path.join(tmp, 'labtasks', 'runner.py'));
      const r = check(tmp);
      expect(r.summary.suites.filter((s) => s.adapter === 'python-data')).toEqual([]);
      expect(runCli(['check', '.'], { cwd: tmp }).stdout).toMatch(/Python data: no module-level collection of records that harness code loads/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a registry that gains keys after it is built routes nothing vaudit can check: no tasks, and the near miss is named', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-pydata-'));
    try {
      cpSync(path.join(SUITES, 'py-data-dataclass'), tmp, { recursive: true });
      writeFileSync(path.join(tmp, 'labtasks', 'graders.py'), readFileSync(path.join(tmp, 'labtasks', 'graders.py'), 'utf8') + 'GRADERS["fuzzy"] = approx\n');
      const r = check(tmp);
      expect(r.summary.suites.filter((s) => s.adapter === 'python-data')).toEqual([]);
      expect(r.findings.filter((f) => f.ruleId === 'evaluator-dispatch')).toEqual([]);
      expect(runCli(['check', '.'], { cwd: tmp }).stdout).toMatch(/Python data: CASES \(labtasks\/catalog\.py\) is loaded at labtasks\/runner\.py:10, but no member of its records is looked up/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
