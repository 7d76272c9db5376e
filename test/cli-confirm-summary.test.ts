/**
 * The confirmation part of stylish output as a user meets it (real process, --confirm): the reason
 * of a non-result under its finding and in the summary block, and progress lines on a non-TTY
 * stderr (CI logs). VAUDIT_PROGRESS_MS=0 prints every update instead of one every few seconds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-confirm-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a non-result shows its reason under the finding and among the top reasons of the summary; progress goes to stderr', { timeout: 180_000 }, () => {
  const root = path.join(dir, 'unavailable');
  mkdirSync(root);
  // the path under test calls into a module the host Python does not have (before the flagged
  // call): verifierUnavailable, never a verdict
  writeFileSync(path.join(root, 'verifier.py'), [
    'import subprocess',
    'import vaudit_test_module_not_installed as parser',
    '',
    '',
    'def check(path):',
    '    args = parser.build_args(path)',
    '    r = subprocess.run(["lake", "build", *args], cwd=path, capture_output=True)',
    '    return r.returncode == 0',
    '',
  ].join('\n'));
  const r = runCli(['check', '--confirm', '.'], { cwd: root, env: { VAUDIT_PROGRESS_MS: '0' } });
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toMatch(/↳ verifierUnavailable — module vaudit_test_module_not_installed is not installed[^\n]*; run run-/);
  expect(r.stdout).toContain('  rules: missing-timeout 1\n');
  expect(r.stdout).toContain('  confirmation: 1 verifierUnavailable (1 control-case run)\n');
  expect(r.stdout).toMatch(/\n {4}verifierUnavailable ×1: module vaudit_test_module_not_installed is not installed/);
  // non-TTY progress: plain lines, no carriage returns or terminal escapes
  expect(r.stderr).toMatch(/^vaudit: confirming: 0\/1 control cases \(\d+ s\)\n/m);
  expect(r.stderr).toMatch(/^vaudit: confirming: 1\/1 control cases \(\d+ s\)\n/m);
  expect(r.stderr).not.toMatch(/\r|\x1b/);
});
