#!/usr/bin/env node
// vaudit on the real corpora (../shared/corpora: ScienceBoard, Spider2-V), whole process, with
// pyright and ruff (npm wasm build) on the same Python files in the same run, and vaudit with
// the wasm parser for comparison. Wall time is the median of --runs; CPU (user + system) is
// shown too, because the development machine is shared. Needs `npm run build`.
// Usage: node bench/corpora.mjs [--runs 3] [--corpora scienceboard,spider2v] [--no-peers]
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const runs = Number(opt('--runs', '3'));
const names = opt('--corpora', 'scienceboard,spider2v').split(',');
const peers = !args.includes('--no-peers');
const corpora = path.resolve(root, '../shared/corpora');
const out = mkdtempSync(path.join(tmpdir(), 'vaudit-bench-corpora-'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Run argv `runs` times under /usr/bin/time: median wall ms, median CPU ms, peak RSS MB, last stdout. */
function measure(argv, env = {}) {
  const wall = [];
  const cpu = [];
  let rss = 0;
  let stdout = '';
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', ...argv], {
      cwd: root, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 600_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1', ...env },
    });
    wall.push(performance.now() - t);
    const m = /TIME (\S+) (\S+) (\d+)\s*$/.exec(r.stderr ?? '');
    if (m) {
      cpu.push((Number(m[1]) + Number(m[2])) * 1000);
      rss = Math.max(rss, Number(m[3]) / 1024);
    }
    stdout = r.stdout;
  }
  return { ms: median(wall), cpuMs: cpu.length ? median(cpu) : NaN, rssMb: rss, stdout };
}

const rows = [];
for (const name of names) {
  const dir = path.join(corpora, name);
  if (!existsSync(dir)) {
    console.error(`skipping ${name}: ${dir} is absent`);
    continue;
  }
  const report = path.join(out, `${name}.json`);
  const vaudit = (env) => measure([process.execPath, path.join(root, 'bin/vaudit.js'), 'check', dir, '--format', 'json', '--output-file', report], env);
  const native = vaudit({});
  const json = JSON.parse(readFileSync(report, 'utf8'));
  const wasm = vaudit({ VAUDIT_PYTHON_PARSER: 'wasm' });
  const row = {
    corpus: name,
    pyFiles: json.summary.pythonFiles,
    files: json.summary.files,
    findings: json.summary.findings.total,
    parser: json.summary.pythonParser,
    vauditMs: Math.round(native.ms),
    vauditCpuMs: Math.round(native.cpuMs),
    vauditRssMb: Math.round(native.rssMb),
    wasmParserMs: Math.round(wasm.ms),
  };
  if (peers) {
    const pyright = path.join(root, 'node_modules/.bin/pyright');
    if (existsSync(pyright)) {
      const p = measure([pyright, '--pythonversion', '3.11', dir]);
      Object.assign(row, { pyrightMs: Math.round(p.ms), pyrightCpuMs: Math.round(p.cpuMs), vsPyright: `${(p.ms / native.ms).toFixed(1)}×` });
    }
    const r = measure([process.execPath, path.join(here, 'ruff-wasm.mjs'), dir]);
    try {
      const info = JSON.parse(r.stdout);
      Object.assign(row, { pyLines: info.lines, ruffMs: Math.round(r.ms), ruffCpuMs: Math.round(r.cpuMs), vsRuff: `${(r.ms / native.ms).toFixed(1)}×` });
    } catch {
      row.ruffMs = 'failed';
    }
  }
  rows.push(row);
}
rmSync(out, { recursive: true, force: true });
console.table(rows);
