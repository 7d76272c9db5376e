#!/usr/bin/env node
// Times vaudit's static pass over a generated suite at 1× and 10× the reference size
// (≈170 tasks / ≈250 entries and ≈8,000 lines of Python at 1×), whole process and
// in-process, printing files per second and peak memory. Needs `npm run build`.
// --peers times pyright and ruff (npm wasm build, bench/ruff-wasm.mjs) on the same files in the
// same run; µs/task shows whether the cost is linear in the suite's size.
// Usage: node bench/static-pass.mjs [--scales 1,10,100] [--runs 3] [--peers] [--whole-only]
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { genPython } from './gen-python.mjs';
import { median, option, timeProcess } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const scales = opt('--scales', '1,10').split(',').map(Number);
const runs = Number(opt('--runs', '3'));
const peers = args.includes('--peers');
// --whole-only: skip the in-process runs (at 100× they hold several copies of the project)
const wholeOnly = args.includes('--whole-only');

const { lint } = await import(path.join(root, 'dist/src/engine/lint.js'));

const rows = [];
for (const scale of scales) {
  const dir = mkdtempSync(path.join(tmpdir(), `vaudit-bench-${scale}x-`));
  try {
    const gen = spawnSync(process.execPath, [path.join(here, 'gen-suite.mjs'), path.join(dir, 'suite'), String(scale), '--verifier'], { encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
    if (gen.status !== 0) throw new Error(`gen-suite failed: ${gen.stderr}`);
    const py = genPython(path.join(dir, 'extra'), 8000 * scale);
    // in-process: first (cold, includes parser init on the first scale) and warm
    const inproc = [];
    let stats;
    for (let i = 0; !wholeOnly && i < runs + 1; i++) {
      const t = performance.now();
      const result = await lint({ paths: [dir], cwd: dir, reportUnusedSuppressions: false });
      const ms = performance.now() - t;
      if (i > 0) inproc.push(ms);
      stats = result.stats;
      result.dispose();
    }
    const whole = existsSync('/usr/bin/time')
      ? timeProcess([process.execPath, path.join(root, 'bin/vaudit.js'), 'check', '.', '--format', 'json', '--output-file', path.join(dir, '..', `vaudit-bench-${scale}.json`)], { cwd: dir, runs })
      : { ms: NaN, rssMb: NaN };
    if (!stats) {
      const summary = JSON.parse(readFileSync(path.join(dir, '..', `vaudit-bench-${scale}.json`), 'utf8')).summary;
      stats = { tasks: summary.tasks, entries: summary.verifierEntries, files: summary.files };
    }
    const files = stats.files;
    rows.push({ scale: `${scale}×`, tasks: stats.tasks, entries: stats.entries, pyLines: py.lines, files,
      inProcessMs: inproc.length ? +median(inproc).toFixed(1) : '-', wholeProcessMs: +whole.ms.toFixed(1), wholeCpuMs: Math.round(whole.cpuMs),
      usPerTask: Math.round((whole.ms * 1000) / stats.tasks),
      filesPerSec: Math.round(files / ((inproc.length ? median(inproc) : whole.ms) / 1000)), peakRssMb: +whole.rssMb.toFixed(0),
      inProcessHeapMb: +(process.memoryUsage().rss / 1048576).toFixed(0) });
    if (peers) {
      const bin = path.join(root, 'node_modules/.bin/pyright');
      if (existsSync(bin)) {
        const t = timeProcess([bin, '--pythonversion', '3.11', dir], { cwd: dir, runs });
        rows[rows.length - 1].pyrightMs = +t.ms.toFixed(0);
        rows[rows.length - 1].vsPyright = `${(t.ms / whole.ms).toFixed(1)}× faster`;
      }
      const ruff = timeProcess([process.execPath, path.join(here, 'ruff-wasm.mjs'), dir], { cwd: dir, runs });
      rows[rows.length - 1].ruffMs = +ruff.ms.toFixed(0);
      rows[rows.length - 1].vsRuff = `${(ruff.ms / whole.ms).toFixed(1)}×`;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(dir, '..', `vaudit-bench-${scale}.json`), { force: true });
  }
}
console.table(rows);
