/**
 * Inputs the suite would really give (issue 29, item 2): control cases of functions that take a harness
 * object (`env`, `controller`), retry a failed call, load a settings file, or open a getter's value.
 * Real `vaudit check --confirm` runs on a small suite written here, plus the pure helpers of inputs.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { itemListOf, jsonFileFixtures, literalDefaults, localizeUrls } from '../src/confirm/inputs.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-confirm-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Conf {
  status: string;
  witness?: string;
  observed?: string;
  detail?: string;
}
interface Report {
  findings: Array<{ ruleId: string; file: string; range: { start: { line: number } }; confirmation?: Conf }>;
}

describe('inputs.ts helpers', () => {
  it('reads literal defaults, item lists read in a loop, JSON files loaded from a relative path', () => {
    expect(literalDefaults('def get(self, retry_times=20, name: str = "x", cb=None, *a, **kw):\n    pass')).toEqual({ retry_times: 20, name: 'x' });
    expect(itemListOf('for f in files:\n    url = f["url"]\n    p = f.get("path")', 'files')).toEqual([{ url: 'http://127.0.0.1:{vaudit-port0}/witness', path: 'witness.bin' }]);
    expect(itemListOf('for f in files:\n    print(f)', 'files')).toBeUndefined();
    const code = [
      "    settings_file = config.get('settings_file', 'settings/cloud.json')",
      "    settings = json.load(open(settings_file, 'r'))",
      '    token = settings["token"]',
      "    with open('/etc/app.json') as fh:",
      '        other = json.load(fh)',
      '    x = other["k"]',
    ].join('\n');
    // relative paths only: an absolute file is never written by this
    expect(jsonFileFixtures(code)).toEqual({ 'settings/cloud.json': '{"token":"witness"}' });
    expect(localizeUrls({ src: 'https://example.com/a/b.sh', n: ['http://h:1/x', 'plain'] })).toEqual({ src: 'http://127.0.0.1:{vaudit-port0}/a/b.sh', n: ['http://127.0.0.1:{vaudit-port0}/x', 'plain'] });
  });
});

it('harness objects from the class that sets them, a fixed port on the given host, a retry path, earlier tool runs answered', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'suite');
  mkdirSync(root, { recursive: true });
  const files: Record<string, string> = {
    'machine.py': [
      'from controller import Controller',
      '',
      '',
      'class Machine:',
      '    def __init__(self, path):',
      '        self.ip = self._boot(path)',
      '        self.cache_dir = path',
      '        self.controller = Controller(self.ip)',
      '',
      '    def _boot(self, path):',
      '        return path',
      '',
    ].join('\n'),
    'controller.py': [
      'import requests',
      '',
      '',
      'class Controller:',
      '    def __init__(self, ip):',
      '        self.ip = ip',
      '        self.base = f"http://{ip}:8000"',
      '',
      '    def screenshot(self, retries=5):',
      '        r = requests.get(self.base + "/shot")',
      '        if r.status_code == 200:',
      '            return r.content',
      '        for _ in range(retries):',
      '            r = requests.get(self.base + "/shot")',
      '            if r.status_code == 200:',
      '                return r.json()["image"]',
      '        return None',
      '',
    ].join('\n'),
    'checks.py': [
      'import json',
      'import os',
      'import subprocess',
      'import requests',
      '',
      '',
      'def run_command(machine, config):',
      '    host = machine.ip',
      '    port = 7001',
      '    r = requests.post(f"http://{host}:{port}/run", json={"cmd": config["cmd"]})',
      '    return r.json()["out"]',
      '',
      '',
      'def compare_files(path1, path2):',
      '    with open(path1) as f:',
      '        a = json.load(f)',
      '    return a == path2',
      '',
      '',
      'def tool_info(config):',
      "    settings = json.load(open('conf/app.json'))",
      '    os.environ["APP_TOKEN"] = settings["token"]',
      "    state = subprocess.run('mytool project list', shell=True, capture_output=True, text=True)",
      "    items = json.loads(state.stdout)['data']",
      '    if len(items) == 0:',
      '        return None',
      "    state = subprocess.run(['mytool', 'env', str(items[0]['id'])], capture_output=True, text=True)",
      '    return state.stdout',
      '',
    ].join('\n'),
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const at = (rule: string, file: string, line: number) =>
    report.findings.find((x) => x.ruleId === rule && (x.file === file || x.file.endsWith(`/${file}`)) && x.range.start.line === line)?.confirmation;
  // `machine.ip` from Machine (the class that sets it): the loopback; port 7001 from the code stalls
  expect(at('missing-timeout', 'checks.py', 10), JSON.stringify(report.findings.map((f) => [f.ruleId, f.range.start.line, f.confirmation]))).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/still waiting/) });
  expect(at('missing-timeout', 'checks.py', 10)!.witness).toMatch(/"ip":"127\.0\.0\.1"/);
  // the retry's call: the peer fails the first call with HTTP 500, then stalls
  expect(at('missing-timeout', 'controller.py', 14)).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/HTTP 500/) });
  // the retry's reply is read without a guard: non-JSON after the first call failed escapes at line 16
  expect(at('unguarded-state-read', 'controller.py', 16)).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/raised at line 16/) });
  // the settings file the function loads is written with the keys it reads; the second tool run is
  // reached after the first prints what the code parses from it, then stalls
  expect(at('missing-timeout', 'checks.py', 23)).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/stub 'mytool'/) });
  expect(at('missing-timeout', 'checks.py', 27)).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/earlier tool run print \{"data":\[\{"id":"witness"\}\]\}/) });
  expect(report.findings.filter((f) => f.confirmation?.status === 'refuted')).toEqual([]);
});
