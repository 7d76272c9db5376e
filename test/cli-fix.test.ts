/**
 * `vaudit check --fix` / `--fix-dry-run` as a user meets them (issue 31): real processes on a temporary
 * suite. The fixes: `timeout=` added to blocking Python calls (the configured `fixTimeout`), an abort
 * signal given to `fetch`, a misspelt set-up step parameter renamed to the one key the set-up function
 * reads, unused suppressions removed. Written atomically (mode, byte-order mark, symlink kept), the
 * result re-linted, a second run changes nothing; a dry run writes nothing and prints the diff; a fix
 * that is not certain is not made.
 */
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'vaudit-fix-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PY = `import requests
import subprocess


def check(base):
    r = requests.get(f"{base}/api/state")
    s = requests.put(
        f"{base}/api/state",
        json={},
        headers={"a": "b"},
    )
    p = subprocess.run(["make"], capture_output=True)  # vaudit: ignore[set-collapse]
    # vaudit: ignore[unbound-name, missing-timeout]
    q = subprocess.check_output(["ls"])
    # vaudit: ignore[float-equality]
    return r.ok and s.ok and p.returncode == 0 and q
`;

const PY_FIXED = `import requests
import subprocess


def check(base):
    r = requests.get(f"{base}/api/state", timeout=15)
    s = requests.put(
        f"{base}/api/state",
        json={},
        headers={"a": "b"},
        timeout=15,
    )
    p = subprocess.run(["make"], capture_output=True, timeout=15)
    # vaudit: ignore[missing-timeout]
    q = subprocess.check_output(["ls"])
    return r.ok and s.ok and p.returncode == 0 and q
