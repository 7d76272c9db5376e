#!/usr/bin/env node
// Issue 29 item 4: the warm runner against today's cold path, in the same run. On a real suite
// (default ScienceBoard), alternating per round: `confirmFindings` with `warm: false` (every case
// imports its verifier's modules itself) and `warm: true` (cases of one module fork from a process
// that imported it once); wall of each, their ratio, and whether every finding's status and detail
// agree. Then the marginal cost of one more case: the suite's call cases run ×1 and ×3 (copies of
// the same cases), cold and warm, (T×3 − T×1) / (2 × cases). Last, the whole `vaudit check --confirm`
// process (static pass + confirmation, warm: the default). No assertions on time.
//
//   node bench/confirm-warm.mjs [--suite DIR] [--runs 3] [--jobs 2] [--no-cli]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const suite = path.resolve(opt('--suite', path.join(root, '../shared/corpora/scienceboard')));
const runs = Number(opt('--runs', '3'));
const jobs = Number(opt('--jobs', '2'));

const { lint } = await import(path.join(root, 'dist/src/engine/lint.js'));
const { confirmFindings } = await import(path.join(root, 'dist/src/confirm/index.js'));
const { createHost } = await import(path.join(root, 'dist/src/host/host.js'));
const { runPythonCases } = await import(path.join(root, 'dist/src/confirm/harness.js'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
const load = () => {
  try {
    return spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
};

let t = performance.now();
const base = await lint({ paths: [suite], cwd: suite });
const staticMs = performance.now() - t;
console.log(`suite ${suite}: ${base.findings.length} findings, static pass ${fmt(staticMs)} (in process); load ${load()}`);

// The cases the suite's findings plan (captured once, through a host that records each request).
const host0 = createHost({ root: suite, isolation: 'auto' });
const captured = [];
const run0 = host0.run.bind(host0);
host0.run = async (req) => {
  if (req.toolId === 'python3') captured.push(...JSON.parse(req.stdin).cases);
  return run0(req);
};
await confirmFindings(structuredClone(base.findings), base.project, { root: suite, host: host0, jobs });

const verdicts = (fs) => fs.map((f) => `${f.ruleId} ${f.file}:${f.range.start.line} ${f.confirmation?.status ?? '-'} ${(f.confirmation?.detail ?? '').replace(/\d{3,}/g, 'N')}`);
const times = { cold: [], warm: [] };
let reference;
let differ = 0;
let cases = 0;
let warmCases = 0;
for (let r = 0; r < runs; r++) {
  for (const mode of r % 2 ? ['warm', 'cold'] : ['cold', 'warm']) {
    const fs = structuredClone(base.findings);
    t = performance.now();
    const res = await confirmFindings(fs, base.project, { root: suite, jobs, warm: mode === 'warm' });
    times[mode].push(performance.now() - t);
    const v = verdicts(fs);
    reference ??= v;
    differ += v.filter((x, i) => x !== reference[i]).length;
    const ct = res.runs.flatMap((x) => x.caseTimes ?? []);
    if (mode === 'warm') {
      cases = ct.length;
      warmCases = ct.filter((x) => x.sharedSetupMs !== undefined).length;
    }
  }
}
const cold = median(times.cold);
const warm = median(times.warm);
console.log(`\nconfirmation stage (${runs} runs each, alternated; ${cases} cases, ${warmCases} of them forked warm; jobs ${jobs}):`);
console.table([
  { path: 'cold (today)', median: fmt(cold), runs: times.cold.map(fmt).join(', ') },
  { path: 'warm', median: fmt(warm), runs: times.warm.map(fmt).join(', ') },
]);
console.log(`warm / cold = ${(warm / cold).toFixed(3)}; findings whose status or detail differ from the first run's: ${differ}`);

// Marginal cost: the suite's call cases (not the slow ones, which wait out a stalling peer), ×1 and ×3.
// (the wire form drops `slow`: a stalling endpoint marks those)
const fast = captured.filter((c) => (c.op ?? 'call') === 'call' && !(c.servers ?? []).some((s) => s.stall));
const copies = (k) => Array.from({ length: k }, (_, j) => fast.map((c) => ({ ...c, id: `${c.id}~${j}` }))).flat();
const marginal = [];
for (const mode of ['cold', 'warm']) {
  const one = [];
  const three = [];
  for (let r = 0; r < runs; r++) {
    for (const [k, into] of [[1, one], [3, three]]) {
      const host = createHost({ root: suite, isolation: 'auto' });
      t = performance.now();
      await runPythonCases(host, copies(k), { jobs, warm: mode === 'warm', batchSize: Math.max(20, Math.ceil((k * fast.length) / jobs)) });
      into.push(performance.now() - t);
    }
  }
  marginal.push({ path: mode, [`×1 (${fast.length} cases)`]: fmt(median(one)), [`×3 (${3 * fast.length})`]: fmt(median(three)), 'marginal ms/case': ((median(three) - median(one)) / (2 * fast.length)).toFixed(1) });
}
console.log(`\nmarginal cost of a call case (${jobs} parallel interpreters):`);
console.table(marginal);

if (!argv.includes('--no-cli')) {
  const wall = [];
  for (let r = 0; r < runs; r++) {
    t = performance.now();
    spawnSync(process.execPath, [path.join(root, 'bin/vaudit.js'), 'check', suite, '--confirm', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    wall.push(performance.now() - t);
  }
  console.log(`\nwhole \`vaudit check ${path.basename(suite)} --confirm\` (warm, the default): median ${fmt(median(wall))} (${wall.map(fmt).join(', ')}); load ${load()}`);
}
