/**
 * A function no task routes to still gets the config its own text documents and reads: keys read only
 * through `config.get("k", default)` are left to their defaults (as when a task omits an optional field),
 * a key its docstring calls a URL points at the case's endpoint. A verdict still needs the flagged call to
 * run and meet its stalling peer; a path the documented config does not reach stays `unreached`.
 * Real `vaudit check --confirm` runs on a small project written here, plus the pure helper.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { documentedConfig } from '../src/confirm/inputs.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-confirm-docconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Conf {
  status: string;
  witness?: string;
  observed?: string;
  detail?: string;
}
interface Report {
  findings: Array<{ ruleId: string; file: string; range: { start: { line: number } }; confirmation?: Conf | null }>;
}

describe('documentedConfig', () => {
  it('leaves .get-only keys to their defaults and points documented URLs at the endpoint', () => {
    const code = [
      'def fetch(env, config):',
      '    """',
      '    Config:',
      '        path (str|List[str]): the url to download from',
      '        dest (str): file name',
      '        multi (bool): optional, defaults to False',
      '    """',
      '    if config.get("multi", False):',
      '        pass',
      '    return config["path"], config["dest"]',
    ].join('\n');
    expect(documentedConfig(code, 'config', ['multi', 'path', 'dest'], () => 'w')).toEqual({ path: 'http://127.0.0.1:{vaudit-port0}/witness', dest: 'w' });
    // a bullet list, a key read by subscript and by .get stays filled
    expect(documentedConfig('def f(opts):\n    """\n    - source: link to the archive\n    """\n    a = opts.get("source")\n    return opts["source"]', 'opts', ['source'], () => 'w')).toEqual({ source: 'http://127.0.0.1:{vaudit-port0}/witness' });
    // nothing documented and nothing optional: no other config than the filled one
    expect(documentedConfig('def f(config):\n    return config["a"]', 'config', ['a'], () => 'w')).toBeUndefined();
  });
});

it('a config built from the docstring and the defaults reaches the flagged call; an undocumented one does not', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'proj');
  mkdirSync(root, { recursive: true });
  writeFileSync(
    path.join(root, 'getters.py'),
    [
      'import os',
      'import urllib.request',
      '',
      'import requests',
      '',
      '',
      'def get_remote_file(env, config):',
      '    """',
      '    Config:',
      '        path (str|List[str]): the url to download from',
      '        dest (str|List[str])): file name of the downloaded file',
      '        multi (bool): optional. defaults to False',
      '    """',
      '    if not config.get("multi", False):',
      '        paths = [config["path"]]',
      '    else:',
      '        paths = config["path"]',
      '    for p in paths:',
      '        response = requests.get(p, stream=True)',
      '        response.raise_for_status()',
      '    return config["dest"]',
      '',
      '',
      'def fetch_archive(config):',
      "    '''Fetch the archive.",
      '',
      '    - source: link to the archive',
      '    - retries: how often to try',
      "    '''",
      '    tries = config.get("retries", 1)',
      '    for _ in range(tries):',
      '        reply = urllib.request.urlopen(config["source"])',
      '        if reply.status == 200:',
      '            return True',
      '    return False',
      '',
      '',
      'def push_copy(store, **config):',
      '    """Copy a file into the store.',
      '    @config:',
      '        src(str): required, a local path or a remote url',
      '        folder(str): optional target folder',
      '    Usage: {"src": "https://example.com/a.txt", "path": ["folder1", "a.txt"]}',
      '    """',
      "    src = config['src']",
      "    folder = config.get('folder', 'root')",
      "    if src.startswith('http'):",
      '        data = requests.get(src).content',
      '        return store, folder, data',
      '    return None',
      '',
      '',
      'def fetch_undocumented(config):',
      '    target = config["where"]',
      '    return requests.get(target).status_code == 200',
      '',
    ].join('\n'),
  );
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const all = JSON.stringify(report.findings.map((f) => [f.ruleId, f.range.start.line, f.confirmation]));
  const at = (line: number) => report.findings.find((x) => x.ruleId === 'missing-timeout' && x.range.start.line === line)?.confirmation;
  // `multi` left to its default (one path), `path` documented as the url: the call meets its stalling peer
  expect(at(19), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/"path":"http:\/\/127\.0\.0\.1:\{vaudit-port0\}\/witness"/) });
  expect(at(19)!.witness).not.toMatch(/"multi"/);
  // urllib, a bullet docstring in single quotes, `retries` left to its default of 1
  expect(at(32), all).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/still waiting/) });
  // `**config`: the keyword arguments as documented (`src` a remote url, `folder` left to its default)
  expect(at(48), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/src="http:\/\/127\.0\.0\.1:\{vaudit-port0\}\/witness"/) });
  expect(at(48)!.witness).not.toMatch(/folder=/);
  // the docstring's usage example names no program: no stub tool is made of its list items
  expect(at(48)!.witness).not.toMatch(/stub/);
  // nothing says `where` is an address: no peer is invented, the finding keeps no verdict
  expect(['unreached', 'unsupported']).toContain(at(55)?.status);
  expect(report.findings.filter((f) => f.confirmation?.status === 'refuted'), all).toEqual([]);
});
