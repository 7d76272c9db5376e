#!/usr/bin/env node
/**
 * Fuzzing as a bench (issue 17): mutate the real corpora's task files and verifier sources
 * (truncation, byte flips, deep nesting, huge lines, odd unicode, hostile keys, broken lambdas and
 * regexes), write them in batches into a ScienceBoard-shaped folder, and run the real CLI over each
 * batch. Counts crashes (exit 2, `internal error`, a signal), per-file internal-error findings,
 * hangs (no exit within the bound), the slowest batch and the peak RSS.
 *
 *   nice -n 10 node bench/fuzz.mjs [--inputs 10000] [--batch 200] [--seed 1] [--timeout-ms 180000] [--keep DIR]
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
const TIMEOUT = Number(opt('timeout-ms', 180000));
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

const named = (pairs) => pairs.map(([name, fn]) => Object.assign(fn, { label: name }));
const jsonMutators = named([
  ['truncation', (t) => t.slice(0, int(t.length))],
  ['byte flips', (t) => { const a = Buffer.from(t); for (let k = 0; k < 1 + int(8); k++) a[int(a.length)] = int(256); return a; }],
  ['deep nesting, invalid', (t) => '['.repeat(1000 + int(20000)) + t],
  ['deep nesting, valid', () => { const n = 500 + int(5000); return `{"type":"ChimeraX","instruction":"x","evaluate":${'['.repeat(n)}1${']'.repeat(n)}}`; }],
  ['huge line', (t) => t.replace(/"instruction":\s*"/, `"instruction": "${'x'.repeat(200000 + int(800000))}`)],
  ['odd unicode', (t) => t.replace(/"([^"\\]{1,20})"/g, (m, s) => (rand() < 0.1 ? `"${s}${pick(ODD)}"` : m))],
  ['prototype names as values', (t) => t.replace(/"(type|func|key|find|pred|sort)":\s*"[^"]*"/g, (m, k) => (rand() < 0.5 ? `"${k}": "${pick(KEYS)}"` : m))],
  ['prototype names as members', (t) => t.replace(/"(type|func|key|value|path)":/g, (m) => (rand() < 0.3 ? `"${pick(KEYS)}":` : m))],
  ['broken lambdas', (t) => t.replace(/"(key|find|pred)":\s*"lambda[^"]*"/g, (m, k) => `"${k}": ${JSON.stringify(pick(LAMBDAS))}`)],
  ['broken regexes', (t) => t.replace(/"(pattern|regex|value)":\s*"[^"]*"/g, (m, k) => (rand() < 0.5 ? `"${k}": ${JSON.stringify(pick(REGEXES))}` : m))],
  ['huge initialize', (t) => { try { const j = JSON.parse(t); j.initialize = Array.from({ length: rand() < 0.02 ? 50000 : 1000 + int(5000) }, () => ({ func: 'touch', path: '/tmp/x' })); return JSON.stringify(j); } catch { return t; } }],
  ['odd lambdas and regexes', () => `{"type":"ChimeraX","instruction":"x","evaluate":[${Array.from({ length: 1 + int(12) }, () => `{"type":"states","key":${JSON.stringify(pick(LAMBDAS))},"pattern":${JSON.stringify(pick(REGEXES))},"value":null}`).join(',')}]}`],
]);
const pyMutators = named([
  ['truncation', (t) => t.slice(0, int(t.length))],
  ['byte flips', (t) => { const a = Buffer.from(t); for (let k = 0; k < 1 + int(8); k++) a[int(a.length)] = int(256); return a; }],
  ['deep lists', (t) => `${t}\ndef deep(x):\n    return ${'['.repeat(300 + int(3000))}x${']'.repeat(300 + int(3000))}\n`],
  ['deep subscripts', (t) => `${t}\ndef deep(x):\n    return ${'x['.repeat(500 + int(5000))}0${']'.repeat(500 + int(5000))}\n`],
  ['nested match', (t) => { let s = 'def f(x):\n'; const n = 100 + int(500); for (let k = 0; k < n; k++) s += `${' '.repeat(4 * (k + 1))}match x:\n${' '.repeat(4 * (k + 2))}case {"a": 1}:\n`; return t + '\n' + s + ' '.repeat(4 * (n + 2)) + 'pass\n'; }],
  ['deep dicts', (t) => `${t}\nx = ${'{'.repeat(200 + int(3000))}${'}'.repeat(200 + int(3000))}\n`],
  ['huge line', (t) => `${t}\nX = "${'y'.repeat(300000 + int(700000))}"\n`],
  ['odd unicode', (t) => t.replace(/\b([a-z_]{3,12})\b/g, (m) => (rand() < 0.02 ? `${m}${pick(['𝔵', 'é', '\u200b'])}` : m))],
  ['deep comprehensions', (t) => `${t}\ndef comp(x):\n    return ${'[y for y in '.repeat(200 + int(600))}x${']'.repeat(200 + int(600))}\n`],
  ['async comprehension, POSIX class', (t) => `${t}\nasync def g(x):\n    return [z async for z in x if re.match("[[:alpha:]]", z)]\n`],
  ['deep ternaries', (t) => `${t}\ndef t(x):\n    return ${'(x if x else '.repeat(300 + int(2000))}x${')'.repeat(300 + int(2000))}\n`],
  ['long chains', (t) => `${t}\ndef chain(x):\n    return x${pick(['.a', ' + x', ' and x', ' < x', '[0]', '()']).repeat(500 + int(4000))}\n`],
  ['not chain', (t) => `${t}\ndef neg(x):\n    return ${'not '.repeat(500 + int(4000))}x\n`],
]);

// JavaScript / TypeScript verifiers (an eval-list suite): the corpora hold none, so the seeds are the
// project's own fixture verifiers, mutated the same ways plus deep objects, functions, ternaries, blocks
const jsSeeds = ['fixtures/suites/eval-list/evals/fill-form.js', 'fixtures/suites/eval-list/evals/click-button.ts', 'fixtures/suites/eval-list/evals/lib/state.ts']
  .map((p) => readFileSync(path.join(repo, p), 'utf8'));
const deepJs = (open, close) => (t) => { const n = 300 + int(4000); return `${t}\nexport function deep(p) { return ${open.repeat(n)}p${close.repeat(n)}; }\n`; };
const jsMutators = named([
  ['truncation', (t) => t.slice(0, int(t.length))],
  ['byte flips', (t) => { const a = Buffer.from(t); for (let k = 0; k < 1 + int(8); k++) a[int(a.length)] = int(256); return a; }],
  ['deep objects', deepJs('{ a: ', ' }')],
  ['deep functions', deepJs('function () { return ', ' }')],
  ['deep arrays', deepJs('[', ']')],
  ['deep ternaries', (t) => `${t}\nexport function tern(p) { return ${'p ? p : '.repeat(300 + int(8000))}p; }\n`],
  ['deep blocks', (t) => { const n = 300 + int(4000); return `${t}\nexport function blocks() { ${'{'.repeat(n)}${'}'.repeat(n)} }\n`; }],
  ['long chains', (t) => `${t}\nexport function chain(p) { return p${pick([' + p', ' && p', '.a', '[0]', '()']).repeat(500 + int(20000))}; }\n`],
  ['odd unicode', (t) => t.replace(/\b([a-z]{3,12})\b/g, (m) => (rand() < 0.03 ? `${m}${pick(['𝔵', 'é', '\u200b', '\ud800'])}` : m))],
]);

const FAMILIES = ['ChimeraX', 'Celestia', 'GrassGIS', 'KAlgebra', 'Lean', 'TeXstudio'];
function makeInput(n) {
  const r = rand();
  if (r < 0.6) {
    const s = pick(jsonSeeds);
    const m = pick(jsonMutators);
    return { rel: `tasks/VM/${pick(FAMILIES)}/f${n}.json`, data: m(s.text), what: `task file, ${m.label}` };
  }
  if (r < 0.9) {
    const s = pick(pySeeds);
    const m = pick(pyMutators);
    return { rel: `verifier/${pick(FAMILIES).toLowerCase()}/m${n}.py`, data: m(s.text), what: `Python module, ${m.label}` };
  }
  const m = pick(jsMutators);
  const ts = rand() < 0.5;
  return { rel: `js/evals/e${n}.${ts ? 'ts' : 'js'}`, data: m(pick(jsSeeds)), what: `${ts ? 'TypeScript' : 'JavaScript'} verifier, ${m.label}`, evalName: `e${n}` };
}

const work = keep ?? mkdtempSync(path.join(tmpdir(), 'vaudit-fuzz-'));
const figures = { inputs: 0, batches: 0, crashes: 0, internalErrors: 0, hangs: 0, badFilesWithAFinding: 0, slowestBatchMs: 0, peakRssKb: 0, totalMs: 0 };
const failures = [];
const bin = path.join(repo, 'bin', 'vaudit.js');

/** Write inputs into a fresh folder (JS/TS verifiers get the eval list naming them). */
function writeInputs(dir, inputs) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const { rel, data } of inputs) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), data);
  }
  const evals = inputs.filter((i) => i.evalName).map((i) => i.evalName);
  if (evals.length) writeFileSync(path.join(dir, 'js', 'evals.json'), JSON.stringify({ evals }));
  writeFileSync(path.join(dir, 'inputs.json'), JSON.stringify(inputs.map(({ rel, what }) => ({ rel, what })), null, 1));
}

