/** A task JSON's `"//vaudit-ignore"` member is honoured however its name is spelled in the text
 *  (JSON escapes included: `\/`, `\u0076`), and only the member's object is suppressed. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-json-sup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(members: string[]): { lines: number[]; suppressed: number } {
  const suite = mkdtempSync(path.join(dir, 'suite-'));
  mkdirSync(path.join(suite, 'tasks/GrassGIS'), { recursive: true });
  const entries = members.map((m) => `    {${m}"type": "info", "key": "lambda dump: dump['map'] if", "value": 1}`);
  writeFileSync(path.join(suite, 'tasks/GrassGIS/t.json'), `{\n  "type": "GrassGIS",\n  "instruction": "Name the map.",\n  "evaluate": [\n${entries.join(',\n')}\n  ]\n}\n`);
  const out = path.join(suite, 'report.json');
  runCli(['check', suite, '--rule', 'lambda-syntax', '--format', 'json', '--output-file', out], { cwd: suite });
  const report = JSON.parse(readFileSync(out, 'utf8')) as { findings: Array<{ ruleId: string; range: { start: { line: number } } }>; summary: { suppressed?: number } };
  return { lines: report.findings.filter((f) => f.ruleId === 'lambda-syntax').map((f) => f.range.start.line), suppressed: report.summary.suppressed ?? 0 };
}

it('reports the entry with no suppression member', () => {
  expect(check(['']).lines).toEqual([5]);
});

it.each([
  ['plain', String.raw`"//vaudit-ignore": ["lambda-syntax"], `],
  ['escaped solidus', String.raw`"\/\/vaudit-ignore": ["lambda-syntax"], `],
  ['unicode escape', String.raw`"//\u0076audit-ignore": "lambda-syntax", `],
])('suppresses the entry whose member is spelled %s, and not its sibling', (_name, member) => {
  expect(check([member, '']).lines).toEqual([6]);
});
