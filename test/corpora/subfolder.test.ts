/**
 * A folder inside a suite is checked in the context of the whole suite (issue 31 item 2): the config
 * folder decides the project, else the current folder. `vaudit check <folder>`
 * reports exactly that folder's part of the whole-suite findings, on real corpora and from a folder
 * deep under a config.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const repo = path.resolve(import.meta.dirname, '../..');
const corpora = process.env.VAUDIT_CORPORA ? path.resolve(process.env.VAUDIT_CORPORA) : path.resolve(repo, '../shared/corpora');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-subfolder-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function findings(cwd: string, target: string): string[] {
  const out = path.join(tmp, `r${n++}.json`);
  runCli(['check', target, '--format', 'json', '--output-file', out], { cwd });
  const r = JSON.parse(readFileSync(out, 'utf8')) as { findings: Array<{ ruleId: string; file: string; range: { start: { line: number } } }> };
  return r.findings.map((f) => `${f.ruleId} ${path.relative(cwd, path.resolve(cwd, f.file)).split(path.sep).join('/')}:${f.range.start.line}`).sort();
}

describe('a subfolder of a suite', { timeout: 300_000 }, () => {
  const cases: Array<[string, string]> = [
    ['scienceboard', 'sci'],
    ['scienceboard', 'tasks'],
    ['spider2v', 'desktop_env'],
    ['androidworld', 'android_world/task_evals'],
    ['stagehand', 'packages/evals/tasks'],
  ];
  for (const [corpus, folder] of cases) {
    it(`${corpus}: vaudit check ${folder} is that folder's part of the whole-suite findings`, () => {
      const root = path.join(corpora, corpus);
      const whole = findings(root, '.').filter((f) => f.split(' ')[1]!.startsWith(`${folder}/`));
      expect(whole.length).toBeGreaterThan(0);
      expect(findings(root, folder)).toEqual(whole);
    });
  }

  it('under a config, the current folder deep in the suite still sees the whole suite', () => {
    const root = path.join(tmp, 'suite');
    cpSync(path.join(repo, 'fixtures/suites/task-module'), root, { recursive: true });
    writeFileSync(path.join(root, 'vaudit.config.json'), '{"root": true}\n');
    const whole = findings(root, '.').filter((f) => f.split(' ')[1]!.startsWith('checks/')).map((f) => f.replace(' checks/', ' '));
    expect(whole.length).toBeGreaterThan(0);
    expect(findings(path.join(root, 'checks'), '.')).toEqual(whole);
  });
});
