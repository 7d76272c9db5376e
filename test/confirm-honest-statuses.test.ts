/**
 * Honest control-case statuses (issue 29, item 1), as a user meets them: real `vaudit check --confirm`
 * runs on small suites written here.
 * - A `refuted` needs the flagged call to have run against its stalling peer: a witness that raised
 *   before the HTTP call (the controller built without its `http_server`) is never a refutation; the
 *   address held in `self` now names a stalling endpoint, so the real missing timeout is confirmed.
 * - Stand-ins raise the library's own exceptions: a verifier that handles
 *   `requests.exceptions.ConnectionError` and `JSONDecodeError` is refuted, not "confirmed" by a
 *   builtin `ConnectionError` it never meets in real life.
 * - A healthy baseline that fails at the flagged statement makes the case a `crash`, never a verdict.
 * - Set-up (importing the verifier's module) runs off the case's clock.
 * - A finding no case can drive is `unsupported`, with a reason that names no internal field.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-confirm-honest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Conf {
  status: string;
  witness?: string;
  observed?: string;
  detail?: string;
  runId?: string;
}
interface Report {
  findings: Array<{ ruleId: string; range: { start: { line: number } }; confirmation?: Conf }>;
  runs?: Array<{ runId: string; caseTimes?: Array<{ case: string; setupMs?: number; ms?: number }> }>;
}

function suite(name: string, files: Record<string, string>): string {
  const root = path.join(dir, name);
  mkdirSync(root, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  return root;
}

function confirm(root: string): { report: Report; byLine: (rule: string, line: number) => Conf } {
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  expect(r.code, r.stderr).toBe(1);
  const report = JSON.parse(r.stdout) as Report;
  const runIds = new Set((report.runs ?? []).map((x) => x.runId));
  for (const f of report.findings) {
    const c = f.confirmation;
    if (!c) continue;
    // every status with a case run points at its run record; one with no case says unsupported
    if (c.runId) expect(runIds.has(c.runId)).toBe(true);
    else expect(c.status, JSON.stringify(c)).toMatch(/^(unsupported|sandbox)$/);
    expect(c.detail ?? '').not.toMatch(/control\.\w/);
  }
  return {
    report,
    byLine: (rule, line) => {
      const f = report.findings.find((x) => x.ruleId === rule && x.range.start.line === line);
      expect(f, `${rule} at line ${line}`).toBeDefined();
      return f!.confirmation!;
    },
  };
}

it('a witness that raised before the HTTP call is never a refutation; the address in self gets a stalling endpoint', { timeout: 120_000 }, () => {
  const root = suite('controller', {
    'controller.py': [
      'import requests',
      '',
      '',
      'class Controller:',
      '    def __init__(self, vm_ip, server_port=5000):',
      '        self.vm_ip = vm_ip',
      '        self.http_server = f"http://{vm_ip}:{server_port}"',
      '',
      '    def get_terminal_output(self):',
      '        response = requests.get(self.http_server + "/terminal")',
      '        if response.status_code == 200:',
      '            return response.text',
      '        return None',
      '',
      '    def get_file(self, file_path):',
      '        response = requests.post(f"{self.http_server}/file", data={"file_path": file_path})',
      '        if response.status_code == 200:',
      '            return response.content',
      '        return None',
      '',
    ].join('\n'),
    'getters.py': [
      'import requests',
      '',
      '',
      'def get_cloud_file(env, config):',
      '    settings = env.settings_for(config["name"])',
      '    response = requests.get(settings["download_url"])',
      '    return response.content',
      '',
      '',
      'def get_page_state(env, config):',
      '    tab = env.browser.current_tab()',
      '    response = requests.get("http://localhost:9222/json/" + tab)',
      '    return response.content',
      '',
    ].join('\n'),
  });
  const { report, byLine } = confirm(root);
  // the constructor needs arguments, so `self.http_server` exists only as the case gives it: before,
  // the witness raised AttributeError on line 10 and the oracle called the timeout "refuted"
  for (const line of [10, 16]) {
    const c = byLine('missing-timeout', line);
    expect(c, JSON.stringify(c)).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/still waiting at the \d+ ms bound/) });
    expect(c.witness).toContain('self.http_server');
  }
  // no peer a case can stall (the address comes from the environment's settings): no case, no verdict
  const none = byLine('missing-timeout', 6);
  expect(none.status).toBe('unsupported');
  expect(none.detail).toMatch(/no peer to stall/);
  // the peer exists, the witness fails before the call: unreached, with where and why
  const early = byLine('missing-timeout', 12);
  expect(early.status).toBe('unreached');
  expect(early.detail).toMatch(/raised AttributeError: [^;]*at getters\.py:11/);
  expect(report.findings.filter((f) => f.confirmation?.status === 'refuted')).toEqual([]);
});

it('a stand-in raises the library\'s own exception: a verifier that handles requests\' errors is refuted, not confirmed', { timeout: 120_000 }, () => {
  const root = suite('panel', {
    'panel.py': [
      'import requests',
      '',
      '# what a lost or restarting app gives: no connection, or a reply that is not JSON',
      'UNAVAILABLE = (requests.exceptions.ConnectionError, requests.exceptions.JSONDecodeError)',
      '',
      '',
      'class Panel:',
      '    def __init__(self, base="http://10.0.0.2:5000"):',
      '        self.base = base',
      '',
      '    def _request(self, path):',
      '        return requests.get(self.base + path, timeout=5)',
      '',
      '    def scale_is(self, expected):',
      '        try:',
      '            return self._request("/scale").json()["scale"] == expected',
      '        except UNAVAILABLE:',
      '            return False',
      '',
      '    def layers_are(self, expected):',
      '        try:',
      '            return self._request("/layers").json()["layers"] == expected',
      '        except requests.exceptions.ConnectionError:',
      '            return False',
      '',
    ].join('\n'),
  });
  const { byLine } = confirm(root);
  // before: "confirmed" by a builtin ConnectionError the handler of requests' class never sees
  const handled = byLine('unguarded-state-read', 16);
  expect(handled, JSON.stringify(handled)).toMatchObject({ status: 'refuted', observed: 'returned false / returned false' });
  expect(handled.witness).toContain('requests.exceptions.ConnectionError');
  // the twin handles only the connection error: the non-JSON reply (requests' own JSONDecodeError) escapes
  const twin = byLine('unguarded-state-read', 22);
  expect(twin, JSON.stringify(twin)).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/^JSONDecodeError: .* raised at line 22 escaped the verifier$/) });
});

it('a healthy baseline that fails at the flagged statement is a crash of the case, never a verdict', { timeout: 120_000 }, () => {
  const root = suite('viewer', {
    'viewer.py': [
      'import requests',
      '',
      '',
      'class Viewer:',
      '    def __init__(self, base="http://10.0.0.2:8000"):',
      '        self.base = base',
      '',
      '    def _request(self, path, payload):',
      '        return requests.post(self.base + path, json=payload, timeout=5)',
      '',
      '    def model_count(self):',
      '        return int(self._request("/run", {"command": "info models"}).json()["count"])',
      '',
      '    def model_names(self):',
      '        return self._request("/run", {"command": "info models"}).json()["names"]',
      '',
    ].join('\n'),
  });
  const { byLine } = confirm(root);
  // int("state") fails with the healthy state too: before, the stand-in's ConnectionError "confirmed" it
  const broken = byLine('unguarded-state-read', 12);
  expect(broken.status, JSON.stringify(broken)).toBe('crash');
  expect(broken.detail).toMatch(/^the healthy baseline failed \(raised ValueError: .* at viewer\.py:12\)/);
  // its twin's baseline works: the unavailable state escapes as requests' own exception
  const twin = byLine('unguarded-state-read', 15);
  expect(twin, JSON.stringify(twin)).toMatchObject({ status: 'confirmed', witness: expect.stringContaining('requests.exceptions.ConnectionError') });
});

it('set-up runs off the case clock: a module that takes seconds to load still gets its verdict, and the run record times both apart', { timeout: 120_000 }, () => {
  const root = suite('slow-import', {
    'checker.py': [
      'import subprocess',
      'import time',
      '',
      '',
      'def _load_toolchain():',
      '    # stands for what importing a verifier module can cost before any check runs (heavy libraries)',
      '    time.sleep(2.5)',
      '    return ["build", "--no-cache"]',
      '',
      '',
      'BUILD_ARGS = _load_toolchain()',
      '',
      '',
      'def check_build(path):',
      '    r = subprocess.run(["lake", *BUILD_ARGS, path], capture_output=True)',
      '    return r.returncode == 0',
      '',
    ].join('\n'),
  });
  const { report, byLine } = confirm(root);
  // before: "unreached … deadline: the case did not finish within 2000 ms" (the import ate the bound)
  const c = byLine('missing-timeout', 15);
  expect(c, JSON.stringify(c)).toMatchObject({ status: 'confirmed', observed: 'still waiting at the 2000 ms bound' });
  const times = (report.runs ?? []).find((r) => r.runId === c.runId)?.caseTimes ?? [];
  expect(times.length).toBeGreaterThan(0);
  expect(Math.max(...times.map((t) => t.setupMs ?? 0))).toBeGreaterThanOrEqual(2400);
});
