import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createHost } from '../src/host/host.js';
import { runPythonCases, harnessDir, type PyCallCase, type PyCase } from '../src/confirm/harness.js';
import { ERROR_FACTORY } from './helpers/python-sources.js';

const HAS_BWRAP = existsSync('/usr/bin/bwrap');
const FILE = '/virtual/verifier/chimerax.py';
const MOD = `import functools
import json


${ERROR_FACTORY}

class Mixin:
    @error_factory(False)
    def _eval_states(self, eval_item, current_states):
        if eval_item.get("find"):
            matched = [k for k in current_states if k.endswith(eval_item["find"])]
            if eval_item["value"] is None:
                return len(raw_keys) == 0
            return any(current_states[k] == eval_item["value"] for k in matched)
        key = eval_item["key"]
        if eval_item["value"] is None:
            return key not in current_states
        return current_states.get(key) == eval_item["value"]

    def _eval_info(self, eval_item):
        out = self.manager._call("info")
        return json.loads(out)["x"] == eval_item["value"]
`;

function call(id: string, args: unknown[], extra: Partial<PyCase> = {}): PyCase {
  return { id, modules: [{ name: 'verifier.chimerax', filename: FILE, source: MOD }], entry: { module: 'verifier.chimerax', qualname: 'Mixin._eval_states' }, self: { $double: 'self', attrs: {} }, args, ...extra } as PyCase;
}

