#!/usr/bin/env node
// Keystroke latency and memory of `vaudit lsp` (a real server process).
//   npm run build && node bench/lsp-latency.mjs [--edits 1000] [--py-lines 1000] [--entries 200] [--json] [--cpu-prof DIR] [--node-flags=--max-semi-space-size=32]
// Measures, after a one-character change:
//   - round trip: didChange sent → publishDiagnostics for that version received (client clock);
//   - server lint time: the server's own "linted … in N ms" log line (engine session only);
//   - server CPU per edit (mean, from /proc on Linux): steadier than wall times on a loaded machine;
// and the server's memory after a full GC (RSS, V8 heap, external = wasm trees) after warm-up and after N edits.
import { readFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startClient, rangeOf } from './lsp-client.mjs';
import { makeWorkspace } from './lsp-workspace.mjs';

const { values: args } = parseArgs({
  options: {
    edits: { type: 'string', default: '1000' },
    'py-lines': { type: 'string', default: '1000' },
    entries: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    // V8/node flags for the server process (node refuses some in NODE_OPTIONS; the bench sets that to --expose-gc)
    'node-flags': { type: 'string' },
  },
});

export async function runBench({ edits = 1000, pyLines = 1000, entries = 200, cpuProf, nodeFlags = [] } = {}) {
  const ws = makeWorkspace({ pyLines, entries });
  // --cpu-prof DIR: the server writes a V8 CPU profile (.cpuprofile) into DIR when it exits
  // (node refuses --cpu-prof in NODE_OPTIONS: it goes on the server's command line)
  const nodeArgs = [...nodeFlags, ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [])];
  const c = await startClient({ root: ws.root, env: { NODE_OPTIONS: '--expose-gc' }, nodeArgs });
  try {
    const texts = new Map([[ws.py, ws.pyText], [ws.task, ws.taskText]]);
    const uris = new Map();
    const v1 = [];
    for (const f of [ws.py, ws.task]) {
      const uri = c.open(f, texts.get(f));
      uris.set(f, uri);
      v1.push(c.nextDiagnostics(uri, (p) => p.version === 1, 60_000));
    }
    const initial = await Promise.all(v1);

    // One-character edits at a fixed spot: insert a character, then delete it (the file alternates between two texts).
    // Python: inside an identifier in the middle of the file; JSON: inside a lambda string in the middle of the task.
    const spots = new Map();
    {
      const mid = ws.pyText.indexOf('        found = None', Math.floor(ws.pyText.length / 2));
      spots.set(ws.py, mid + '        found'.length);
      const lam = ws.taskText.indexOf("lambda dump: dump['time']", Math.floor(ws.taskText.length / 2));
      spots.set(ws.task, lam + 'lambda dump: dump'.length);
    }
    const serverTimes = [];
    let logSeen = 0;
    const collectLogs = () => {
      for (const l of c.logs.slice(logSeen)) {
        const m = /linted (.+) in ([\d.]+) ms/.exec(l.message);
        if (m) serverTimes.push({ file: m[1] === 'mixin.py' ? ws.py : ws.task, ms: Number(m[2]) });
      }
      logSeen = c.logs.length;
    };
    // the server's CPU time (user + system, all its threads) from /proc, in clock ticks (Linux; 0 elsewhere):
    // a mean per edit that a loaded machine does not inflate the way it inflates wall times
    const tick = 1000 / 100; // ms per tick (USER_HZ is 100 on Linux)
    const cpuTicks = () => {
      try {
        const f = readFileSync(`/proc/${c.child.pid}/stat`, 'utf8');
        const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
        return Number(rest[11]) + Number(rest[12]);
      } catch { return 0; }
    };
    const cpu = { [ws.py]: 0, [ws.task]: 0 };
    const edit = async (f, i) => {
      const text = texts.get(f);
      const at = spots.get(f);
      const insert = i % 2 === 0;
      const next = insert ? text.slice(0, at) + 'x' + text.slice(at) : text.slice(0, at) + text.slice(at + 1);
      const range = insert ? rangeOf(text, at, at) : rangeOf(text, at, at + 1);
      const c0 = cpuTicks();
      const t0 = performance.now();
      const version = c.change(f, range, insert ? 'x' : '');
      const p = await c.nextDiagnostics(uris.get(f), (d) => d.version === version, 60_000);
      const rtt = performance.now() - t0;
      if (i >= 10) cpu[f] += cpuTicks() - c0;
      texts.set(f, next);
      collectLogs();
      return { rtt, count: p.diagnostics.length };
    };

    const stats = async () => (await c.conn.sendRequest('vaudit/stats', { gc: true })).memory;
    const lat = { [ws.py]: [], [ws.task]: [] };
    const warm = 100;
    let memWarm;
    for (let i = 0; i < edits; i++) {
      const f = i % 2 === 0 ? ws.py : ws.task;
      const r = await edit(f, Math.floor(i / 2));
      if (i >= 20) lat[f].push(r.rtt);
      if (i === warm - 1) memWarm = await stats();
    }
    await new Promise((r) => setTimeout(r, 300));
    collectLogs();
    const memEnd = await stats();
    const session = (await c.conn.sendRequest('vaudit/stats')).sessions[0];

    const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
    const summary = (xs) => ({ n: xs.length, median: +pct(xs, 50).toFixed(2), p95: +pct(xs, 95).toFixed(2), max: +Math.max(...xs).toFixed(2) });
    const srv = (f) => serverTimes.filter((s) => s.file === f).slice(10).map((s) => s.ms);
    const mb = (b) => +(b / 1048576).toFixed(1);
    return {
      workspace: { pyLines, entries, edits },
      initialDiagnostics: { python: initial[0].diagnostics.length, task: initial[1].diagnostics.length },
      python: { roundTripMs: summary(lat[ws.py]), serverLintMs: summary(srv(ws.py)), serverCpuMsPerEdit: +((cpu[ws.py] * tick) / lat[ws.py].length).toFixed(1) },
      task: { roundTripMs: summary(lat[ws.task]), serverLintMs: summary(srv(ws.task)), serverCpuMsPerEdit: +((cpu[ws.task] * tick) / lat[ws.task].length).toFixed(1) },
      memoryMB: {
        afterWarmup: { rss: mb(memWarm.rss), heapUsed: mb(memWarm.heapUsed), external: mb(memWarm.external) },
        afterEdits: { rss: mb(memEnd.rss), heapUsed: mb(memEnd.heapUsed), external: mb(memEnd.external) },
      },
      session,
    };
  } finally {
    await c.stop().catch(() => c.kill());
    rmSync(ws.root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runBench({ edits: Number(args.edits), pyLines: Number(args['py-lines']), entries: Number(args.entries), cpuProf: args['cpu-prof'], nodeFlags: args['node-flags']?.split(/\s+/).filter(Boolean) });
  if (args.json) console.log(JSON.stringify(r, null, 2));
  else {
    console.log(`vaudit lsp — ${r.workspace.pyLines}-line Python module, ${r.workspace.entries}-entry task file, ${r.workspace.edits} one-character edits`);
    console.log(`initial diagnostics: python ${r.initialDiagnostics.python}, task ${r.initialDiagnostics.task}`);
    for (const k of ['python', 'task']) {
      const x = r[k];
      console.log(`${k.padEnd(6)} re-lint  server median ${x.serverLintMs.median} ms, p95 ${x.serverLintMs.p95} ms | round trip median ${x.roundTripMs.median} ms, p95 ${x.roundTripMs.p95} ms, max ${x.roundTripMs.max} ms | server CPU ${x.serverCpuMsPerEdit} ms per edit (mean)`);
    }
    const m = r.memoryMB;
    console.log(`memory   after 100 edits: rss ${m.afterWarmup.rss} MB, heap ${m.afterWarmup.heapUsed} MB, external ${m.afterWarmup.external} MB`);
    console.log(`memory   after ${r.workspace.edits} edits: rss ${m.afterEdits.rss} MB, heap ${m.afterEdits.heapUsed} MB, external ${m.afterEdits.external} MB`);
    console.log(`session  ${JSON.stringify(r.session)}`);
  }
}
