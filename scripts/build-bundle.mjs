#!/usr/bin/env node
// The single-file build of the CLI (issue 14: start-up): `dist/vaudit.bundle.cjs`, made with esbuild
// from what `tsc` just wrote to dist/ (the same code as the module tree, in one file), plus
// `dist/vaudit.bundle.json` (what it was built from, for the staleness check in bin/bundle.js).
// Loading one file instead of ~130 ES modules (resolve, stat, open, read, compile each) and, with
// the V8 code cache bin/bundle.js keeps next to it, skipping the compilation, saves most of the
// process's start-up. bin/vaudit.js falls back to dist/src/cli/main.js when the bundle is absent
// or older than any of its inputs (e.g. after a plain `tsc`).
//
// - Every module keeps its own `import.meta.url`: each file's references are replaced by the URL of
//   the file it came from (computed at run time from where the bundle is), so paths found relative to
//   a module (rules/, schemas/, the harness, createRequire) are the module tree's.
// - Modules loaded by computed URL are in the bundle too, registered by that URL
//   (src/core/dynamic-import.ts): the rules (rules/<id>/rule.js, oracle.js) and the confirm stage.
//   One copy of every module, so no state or class exists twice.
// - Native addons, wasm, and the large packages loaded lazily stay external (required from
//   node_modules as before). The bundle itself holds no import(): bin/bundle.js passes it an importer
//   (`__vaudit_import`, see src/core/dynamic-import.ts); the build fails if esbuild left one.
//
// Needs esbuild (a devDependency). Without it (a production install building from sources) the
// build skips the bundle and says so; the CLI then runs from dist/ as before.
//
//   node scripts/build-bundle.mjs
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'vaudit.bundle.cjs');
const META = path.join(DIST, 'vaudit.bundle.json');
const CACHE = path.join(DIST, 'vaudit.bundle.cache');

/** Kept out of the bundle: native addons and wasm, and what only some commands load (lazily). */
const EXTERNAL = [
  'tree-sitter', 'tree-sitter-python', 'web-tree-sitter', 'recheck', 'typescript', 'ts-morph', 'ts-blank-space',
  'ajv', 'ajv/*', 'vscode-languageserver', 'vscode-languageserver/*', 'vscode-languageserver-textdocument', 'vscode-jsonrpc', 'vscode-jsonrpc/*',
];

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error('build-bundle: esbuild is not installed; skipping the single-file build (bin/vaudit.js runs dist/ directly)');
  for (const f of [OUT, META, CACHE]) rmSync(f, { force: true });
  process.exit(0);
}

/** Modules some code loads by a computed URL (registry, oracles, check's confirm stage), relative to dist/. */
function dynamicModules() {
  const out = ['src/confirm/index.js'];
  const rules = path.join(DIST, 'rules');
  for (const id of readdirSync(rules).sort()) {
    for (const name of ['rule.js', 'oracle.js']) if (existsSync(path.join(rules, id, name))) out.push(`rules/${id}/${name}`);
  }
  return out;
}

const dynamic = dynamicModules();
const entry = [
  "import { setBundledModules } from './src/core/dynamic-import.js';",
  "export { setBundleLoadInfo, staticPassInputs } from './src/core/dynamic-import.js';",
  "export { main } from './src/cli/main.js';",
  "import { setBundledValidators } from './src/suites/schema.js';",
  // the task-schema validators (scripts/compile-schemas.mjs wrote them just before): in the bundle, so in its code cache
  "setBundledValidators(() => require('./schemas/task-validators.cjs'));",
  // acorn, initialised when the first JavaScript is parsed (src/lang/js/acorn.ts), not at every start
  "import { setBundledAcorn } from './src/lang/js/acorn.js';",
  "setBundledAcorn(() => require('acorn'));",
  'setBundledModules(new Map([',
  ...dynamic.map((rel) => `  [new URL(${JSON.stringify(`./${rel}`)}, __vaudit_base).href, () => import(${JSON.stringify(`./${rel}`)})],`),
  ']), __vaudit_import);',
].join('\n');

/**
 * Bundled packages that load another package through `createRequire` at their start, which esbuild
 * cannot follow: the package would be resolved, read and compiled from node_modules at every start,
 * outside the code cache. Each edit imports it instead (the bundle's one copy); the build fails when
 * the text is no longer there (a new version of the package), so that an edit never silently stops
 * applying.
 * - fdir requires picomatch for its own `glob()` (tinyglobby, our only user of fdir, matches with its
 *   own picomatch, already bundled): resolving and compiling it cost ≈ 5 ms of each start.
 */