describe('python harness', () => {
  it('is found from the package root', () => {
    expect(existsSync(`${harnessDir()}/run_cases.py`)).toBe(true);
  });

  it.skipIf(!existsSync(new URL('../dist/src/confirm/harness.js', import.meta.url)))('is found from the compiled dist/src too', async () => {
    const compiled = (await import(new URL('../dist/src/confirm/harness.js', import.meta.url).href)) as { harnessDir(): string };
    expect(compiled.harnessDir()).toBe(harnessDir());
  });

  for (const isolation of HAS_BWRAP ? (['bwrap', 'process'] as const) : (['process'] as const)) {
    it(`${isolation}: runs many cases in one process, sees swallowed NameErrors, doubles state, bounds time`, async () => {
      const host = createHost({ root: process.cwd(), isolation });
      const cases: PyCase[] = [
        call('swallowed', [{ find: '._name', value: null }, { 'm.(1,)._name': 'x' }]),
        call('direct-present', [{ key: 'a', value: null }, { a: 1 }]),
        call('direct-equal', [{ key: 'a', value: 2 }, { a: 2 }]),
        {
          id: 'info-nonjson',
          modules: [{ name: 'verifier.chimerax', filename: FILE, source: MOD }],
          entry: { module: 'verifier.chimerax', qualname: 'Mixin._eval_info' },
          self: { $double: 'self', attrs: { manager: { $double: 'object', attrs: { _call: { $double: 'callable', returns: '<html>502</html>' } } } } },
          args: [{ value: 1 }],
        },
        { id: 'loop', op: 'lambda', source: 'lambda x: [0 for _ in iter(int, 1)]', args: [1], timeoutMs: 300 },
        { id: 'missing-dep', modules: [{ name: 'v2', filename: '/virtual/v2.py', source: 'import requests_vaudit_absent\ndef f():\n    return 1\n' }], entry: { module: 'v2', qualname: 'f' }, args: [] },
        { id: 'syntax', op: 'compile', source: 'lambda key: key.split(".")[', mode: 'eval' },
        { id: 'regex', op: 'regex', pattern: '(?P<a>x)(?P=b)' },
        { id: 'stub', modules: [{ name: 'v3', filename: '/virtual/v3.py', source: 'import subprocess\ndef f():\n    return subprocess.run(["mytool"], capture_output=True, text=True).stderr\n' }], entry: { module: 'v3', qualname: 'f' }, args: [], stubTools: { mytool: '#!/bin/sh\necho on-stderr >&2\n' } },
      ];
      const r = await runPythonCases(host, cases, { jobs: 1 });
      const by = Object.fromEntries(r.map((x) => [x.id, x]));
      expect(by.swallowed!.status).toBe('returned');
      expect(by.swallowed!.value).toBe(false);
      expect(by.swallowed!.events).toContainEqual(expect.objectContaining({ type: 'NameError', file: FILE, line: 23 }));
      expect(by['direct-present']!.value).toBe(false);
      expect(by['direct-equal']!.value).toBe(true);
      expect(by['direct-equal']!.lines[FILE]).toContain(28);
      expect(by['info-nonjson']!.status).toBe('raised');
      expect(by['info-nonjson']!.exception!.type).toBe('JSONDecodeError');
      expect(by.loop!.status).toBe('deadline');
      expect(by['missing-dep']!.status).toBe('unavailable');
      expect(by.syntax!.status).toBe('raised');
      expect(by.syntax!.exception!.type).toBe('SyntaxError');
      expect(by.regex!.status).toBe('raised');
      expect(by.regex!.exception!.message).toMatch(/unknown group name/);
      expect(by.stub!.value).toBe('on-stderr\n');
      // One interpreter process for the cases that run suite code, one for the parse-only cases
      // (they batch apart: the isolation policy treats them differently, issue 17).
      expect(host.records).toHaveLength(2);
      expect(new Set(r.filter((x) => x.id !== 'syntax' && x.id !== 'regex').map((x) => x.runId)).size).toBe(1);
      expect(by.syntax!.runId).toBe(by.regex!.runId);
      expect(host.records.map((x) => x.suiteCode).sort()).toEqual([false, true]);
    });
  }

  it('a case that eats its in-process bound is killed in its own process; the batch goes on', async () => {
    const host = createHost({ root: process.cwd(), isolation: 'process' });
    const cases: PyCase[] = [
      call('a', [{ key: 'a', value: 1 }, { a: 1 }]),
      // `except BaseException` swallows the in-process bound; the harness kills the case's process.
      {
        id: 'hostile',
        modules: [{ name: 'h', filename: '/virtual/h.py', source: 'def f():\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass\n' }],
        entry: { module: 'h', qualname: 'f' },
        args: [],
        timeoutMs: 200,
      },
      call('c', [{ key: 'a', value: 1 }, { a: 1 }]),
    ];
    const r = await runPythonCases(host, cases, { jobs: 1 });
    expect(r[0]!.value).toBe(true);
    expect(r[1]!.status).toBe('deadline');
    expect(r[1]!.detail).toMatch(/killed/);
    expect(host.records.map((x) => x.outcome)).toEqual(['executed']);
    expect(r[2]!.value).toBe(true);
  });

  it('a batch killed by the host keeps earlier answers, marks the case in flight, and retries the rest', async () => {
    const host = createHost({ root: process.cwd(), isolation: 'process' });
    const cases: PyCase[] = [
      call('a', [{ key: 'a', value: 1 }, { a: 1 }]),
      // A case bound longer than the batch's: the host's group kill ends the batch first.
      { id: 'slow', op: 'lambda', source: 'lambda x: __import__("time").sleep(30)', args: [1], timeoutMs: 20_000 },
      // another module (cases of one module run next to each other: this one stays after `slow`)
      call('c', [{ key: 'a', value: 1 }, { a: 1 }], { modules: [{ name: 'verifier.chimerax', filename: FILE, source: `${MOD}\n# another module\n` }] } as Partial<PyCase>),
    ];
    const r = await runPythonCases(host, cases, { jobs: 1, maxBatchMs: 2500 });
    expect(r[0]!.value).toBe(true);
    expect(r[1]!.status).toBe('timeout');
    expect(host.records.map((x) => x.outcome)).toEqual(['timeout', 'executed']);
    expect(r[2]!.value).toBe(true);
  });

  describe('warm runner: cases of one module fork from a process that imported it once', () => {
    const STATEFUL = `import json
import os

SEEN = []


def touch(x):
    SEEN.append(x)
    json.loads = None
    return len(SEEN)


def parse(text):
    return json.loads(text)


def write_home():
    with open("/tmp/vaudit-warm-outside.txt", "w") as f:
        f.write("x")
    return True


def die():
    os._exit(3)


def spin():
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass


def fetch(url):
    import urllib.request
    return urllib.request.urlopen(url, timeout=2).read().decode()
`;
    const mod = (source: string, name = 'w') => [{ name, filename: `/virtual/${name}.py`, source }];
    // a short set-up bound (the harness reads it; the host's batch bound does not), so `spin` ends soon
    const at = (id: string, source: string, qualname: string, extra: Partial<PyCallCase> = {}): PyCallCase => ({
      id,
      modules: mod(source),
      entry: { module: 'w', qualname },
      args: [],
      setupMs: 1000,
      ...extra,
    });

    it('gives the answers the cold path gives, each case in its own process, the guard in each', async () => {
      const cases: PyCase[] = [
        at('t1', STATEFUL, 'touch', { args: [1] }),
        at('t2', STATEFUL, 'touch', { args: [2] }),
        at('write', STATEFUL, 'write_home'),
        at('die', STATEFUL, 'die'),
        at('spin', STATEFUL, 'spin', { timeoutMs: 200 }),
        at('t3', STATEFUL, 'touch', { args: [3] }),
        at('parse', STATEFUL, 'parse', { args: ['[1]'] }),
        at('fetch', STATEFUL, 'fetch', { args: ['http://127.0.0.1:{vaudit-port0}/'], servers: [{ port: 0, body: 'from-stub' }] }),
        call('swallowed', [{ find: '._name', value: null }, { 'm.(1,)._name': 'x' }]),
        call('direct-equal', [{ key: 'a', value: 2 }, { a: 2 }]),
      ];
      const run = async (warm: boolean) => {
        const host = createHost({ root: process.cwd(), isolation: 'process' });
        return Object.fromEntries((await runPythonCases(host, cases, { jobs: 1, warm })).map((x) => [x.id, x]));
      };
      const cold = await run(false);
      const warm = await run(true);
      const same = (r: (typeof warm)[string]) => ({ status: r.status, value: r.value, exception: r.exception?.type, lines: r.lines, events: r.events.map((e) => `${e.type}@${e.line}`) });
      for (const id of Object.keys(cold)) expect(same(warm[id]!), id).toEqual(same(cold[id]!));
      // warm: the import was shared; cold: every case imported its modules itself (a `sandbox` answer keeps no timings)
      for (const id of ['t1', 't2', 't3', 'parse', 'fetch', 'swallowed', 'direct-equal']) expect(warm[id]!.sharedSetupMs, id).toBeTypeOf('number');
      expect(Object.values(cold).filter((r) => r.sharedSetupMs !== undefined)).toEqual([]);
      // a case cannot change another's answer (module state, a library it patched)
      expect([warm.t1!.value, warm.t2!.value, warm.t3!.value]).toEqual([1, 1, 1]);
      expect(warm.parse!.value).toEqual([1]);
      expect(warm.write!.status).toBe('sandbox');
      expect(warm.die!.status).toBe('crash');
      expect(warm.spin!.status).toBe('deadline');
      expect(warm.fetch!.value).toBe('from-stub');
      expect(warm.swallowed!.events).toContainEqual(expect.objectContaining({ type: 'NameError', file: FILE, line: 23 }));
    });

    it('runs cold the modules whose import leaves threads, uses the network or registers at-fork handlers; an import that fails fails as it fails cold', async () => {
      const THREADED = `import threading\nimport time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n\ndef f():\n    return threading.active_count()\n`;
      const NETWORK = `import socket\ntry:\n    socket.create_connection(("127.0.0.1", 9), timeout=0.2)\nexcept OSError:\n    pass\n\ndef f():\n    return 1\n`;
      const BROKEN = `import json\n\ndef f():\n    return 1\n\nraise ValueError("module-level")\n`;
      const AT_FORK = `import os\nFORKED = []\nos.register_at_fork(after_in_child=lambda: FORKED.append(1))\n\ndef f():\n    return len(FORKED)\n`;
      const cases: PyCase[] = [
        at('th1', THREADED, 'f'), at('th2', THREADED, 'f'),
        { ...at('net1', NETWORK, 'f'), modules: mod(NETWORK, 'n'), entry: { module: 'n', qualname: 'f' } },
        { ...at('net2', NETWORK, 'f'), modules: mod(NETWORK, 'n'), entry: { module: 'n', qualname: 'f' } },
        { ...at('b1', BROKEN, 'f'), modules: mod(BROKEN, 'b'), entry: { module: 'b', qualname: 'f' } },
        { ...at('b2', BROKEN, 'f'), modules: mod(BROKEN, 'b'), entry: { module: 'b', qualname: 'f' } },
        { ...at('af1', AT_FORK, 'f'), modules: mod(AT_FORK, 'af'), entry: { module: 'af', qualname: 'f' } },
        { ...at('af2', AT_FORK, 'f'), modules: mod(AT_FORK, 'af'), entry: { module: 'af', qualname: 'f' } },
        // a stub endpoint on a fixed port: the harness binds it in the case's process under the zygote's guard
        at('fixed1', STATEFUL, 'fetch', { args: ['http://127.0.0.1:18766/'], servers: [{ port: 18766, body: 'fixed-a' }] }),
        at('fixed2', STATEFUL, 'fetch', { args: ['http://127.0.0.1:18766/'], servers: [{ port: 18766, body: 'fixed-b' }] }),
      ];
      const host = createHost({ root: process.cwd(), isolation: 'process' });
      const by = Object.fromEntries((await runPythonCases(host, cases, { jobs: 1 })).map((x) => [x.id, x]));
      expect([by.th1!.value, by.th2!.value]).toEqual([2, 2]);
      expect(by.th1!.sharedSetupMs).toBeUndefined();
      expect(by.th2!.warm).toMatch(/threads/);
      expect([by.net1!.value, by.net2!.value]).toEqual([1, 1]);
      expect(by.net2!.warm).toMatch(/network/);
      expect([by.af1!.value, by.af2!.value]).toEqual([0, 0]);
      expect(by.af2!.warm).toMatch(/at-fork/);
      expect([by.fixed1!.value, by.fixed2!.value]).toEqual(['fixed-a', 'fixed-b']);
      expect(by.fixed2!.sharedSetupMs).toBeTypeOf('number');
      for (const b of [by.b1!, by.b2!]) {
        expect(b.status).toBe('error');
        expect(b.detail).toBe('ValueError: module-level');
        expect(b.sharedSetupMs).toBeTypeOf('number');
        expect(b.events).toContainEqual(expect.objectContaining({ type: 'ValueError', line: 6 }));
      }
    });
  });
});
