/**
 * The README's "Declaring a suite by hand" table: each corpus's shortest config, run on a copy of the
 * corpus with detection off (`"detect": false`), recognises the suite: its declared tasks (the same
 * count detection finds) or its entrypoints, never the "nothing recognised" fallback.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const repo = path.resolve(import.meta.dirname, '..');
const corpora = process.env.VAUDIT_CORPORA ? path.resolve(process.env.VAUDIT_CORPORA) : path.resolve(repo, '../shared/corpora');
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
const table = /<!-- corpus-configs:start -->([\s\S]*?)<!-- corpus-configs:end -->/.exec(readme)?.[1] ?? '';
const rows = [...table.matchAll(/^\| ([\w-]+) \| `(\{.*\})` \|$/gm)].map((m) => ({ corpus: m[1]!, config: JSON.parse(m[2]!) as Record<string, unknown> }));

interface Report {
  summary: { scope: { fallback: boolean; entrypoints: number }; suites: Array<{ adapter: string; tasks: number; bound: number }> };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-readme-configs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function check(dir: string): Report {
  const out = path.join(tmp, `${path.basename(dir)}.json`);
  runCli(['check', '.', '--format', 'json', '--output-file', out], { cwd: dir });
  return JSON.parse(readFileSync(out, 'utf8')) as Report;
}

describe.skipIf(!rows.length || !readme.includes('corpus-configs'))('README corpus configs', () => {
  it('lists all five corpora', () => {
    expect(rows.map((r) => r.corpus).sort()).toEqual(['androidworld', 'scienceboard', 'spider2v', 'stagehand', 'webarena-infinity']);
  });

  for (const { corpus, config } of rows) {
    it(`${corpus}: the declaration alone recognises the suite`, { timeout: 600_000 }, () => {
      const dir = path.join(tmp, corpus);
      cpSync(path.join(corpora, corpus), dir, { recursive: true });
      chmodSync(dir, 0o755);
      const detected = check(dir);
      writeFileSync(path.join(dir, 'vaudit.config.json'), JSON.stringify({ ...config, detect: false }));
      const declared = check(dir);
      expect(declared.summary.scope.fallback).toBe(false);
      expect(declared.summary.scope.entrypoints).toBeGreaterThan(0);
      if (config.tasks) {
        const count = (r: Report) => r.summary.suites.reduce((n, s) => n + s.tasks, 0);
        expect(count(declared)).toBe(count(detected));
        expect(declared.summary.suites.every((s) => s.adapter === 'module-route')).toBe(true);
      }
      // with detection off and no declaration, nothing is recognised: the declaration did it
      writeFileSync(path.join(dir, 'vaudit.config.json'), JSON.stringify({ detect: false }));
      expect(check(dir).summary.scope.fallback).toBe(true);
    });
  }
});
