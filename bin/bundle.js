// Loads the single-file build of the CLI (dist/vaudit.bundle.cjs, scripts/build-bundle.mjs) with a
// V8 code cache, when it is current: one file to read and, from the second run on, almost nothing to
// compile (Node 20 has no module compile cache). Returns undefined, and bin/vaudit.js runs the
// module tree in dist/ as before, when there is no bundle, when any file it was built from changed
// since (a `tsc` without the rest of `npm run build`), or when VAUDIT_BUNDLE=0.
// The bundle holds no import() of its own (see src/core/dynamic-import.ts): it imports through the
// `__vaudit_import` this module passes in, resolved from here as from dist/ (the same node_modules).
//
// The code cache (dist/vaudit.bundle.cache) starts with the bundle's SHA-256 (from
// dist/vaudit.bundle.json): V8 itself only checks its own version, its flags and the source length.
// It is written after a run that had none or whose cache V8 rejected (another Node version), by
// writing a temporary file and renaming it over the old one; a read-only install just goes without.
// A cache holds the functions the runs that wrote it had compiled. One written by `vaudit --version`,
// `init` or `lsp`, or by a check of one small file, holds little of what a check of a suite runs, and
// every check after it compiled the rest again (a ScienceBoard check after a `--version` cache: main
// thread 1.10-1.19x; after a one-file check's cache: 1.06x). So the header also lists the inputs (a
// short hash of the folders each check was given and of the projects of the files it was given) whose
// checks wrote it, and a check of inputs not listed writes it again at its end: the new cache holds
// what the old one held and what this check compiled. A user's checks converge after one run each.
// The confirm stage's code is not added (a plain check would deserialise it for nothing).
'use strict';
const { accessSync, constants, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { setFlagsFromString } = require('node:v8');
const vm = require('node:vm');

const DIST = path.join(__dirname, '..', 'dist') + path.sep;
const BUNDLE = path.join(DIST, 'vaudit.bundle.cjs');
const META = path.join(DIST, 'vaudit.bundle.json');
const CACHE = path.join(DIST, 'vaudit.bundle.cache');
const HASH_BYTES = 64;
/** After the hash: how many inputs wrote the cache (2 hexadecimal digits), then each one's hash (8). */
const COUNT_BYTES = 2;
const INPUT_BYTES = 8;
/** Inputs listed at most: beyond that the cache is no longer written again (it holds what checks need). */
const MAX_INPUTS = 32;

/** FNV-1a of a string, 8 hexadecimal digits: names a check's inputs in the cache header. */
function inputsHash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(INPUT_BYTES, '0');
}

/**
 * The bundle's metadata when it is current: every input still has the size it was built from and, in a
 * clone that builds (its tsconfig.json is there), is not newer than the bundle (as make decides: a `tsc`
 * alone rewrites its outputs after the bundle). An installed package has no tsconfig.json and nothing
 * rebuilds its dist/; its files' dates are those of the unpacking (npm's install from git writes the
 * bundle before the modules), so there the sizes alone decide.
 */
function currentMeta() {
  let meta;
  try {
    meta = JSON.parse(readFileSync(META, 'utf8'));
    const built = existsSync(path.join(DIST, '..', 'tsconfig.json')) ? statSync(BUNDLE).mtimeMs : Infinity;
    for (const [rel, size] of meta.inputs) {
      const s = statSync(path.join(DIST, rel));
      if (s.size !== size || s.mtimeMs > built) return undefined;
    }
  } catch {
    return undefined;
  }
  return meta;
}

/** The code cache made for this bundle's bytes, if any, and the inputs whose checks wrote it. */
function readCache(sha256) {
  try {
    const data = readFileSync(CACHE);
    if (data.subarray(0, HASH_BYTES).toString('latin1') !== sha256) return { inputs: [] };
    const count = Number.parseInt(data.subarray(HASH_BYTES, HASH_BYTES + COUNT_BYTES).toString('latin1'), 16);
    if (!(count >= 0 && count <= MAX_INPUTS)) return { inputs: [] };
    const start = HASH_BYTES + COUNT_BYTES;
    const listed = data.subarray(start, start + count * INPUT_BYTES).toString('latin1');
    const inputs = Array.from({ length: count }, (_, i) => listed.slice(i * INPUT_BYTES, (i + 1) * INPUT_BYTES));
    return { data: data.subarray(start + count * INPUT_BYTES), inputs };
  } catch {
    return { inputs: [] };
  }
}

