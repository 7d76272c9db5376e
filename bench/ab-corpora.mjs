#!/usr/bin/env node
// Before/after on the real corpora from one run: `vaudit check` of two built checkouts, alternated
// (A B, B A, …) so both see the same machine minutes, whole process: wall time, process CPU and the
// main thread's own CPU (the critical path; /proc schedstat, ns resolution, Linux only), medians;
// and, nearly deterministic where times are not, the scavenges, full collections, their pause time
// and the megabytes allocated on the JS heap (fewer bytes: fewer scavenges copying live trees).
// Usage: node bench/ab-corpora.mjs <checkoutA> <checkoutB> [--corpus scienceboard] [--runs 11] [-- extra check args]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { abArgs, median } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const dash = args.indexOf('--');
const extra = dash >= 0 ? args.slice(dash + 1) : [];
const own = dash >= 0 ? args.slice(0, dash) : args;
const { a, b, corpus, dir, runs } = abArgs(own, 'usage: node bench/ab-corpora.mjs <checkoutA> <checkoutB> [--corpus scienceboard] [--runs 11] [-- extra check args]', '11');
const out = mkdtempSync(path.join(tmpdir(), 'vaudit-bench-ab-'));

function once(repo, tag) {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--require', path.join(here, 'main-thread-exit.cjs'), path.join(repo, 'bin/vaudit.js'), 'check', dir, '--format', 'json', '--output-file', path.join(out, `${tag}.json`), ...extra], {
    encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 600_000, killSignal: 'SIGKILL',
  });
  const wall = performance.now() - t;
  const m = /VAUDIT_BENCH_EXIT main (\S+) process (\S+) startup (\S+) gc (\d+) (\d+) (\S+) allocated (\S+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`${repo}: no figures (exit ${r.status}): ${(r.stderr ?? '').slice(0, 400)}`);
  return { wall, process: Number(m[2]), main: Number(m[1]), startup: Number(m[3]), scavenges: Number(m[4]), full: Number(m[5]), gcMs: Number(m[6]), mb: Number(m[7]) };
}

const res = { A: [], B: [] };
once(a, 'A'); // warm the file cache (and write a missing code cache)
once(b, 'B');
for (let i = 0; i < runs; i++) for (const k of i % 2 ? ['B', 'A'] : ['A', 'B']) res[k].push(once(k === 'A' ? a : b, k));
rmSync(out, { recursive: true, force: true });
const med = (k, f) => median(res[k].map((r) => r[f]));
for (const [k, repo] of [['A', a], ['B', b]]) {
  console.log(`${k} ${repo}: wall ${med(k, 'wall').toFixed(0)} ms, process CPU ${med(k, 'process').toFixed(0)} ms, main thread ${med(k, 'main').toFixed(0)} ms (runs: ${res[k].map((r) => r.main.toFixed(0)).join(' ')}), of which start-up ${med(k, 'startup').toFixed(0)} ms; `
    + `GC ${med(k, 'scavenges')} scavenges + ${med(k, 'full')} full, ${med(k, 'gcMs').toFixed(0)} ms; ${med(k, 'mb').toFixed(1)} MB allocated`);
}
const ratio = (f) => (med('B', f) / med('A', f)).toFixed(3);
console.log(`${corpus}, ${runs} runs each, B/A: main thread ${ratio('main')} (${(med('B', 'main') - med('A', 'main')).toFixed(0)} ms), start-up on the main thread ${ratio('startup')} (${(med('B', 'startup') - med('A', 'startup')).toFixed(0)} ms), process CPU ${ratio('process')}, wall ${ratio('wall')}, GC pause ${ratio('gcMs')}, allocated ${ratio('mb')}`);
