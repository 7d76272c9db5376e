#!/usr/bin/env node
// Generate a realistic task suite in the reference format (SPEC §1.1).
//   node bench/gen-suite.mjs <outDir> [scale=1] [--verifier]
// Scale 1 ≈ the real suite: 169 tasks (Celestia 33, ChimeraX 29, GrassGIS 34, KAlgebra 31,
// Lean 26, TeXstudio 16) and ≈250 verifier entries, with Python lambdas, regexes, initializers,
// stop/ANS answers, and about 5% seeded JSON-layer defects. Deterministic (fixed PRNG seed).
// --verifier also copies the demo verifier package (fixtures/demo-suite/verifier) next to the tasks.
import { cpSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [outArg, scaleArg, ...flags] = process.argv.slice(2);
if (!outArg) {
  console.error('usage: node bench/gen-suite.mjs <outDir> [scale=1] [--verifier]');
  process.exit(2);
}
const out = path.resolve(outArg);
const scale = Math.max(1, Number(scaleArg ?? 1) | 0);

let seed = 0x5eed1234;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const defect = () => rand() < 0.05;

const PLANETS = ['Mercury', 'Venus', 'Earth', 'Mars', 'Jupiter', 'Saturn', 'Uranus', 'Neptune', 'Pluto', 'Io', 'Europa', 'Titan'];
const PDB = ['2olx', '1ubq', '4hhb', '1crn', '3eiy', '6vxx', '1bna', '7k3g', '2lyz', '5xnl'];
const RASTERS = ['elevation', 'landuse', 'soils', 'aspect', 'slope', 'geology', 'streams', 'roads'];
const FUNCS = ['x^2+1', 'sin(x)*x', 'exp(-x^2)', 'ln(x+1)', 'x^3-2*x', 'sqrt(x)', 'cos(2*x)'];

const launch = (app, ...args) => ({ func: 'launch', command: [app, ...args], wait: pick([3, 5, 7.5]) });
const chimeraLaunch = () => launch('chimerax', '--cmd', 'remotecontrol rest start port 8765');

function celestia(i) {
  const p = pick(PLANETS);
  const entries = [{ type: 'info', key: "lambda dump: dump['selection']['name']", value: p, pred: defect() ? 'lambda key, value: value in key' : 'lambda key, value: key.lower() == value.lower()' }];
  const t = { type: 'Celestia', sort: 'VM', steps: int(5, 20), instruction: `Travel to ${p} and center it in the view (task ${i}).`, initialize: [launch('celestia', '--once')], evaluate: entries };
  if (rand() < 0.25) entries.push({ type: 'info', key: "lambda dump: dump['time']['scale']", value: pick([0.05, 0.5, 2, 10]), pred: defect() ? 'lambda key: abs(key) < 1' : 'lambda key, value: abs(key - value) < 0.001' });
  if (rand() < 0.2) {
    const d = (rand() * 1000).toFixed(2);
    entries.push({ type: 'stop', value: 'ANS', args: [d] });
    t.ans = defect() ? `ANS ${(Number(d) + 0.1).toFixed(2)}` : `ANS ${d}`;
  }
  return t;
}

function chimerax(i) {
  const id = pick(PDB);
  const entries = [{ type: 'states', key: '_state_containers.models._models.(1,)._name', value: id }];
  if (rand() < 0.35)
    entries.push({
      type: 'states',
      key: defect() ? "lambda key: '.'.join(key.split('.')[:-1] + ['_border']" : "lambda key: '.'.join(key.split('.')[:-1] + ['_border'])",
      find: "lambda key, value: key.endswith(')._name') and value == 'Color key'",
      value: null,
    });
  if (rand() < 0.2) entries.push({ type: 'info', key: defect() ? "lambda dump: [m for m in dump['models'] if m['shown']][0]['name']" : "lambda dump: sorted(m['name'] for m in dump['models'] if m['shown'])", value: [id] });
  if (rand() < 0.2) entries.push({ type: 'info', key: 'log', value: null, pattern: defect() ? '^(\\w+\\s?)*$' : '(?P<atoms>\\d+) atoms, (?P<bonds>\\d+) bonds' });
  if (rand() < 0.15) entries.push({ type: 'file', path: `/home/user/out/${id}-${i}.cxs`, value: null });
  const t = { type: 'ChimeraX', sort: 'VM', steps: int(5, 25), instruction: `Fetch ${id.toUpperCase()} from PDB in ChimeraX and prepare the figure (task ${i}).`, initialize: [chimeraLaunch()], evaluate: entries };
  if (rand() < 0.25) {
    const w = (rand() * 200).toFixed(2);
    entries.push({ type: 'stop', value: 'ANS', args: [w] });
    t.ans = `ANS ${w}`;
  }
  return t;
}

function grassgis(i) {
  const r = pick(RASTERS);
  const n = int(10000, 999999);
  const entries = [];
  const kind = rand();
  if (kind < 0.4) entries.push({ type: 'info', key: `lambda dump: dump['r.info']['${r}']['cells']`, value: n, pred: 'lambda key, value: int(key) == value' });
  else if (kind < 0.7) entries.push({ type: 'db', path: '/home/user/grassdata/nc_spm/PERMANENT/sqlite/sqlite.db', query: `SELECT COUNT(*) FROM ${r}_${i}`, value: [[int(1, 500)]] });
  else entries.push({ type: 'info', key: "lambda dump: dump['g.region']", value: null, pattern: defect() ? '^rows:\\s+(?<rows>\\d+)$' : '(?m)^rows:\\s+(?P<rows>\\d+)$' });
  if (rand() < 0.15) entries.push({ type: 'info', key: `lambda dump: dump['layers']`, value: r, pred: defect() ? 'lambda key, value: value in key' : "lambda key, value: value in key.split(',')" });
  const t = { type: 'GrassGIS', sort: 'VM', steps: int(5, 30), instruction: `Work with the “${r}” raster in the nc_spm location (task ${i}).`, initialize: [launch('grass', '--gui', '/home/user/grassdata/nc_spm/PERMANENT')], evaluate: entries };
  if (rand() < 0.2) {
    entries.push({ type: 'stop', value: 'ANS', args: [String(n)] });
    t.ans = `ANS ${n}`;
  }
  return t;
}

function kalgebra(i) {
  const f = pick(FUNCS);
  const entries = [{ type: 'eqn', value: `f(x)=${f}` }];
  if (rand() < 0.25) entries.push({ type: 'var', key: 'f', value: `x->${f}` });
  if (rand() < 0.2) entries.push(defect() ? { type: 'val', key: 'f(2)', vlaue: int(1, 99) } : { type: 'val', key: 'f(2)', value: int(1, 99) });
  const t = { type: 'KAlgebra', sort: 'VM', steps: int(3, 12), instruction: `Define f(x) = ${f} and plot it (task ${i}).`, initialize: [launch('kalgebra')], evaluate: entries };
  if (rand() < 0.2) {
    const v = int(1, 5000);
    entries.push({ type: 'stop', value: 'ANS', args: [String(v)] });
    t.ans = `ANS ${v}`;
  }
  return t;
}

function lean(i) {
  const a = pick(['n + 0 = n', '0 + n = n', 'a * b = b * a', 'a + b = b + a', 'n * 1 = n', '(a + b) + c = a + (b + c)']);
  const proof = defect() ? 'by\n  simp' : 'by sorry';
  return {
    type: 'Lean',
    sort: 'VM',
    steps: int(10, 40),
    instruction: `Replace the sorry with a proof that ${a} (task ${i}).`,
    initialize: [launch('code', `/home/user/lean/T${i}`), { func: 'query', text: `theorem t${i} (a b c n : Nat) : ${a} := ${proof}\n` }],
    evaluate: [{ type: 'placeholder', project: `/home/user/lean/T${i}` }],
  };
}

function texstudio(i) {
  const file = `/home/user/doc${i}/main.tex`;
  const twice = defect();
  const text = `\\documentclass{article}\n\\begin{document}\n\\section{Intro}\nSome text ${i}.\n${twice ? '\\section{Intro}' : '\\section{Method}'}\n\\input{chapters/results}\n\\end{document}\n`;
  const entries = [
    { type: 'file', path: file, source: '\\section{Intro}', target: '\\section{Introduction}' },
    { type: 'compile', path: file },
  ];
  if (rand() < 0.25) entries.push({ type: 'include', path: file, value: 'chapters/results' });
  return { type: 'TeXstudio', sort: 'VM', steps: int(5, 15), instruction: `Rename the section “Intro” to “Introduction” and compile (task ${i}).`, initialize: [launch('texstudio', file), { func: 'touch', path: file, text }], evaluate: entries };
}

const FAMILIES = [['Celestia', 33, celestia], ['ChimeraX', 29, chimerax], ['GrassGIS', 34, grassgis], ['KAlgebra', 31, kalgebra], ['Lean', 26, lean], ['TeXstudio', 16, texstudio]];

if (existsSync(path.join(out, 'tasks'))) rmSync(path.join(out, 'tasks'), { recursive: true, force: true });
let tasks = 0;
let entries = 0;
for (let s = 0; s < scale; s++) {
  for (const [family, count, make] of FAMILIES) {
    const dir = path.join(out, 'tasks', family);
    mkdirSync(dir, { recursive: true });
    for (let k = 0; k < count; k++) {
      const i = s * 1000 + k;
      const t = make(i);
      tasks++;
      entries += t.evaluate.length;
      writeFileSync(path.join(dir, `${family.toLowerCase()}-${String(i).padStart(5, '0')}.json`), JSON.stringify(t, null, 2) + '\n');
    }
  }
}
if (flags.includes('--verifier')) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  cpSync(path.join(here, '..', 'fixtures', 'demo-suite', 'verifier'), path.join(out, 'verifier'), { recursive: true });
}
console.log(JSON.stringify({ out, scale, tasks, entries }));
