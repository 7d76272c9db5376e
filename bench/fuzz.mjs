#!/usr/bin/env node
/**
 * Fuzzing as a bench (issue 17): mutate the real corpora's task files and verifier sources
 * (truncation, byte flips, deep nesting, huge lines, odd unicode, hostile keys, broken lambdas and
 * regexes), write them in batches into a ScienceBoard-shaped folder, and run the real CLI over each
 * batch. Counts crashes (exit 2, `internal error`, a signal), per-file internal-error findings,
 * hangs (no exit within the bound), the slowest batch and the peak RSS.
 *
 *   node bench/fuzz.mjs [--inputs 10000] [--batch 200] [--seed 1] [--timeout-ms 60000] [--keep DIR]
 *
 * Needs `npm run build` and the corpora at ../shared/corpora. Deterministic for a seed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repo, '../shared/corpora');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const INPUTS = Number(opt('inputs', 10000));
const BATCH = Number(opt('batch', 200));
const TIMEOUT = Number(opt('timeout-ms', 60000));
let seed = Number(opt('seed', 1)) >>> 0;
const keep = opt('keep', undefined);

if (!existsSync(corpora)) {
  console.error(`corpora not found at ${corpora}: nothing to fuzz`);
  process.exit(0);
}

function rand() {
  // mulberry32
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (n) => Math.floor(rand() * n);

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(json|py)$/.test(e.name)) out.push(p);
  }
  return out;
}
const seeds = walk(corpora).map((p) => ({ ext: path.extname(p), text: readFileSync(p, 'utf8') }));
const jsonSeeds = seeds.filter((s) => s.ext === '.json');
const pySeeds = seeds.filter((s) => s.ext === '.py');

const ODD = ['\ud800', '\udc00', '\u0000', '\u202e', '\ufeff', '𝔘𝔫𝔦', '\u2028', 'é', '\uffff', '\\ud800', '\\u0000'];
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__'];
const LAMBDAS = [
  'lambda key: ', 'lambda key, value: [w for w in key if w][0', 'lambda: (yield)', 'lambda x: [async for y in x]',
  'lambda 𝔵: 𝔵', 'lambda key: key[' + '['.repeat(400), 'lambda k: ' + '('.repeat(300) + 'k' + ')'.repeat(300),
  'lambda k: ' + 'k[0]'.repeat(2000), 'lambda k, v: re.match("[[:alpha:]]", k)', 'lambda k: {**k, ' + '{'.repeat(200),
];
const REGEXES = ['[[:alpha:]]', '(?P<a>x)(?P=b)', '(a*)*$', '(?<=a+)b', '\\', '[z-a]', '(?P<𝔵>x)', '(' .repeat(500)];

const jsonMutators = [
  (t) => t.slice(0, int(t.length)), // truncation
  (t) => { const a = Buffer.from(t); for (let k = 0; k < 1 + int(8); k++) a[int(a.length)] = int(256); return a; }, // byte flips
  (t) => '['.repeat(1000 + int(20000)) + t, // deep nesting, invalid
  () => { const n = 500 + int(5000); return `{"type":"ChimeraX","instruction":"x","evaluate":${'['.repeat(n)}1${']'.repeat(n)}}`; }, // deep, valid
  (t) => t.replace(/"instruction":\s*"/, `"instruction": "${'x'.repeat(200000 + int(800000))}`), // huge line
  (t) => t.replace(/"([^"\\]{1,20})"/g, (m, s) => (rand() < 0.1 ? `"${s}${pick(ODD)}"` : m)), // odd unicode
  (t) => t.replace(/"(type|func|key|find|pred|sort)":\s*"[^"]*"/g, (m, k) => (rand() < 0.5 ? `"${k}": "${pick(KEYS)}"` : m)), // hostile keys as values
  (t) => t.replace(/"(type|func|key|value|path)":/g, (m) => (rand() < 0.3 ? `"${pick(KEYS)}":` : m)), // hostile keys as member names
  (t) => t.replace(/"(key|find|pred)":\s*"lambda[^"]*"/g, (m, k) => `"${k}": ${JSON.stringify(pick(LAMBDAS))}`), // broken lambdas
  (t) => t.replace(/"(pattern|regex|value)":\s*"[^"]*"/g, (m, k) => (rand() < 0.5 ? `"${k}": ${JSON.stringify(pick(REGEXES))}` : m)), // broken regexes
  (t) => { try { const j = JSON.parse(t); j.initialize = Array.from({ length: 5000 + int(50000) }, () => ({ func: 'touch', path: '/tmp/x' })); return JSON.stringify(j); } catch { return t; } }, // huge arrays
  () => `{"type":"ChimeraX","instruction":"x","evaluate":[${Array.from({ length: 50 }, () => `{"type":"states","key":${JSON.stringify(pick(LAMBDAS))},"pattern":${JSON.stringify(pick(REGEXES))},"value":null}`).join(',')}]}`,
];
const pyMutators = [
  (t) => t.slice(0, int(t.length)),
  (t) => { const a = Buffer.from(t); for (let k = 0; k < 1 + int(8); k++) a[int(a.length)] = int(256); return a; },
  (t) => `${t}\ndef deep(x):\n    return ${'['.repeat(300 + int(3000))}x${']'.repeat(300 + int(3000))}\n`,
  (t) => `${t}\ndef deep(x):\n    return ${'x['.repeat(500 + int(5000))}0${']'.repeat(500 + int(5000))}\n`,
  (t) => { let s = 'def f(x):\n'; const n = 100 + int(500); for (let k = 0; k < n; k++) s += `${' '.repeat(4 * (k + 1))}match x:\n${' '.repeat(4 * (k + 2))}case {"a": 1}:\n`; return t + '\n' + s + ' '.repeat(4 * (n + 2)) + 'pass\n'; },
  (t) => `${t}\nx = ${'{'.repeat(200 + int(3000))}${'}'.repeat(200 + int(3000))}\n`,
  (t) => `${t}\nX = "${'y'.repeat(300000 + int(700000))}"\n`,
  (t) => t.replace(/\b([a-z_]{3,12})\b/g, (m) => (rand() < 0.02 ? `${m}${pick(['𝔵', 'é', '\u200b'])}` : m)),
  (t) => `${t}\ndef comp(x):\n    return ${'[y for y in '.repeat(200 + int(600))}x${']'.repeat(200 + int(600))}\n`,
  (t) => `${t}\nasync def g(x):\n    return [z async for z in x if re.match("[[:alpha:]]", z)]\n`,
  (t) => `${t}\ndef t(x):\n    return ${'(x if x else '.repeat(300 + int(2000))}x${')'.repeat(300 + int(2000))}\n`,
];

const FAMILIES = ['ChimeraX', 'Celestia', 'GrassGIS', 'KAlgebra', 'Lean', 'TeXstudio'];
function makeInput(n) {
  if (rand() < 0.7) {
    const s = pick(jsonSeeds);
    return { rel: `tasks/VM/${pick(FAMILIES)}/f${n}.json`, data: pick(jsonMutators)(s.text) };
  }
  const s = pick(pySeeds);
  return { rel: `verifier/${pick(FAMILIES).toLowerCase()}/m${n}.py`, data: pick(pyMutators)(s.text) };
}

const work = keep ?? mkdtempSync(path.join(tmpdir(), 'vaudit-fuzz-'));
const figures = { inputs: 0, batches: 0, crashes: 0, internalErrors: 0, hangs: 0, findingsOnBadFiles: 0, slowestBatchMs: 0, peakRssKb: 0 };
const failures = [];
const bin = path.join(repo, 'bin', 'vaudit.js');
for (let b = 0; figures.inputs < INPUTS; b++) {
  const dir = path.join(work, `batch-${b}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const n = Math.min(BATCH, INPUTS - figures.inputs);
  const files = [];
  for (let k = 0; k < n; k++) {
    const { rel, data } = makeInput(figures.inputs + k);
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), data);
    files.push(rel);
  }
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bin, 'check', '.', '--format', 'json'], {
    cwd: dir, encoding: 'utf8', timeout: TIMEOUT, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' },
  });
  const ms = performance.now() - t0;
  figures.inputs += n;
  figures.batches++;
  figures.slowestBatchMs = Math.max(figures.slowestBatchMs, Math.round(ms));
  const rss = Number((r.stderr ?? '').trim().split('\n').pop());
  if (Number.isFinite(rss)) figures.peakRssKb = Math.max(figures.peakRssKb, rss);
  let report;
  try { report = JSON.parse(r.stdout); } catch { report = undefined; }
  if (r.error?.code === 'ETIMEDOUT' || (r.signal === 'SIGTERM' && ms >= TIMEOUT - 100)) {
    figures.hangs++;
    failures.push({ batch: b, kind: 'hang', dir });
  } else if (r.status === 2 || r.signal || !report) {
    figures.crashes++;
    failures.push({ batch: b, kind: 'crash', dir, status: r.status, signal: r.signal, stderr: (r.stderr ?? '').slice(0, 600) });
  } else {
    const internal = report.findings.filter((f) => f.ruleId === 'internal-error');
    figures.internalErrors += internal.length;
    for (const f of internal.slice(0, 3)) failures.push({ batch: b, kind: 'internal-error', dir, file: f.file, message: f.message.slice(0, 300) });
    figures.findingsOnBadFiles += new Set(report.findings.filter((f) => f.ruleId === 'parse-error').map((f) => f.file)).size;
  }
  process.stderr.write(`\rfuzz: ${figures.inputs}/${INPUTS} inputs, ${figures.crashes} crashes, ${figures.internalErrors} internal errors, ${figures.hangs} hangs`);
  if (!keep && !failures.some((f) => f.dir === dir)) rmSync(dir, { recursive: true, force: true });
}
process.stderr.write('\n');
console.log(JSON.stringify({ ...figures, failures: failures.slice(0, 20), kept: failures.length ? work : undefined }, null, 2));
if (!keep && !failures.length) rmSync(work, { recursive: true, force: true });
