#!/usr/bin/env node
/**
 * Compare vaudit's `unbound-name` analysis with pyright's reportPossiblyUnbound /
 * reportUnboundVariable / reportUndefinedVariable on the same Python files, and time both.
 *
 *   npm run build
 *   npm i --prefix /tmp/scratch-pyright pyright@1.1.414
 *   node bench/pyright-compare.mjs [--pyright /tmp/scratch-pyright/node_modules/.bin/pyright] [files…]
 *
 * Default files: 24 modules of the local CPython standard library. Prints agreement per kind and
 * every disagreement (file:line name), then the wall time of each tool.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '../dist/src/lang/python');
const { pythonParser } = await import(path.join(dist, 'parser.js'));
const { Analysis } = await import(path.join(dist, 'analysis.js'));

const args = process.argv.slice(2);
let pyright = '/tmp/scratch-pyright/node_modules/.bin/pyright';
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--pyright') pyright = args[++i];
  else files.push(path.resolve(args[i]));
}
if (!files.length) {
  const stdlib = execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' }).trim();
  for (const m of ['argparse', 'base64', 'configparser', 'contextlib', 'csv', 'dataclasses', 'difflib', 'enum', 'functools', 'ipaddress',
    'optparse', 'pdb', 'pickle', 'pprint', 're/_parser', 'shutil', 'smtplib', 'statistics', 'subprocess', 'tarfile', 'tokenize', 'warnings', 'zipfile', 'inspect']) {
    files.push(path.join(stdlib, `${m}.py`));
  }
}

// ---- vaudit ----
const t0 = performance.now();
const parser = await pythonParser();
const ours = new Map();
let lines = 0;
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  lines += text.split('\n').length;
  const tree = parser.parse(text);
  const a = new Analysis(tree, text, f);
  for (const r of a.unboundReads()) ours.set(`${f}:${a.line(r.node)}:${r.name}`, r.kind === 'maybe' ? 'possibly' : r.kind === 'unbound' ? 'unbound' : 'undefined');
  tree.delete();
}
const tOurs = performance.now() - t0;

// ---- pyright ----
if (!existsSync(pyright)) {
  console.log(`vaudit: ${files.length} files, ${lines} lines, ${tOurs.toFixed(0)} ms, ${ours.size} reports (pyright not found at ${pyright})`);
  process.exit(0);
}
const t1 = performance.now();
let out;
try {
  out = execFileSync(pyright, ['--outputjson', '--pythonversion', '3.11', '--pythonplatform', 'Linux', ...files], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'], timeout: 600_000, killSignal: 'SIGKILL' });
} catch (e) {
  out = e.stdout;
}
const tPyright = performance.now() - t1;
const theirs = new Map();
for (const d of JSON.parse(out).generalDiagnostics) {
  const kind = { reportPossiblyUnboundVariable: 'possibly', reportPossiblyUnbound: 'possibly', reportUnboundVariable: 'unbound', reportUndefinedVariable: 'undefined' }[d.rule];
  if (!kind) continue;
  const name = /"([^"]+)"/.exec(d.message)?.[1];
  theirs.set(`${d.file}:${d.range.start.line + 1}:${name}`, kind);
}

const both = [...ours.keys()].filter((k) => theirs.has(k));
const onlyOurs = [...ours.keys()].filter((k) => !theirs.has(k));
const onlyTheirs = [...theirs.keys()].filter((k) => !ours.has(k));
const short = (k) => k.replace(/^.*\/python3\.\d+\//, '');
console.log(`files ${files.length}, lines ${lines}`);
console.log(`vaudit reports ${ours.size}, pyright reports ${theirs.size}, agree ${both.length}`);
console.log(`precision vs pyright ${(both.length / Math.max(1, ours.size) * 100).toFixed(1)}%, recall vs pyright ${(both.length / Math.max(1, theirs.size) * 100).toFixed(1)}%`);
console.log('\nonly vaudit:');
for (const k of onlyOurs) console.log(`  ${short(k)} (${ours.get(k)})`);
console.log('\nonly pyright:');
for (const k of onlyTheirs) console.log(`  ${short(k)} (${theirs.get(k)})`);
console.log(`\ntime: vaudit ${tOurs.toFixed(0)} ms, pyright ${tPyright.toFixed(0)} ms (${(tPyright / tOurs).toFixed(1)}x)`);
