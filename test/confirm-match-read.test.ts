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

it('getters whose every return the pattern matches are no finding; a value the getter cannot be shown to return gets no case', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'guard-forms');
  mkdirSync(path.join(root, 'judge'), { recursive: true });
  const files: Record<string, string> = {
    'judge/__init__.py': '',
    'judge/board.py': [
      'import re', // 1
      'import sys',
      'import time',
      '',
      'import pytest',
      'import requests',
      '',
      'BOARD = re.compile(r"/b/(\\w+)/view")',
      'HOME = "https://tracker.example/home"',
      '',
      '', // 11
      'def fetch(port):',
      '    reply = requests.get(f"http://127.0.0.1:{port}/where", timeout=3)',
      '    return reply.text.strip()',
      '',
      '',
      'def looks_like_board(u):',
      '    return bool(re.search(r"/b/(\\w+)/view", u))',
      '',
      '',
      'def board_or_fail(port):', // 21
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()',
      '    if re.search(r"/b/(\\w+)/view", u):',
      '        return u',
      '    pytest.fail("no board open")',
      '',
      '',
      'def board_or_exit(port):',
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()',
      '    if not re.search(r"/b/(\\w+)/view", u):',
      '        print("no board", file=sys.stderr)', // 31
      '        sys.exit(3)',
      '    return u',
      '',
      '',
      'def board_checked(port, check=True):',
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()',
      '    if not re.search(r"/b/(\\w+)/view", u):',
      '        if check:',
      '            raise LookupError(u)',
      '        return None', // 41
      '    return u',
      '',
      '',
      'def board_compiled(port):',
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()',
      '    if not BOARD.search(u):',
      '        raise LookupError(u)',
      '    return u',
      '',
      'def board_helper(port):', // 51
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()',
      '    if not looks_like_board(u):',
      '        raise LookupError(u)',
      '    return u',
      '',
      '',
      'def board_polled(port):',
      '    for _ in range(3):',
      '        reply = requests.get(f"http://127.0.0.1:{port}/where", timeout=3)',
      '        if reply.ok and re.search(r"/b/(\\w+)/view", reply.text):', // 61
      '            return reply.text',
      '        time.sleep(1)',
      '    raise TimeoutError("no board")',
      '',
      '',
      'def board_asserted(port):',
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()',
      '    assert re.search(r"/b/(\\w+)/view", u), u',
      '    return u',
      '', // 71
      '',
      'def board_built(port):',
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()',
      '    if re.search(r"/b/(\\w+)/view", u):',
      '        return u',
      '    return f"https://tracker.example/b/{u[:8]}/view"',
      '',
      '',
      'def board_strict(port):',
      '    u = requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip()', // 81
      '    if not re.fullmatch(r"https://tracker\\.example/b/\\w+/view", u):',
      '        raise LookupError(u)',
      '    return u',
      '',
      '',
      'def where_or_home(port):',
      '    return requests.get(f"http://127.0.0.1:{port}/where", timeout=3).text.strip() or HOME',
      '',
      '',
      'def read_fail(port):', // 91
      '    return re.search(r"/b/(\\w+)/view", board_or_fail(port)).group(1)',
      '',
      '',
      'def read_exit(port):',
      '    return re.search(r"/b/(\\w+)/view", board_or_exit(port)).group(1)',
      '',
      '',
      'def read_checked(port):',
      '    u = board_checked(port)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)', // 101
      '',
      '',
      'def read_unchecked(port):',
      '    u = board_checked(port, check=False)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)',
      '',
      '',
      'def read_compiled(port):',
      '    u = board_compiled(port)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)', // 111
      '',
      '',
      'def read_helper(port):',
      '    u = board_helper(port)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)',
      '',
      '',
      'def read_polled(port):',
      '    u = board_polled(port)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)', // 121
      '',
      '',
      'def read_asserted(port):',
      '    u = board_asserted(port)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)',
      '',
      '',
      'def read_built(port):',
      '    u = board_built(port)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)', // 131
      '',
      '',
      'def read_strict(port):',
      '    u = board_strict(port)',
      '    return re.search(r"/b/(\\w+)/view", u).group(1)',
      '',
      '',
      'def read_home(port):',
      '    u = where_or_home(port)',
      '    return re.search(r"^https?://", u).group(0)', // 141
      '',
    ].join('\n'),
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const mine = report.findings.filter((f) => f.messageId === 'noMatch');
  const all = JSON.stringify(mine.map((f) => [f.range.start.line, f.confirmation]));
  const at = (line: number) => mine.find((x) => x.range.start.line === line)?.confirmation;
  // every return matched: after pytest.fail / sys.exit, a flag left at its default, a compiled pattern,
  // a helper testing the pattern, an and-chain, an assert
  for (const line of [92, 96, 101, 111, 116, 121, 126]) expect(at(line), all).toBeUndefined();
  // the caller passes check=False: the getter's None reaches the read
  expect(at(106), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/board_checked\(…\) returns None \(as it does at judge\/board\.py:41\)/) });
  // text after the inserted value, a stricter pattern vaudit cannot compare: no value known to miss, no case
  expect(at(131), all).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/literal text after what it inserts/) });
  expect(at(136), all).toMatchObject({ status: 'unsupported', detail: expect.stringMatching(/only after the test at line 82/) });
  // `text or HOME`: the text only when it is not empty, so the no-match value is a non-empty text
  expect(at(141), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/where_or_home\(…\) returns "vaudit: no match" .*when the text it reads is not empty/) });
});
