/**
 * A file the suite's task names that the suite does not ship (its data files left out of the repository):
 * missing-timeout writes a stand-in there so the flagged call is reached (the verdict depends only on
 * whether the call meets its stalling peer, never on what the file holds), and says so in the witness.
 * A function whose path to the call depends on what the file holds stays `unreached` (never a verdict on
 * the stand-in's content), and unguarded-state-read never gets stand-ins. Real `vaudit check --confirm`
 * runs on an OSWorld-shaped suite written here: getters routed by the task's `type`, an `env` object whose
 * attributes a class of the project sets.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { standInFiles } from '../src/confirm/inputs.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-confirm-standin-'));
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

describe('standInFiles', () => {
  it('stands in for relative files the suite does not hold: JSON an empty object, anything else empty', () => {
    expect(standInFiles(['data/a.json', 'data/b.csv', 'data/held.json', '/abs/x.json', '../up/x.json'], { 'data/held.json': '{"k":1}' })).toEqual({ 'data/a.json': '{}', 'data/b.csv': '' });
  });
});

function write(root: string, files: Record<string, string>): void {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), text);
  }
}

it('a task-named file the suite lacks gets a stand-in for missing-timeout, in several forms; a content-dependent path stays unreached', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'bench');
  const task = (id: string, result: Record<string, unknown>) =>
    JSON.stringify({ id, instruction: 'x', config: [], evaluator: { func: 'check_done', result, expected: { type: 'rule', rules: { ok: true } } } });
  write(root, {
    'env/machine.py': ['class Machine:', '    def __init__(self, ip, cache):', '        self.vm_ip = ip', '        self.cache_dir = cache', ''].join('\n'),
    'env/evaluators/metrics/__init__.py': 'from .basic import check_done\n',
    'env/evaluators/metrics/basic.py': ['def check_done(result, rules):', '    return 1.0 if result else 0.0', ''].join('\n'),
    'env/evaluators/getters/__init__.py': ['from .upload import get_uploaded_file, get_archive_sent, get_keyed_upload', ''].join('\n'),
    'env/evaluators/getters/upload.py': [
      'import json',
      'import os',
      'import urllib.request',
      '',
      'import requests',
      '',
      '',
      'def get_uploaded_file(env, config):',
      '    server = f"http://{env.vm_ip}:5000"',
      '    with open(config["src"], "rb") as fh:',
      '        data = fh.read()',
      '    response = requests.post(server + "/upload", files={"file": (os.path.basename(config["src"]), data)})',
      '    return response.status_code == 200',
      '',
      '',
      'def get_archive_sent(env, config):',
      '    url = f"http://{env.vm_ip}:5000/archive"',
      '    body = open(config["archive"], "rb").read()',
      '    reply = urllib.request.urlopen(urllib.request.Request(url, data=body))',
      '    return reply.status == 200',
      '',
      '',
      'def get_keyed_upload(env, config):',
      '    server = f"http://{env.vm_ip}:5000"',
      '    with open(config["creds"]) as fh:',
      '        creds = json.load(fh)',
      '    token = creds["token"]',
      '    response = requests.post(server + "/keyed", headers={"Authorization": token})',
      '    return response.status_code == 200',
      '',
    ].join('\n'),
    // the tasks name data files the suite does not ship (left out, as benchmarks often do)
    'evaluation_examples/examples/app/t1/t1.json': task('t1', { type: 'uploaded_file', src: 'evaluation_examples/examples/app/t1/report.xlsx' }),
    'evaluation_examples/examples/app/t2/t2.json': task('t2', { type: 'archive_sent', archive: 'evaluation_examples/examples/app/t2/bundle.zip' }),
    'evaluation_examples/examples/app/t3/t3.json': task('t3', { type: 'keyed_upload', creds: 'evaluation_examples/examples/app/t3/creds.json' }),
    'evaluation_examples/test_all.json': JSON.stringify({ app: ['t1', 't2', 't3'] }),
  });
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const all = JSON.stringify(report.findings.map((f) => [f.ruleId, f.file.split('/').pop(), f.range.start.line, f.confirmation]));
  const at = (rule: string, line: number) => report.findings.find((x) => x.ruleId === rule && x.file.endsWith('/upload.py') && x.range.start.line === line)?.confirmation;
  // requests with a file the task names: the stand-in (an empty file) gets the call to its stalling peer
  expect(at('missing-timeout', 12), all).toMatchObject({ status: 'confirmed', observed: expect.stringMatching(/still waiting/) });
  expect(at('missing-timeout', 12)!.witness).toMatch(/"evaluation_examples\/examples\/app\/t1\/report\.xlsx" is not in the suite, so a stand-in \(empty\) is written there/);
  // urllib, another parameter name, another archive form
  expect(at('missing-timeout', 19), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/bundle\.zip" is not in the suite, so a stand-in/) });
  // the path to the call reads a key from the file: the stand-in ({}) does not hold it, so the case stops
  // there and says so: never a verdict the file's real content could change
  expect(at('missing-timeout', 28), all).toMatchObject({ status: 'unreached', detail: expect.stringMatching(/KeyError: 'token'/) });
  expect(report.findings.filter((f) => f.confirmation?.status === 'refuted'), all).toEqual([]);
});

it('a stand-in whose content picks the branch to the flagged call never confirms: the call must be reached with two contents', { timeout: 120_000 }, () => {
  const root = path.join(dir, 'content');
  const task = (id: string, result: Record<string, unknown>) =>
    JSON.stringify({ id, instruction: 'x', config: [], evaluator: { func: 'check_done', result, expected: { type: 'rule', rules: { ok: true } } } });
  write(root, {
    'env/machine.py': ['class Machine:', '    def __init__(self, ip, cache):', '        self.vm_ip = ip', '        self.cache_dir = cache', ''].join('\n'),
    'env/evaluators/metrics/__init__.py': 'from .basic import check_done\n',
    'env/evaluators/metrics/basic.py': ['def check_done(result, rules):', '    return 1.0 if result else 0.0', ''].join('\n'),
    'env/evaluators/getters/__init__.py': ['from .push import get_connection_sent, get_rows_pushed, get_config_posted', ''].join('\n'),
    'env/evaluators/getters/push.py': [
      'import os',
      'import urllib.request',
      '',
      'import requests',
      '',
      '',
      'def get_connection_sent(env, config):',
      '    server = f"http://{env.vm_ip}:5000"',
      '    with open(config["conn"], "rb") as fh:',
      '        raw = fh.read().strip()',
      '    if raw in (b"", b"{}"):',
      '        requests.post(server + "/default", json={})',
      '        return True',
      '    requests.post(server + "/connection", data=raw, timeout=30)',
      '    return True',
      '',
      '',
      'def get_rows_pushed(env, config):',
      '    url = f"http://{env.vm_ip}:5000/rows"',
      '    if os.path.getsize(config["rows"]) > 0:',
      '        body = open(config["rows"], "rb").read()',
      '        urllib.request.urlopen(urllib.request.Request(url, data=body))',
      '        return True',
      '    return False',
      '',
      '',
      'def get_config_posted(env, config):',
      '    server = f"http://{env.vm_ip}:5000"',
      '    with open(config["settings"], "rb") as fh:',
      '        payload = fh.read()',
      '    reply = requests.post(server + "/settings", data=payload)',
      '    return reply.ok',
      '',
    ].join('\n'),
    'evaluation_examples/examples/app/t1/t1.json': task('t1', { type: 'connection_sent', conn: 'evaluation_examples/examples/app/t1/connection.json' }),
    'evaluation_examples/examples/app/t2/t2.json': task('t2', { type: 'rows_pushed', rows: 'evaluation_examples/examples/app/t2/rows.csv' }),
    'evaluation_examples/examples/app/t3/t3.json': task('t3', { type: 'config_posted', settings: 'evaluation_examples/examples/app/t3/settings.json' }),
    'evaluation_examples/test_all.json': JSON.stringify({ app: ['t1', 't2', 't3'] }),
  });
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const all = JSON.stringify(report.findings.map((f) => [f.ruleId, f.file.split('/').pop(), f.range.start.line, f.confirmation]));
  const at = (line: number) => report.findings.find((x) => x.ruleId === 'missing-timeout' && x.file.endsWith('/push.py') && x.range.start.line === line)?.confirmation;
  // requests, JSON: only the stand-in's `{}` takes the branch to the call; a real connection file does not
  expect(at(12), all).toMatchObject({ status: 'unreached', detail: expect.stringMatching(/met its stalling peer only with the stand-in content.*depends on what "evaluation_examples\/examples\/app\/t1\/connection\.json" holds/) });
  // urllib, CSV: the empty stand-in skips the call, other content reaches it
  expect(at(22), all).toMatchObject({ status: 'unreached', detail: expect.stringMatching(/only with other content in the stand-in.*depends on what "evaluation_examples\/examples\/app\/t2\/rows\.csv" holds/) });
  // the call sends the file whatever it holds: both contents reach it, confirmed
  expect(at(31), all).toMatchObject({ status: 'confirmed', witness: expect.stringMatching(/settings\.json" holding .*also waits \(no test before the call at line 31 reads the file, and two contents both reach it\)/) });
  expect(report.findings.filter((f) => f.confirmation?.status === 'refuted'), all).toEqual([]);
});

it('a call on a path a test of the file chooses (a key, magic bytes, size, a parse error, an existing output) stays unreached even when both stand-in contents take it', { timeout: 180_000 }, () => {
  const root = path.join(dir, 'content-gated');
  const task = (id: string, result: Record<string, unknown>) =>
    JSON.stringify({ id, instruction: 'x', config: [], evaluator: { func: 'check_done', result, expected: { type: 'rule', rules: { ok: true } } } });
  write(root, {
    'env/machine.py': ['class Machine:', '    def __init__(self, ip, cache):', '        self.vm_ip = ip', '        self.cache_dir = cache', ''].join('\n'),
    'env/evaluators/metrics/__init__.py': 'from .basic import check_done\n',
    'env/evaluators/metrics/basic.py': ['def check_done(result, rules):', '    return 1.0 if result else 0.0', ''].join('\n'),
    'env/evaluators/getters/__init__.py': ['from .send import get_endpoint_used, get_pdf_sent, get_big_sent, get_count_sent, get_report_resent', ''].join('\n'),
    'env/evaluators/getters/send.py': [
      'import json', // 1
      'import os',
      '',
      'import requests',
      '',
      '',
      'def get_endpoint_used(env, config):',
      '    base = f"http://{env.vm_ip}:5000"',
      '    profile = json.load(open(config["profile"]))',
      '    if "endpoint" not in profile:', // 10
      '        requests.post(base + "/fallback", json=profile)',
      '        return True',
      '    requests.post(profile["endpoint"], json=profile, timeout=20)',
      '    return True',
      '',
      '',
      'def get_pdf_sent(env, config):',
      '    base = f"http://{env.vm_ip}:5000"',
      '    blob = open(config["doc"], "rb").read()',
      '    if not blob.startswith(b"%PDF"):', // 20
      '        requests.post(base + "/repair", data=blob)',
      '        return False',
      '    requests.post(base + "/doc", data=blob, timeout=20)',
      '    return True',
      '',
      '',
      'def get_big_sent(env, config):',
      '    base = f"http://{env.vm_ip}:5000"',
      '    if os.path.getsize(config["deck"]) < 4096:',
      '        requests.post(base + "/small", data=b"")', // 30
      '        return False',
      '    return True',
      '',
      '',
      'def get_count_sent(env, config):',
      '    base = f"http://{env.vm_ip}:5000"',
      '    text = open(config["count"]).read()',
      '    try:',
      '        n = int(text)',
      '    except ValueError:', // 40
      '        requests.post(base + "/count/raw", data=text)',
      '        return False',
      '    return n > 0',
      '',
      '',
      'def get_report_resent(env, config):',
      '    base = f"http://{env.vm_ip}:5000"',
      '    target = os.path.join(env.cache_dir, config["save_as"])',
      '    if os.path.exists(target):',
      '        requests.post(base + "/report", data=open(target, "rb").read())', // 50
      '        return True',
      '    return False',
      '',
    ].join('\n'),
    'evaluation_examples/examples/app/t1/t1.json': task('t1', { type: 'endpoint_used', profile: 'evaluation_examples/examples/app/t1/profile.json' }),
    'evaluation_examples/examples/app/t2/t2.json': task('t2', { type: 'pdf_sent', doc: 'evaluation_examples/examples/app/t2/doc.pdf' }),
    'evaluation_examples/examples/app/t3/t3.json': task('t3', { type: 'big_sent', deck: 'evaluation_examples/examples/app/t3/deck.pptx' }),
    'evaluation_examples/examples/app/t4/t4.json': task('t4', { type: 'count_sent', count: 'evaluation_examples/examples/app/t4/count.txt' }),
    'evaluation_examples/examples/app/t5/t5.json': task('t5', { type: 'report_resent', save_as: 'out/report.docx' }),
    'evaluation_examples/test_all.json': JSON.stringify({ app: ['t1', 't2', 't3', 't4', 't5'] }),
  });
  const r = runCli(['check', '--confirm', '.', '--format', 'json'], { cwd: root });
  const report = JSON.parse(r.stdout) as Report;
  const all = JSON.stringify(report.findings.map((f) => [f.ruleId, f.file.split('/').pop(), f.range.start.line, f.confirmation]));
  const mine = report.findings.filter((x) => x.ruleId === 'missing-timeout' && x.file.endsWith('/send.py'));
  // before: each was confirmed, both stand-in contents taking the branch a real file would not
  const at = (line: number) => mine.find((x) => x.range.start.line === line)?.confirmation;
  for (const [line, test] of [[11, 10], [21, 20], [30, 29], [41, 40], [50, 49]] as const)
    expect(at(line), all).toMatchObject({ status: 'unreached', detail: expect.stringMatching(new RegExp(`runs only on the path the test at line ${test} .*reads a value taken from a file`)) });
});
