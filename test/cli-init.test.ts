/** `vaudit init` as a user meets it: a real process on a copy of the demo suite. */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const REPO = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// four or five real runs over a 42-file suite each: generous bounds on a loaded machine
describe('vaudit init', { timeout: 240_000 }, () => {
  it('writes a config for the suite it finds, prints what it detected, and check then uses it', () => {
    const suite = path.join(dir, 'demo');
    cpSync(path.join(REPO, 'fixtures/demo-suite'), suite, { recursive: true });
    const before = JSON.parse(runCli(['check', '-f', 'json'], { cwd: suite }).stdout);

    const r = runCli(['init', 'demo'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Detected in demo:\n  suite (adapter "reference") in .: 23 tasks under tasks/, 33 verifier entries\n');
    expect(r.stdout).toContain('    families: Celestia 4, ChimeraX 6, GrassGIS 5, KAlgebra 3, Lean 2, TeXstudio 3\n');
    expect(r.stdout).toMatch(/ {4}entrypoints: 14 verifier functions\n {6}verifier\/base\/evaluator\.py: BaseEvaluator\._eval_stop\n/);
    expect(r.stdout).toContain('  verifier code: 19 Python files\n');
    expect(r.stdout).toMatch(/Wrote demo\/vaudit\.config\.json: adapter "reference", include tasks\/\*\*\/\*\.json, \*\*\/\*\.py; \d+ of \d+ rules apply \(suite, python layers\)\.\nNext: vaudit check demo\n$/);

    const config = JSON.parse(readFileSync(path.join(suite, 'vaudit.config.json'), 'utf8'));
    expect(config).toMatchObject({ root: true, adapter: 'reference', include: ['tasks/**/*.json', '**/*.py'], exclude: [], rules: {} });
    const applies = config['//rules that apply'] as string[];
    expect(applies).toContain('unbound-name (warn)');
    expect(applies).toContain('task-schema (error)');
    expect(applies.some((a) => a.startsWith('undeclared-tool'))).toBe(false); // no bundle in the suite

    // the config is valid, and changes nothing about what the suite's check finds
    const after = runCli(['check', '-f', 'json'], { cwd: suite });
    expect(after.code, after.stderr).toBe(1);
    const doc = JSON.parse(after.stdout);
    expect(doc.summary.findings).toEqual(before.summary.findings);
    expect(doc.summary.tasks).toBe(23);
    // globs are relative to the config's folder: checking a subfolder still works
    const sub = runCli(['check', 'tasks', '-f', 'json'], { cwd: suite });
    expect(sub.code, sub.stderr).toBe(1);
    expect(JSON.parse(sub.stdout).summary.tasks).toBe(23);
  });

  it('refuses to overwrite an existing config without --force (exit 2), replaces it with --force', () => {
    const suite = path.join(dir, 'again');
    cpSync(path.join(REPO, 'fixtures/demo-suite'), suite, { recursive: true });
    writeFileSync(path.join(suite, 'vaudit.config.json'), '{ "include": ["nothing/**"] }\n');
    const r = runCli(['init'], { cwd: suite });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('vaudit: vaudit.config.json already exists; vaudit init does not overwrite it. Pass --force to replace it.\n');
    expect(readFileSync(path.join(suite, 'vaudit.config.json'), 'utf8')).toBe('{ "include": ["nothing/**"] }\n');
    const f = runCli(['init', '--force'], { cwd: suite });
    expect(f.code, f.stderr).toBe(0);
    // the old config did not narrow what init looked at
    expect(f.stdout).toContain('23 tasks under tasks/');
    expect(f.stdout).toContain('Replaced vaudit.config.json');
    expect(JSON.parse(readFileSync(path.join(suite, 'vaudit.config.json'), 'utf8')).adapter).toBe('reference');
  });

  it('verifier code without a recognised task suite keeps the default include', () => {
    const root = path.join(dir, 'code-only');
    mkdirSync(path.join(root, 'evaluators'), { recursive: true });
    writeFileSync(path.join(root, 'evaluators', 'metrics.py'), 'def compare(a, b):\n    return a == b\n');
    const r = runCli(['init'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('no task suite recognised; verifier code only');
    expect(r.stdout).toContain('module routes: no harness code loads a module from a path built from task data');
    expect(r.stdout).toContain('verifier code: 1 Python file\n');
    const config = JSON.parse(readFileSync(path.join(root, 'vaudit.config.json'), 'utf8'));
    expect(config.include).toBeUndefined();
    expect(config.adapter).toBeUndefined();
    // the declarations to complete, with why nothing was recognised
    expect(config.tasks).toEqual([]);
    expect(config.entrypoints).toEqual([]);
    expect(config['//declare'].join('\n')).toMatch(/class registries: no collection of task classes/);
    // completed, check recognises the entrypoint
    config.entrypoints = [{ files: 'evaluators/*.py', export: 'compare' }];
    writeFileSync(path.join(root, 'vaudit.config.json'), JSON.stringify(config));
    const c = runCli(['check', '.', '--format', 'json'], { cwd: root });
    expect(JSON.parse(c.stdout).summary.scope).toMatchObject({ fallback: false, entrypoints: 1 });
  });

  it('an empty folder or a missing one is a usage error (exit 2) and writes nothing', () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    const r = runCli(['init'], { cwd: empty });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("No task suite or verifier code found in '.'");
    expect(existsSync(path.join(empty, 'vaudit.config.json'))).toBe(false);
    const m = runCli(['init', 'nope'], { cwd: dir });
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("No such file or directory: 'nope'");
  });
});
