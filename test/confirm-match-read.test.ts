/**
 * unguarded-state-read `noMatch` control cases: the subject of an unchecked `re.search(P, s).group(…)`
 * is given a string P matches (the baseline must get past the read) and one it does not; None's
 * AttributeError escaping at the read confirms. The subject comes from a module-level function the
 * verifier calls (same module, or imported from another), doubled in the case's own process. A subject
 * no case can choose gets no verdict. Real `vaudit check --confirm` runs on a project written here.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { matchingSample } from '../rules/unguarded-state-read/oracle.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-confirm-match-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Conf {
  status: string;
  witness?: string;
  observed?: string;
  detail?: string;
}
interface Report {
  findings: Array<{ ruleId: string; messageId: string; file: string; range: { start: { line: number } }; confirmation?: Conf | null }>;
}

describe('matchingSample', () => {
  it('builds a string the pattern matches, or gives up', () => {
    expect(matchingSample('d/(.*?)/edit')).toBe('d/x/edit');
    expect(matchingSample(String.raw`/d/([\w-]+)/edit`)).toBe('/d/x/edit');
    expect(matchingSample(String.raw`^Score: (\d{3})$`)).toBe('Score: 111');
    expect(matchingSample(String.raw`id=([^&]+)`)).toBe('id=x');
    expect(matchingSample('a|b')).toBeUndefined();
    expect(matchingSample('(?P<n>x)')).toBeUndefined();
  });
});

it('a match read on a getter’s value: confirmed with a subject the pattern does not match, after a baseline that gets past it', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'proj');
  mkdirSync(path.join(root, 'getters'), { recursive: true });
  const files: Record<string, string> = {
    'getters/tabs.py': [
      'import urllib.request',
      '',
      '',
      'def window_title(host):',
      '    with urllib.request.urlopen(f"http://{host}:9222/title", timeout=5) as reply:',
      '        return reply.read().decode()',
      '',
    ].join('\n'),
    'getters/browser.py': [
      'import re',
      '',
      'import requests',
      '',
      'from .tabs import window_title',
      '',
      '',
      'def active_tab_url(host, port):',
      '    reply = requests.get(f"http://{host}:{port}/tabs/active", timeout=10)',
      '    if reply.status_code != 200:',
      '        return None',
      '    return reply.text.strip()',
      '',
      '',
      'def sheet_export_url(host, port):',
      '    url = active_tab_url(host, port)',
      '    sheet_id = re.search(r"/d/([\\w-]+)/edit", url).group(1)',
      '    return f"https://docs.google.com/spreadsheets/d/{sheet_id}/export?format=xlsx"',
      '',
      '',
      'def title_matches(host, expected):',
      '    title = window_title(host)',
      '    found = re.match("Title: (.*)$", title)',
      '    return found.group(1) == expected',
      '',
      '',
      'def window_size(host, port):',
      '    geometry = requests.get(f"http://{host}:{port}/window", timeout=10).text',
      '    found = re.match(r"(\\d+)x(\\d+)", geometry)',
      '    return int(found.group(1)), int(found.group(2))',
      '',
    ].join('\n'),
    'getters/__init__.py': '',
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const mine = report.findings.filter((f) => f.messageId === 'noMatch');
  const all = JSON.stringify(mine.map((f) => [f.range.start.line, f.confirmation]));
  const at = (line: number) => mine.find((x) => x.range.start.line === line)?.confirmation;
  // the same module's getter, the search on the flagged line
  expect(at(17), all).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/^AttributeError: .* raised at line 17/) });
  expect(at(17)!.witness).toMatch(/active_tab_url\(…\) returns "".*baseline, active_tab_url\(…\) returning "\/d\/x\/edit"/);
  // an imported helper, the match object bound on an earlier line and read on the flagged one
  expect(at(24), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/window_title\(…\) returns ""/) });
  // the subject is an HTTP reply's text read inline: no case can choose it, so no verdict
  expect(at(30)?.status, all).toBe('unsupported');
  expect(mine.filter((f) => f.confirmation?.status === 'refuted'), all).toEqual([]);
});
