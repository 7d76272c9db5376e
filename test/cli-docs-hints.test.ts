/**
 * Two things a reader of vaudit's output needs explained (issue 16): the resolution hint of every
 * finding in the markdown audit report, and the audit ids (VER-nnn, "seed 000") that rule docs cite.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { loadRules } from '../src/contract/registry.js';
import { renderRuleMarkdown } from '../src/report/rule-docs.js';
import { AUDIT_FINDINGS } from '../src/report/audit-refs.js';

const REPO = path.resolve(import.meta.dirname, '..');

describe('markdown audit report', { timeout: 180_000 }, () => {
  it('fills the resolution hint of every finding, for every rule (the incorrect fixtures of all rules)', () => {
    const dirs = readdirSync(path.join(REPO, 'rules')).map((id) => `rules/${id}/fixtures/incorrect`);
    const r = runCli(['check', ...dirs, '--format', 'markdown'], { cwd: REPO });
    expect(r.code, r.stderr).toBe(1);
    const rows = r.stdout.split('\n').filter((l) => /^\| VA-\d+ \|/.test(l));
    expect(rows.length).toBeGreaterThan(50);
    const cells = rows.map((l) => l.split(' | '));
    const empty = cells.filter((c) => c[4]!.replace(/\|\s*$/, '').trim() === '').map((c) => c[2]);
    expect(empty).toEqual([]);
    // lambda-syntax: a parser detail with quotes and brackets no longer defeats the split
    const lambda = cells.find((c) => c[2]!.includes('`lambda-syntax`') && c[2]!.includes('not valid Python'));
    expect(lambda?.[4]).toMatch(/^Fix the syntax\./);
  });
});

describe('rule docs', () => {
  it('vaudit rules <id> explains the audit ids it cites', () => {
    const r = runCli(['rules', 'missing-timeout'], { cwd: REPO });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/References\n- VER-005 \(ScienceBoard audit, seed 003\) — The Lean checker searched only stdout/);
    const s = runCli(['rules', 'undeclared-tool'], { cwd: REPO });
    expect(s.stdout).toContain('seed 000: Tool authority — seed 000 is the external-verifier-grounding guidance');
  });

  it('every VER-nnn and "seed 000" a rule cites anywhere in its docs is explained in its References', async () => {
    for (const { meta } of (await loadRules()).values()) {
      const md = renderRuleMarkdown(meta);
      const refs = md.split('### References\n')[1] ?? '';
      for (const id of new Set(md.match(/\bVER-\d{3}\b/g) ?? [])) {
        expect(AUDIT_FINDINGS[id], `${meta.id} cites unknown ${id}`).toBeDefined();
        expect(refs, `${meta.id}: ${id}`).toContain(`${id} (ScienceBoard audit, seed 003)`);
      }
      if (/\bseed 000\b/.test(md)) expect(refs, meta.id).toContain('seed 000 is the external-verifier-grounding guidance');
    }
  });
});