/** Run the CLI over a folder: wall time, peak RSS, exit, report. */
function run(dir) {
  const t0 = performance.now();
  // the bound is `timeout`'s: it kills the CLI itself (a spawnSync timeout would end /usr/bin/time and leave the CLI running)
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'timeout', '-s', 'KILL', `${Math.ceil(TIMEOUT / 1000)}`, process.execPath, bin, 'check', '.', '--format', 'json'], {
    cwd: dir, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' },
  });
  const ms = performance.now() - t0;
  const rss = Number((r.stderr ?? '').trim().split('\n').pop());
  let report;
  try { report = JSON.parse(r.stdout); } catch { report = undefined; }
  return { r, ms, rss: Number.isFinite(rss) ? rss : 0, report };
}

const tStart = performance.now();
let slowest;
for (let b = 0; figures.inputs < INPUTS; b++) {
  const dir = path.join(work, `batch-${b}`);
  const n = Math.min(BATCH, INPUTS - figures.inputs);
  const inputs = Array.from({ length: n }, (_, k) => makeInput(figures.inputs + k));
  writeInputs(dir, inputs);
  const { r, ms, rss, report } = run(dir);
  figures.inputs += n;
  figures.batches++;
  figures.peakRssKb = Math.max(figures.peakRssKb, rss);
  let failed = false;
  // timeout(1) killed the CLI (137: KILL; 124: timed out)
  if (r.status === 137 || r.status === 124) {
    figures.hangs++;
    failures.push({ batch: b, kind: 'hang', dir });
    failed = true;
  } else if (r.status === 2 || r.signal || !report) {
    figures.crashes++;
    failures.push({ batch: b, kind: 'crash', dir, status: r.status, signal: r.signal, stderr: (r.stderr ?? '').slice(0, 600) });
    failed = true;
  } else {
    const internal = report.findings.filter((f) => f.ruleId === 'internal-error');
    figures.internalErrors += internal.length;
    for (const f of internal.slice(0, 3)) failures.push({ batch: b, kind: 'internal-error', dir, file: f.file, message: f.message.slice(0, 300) });
    failed = internal.length > 0;
    figures.badFilesWithAFinding += new Set(report.findings.filter((f) => f.ruleId === 'parse-error').map((f) => f.file)).size;
  }
  const previous = slowest;
  if (!failed && (!slowest || ms > slowest.ms)) slowest = { ms, dir, inputs };
  figures.slowestBatchMs = Math.max(figures.slowestBatchMs, Math.round(ms));
  process.stderr.write(`\rfuzz: ${figures.inputs}/${INPUTS} inputs, ${figures.crashes} crashes, ${figures.internalErrors} internal errors, ${figures.hangs} hangs`);
  // keep failing batches and the slowest one (for the attribution below)
  if (previous && previous !== slowest && !keep) rmSync(previous.dir, { recursive: true, force: true });
  if (!keep && !failed && slowest?.dir !== dir) rmSync(dir, { recursive: true, force: true });
}
figures.totalMs = Math.round(performance.now() - tStart);
process.stderr.write('\n');

// The slowest input: the slowest batch's inputs re-run in groups of 20, then the slowest group one by one.
let slowestInput;
if (slowest) {
  const groups = [];
  for (let k = 0; k < slowest.inputs.length; k += 20) groups.push(slowest.inputs.slice(k, k + 20));
  const timeOf = (inputs) => { const d = path.join(work, 'attribution'); writeInputs(d, inputs); const t = run(d).ms; rmSync(d, { recursive: true, force: true }); return t; };
  const worst = groups.map((g) => ({ g, ms: timeOf(g) })).sort((a, b) => b.ms - a.ms)[0];
  const one = worst.g.map((i) => ({ i, ms: timeOf([i]) })).sort((a, b) => b.ms - a.ms)[0];
  slowestInput = { ms: Math.round(one.ms), what: one.i.what, bytes: Buffer.byteLength(one.i.data) };
  if (!keep && !failures.some((f) => f.dir === slowest.dir)) rmSync(slowest.dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ ...figures, slowestInput, failures: failures.slice(0, 20), kept: failures.length ? work : undefined }, null, 2));
if (!keep && !failures.length) rmSync(work, { recursive: true, force: true });
