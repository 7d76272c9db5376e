/** Rule options are validated against each rule's schema when the config loads (real CLI process). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

function project(rules: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-options-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'vaudit.config.json'), JSON.stringify({ root: true, rules }));
  writeFileSync(path.join(dir, 'check.py'), 'import re\n\nPAT = re.compile(r"^a+$")\n');
  return dir;
}

describe('rule options in vaudit.config.json', () => {
  it('accepts options that match the rule schema', () => {
    const r = runCli(['check', '.'], { cwd: project({ 'regex-redos': ['error', { polynomialDegree: 4 }] }) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('rejects a mistyped option with its JSON pointer: exit 2', () => {
    const r = runCli(['check', '.'], { cwd: project({ 'regex-redos': ['error', { polynomialDegree: 'three' }] }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/rules/regex-redos/1/polynomialDegree');
  });

  it('rejects an unknown option and lists the allowed ones', () => {
    const r = runCli(['check', '.'], { cwd: project({ 'unbound-name': ['warn', { allowGlobals: ['x'] }] }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\/rules\/unbound-name\/1\/allowGlobals: rule 'unbound-name' has no option 'allowGlobals'\. Did you mean 'allowedGlobals'\? Allowed: allowedGlobals/);
  });

  it('rejects options for a rule that takes none', () => {
    const r = runCli(['check', '.'], { cwd: project({ 'set-collapse': ['warn', { strict: true }] }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("/rules/set-collapse/1: rule 'set-collapse' takes no options");
  });

  it('documents the options in `vaudit rules <id>`', () => {
    const r = runCli(['rules', 'regex-redos'], { cwd: project({}) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Options[\s\S]*`polynomialDegree` \(integer\)/);
  });
});
