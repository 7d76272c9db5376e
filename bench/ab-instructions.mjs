#!/usr/bin/env node
// Before/after on a real corpus that the machine's load does not move: the instructions a whole
// `vaudit check` executes (valgrind's cachegrind, no cache simulation) with V8 single-threaded, so
// garbage collection and compilation run on the one thread and are counted the same way every run.
// Each checkout runs once first (a V8 flag makes V8 reject the code cache made without it: that run
// writes one for these flags; the next normal run rewrites it). Without the threads that parse ahead
// (VAUDIT_PARSE_THREADS=0): how much of the parsing the main thread does itself depends on scheduling,
// and with them the same checkout differed by 6.7 % from one run to the next (Spider2-V, 2026-12-05).
// Without them, the same build against itself: 1.2 % at most; a smaller difference says nothing.
// Slow (≈ 40–80 s a run). Needs valgrind.
// Usage: node bench/ab-instructions.mjs <checkoutA> <checkoutB> [--corpus scienceboard] [--runs 1]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { abArgs } from './measure.mjs';

const { a, b, corpus, dir, runs } = abArgs(process.argv.slice(2), 'usage: node bench/ab-instructions.mjs <checkoutA> <checkoutB> [--corpus scienceboard] [--runs 1]', '1');
const out = mkdtempSync(path.join(tmpdir(), 'vaudit-bench-instr-'));

function instructions(repo) {
  const r = spawnSync('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', '--smc-check=all-non-file',
    process.execPath, '--single-threaded', path.join(repo, 'bin/vaudit.js'), 'check', dir, '--format', 'json', '--output-file', path.join(out, 'report.json')], {
    encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', VAUDIT_PARSE_THREADS: '0' }, timeout: 1_800_000, killSignal: 'SIGKILL', maxBuffer: 1 << 26,
  });
  const m = /I\s+refs:\s+([\d,]+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`${repo}: no instruction count (exit ${r.status}): ${(r.stderr ?? '').slice(-400)}`);
  return Number(m[1].replace(/,/g, ''));
}

instructions(a);
instructions(b);
const res = { A: [], B: [] };
for (let i = 0; i < runs; i++) {
  res.A.push(instructions(a));
  res.B.push(instructions(b));
}
rmSync(out, { recursive: true, force: true });
const g = (x) => (x / 1e9).toFixed(3);
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(`A ${a}: ${res.A.map(g).join(', ')} G instructions`);
console.log(`B ${b}: ${res.B.map(g).join(', ')} G instructions`);
console.log(`${corpus}, B/A ${(mean(res.B) / mean(res.A)).toFixed(4)} (${((mean(res.B) - mean(res.A)) / 1e6).toFixed(0)} M instructions)`);
