/**
 * vaudit's functional doubles of flask and requests (src/confirm/harness/vaudit_doubles): served
 * only when the interpreter lacks the library, they must behave as the real library does on the API
 * surface verifier code uses. A differential run compares the two on 58 scenarios (a local HTTP
 * server for requests; routes, request bodies, jsonify, abort for flask) with an interpreter that has
 * both (the doubles' side hides them); the harness, under an interpreter without them, serves the
 * doubles, says so in the answer and the run record, and reports a name a double does not define as
 * unavailable, naming it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHost } from '../src/host/host.js';
import { harnessDir, runPythonCases, type PyCase } from '../src/confirm/harness.js';

const LIBS = ['flask', 'requests'];
const has = (py: string) =>
  spawnSync(py, ['-I', '-c', `import importlib.util,sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in ${JSON.stringify(LIBS)}) else 3)`], { timeout: 30_000 }).status;
const WITH = ['python3'].find((py) => has(py) === 0);
const BARE = ['/usr/bin/python3', '/usr/local/bin/python3'].find((py) => existsSync(py) && has(py) === 3);
const SCRIPT = path.resolve(import.meta.dirname, 'helpers', 'doubles_differential.py');

describe.skipIf(!WITH)(WITH ? 'functional doubles behave as the real flask and requests' : 'functional doubles vs the real libraries: skipped, no python3 with flask and requests', () => {
  it('the same 58 scenarios give the same values, exceptions (type, hierarchy, message) and responses', () => {
    const run = (mode: string) => {
      const r = spawnSync(WITH!, [SCRIPT, harnessDir(), mode], { encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    const real = run('real');
    const double = run('double');
    expect(Object.keys(real).length).toBeGreaterThanOrEqual(58);
    for (const k of Object.keys(real)) expect({ scenario: k, ...(double[k] as object) }).toEqual({ scenario: k, ...(real[k] as object) });
  }, 180_000);
});

const FILE = '/virtual/verifier/server.py';
const SRC = `import requests
from flask import Flask, request, jsonify

app = Flask(__name__)


@app.route("/proxy", methods=["POST"])
def proxy():
    data = request.json
    port = data.get("port", 8000)
    try:
        r = requests.post(f"http://127.0.0.1:{port}/run", json={"command": data.get("command", "")}, timeout=5)
    except requests.exceptions.RequestException as e:
        return jsonify({"pass": False, "error": type(e).__name__})
    return jsonify({"pass": r.json().get("ok") is True})


@app.route("/page")
def page():
    from flask import render_template
    return render_template("x.html")
`;

function routeCase(id: string, qualname: string, route: Record<string, unknown>, extra: Record<string, unknown> = {}): PyCase {
  return {
    id,
    modules: [{ name: 'verifier.server', filename: FILE, source: SRC }],
    entry: { module: 'verifier.server', qualname },
    args: [],
    doubleModules: LIBS,
    route,
    verdict: 'key:pass',
    ...extra,
  } as PyCase;
}

describe.skipIf(!BARE)(BARE ? `the harness under a Python without flask and requests (${BARE})` : 'the harness without flask and requests: skipped, no such interpreter', () => {
  it('serves the functional doubles, drives the route through its app, reaches the endpoint, and names a missing name', async () => {
    const host = createHost({ root: process.cwd(), isolation: 'auto', tools: { python3: BARE! } });
    const cases = [
      routeCase('ok', 'proxy', { path: '/proxy', method: 'POST', json: { port: { $port: 0 }, command: 'x' } }, { servers: [{ port: 0, status: 200, body: '{"ok": true}', contentType: 'application/json' }] }),
      routeCase('down', 'proxy', { path: '/proxy', method: 'POST', json: { port: { $port: 0 } } }, { servers: [{ port: 0, closed: true }] }),
      routeCase('missing', 'page', { path: '/page', method: 'GET' }),
    ];
    const res = await runPythonCases(host, cases, { jobs: 1 });
    const by = new Map(res.map((r) => [r.id, r]));
    expect(by.get('ok'), JSON.stringify({ ...by.get('ok'), lines: undefined })).toMatchObject({ status: 'returned', value: true, route: { rule: '/proxy', method: 'POST' }, functionalDoubles: expect.arrayContaining(LIBS) });
    expect(by.get('ok')!.serverHits).toBe(1);
    expect(by.get('down')).toMatchObject({ status: 'returned', value: false });
    expect(by.get('missing')!.status).toBe('unavailable');
    expect(by.get('missing')!.detail).toMatch(/module flask is not installed in this Python .*; the path under test uses flask\.render_template, which vaudit's functional double of flask does not provide/);
    const record = host.records.at(-1)!;
    expect(record.moduleDoubles).toEqual(expect.arrayContaining([expect.objectContaining({ module: 'flask', kind: 'functional' }), expect.objectContaining({ module: 'requests', kind: 'functional' })]));
  }, 120_000);
});
