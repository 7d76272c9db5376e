#!/usr/bin/env node
// vaudit on the real corpora (../shared/corpora: ScienceBoard, Spider2-V), whole process, with
// pyright and ruff (npm wasm build) on the same Python files in the same run, and vaudit from the
// module tree in dist/ (VAUDIT_BUNDLE=0: no single-file build, no code cache) and with the wasm
// parser for comparison, without the threads that parse ahead (VAUDIT_PARSE_THREADS=0), and with
// `--cache` after a change (the whole-run entry removed before each run, the parsed trees kept). Wall
// time is the median of --runs; CPU (user + system) is shown too, because the development machine is
// shared. The floor under any check (`parse-floor.mjs`: native parse, one cursor walk per tree and
// JSON.parse of the task files, no analysis), a bare `node -e 0` and `vaudit --version` (start-up) are
// timed in the same run, so the seconds of the day can be read as a ratio to what parsing alone costs;
// `twoCoreBoundMs` is the least wall time a check's CPU allows on two cores (a bare node's start, then
// the rest of the single-threaded check's CPU split perfectly over both). Needs `npm run build`.
// Usage: node bench/corpora.mjs [--runs 3] [--corpora scienceboard,spider2v] [--no-peers]
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, timeAlternated, timeProcess } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const runs = Number(option(args, '--runs', '3'));
const names = option(args, '--corpora', 'scienceboard,spider2v').split(',');
const peers = !args.includes('--no-peers');
const corpora = path.resolve(root, '../shared/corpora');
const out = mkdtempSync(path.join(tmpdir(), 'vaudit-bench-corpora-'));
const measure = (argv, env, before) => timeProcess(argv, { cwd: root, runs, env, before });

const rows = [];
for (const name of names) {
  const dir = path.join(corpora, name);
  if (!existsSync(dir)) {
    console.error(`skipping ${name}: ${dir} is absent`);
    continue;
  }
  const report = path.join(out, `${name}.json`);
  const check = (extra = []) => [process.execPath, path.join(root, 'bin/vaudit.js'), 'check', dir, '--format', 'json', '--output-file', report, ...extra];
  const vaudit = (env, extra = [], before) => measure(check(extra), env, before);
  // the default check, the parse floor, a bare node and vaudit's start-up alone (`--version`: node, the
  // bundle and its code cache, nothing read), alternated
  const [native, floor, bare, startup] = timeAlternated([
    check(), [process.execPath, path.join(here, 'parse-floor.mjs'), dir], [process.execPath, '-e', '0'], [process.execPath, path.join(root, 'bin/vaudit.js'), '--version'],
  ], { cwd: root, runs });
  const json = JSON.parse(readFileSync(report, 'utf8'));
  const tree = vaudit({ VAUDIT_BUNDLE: '0' });
  const oneThread = vaudit({ VAUDIT_PARSE_THREADS: '0' });
  const wasm = vaudit({ VAUDIT_PYTHON_PARSER: 'wasm' });
  // --cache after an edit: the whole-run entry is stale (removed here), the unchanged files' trees are reused
  const cacheDir = path.join(out, `${name}-cache`);
  const cacheArgs = ['--cache', '--cache-location', cacheDir];
  vaudit({}, cacheArgs);
  const dropEntries = () => { for (const f of readdirSync(cacheDir)) if (f.startsWith('lint-')) rmSync(path.join(cacheDir, f)); };
  const cachedTrees = vaudit({}, cacheArgs, dropEntries);
  const row = {
    corpus: name,
    pyFiles: json.summary.pythonFiles,
    files: json.summary.files,
    findings: json.summary.findings.total,
    parser: json.summary.pythonParser,
    vauditMs: Math.round(native.ms),
    vauditCpuMs: Math.round(native.cpuMs),
    vauditRssMb: Math.round(native.rssMb),
    parseFloorMs: Math.round(floor.ms),
    bareNodeMs: Math.round(bare.ms),
    vsFloor: `${(native.ms / floor.ms).toFixed(2)}×`,
    startupMs: Math.round(startup.ms),
    cachedTreesMs: Math.round(cachedTrees.ms),
    cachedTreesCpuMs: Math.round(cachedTrees.cpuMs),
    noThreadsMs: Math.round(oneThread.ms),
    noThreadsCpuMs: Math.round(oneThread.cpuMs),
    moduleTreeMs: Math.round(tree.ms),
    moduleTreeCpuMs: Math.round(tree.cpuMs),
    wasmParserMs: Math.round(wasm.ms),
  };
  // the least wall time the CPU a check spends allows on two cores: node's own start (no thread of ours
  // runs before it) plus the rest of a single-threaded check's CPU (the least of the variants) shared
  // perfectly by both cores
  const twoCores = bare.ms + Math.max(0, oneThread.cpuMs - bare.cpuMs) / 2;
  Object.assign(row, { twoCoreBoundMs: Math.round(twoCores), boundVsFloor: `${(twoCores / floor.ms).toFixed(2)}×` });
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