const REQUIRE_EDITS = [
  {
    file: /[\\/]node_modules[\\/]fdir[\\/]dist[\\/]index\.mjs$/,
    from: '__require.resolve("picomatch");\n\tpm = __require("picomatch");',
    to: 'pm = __vaudit_picomatch;',
    prepend: 'import __vaudit_picomatch from "picomatch";\n',
  },
];

/** The edits of `REQUIRE_EDITS` that apply to a file, applied; throws when one no longer matches. */
function applyRequireEdits(file, text) {
  let out = text;
  for (const e of REQUIRE_EDITS.filter((x) => x.file.test(file))) {
    if (!out.includes(e.from)) throw new Error(`build-bundle: ${file} no longer contains ${JSON.stringify(e.from)}; update REQUIRE_EDITS`);
    out = e.prepend + out.replace(e.from, e.to);
  }
  return out;
}

/** Each module's `import.meta.url` becomes the URL of its own file relative to dist/, wherever dist/ is at run
 *  time (a bundled package's, e.g. fdir's createRequire, points into node_modules as before). */
const metaUrlPlugin = {
  name: 'vaudit-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const edited = applyRequireEdits(args.path, text);
      if (!text.includes('import.meta.url')) return edited === text ? undefined : { contents: edited, loader: 'js' };
      const rel = path.relative(DIST, args.path).split(path.sep).join('/');
      return {
        contents: `var __vaudit_import_meta_url = new URL(${JSON.stringify(`./${rel}`)}, __vaudit_base).href;\n${edited}`,
        loader: 'js',
      };
    });
  },
};

const result = await esbuild.build({
  stdin: { contents: entry, resolveDir: DIST, sourcefile: 'vaudit-bundle-entry.js', loader: 'js' },
  bundle: true,
  platform: 'node',
  // ESM builds first: jsonc-parser's UMD main requires its parts through a wrapper esbuild cannot follow
  mainFields: ['module', 'main'],
  format: 'cjs',
  target: 'node20',
  outfile: OUT,
  external: EXTERNAL,
  define: { 'import.meta.url': '__vaudit_import_meta_url' },
  banner: { js: "var __vaudit_base = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [metaUrlPlugin],
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
  // no comments or indentation: a smaller file to read and hash, and a one-byte (ASCII) string to
  // decode (bin/bundle.js reads it as latin1 when `ascii`); names stay, so stack traces still name functions
  minifyWhitespace: true,
  charset: 'ascii',
});

const left = Object.values(result.metafile.outputs).flatMap((o) => o.imports).filter((i) => i.kind === 'dynamic-import' && i.external);
if (left.length) {
  console.error(`build-bundle: import() of ${left.map((i) => i.path).join(', ')} left in the bundle; load them with importModule (src/core/dynamic-import.ts)`);
  process.exit(1);
}

const inputs = Object.keys(result.metafile.inputs)
  .map((p) => path.resolve(ROOT, p))
  .filter((p) => existsSync(p)) // not the generated entry
  .sort();
const bundle = readFileSync(OUT);
writeFileSync(META, JSON.stringify({
  sha256: createHash('sha256').update(bundle).digest('hex'),
  size: bundle.length,
  ascii: bundle.every((b) => b < 0x80),
  // the staleness check (bin/bundle.js): current while every input in dist/ has this size and is not newer
  // than the bundle (the packages bundled from node_modules are copies: where npm puts them does not matter)
  inputs: inputs.filter((p) => p.startsWith(DIST + path.sep)).map((p) => [path.relative(DIST, p).split(path.sep).join('/'), statSync(p).size]),
}) + '\n');
// The code cache: bin/bundle.js writes it after a run that had none; this run (the demo suite: tasks,
// Python and JS verifiers, most rules) makes it cover what a check compiles, not just start-up.
rmSync(CACHE, { force: true });
const warm = spawnSync(process.execPath, [path.join(ROOT, 'bin/vaudit.js'), 'check', path.join(ROOT, 'fixtures/demo-suite'), '--format', 'json', '--output-file', process.platform === 'win32' ? 'NUL' : '/dev/null'], {
  cwd: ROOT, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL', env: { ...process.env, VAUDIT_BUNDLE: '1' },
});
if (!existsSync(CACHE)) console.error(`build-bundle: no code cache was written (the warm-up run exited ${warm.status}: ${(warm.stderr ?? '').slice(0, 500)})`);
console.error(`single-file build → ${path.relative(ROOT, OUT)} (${(bundle.length / 1024).toFixed(0)} KB, ${inputs.length} modules)`);
