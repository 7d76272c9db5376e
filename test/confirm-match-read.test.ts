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
  // the getter's own `return None` (line 11) is the no-match value: TypeError at the read
  expect(at(17), all).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/^TypeError: .* raised at line 17/) });
  expect(at(17)!.witness).toMatch(/active_tab_url\(…\) returns None \(as it does at getters\/browser\.py:11\).*baseline, active_tab_url\(…\) returning "\/d\/x\/edit"/);
  // an imported helper, the match object bound on an earlier line and read on the flagged one
  expect(at(24), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/window_title\(…\) returns ""/) });
  // the subject is an HTTP reply's text read inline: no case can choose it, so no verdict
  expect(at(30)?.status, all).toBe('unsupported');
  expect(mine.filter((f) => f.confirmation?.status === 'refuted'), all).toEqual([]);
});

it('a getter double returns only what the getter can return: its own fallback, never a value it normalises away', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'getter-values');
  mkdirSync(path.join(root, 'checks'), { recursive: true });
  const files: Record<string, string> = {
    'checks/__init__.py': '',
    // urllib, imported getter: its fallback "about:blank" is a value the pattern misses
    'checks/pages.py': [
      'import re',
      'import urllib.request',
      '',
      '',
      'def current_issue_path(base):',
      '    with urllib.request.urlopen(f"{base}/location", timeout=5) as reply:',
      '        path = reply.read().decode().strip()',
      '    if re.search(r"/issues/(\\d+)", path):',
      '        return path',
      '    return "about:blank"',
      '',
    ].join('\n'),
    // requests, same module: the getter normalises every non-sheet URL to a sheet URL through a helper
    'checks/sheets.py': [
      'import re',
      '',
      'import requests',
      '',
      'from .pages import current_issue_path',
      '',
      '',
      'def canonical(url):',
      '    if "/d/" in url and url.endswith("/edit"):',
      '        return url',
      '    return "https://docs.google.com/spreadsheets/d/none/edit"',
      '',
      '',
      'def active_sheet(host):',
      '    url = requests.get(f"http://{host}:9222/active", timeout=10).text',
      '    if "/d/" not in url:',
      '        return canonical(url)',
      '    return url',
      '',
      'def sheet_id(host):',
      '    url = active_sheet(host)',
      '    return re.search(r"/d/([\\w-]+)/edit", url).group(1)',
      '',
      '',
      'def issue_number(base):',
      '    path = current_issue_path(base)',
      '    return int(re.search(r"/issues/(\\d+)", path).group(1))',
      '',
    ].join('\n'),
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const mine = report.findings.filter((f) => f.messageId === 'noMatch');
  const all = JSON.stringify(mine.map((f) => [f.file, f.range.start.line, f.confirmation]));
  const at = (line: number) => mine.find((x) => x.range.start.line === line)?.confirmation;
  // the normaliser's value is one vaudit does not follow: no case, never a "" the getter cannot give
  expect(at(22), all).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/no value `active_sheet` can return is known to miss.*canonical/) });
  // the imported getter's fallback literal is the witness, and it escapes at the read
  expect(at(27), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/current_issue_path\(…\) returns "about:blank" \(as it does at checks\/pages\.py:10\)/), observed: expect.stringMatching(/^AttributeError: .* raised at line 27/) });
  expect(mine.filter((f) => f.confirmation?.status === 'confirmed' && /returns ""/.test(f.confirmation.witness ?? '')), all).toEqual([]);
});

it('a read under a conditional or short-circuit on its line: refuted only when the read ran on the no-match value', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'short-circuit');
  mkdirSync(path.join(root, 'probes'), { recursive: true });
  const files: Record<string, string> = {
    'probes/__init__.py': '',
    'probes/window.py': [
      'import re',
      'import httpx',
      '',
      '',
      'def focused_url(port):',
      '    return httpx.get(f"http://127.0.0.1:{port}/focused", timeout=4).text.strip()',
      '',
      '',
      'def focused_url_or_none(port):',
      '    reply = httpx.get(f"http://127.0.0.1:{port}/focused", timeout=4)',
      '    if reply.status_code != 200:',
      '        return None',
      '    return reply.text.strip()',
      '',
      '',
      'def ticket_ternary(port):',
      '    url = focused_url(port)',
      '    return re.search(r"/ticket/(\\d+)", url).group(1) if url else None',
      '',
      '',
      'def ticket_and(port):',
      '    url = focused_url(port)',
      '    return url and re.search(r"/ticket/(\\d+)", url).group(1)',
      '',
      '',
      'def ticket_not_none(port):',
      '    url = focused_url_or_none(port)',
      '    return re.search(r"/ticket/(\\d+)", url).group(1) if url is not None else None',
      '',
      '',
      'def ticket_prefixed(port):',
      '    url = focused_url(port)',
      '    return re.search(r"/ticket/(\\d+)", url).group(1) if url.startswith("https://") else None',
      '',
      '',
      'def ticket_handled(port):',
      '    url = focused_url(port)',
      '    try:',
      '        return re.search(r"/ticket/(\\d+)", url).group(1)',
      '    except AttributeError:',
      '        return None',
      '',
    ].join('\n'),
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const mine = report.findings.filter((f) => f.messageId === 'noMatch');
  const all = JSON.stringify(mine.map((f) => [f.range.start.line, f.confirmation]));
  const at = (line: number) => mine.find((x) => x.range.start.line === line)?.confirmation;
  // a falsy value ("", None) skips the read: the getter's truthy state that misses runs it and fails
  for (const line of [18, 23, 28])
    expect(at(line), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/returns "vaudit: no match"/), observed: expect.stringMatching(new RegExp(`^AttributeError: .* raised at line ${line}`)) });
  // the condition is not truthiness: the no-match value skips the read, and a line that ran is no read that ran
  expect(at(33), all).toMatchObject({ status: 'unreached', detail: expect.stringMatching(/returned null with no failure at line 33, so the read there never ran on that value/) });
  // a read inside try/except AttributeError is handled: no finding
  expect(at(39), all).toBeUndefined();
  expect(mine.filter((f) => f.confirmation?.status === 'refuted'), all).toEqual([]);
});
