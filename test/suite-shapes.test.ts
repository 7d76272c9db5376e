/**
 * Which code is verifier code (issue 13): one scenario suite per entrypoint shape in
 * fixtures/suites/ — per-task verifier modules named by task JSON (with a helper server, a
 * VM-only platform branch, set-up code, DAGs shipped as data and browser scripts), a registry
 * of task classes with a success predicate, JS/TS eval modules listed in a suite config, and
 * config-declared entrypoints. Lines marked `vaudit-expect: <rule>` are on a verifier path and
 * reported by default; lines marked `vaudit-outside: <rule>` are not, and show only with
 * `--scope all`, marked `verifierPath: false`. Every run is the real CLI.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const repo = path.resolve(import.meta.dirname, '..');
const SUITES = path.join(repo, 'fixtures/suites');

function annotations(dir: string): { expect: string[]; outside: string[] } {
  const out = { expect: [] as string[], outside: [] as string[] };
  const visit = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) { visit(p); continue; }
      if (!/\.(py|js|ts|mjs)$/.test(n)) continue;
      readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
        const m = /(?:#|\/\/)\s*vaudit-(expect|outside):\s*([\w-]+)/.exec(line);
        if (m) out[m[1] === 'expect' ? 'expect' : 'outside'].push(`${path.relative(dir, p).split(path.sep).join('/')}:${i + 1} ${m[2]}`);
      });
    }
  };
  visit(dir);
  return { expect: out.expect.sort(), outside: out.outside.sort() };
}

interface Report {
  summary: { scope: { requested: string; applied: string; fallback: boolean; entrypoints: number; outside: number; skippedFiles: number }; suites: Array<{ adapter: string; tasks: number; entries: number; bound: number; unbound: number; entrypoints: number }> };
  findings: Array<{ ruleId: string; file: string; range: { start: { line: number } }; verifierPath?: boolean }>;
}

function check(dir: string, extra: string[] = []): Report {
  const r = runCli(['check', '.', '--format', 'json', ...extra], { cwd: dir });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Report;
}

const codeFindings = (r: Report, pred: (f: Report['findings'][number]) => boolean) =>
  r.findings.filter((f) => !f.file.endsWith('.json') && pred(f)).map((f) => `${f.file}:${f.range.start.line} ${f.ruleId}`).sort();

const SHAPES: Array<{ dir: string; adapter: string; tasks: number }> = [
  { dir: 'task-module', adapter: 'module-route', tasks: 2 },
  { dir: 'task-registry', adapter: 'class-registry', tasks: 2 },
  { dir: 'class-registry-literal', adapter: 'class-registry', tasks: 3 },
  { dir: 'class-registry-factory', adapter: 'class-registry', tasks: 3 },
  { dir: 'jsonl-tasks', adapter: 'module-route', tasks: 2 },
  { dir: 'eval-list', adapter: 'module-route', tasks: 2 },
  { dir: 'kind-dispatch-match', adapter: 'kind-dispatch', tasks: 2 },
  { dir: 'kind-dispatch-dict', adapter: 'kind-dispatch', tasks: 3 },
  { dir: 'config-declared', adapter: 'config', tasks: 0 },
];

describe.each(SHAPES)('entrypoint shape $dir', ({ dir, adapter, tasks }) => {
  const root = path.join(SUITES, dir);
  const ann = annotations(root);

  it('reports the defects on verifier paths and hides the others by default', () => {
    expect(ann.expect.length).toBeGreaterThan(0);
    expect(ann.outside.length).toBeGreaterThan(0);
    const r = check(root);
    expect(codeFindings(r, () => true)).toEqual(ann.expect);
    expect(r.summary.scope).toMatchObject({ requested: 'verifier', applied: 'verifier', fallback: false });
    // off-path findings in files with verifier code are counted; files with none are not analysed
    expect(r.summary.scope.outside).toBeLessThan(ann.outside.length);
    expect(r.summary.scope.skippedFiles).toBeGreaterThan(0);
    expect(r.summary.scope.entrypoints).toBeGreaterThan(0);
    const suite = r.summary.suites.find((s) => s.adapter === adapter);
    expect(suite).toMatchObject({ tasks, unbound: 0 });
    expect(suite!.bound).toBeGreaterThan(0);
  });

  it('--scope all shows the others, each marked off the verifier path', () => {
    const r = check(root, ['--scope', 'all']);
    expect(codeFindings(r, (f) => f.verifierPath !== false)).toEqual(ann.expect);
    expect(codeFindings(r, (f) => f.verifierPath === false)).toEqual(ann.outside);
    expect(r.summary.scope).toMatchObject({ requested: 'all', applied: 'all', fallback: false });
  });
});

describe('scope in the reports', () => {
  it('stylish names the scope and each suite; SARIF carries the scope and the marks', () => {
    const root = path.join(SUITES, 'task-module');
    const s = runCli(['check', '.'], { cwd: root });
    expect(s.stdout).toMatch(/Scope: verifier paths \(2 entrypoints\); 4 findings not on a verifier path hidden, 5 files with no verifier code not checked \(--scope all shows them\)\./);
    expect(s.stdout).toMatch(/Suite \. \(module-route\): 2 tasks, 2 entries, 2 bound, 0 unbound, 2 entrypoints\./);
    const all = runCli(['check', '.', '--scope', 'all'], { cwd: root });
    expect(all.stdout).toMatch(/provision\/vm\.py\n.*\(not on a verifier path\)/);
    const sarif = JSON.parse(runCli(['check', '.', '--scope', 'all', '--format', 'sarif'], { cwd: root }).stdout);
    expect(sarif.runs[0].properties.scope).toMatchObject({ applied: 'all', outside: 7 });
    expect(sarif.runs[0].results.filter((x: { properties?: { verifierPath?: boolean } }) => x.properties?.verifierPath === false)).toHaveLength(7);
  });

  it('config "scope": "all" is the same as --scope all, and the config schema rejects a bad entrypoint', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-scope-'));
    try {
      writeFileSync(path.join(tmp, 'grade.py'), 'import subprocess\n\ndef grade(x):\n    return subprocess.run(["true"]).returncode == 0\n\ndef other():\n    return subprocess.run(["true"]).returncode\n');
      writeFileSync(path.join(tmp, 'vaudit.config.json'), JSON.stringify({ root: true, scope: 'all', entrypoints: [{ files: 'grade.py', export: 'grade' }] }));
      const r = check(tmp);
      expect(r.summary.scope).toMatchObject({ requested: 'all', applied: 'all', outside: 1 });
      expect(r.findings.map((f) => [f.range.start.line, f.verifierPath])).toEqual([[4, undefined], [7, false]]);
      writeFileSync(path.join(tmp, 'vaudit.config.json'), JSON.stringify({ root: true, entrypoints: [{ export: 'grade' }] }));
      const bad = runCli(['check', '.'], { cwd: tmp });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/entrypoints\/0/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a project with no recognisable entrypoint says so once and checks all code', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-scope-'));
    try {
      writeFileSync(path.join(tmp, 'util.py'), 'import subprocess\n\ndef f():\n    return subprocess.run(["true"])\n');
      const r = check(tmp);
      expect(r.summary.scope).toMatchObject({ applied: 'all', fallback: true, entrypoints: 0 });
      expect(r.findings.map((f) => f.ruleId)).toEqual(['missing-timeout']);
      const s = runCli(['check', '.'], { cwd: tmp });
      expect(s.stdout.match(/No verifier entrypoint recognised/g)).toHaveLength(1);
      // and why, one line per shape tried
      expect(s.stdout).toMatch(/task files \(reference, OSWorld family\): no JSON file has their shape/);
      expect(s.stdout).toMatch(/module routes: no harness code loads a module from a path built from task data/);
      expect(s.stdout).toMatch(/class registries: no collection of task classes/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a near miss says what it found: a loader whose path no record fills', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-scope-'));
    try {
      mkdirSync(path.join(tmp, 'tasks'));
      // the harness reads "checker"; the tasks name their module under "check"
      writeFileSync(path.join(tmp, 'run.py'), 'import importlib.util\n\ndef load(task):\n    spec = importlib.util.spec_from_file_location("c", "checks/" + task["checker"])\n    mod = importlib.util.module_from_spec(spec)\n    spec.loader.exec_module(mod)\n    return mod.grade\n');
      writeFileSync(path.join(tmp, 'tasks', 'all.json'), '[{"id": "a", "check": "a.py"}]\n');
      const s = runCli(['check', '.'], { cwd: tmp });
      expect(s.stdout).toMatch(/task files \(reference, OSWorld family\): no JSON file has their shape/);
      expect(s.stdout).toMatch(/module routes: run\.py:4 loads checks\/\{checker\}; no data file has records whose members fill it/);
      // declared by hand, the same tasks are recognised
      writeFileSync(path.join(tmp, 'vaudit.config.json'), '{"tasks": [{"files": "tasks/*.json", "module": "checks/{check}", "export": "grade"}]}\n');
      mkdirSync(path.join(tmp, 'checks'));
      writeFileSync(path.join(tmp, 'checks', 'a.py'), 'def grade(state):\n    return state == 1\n');
      const r = check(tmp);
      expect(r.summary.scope.fallback).toBe(false);
      expect(r.summary.suites).toMatchObject([{ adapter: 'module-route', tasks: 1, bound: 1 }]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
