#!/usr/bin/env node
// Skip a redundant build: `npm ci` already builds dist/ (through `prepare`), so `npm test`,
// `npm run demo`, `npm run bench` and `npm run readme` build only when an input of the build
// changed since. The stamp is a hash of the build's inputs (what tsconfig.json compiles, the
// schemas, the build configuration), written into dist/ at the end of `npm run build`.
//
//   node scripts/build-stamp.mjs write    record the inputs of the build that just finished
//   node scripts/build-stamp.mjs ensure   run `npm run build` unless dist/ matches the inputs
//   node scripts/build-stamp.mjs prepare  npm's `prepare` (npm ci, a git or folder install): as ensure,
//                                         but where dist/ is stale and the build's tools are not installed
//                                         (a git install without devDependencies) it fails saying so;
//                                         a release tag carries a built dist/, so nothing is built
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const OUTPUTS = ['dist/src/cli/main.js', 'dist/schemas/task-validators.cjs', 'dist/grammars/tree-sitter-python.wasm'];
const BUILD_TIMEOUT_MS = 30 * 60_000;

function walk(dir, keep, out) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, keep, out);
    else if (keep(p)) out.push(p);
  }
  return out;
}

/** The inputs of `npm run build`: tsconfig's include (src/**, rules/<id>/*.ts), schemas, build config. */
function inputs() {
  const files = walk(path.join(ROOT, 'src'), (p) => p.endsWith('.ts'), []);
  const rules = path.join(ROOT, 'rules');
  for (const r of existsSync(rules) ? readdirSync(rules, { withFileTypes: true }) : []) {
    if (!r.isDirectory()) continue;
    const d = path.join(rules, r.name);
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isFile() && e.name.endsWith('.ts')) files.push(path.join(d, e.name));
  }
  walk(path.join(ROOT, 'schemas'), () => true, files);
  for (const f of ['tsconfig.json', 'package-lock.json', 'scripts/compile-schemas.mjs', 'scripts/copy-grammar.mjs', 'scripts/build-bundle.mjs']) if (existsSync(path.join(ROOT, f))) files.push(path.join(ROOT, f));
  return files.sort();
}

function digest() {
  const h = createHash('sha256');
  for (const f of inputs()) h.update(path.relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

const current = () => existsSync(STAMP) && OUTPUTS.every((o) => existsSync(path.join(ROOT, o))) && readFileSync(STAMP, 'utf8').trim() === digest();

function build() {
  // bounded like every process vaudit starts: a build that hangs ends the command with an error
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32', timeout: BUILD_TIMEOUT_MS, killSignal: 'SIGKILL' });
  if (r.error) console.error(`build-stamp: npm run build failed: ${r.error.message}`);
  process.exitCode = r.status ?? 1;
}

/** The compiler the build runs (`tsc`, of the typescript dependency): absent when npm installed nothing. */
function canBuild() {
  try {
    createRequire(path.join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
    return true;
  } catch {
    return false;
  }
}

const mode = process.argv[2];
if (mode === 'write') {
  writeFileSync(STAMP, digest() + '\n');
} else if (mode === 'ensure') {
  if (!current()) build();
} else if (mode === 'prepare') {
  if (current()) {
    // a release: dist/ was built from exactly these sources
  } else if (canBuild()) build();
  else {
    console.error(
      'vaudit: dist/ is missing or older than the sources, and the build tools (typescript, esbuild) are not installed.\n' +
        'Install a release, which carries a built dist/: a tag such as git+https://github.com/vaudit/vaudit#v' +
        JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version +
        ' (pre-commit: rev: v<version>), or a tarball from `npm pack`; or run `npm ci` in a clone.',
    );
    process.exitCode = 1;
  }
} else {
  console.error('usage: node scripts/build-stamp.mjs write|ensure|prepare');
  process.exitCode = 2;
}