`;

const JS = `export async function check(url) {
  const a = await fetch(url);
  const b = await fetch(url, { method: 'POST' });
  const c = await fetch(url, {
    method: 'PUT',
    body: '{}',
  });
  const opts = { method: 'GET' };
  const d = await fetch(url, opts);
  return a.ok && b.ok && c.ok && d.ok;
}
`;

const JS_FIXED = `export async function check(url) {
  const a = await fetch(url, { signal: AbortSignal.timeout(15000) });
  const b = await fetch(url, { signal: AbortSignal.timeout(15000), method: 'POST' });
  const c = await fetch(url, {
    signal: AbortSignal.timeout(15000),
    method: 'PUT',
    body: '{}',
  });
  const opts = { method: 'GET' };
  const d = await fetch(url, opts);
  return a.ok && b.ok && c.ok && d.ok;
}
`;

/** A fresh suite: the Python and JS verifiers above, a config that sets the fix's timeout. */
function suite(name: string): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'v'), { recursive: true });
  writeFileSync(path.join(dir, 'vaudit.config.json'), JSON.stringify({ rules: { 'missing-timeout': ['error', { fixTimeout: 15 }] } }));
  writeFileSync(path.join(dir, 'v', 'check.py'), PY);
  writeFileSync(path.join(dir, 'v', 'check.mjs'), JS);
  return dir;
}

/** Every file's bytes under `dir`, to prove a run wrote nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out[path.relative(dir, path.join(e.parentPath, e.name))] = readFileSync(path.join(e.parentPath, e.name), 'latin1');
  }
  return out;
}

describe('--fix', () => {
  it('adds the configured timeout, an abort signal, drops unused suppressions, re-lints; a second run changes nothing', () => {
    const dir = suite('fix');
    chmodSync(path.join(dir, 'v', 'check.py'), 0o755);
    const r = runCli(['check', '--fix'], { cwd: dir });
    expect(readFileSync(path.join(dir, 'v', 'check.py'), 'utf8')).toBe(PY_FIXED);
    expect(readFileSync(path.join(dir, 'v', 'check.mjs'), 'utf8')).toBe(JS_FIXED);
    expect(statSync(path.join(dir, 'v', 'check.py')).mode & 0o777).toBe(0o755);
    expect(r.stderr).toBe('vaudit: Fixed 9 problems in 2 files.\n');
    // the report is of the fixed files: only the fetch whose options are a variable (used elsewhere?) is left
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {2}10:19 {2}error {4}`fetch` has no abort `signal`\./m);
    expect(r.stdout).toContain('✖ 1 problem (1 error, 0 warnings)');
    const before = snapshot(dir);
    const again = runCli(['check', '--fix'], { cwd: dir });
    expect(again.stderr).toBe('');
    expect(snapshot(dir)).toEqual(before);
    expect(again.stdout).toBe(r.stdout);
  });

  it('--fix-dry-run writes nothing, prints the changes as a diff and reports what --fix would leave', () => {
    const dir = suite('dry');
    const before = snapshot(dir);
    const r = runCli(['check', '--fix-dry-run', '-f', 'json'], { cwd: dir });
    expect(snapshot(dir)).toEqual(before);
    expect(r.stderr).toContain('--- a/v/check.py\n+++ b/v/check.py\n@@ -6,1 +6,1 @@\n-    r = requests.get(f"{base}/api/state")\n+    r = requests.get(f"{base}/api/state", timeout=15)\n');
    expect(r.stderr).toContain('+  const b = await fetch(url, { signal: AbortSignal.timeout(15000), method: \'POST\' });');
    expect(r.stderr).toMatch(/vaudit: Would fix 9 problems in 2 files \(--fix-dry-run: nothing written\)\.\n$/);
    const report = JSON.parse(r.stdout) as { findings: Array<{ ruleId: string; range: { start: { line: number } } }> };
    expect(report.findings.map((f) => `${f.ruleId}:${f.range.start.line}`)).toEqual(['missing-timeout:10']);
    expect(r.code).toBe(1);
  });

  it('keeps a byte-order mark, and writes through a symlink to the file it names', () => {
    const dir = path.join(work, 'bom');
    mkdirSync(path.join(dir, 'real'), { recursive: true });
    writeFileSync(path.join(dir, 'real', 'v.py'), '\ufeffimport requests\n\n\ndef check(u):\n    return requests.get(u).ok\n');
    mkdirSync(path.join(dir, 'v'));
    symlinkSync(path.join(dir, 'real', 'v.py'), path.join(dir, 'v', 'v.py'));
    const r = runCli(['check', 'v/v.py', '--fix'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(path.join(dir, 'v', 'v.py')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(dir, 'real', 'v.py'), 'utf8')).toBe('\ufeffimport requests\n\n\ndef check(u):\n    return requests.get(u, timeout=60).ok\n');
  });

  it('renames a misspelt set-up step parameter to the one key the set-up function reads, and no other', () => {
    const dir = path.join(work, 'osworld');
    cpSync(path.resolve(import.meta.dirname, '../rules/evaluator-dispatch/fixtures/incorrect/osworld-evaluators'), dir, { recursive: true });
    const examples = path.join(dir, 'evaluation_examples/examples/setup-unread-params');
    const renamed = readFileSync(path.join(examples, 'renamed.json'), 'utf8');
    const r = runCli(['check', '--fix', '--rule', 'evaluator-dispatch', '.'], { cwd: dir });
    expect(r.stderr).toBe('vaudit: Fixed 2 problems in 2 files.\n');
    // "url" → "urls" and "maximised" → "maximized": browser_start_setup reads config.get("urls") / ("maximized")
    expect(JSON.parse(readFileSync(path.join(examples, 'near-miss.json'), 'utf8')).config[0].parameters).toHaveProperty('urls');
    expect(readFileSync(path.join(examples, 'postconfig.json'), 'utf8')).toContain('"maximized": true');
    // "fullscreen" is near no key the function reads: a suggestion in the message, no fix
    expect(readFileSync(path.join(examples, 'renamed.json'), 'utf8')).toBe(renamed);
    expect(r.stdout).toContain('setup-unread-params/renamed.json');
    expect(r.stdout).not.toContain('setup-unread-params/near-miss.json');
  });

  it('removes a "//vaudit-ignore" member that suppresses nothing, with its comma', () => {
    const dir = path.join(work, 'json');
    mkdirSync(path.join(dir, 'tasks', 'Lean'), { recursive: true });
    const task = '{\n  "type": "Lean",\n  "instruction": "Prove it.",\n  "evaluate": [\n    {\n      "//vaudit-ignore": ["regex-redos"],\n      "type": "stop",\n      "value": "ANS",\n      "args": ["1"]\n    }\n  ],\n  "ans": "ANS 1"\n}\n';
    writeFileSync(path.join(dir, 'tasks', 'Lean', 't.json'), task);
    const r = runCli(['check', '--fix', '--rule', 'regex-redos', '.'], { cwd: dir });
    expect(r.stderr).toBe('vaudit: Fixed 1 problem in 1 file.\n');
    expect(readFileSync(path.join(dir, 'tasks', 'Lean', 't.json'), 'utf8')).toBe(task.replace('      "//vaudit-ignore": ["regex-redos"],\n', ''));
  });

  it('cannot fix standard input', () => {
    const r = runCli(['check', '--fix', '--stdin-filename', 'v.py'], { cwd: work, input: 'import requests\nrequests.get("x")\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fix and --fix-dry-run fix files; they cannot be used with --stdin-filename.');
  });
});