/** Whether the cache can be written here (a read-only install never can: do not make one for nothing). */
function writable() {
  try {
    accessSync(DIST, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function writeCache(sha256, inputs, data) {
  const tmp = `${CACHE}.${process.pid}.tmp`;
  const header = sha256 + inputs.length.toString(16).padStart(COUNT_BYTES, '0') + inputs.join('');
  try {
    writeFileSync(tmp, Buffer.concat([Buffer.from(header, 'latin1'), data]));
    renameSync(tmp, CACHE);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/**
 * V8 optimises a function once it has run through its "interrupt budget" of bytecode. The default suits
 * programs that live long; a `vaudit check` is over in one to a few seconds, and with 4 times the budget
 * only the really hot functions are optimised: the same main-thread time, 17-22 % less CPU in all (the
 * optimising compiler's thread), less wall time on a busy machine (bench/README.md, "V8 tiering"). Set
 * after the code cache was read (V8 checks a cache against its flags), and not in a run that writes
 * the cache (it would carry these flags) nor for the long-lived `vaudit lsp`.
 */
const LATE_OPTIMISATION = '--interrupt-budget=270336';
/** V8's own budget (Node 20), set again before a run that optimised late writes the cache: V8 stamps a
 *  cache with a hash of the flags that differ from their defaults and checks it against its flags when
 *  it reads the cache, before LATE_OPTIMISATION is set. */
const DEFAULT_OPTIMISATION = '--interrupt-budget=67584';

/** Whether this run should optimise late: any command but `lsp`, unless VAUDIT_LATE_OPTIMISATION=0. */
function wantsLateOptimisation(argv) {
  return process.env.VAUDIT_LATE_OPTIMISATION !== '0' && argv.find((a) => !a.startsWith('-')) !== 'lsp';
}

/**
 * The bundle's `main`, and `done()` to call once it returned (writes the code cache when needed);
 * undefined when the module tree must run instead. `lateOptimisation`: set `LATE_OPTIMISATION` once
 * the bundle is loaded, unless the cache is to be made (a check that adds to it sets V8's default
 * again before it writes).
 */
function loadBundle(lateOptimisation = false) {
  if (process.env.VAUDIT_BUNDLE === '0') return undefined;
  const meta = currentMeta();
  if (!meta) return undefined;
  let source;
  try {
    const bytes = readFileSync(BUNDLE);
    if (bytes.length !== meta.size) return undefined;
    // a one-byte string is a copy; UTF-8 would be decoded (twice the time on 1.5 MB)
    source = bytes.toString(meta.ascii ? 'latin1' : 'utf8');
  } catch {
    return undefined;
  }
  const { data: cachedData, inputs } = readCache(meta.sha256);
  // the CommonJS wrapper, as Node's own loader builds it, plus the importer
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __vaudit_import) {${source}\n})`, {
    filename: BUNDLE,
    cachedData,
  });
  const mod = { exports: {} };
  const importer = (specifier) => import(specifier);
  script.runInThisContext().call(mod.exports, mod.exports, createRequire(BUNDLE), mod, BUNDLE, DIST, importer);
  const { main, setBundleLoadInfo, staticPassInputs } = mod.exports;
  const stale = !cachedData || script.cachedDataRejected;
  const late = lateOptimisation && !stale;
  if (late) setFlagsFromString(LATE_OPTIMISATION);
  setBundleLoadInfo(`${!cachedData ? 'no code cache yet' : script.cachedDataRejected ? 'code cache rejected by V8' : `code cache used (from ${inputs.length} check input${inputs.length === 1 ? '' : 's'})`}${late ? '; V8 optimises late (4× interrupt budget)' : ''}`);
  return {
    main,
    done() {
      const ran = staticPassInputs();
      const key = ran === undefined ? undefined : inputsHash(ran);
      const listed = stale ? [] : inputs;
      const add = key !== undefined && !listed.includes(key) && listed.length < MAX_INPUTS;
      if ((!stale && !add) || !writable()) return;
      if (late) setFlagsFromString(DEFAULT_OPTIMISATION);
      writeCache(meta.sha256, add ? [...listed, key] : listed, script.createCachedData());
    },
  };
}

module.exports = { LATE_OPTIMISATION, loadBundle, wantsLateOptimisation };
