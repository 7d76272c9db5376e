#!/usr/bin/env node
// Times vaudit's static pass over a generated suite at 1× and 10× the reference size
// (≈170 tasks / ≈250 entries and ≈8,000 lines of Python at 1×), whole process and
// in-process, printing files per second and peak memory. Needs `npm run build`.
// Usage: node bench/static-pass.mjs [--scales 1,10] [--runs 3] [--peers]
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { genPython } from './gen-python.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const scales = opt('--scales', '1,10').split(',').map(Number);
const runs = Number(opt('--runs', '3'));
const peers = args.includes('--peers');

const { lint } = await import(path.join(root, 'dist/src/engine/lint.js'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timeProcess(argv, cwd) {
  const times = [];
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { cwd, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 600_000, killSignal: 'SIGKILL' });
    times.push(performance.now() - t);
    const m = /(\d+)\s*$/.exec(r.stderr ?? '');
    if (m) rss = Math.max(rss, Number(m[1]) / 1024);
  }
  return { ms: median(times), rssMb: rss };
}

const rows = [];
for (const scale of scales) {
  const dir = mkdtempSync(path.join(tmpdir(), `vaudit-bench-${scale}x-`));
  try {
    const gen = spawnSync(process.execPath, [path.join(here, 'gen-suite.mjs'), path.join(dir, 'suite'), String(scale), '--verifier'], { encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
    if (gen.status !== 0) throw new Error(`gen-suite failed: ${gen.stderr}`);
    const py = genPython(path.join(dir, 'extra'), 8000 * scale);
    // in-process: first (cold, includes wasm init on the first scale) and warm
    const inproc = [];
    let result;
    for (let i = 0; i < runs + 1; i++) {
      const t = performance.now();
      result = await lint({ paths: [dir], cwd: dir, reportUnusedSuppressions: false });
      const ms = performance.now() - t;
      if (i > 0) inproc.push(ms);
      if (i < runs) result.dispose();
    }
    const files = result.stats.files;
    const stats = result.stats;
    result.dispose();
    const whole = existsSync('/usr/bin/time')
      ? timeProcess([process.execPath, path.join(root, 'bin/vaudit.js'), 'check', '.', '--format', 'json', '--output-file', path.join(dir, '..', `vaudit-bench-${scale}.json`)], dir)
      : { ms: NaN, rssMb: NaN };
    rows.push({ scale: `${scale}×`, tasks: stats.tasks, entries: stats.entries, pyLines: py.lines, files,
      inProcessMs: +median(inproc).toFixed(1), wholeProcessMs: +whole.ms.toFixed(1),
      filesPerSec: Math.round(files / (median(inproc) / 1000)), peakRssMb: +whole.rssMb.toFixed(0),
      inProcessHeapMb: +(process.memoryUsage().rss / 1048576).toFixed(0) });
    if (peers) {
      const pyright = path.join(root, 'node_modules/.bin/pyright');
      const alt = '/tmp/scratch-pyright/node_modules/.bin/pyright';
      const bin = existsSync(pyright) ? pyright : existsSync(alt) ? alt : undefined;
      if (bin) {
        const t = timeProcess([bin, '--pythonversion', '3.11', dir], dir);
        rows[rows.length - 1].pyrightMs = +t.ms.toFixed(0);
        rows[rows.length - 1].vsPyright = `${(t.ms / whole.ms).toFixed(1)}× faster`;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(dir, '..', `vaudit-bench-${scale}.json`), { force: true });
  }
}
console.table(rows);
