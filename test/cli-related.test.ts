/**
 * One finding per defect, as a user meets it: a name unbound on one path and read at three lines is one
 * finding at its first read, the two others its related locations, in every report format of the real
 * CLI (stylish `↳ also`, JSON `related`, SARIF `relatedLocations`, markdown and HTML `also` links) and in
 * the language server (`relatedInformation`); a suppression on the line the finding is shown at silences
 * the defect. Needs `npm run build`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with bench/
import { startClient } from '../bench/lsp-client.mjs';
import { runCli } from './helpers/run-cli.js';

const SCORE = [
  'def grade(state, low, high):',
  '    if state.ready:',
  '        score = state.score()',
  '    if score > low:',
  '        return score < high',
  '    return score == 0',
  '',
].join('\n');

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function workspace(text = SCORE): { root: string; file: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'vaudit-related-'));
  dirs.push(root);
  mkdirSync(path.join(root, '.git'));
  mkdirSync(path.join(root, 'checks'));
  const file = path.join(root, 'checks', 'score.py');
  writeFileSync(file, text);
  return { root, file };
}

const check = (root: string, ...args: string[]) => runCli(['check', '.', '--rule', 'unbound-name', ...args], { cwd: root });

describe('one finding per defect, its other sites as related locations', () => {
  it('stylish: one finding, "↳ also" under it for each other read', () => {
    const { root } = workspace();
    const r = check(root);
    expect(r.code, r.stderr).toBe(0); // a warning
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => /\bunbound-name$/.test(l.trim()))).toHaveLength(1);
    const at = lines.findIndex((l) => l.includes('`score` is unbound on some path'));
    expect(lines[at]).toMatch(/^\s+4:8\s+warning/);
    expect(lines[at + 1]).toMatch(/^\s+↳ also checks\/score\.py:5:16 {2}`score` is unbound on some path that reaches this read\.$/);
    expect(lines[at + 2]).toMatch(/^\s+↳ also checks\/score\.py:6:12 /);
    expect(r.stdout).toMatch(/1 problem/);
  });

  it('JSON related, SARIF relatedLocations, markdown and HTML "also" links', () => {
    const { root } = workspace();
    const json = JSON.parse(check(root, '--format', 'json').stdout);
    expect(json.findings).toHaveLength(1);
    expect(json.findings[0]).toMatchObject({ ruleId: 'unbound-name', file: 'checks/score.py', range: { start: { line: 4, column: 8 } } });
    expect(json.findings[0].related.map((r: { file: string; line: number; column: number }) => `${r.file}:${r.line}:${r.column}`)).toEqual(['checks/score.py:5:16', 'checks/score.py:6:12']);

    const sarif = JSON.parse(check(root, '--format', 'sarif').stdout);
    const results = sarif.runs[0].results;
    expect(results).toHaveLength(1);
    expect(results[0].relatedLocations.map((l: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }) => `${l.physicalLocation.artifactLocation.uri}:${l.physicalLocation.region.startLine}`)).toEqual(['checks/score.py:5', 'checks/score.py:6']);

    const md = check(root, '--format', 'markdown').stdout;
    expect(md).toContain('<br>also [checks/score.py:5:16](checks/score.py#L5) `score` is unbound on some path that reaches this read.');
    expect(md).toContain('<br>also [checks/score.py:6:12](checks/score.py#L6)');

    const html = check(root, '--format', 'html').stdout;
    expect(html).toContain('<span class="loc related">also <a href="checks/score.py#L5">checks/score.py:5:16</a>');
    expect(html).toContain('<a href="checks/score.py#L6">checks/score.py:6:12</a>');
  });

  it('a suppression where the finding is shown silences the defect', () => {
    const { root } = workspace(SCORE.replace('    if score > low:', '    if score > low:  # vaudit: ignore[unbound-name]'));
    const r = check(root, '--format', 'json');
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.findings).toEqual([]);
    expect(json.summary.suppressed).toBe(1);
  });

  it('the language server: one diagnostic with relatedInformation at the other reads', async () => {
    const { root, file } = workspace();
    const c = await startClient({ root });
    try {
      const uri = c.open(file, SCORE);
      const { diagnostics } = await c.nextDiagnostics(uri);
      const mine = diagnostics.filter((d: { code: string }) => d.code === 'unbound-name');
      expect(mine).toHaveLength(1);
      expect(mine[0].range.start).toEqual({ line: 3, character: 7 });
      expect(mine[0].relatedInformation.map((r: { location: { uri: string; range: { start: { line: number; character: number } } } }) => [r.location.uri, r.location.range.start.line, r.location.range.start.character])).toEqual([
        [uri, 4, 15],
        [uri, 5, 11],
      ]);
      expect(await c.stop()).toEqual({ code: 0, signal: null });
    } finally {
      c.kill();
    }
  });
});
