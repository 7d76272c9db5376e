#!/usr/bin/env node
// vaudit command-line entry point: the single-file build when it is current (bin/bundle.js), else
// the compiled module tree in dist/.
// CommonJS (bin/package.json), like the rest of bin/: an ES module entry makes Node set up its ESM
// loader (resolve, translate, link the entry and the modules it imports) before anything runs,
// ≈ 10 ms of the main thread at every start; a check runs no ES module on the main thread otherwise
// (the bundle is a CommonJS script, and the module tree below is imported only when it is stale).
'use strict';
const { setFlagsFromString } = require('node:v8');
const { LATE_OPTIMISATION, loadBundle, wantsLateOptimisation } = require('./bundle.js');
const { prestartThreads } = require('./prestart.js');

async function run() {
  // threads that parse ahead start first: their start-up overlaps loading the CLI
  prestartThreads(process.argv.slice(2));
  const late = wantsLateOptimisation(process.argv.slice(2));
  const bundle = loadBundle(late);
  // the module tree has no code cache to keep valid
  if (!bundle && late) setFlagsFromString(LATE_OPTIMISATION);
  const { main } = bundle ?? (await import('../dist/src/cli/main.js'));
  const code = await main(process.argv.slice(2));
  bundle?.done();
  process.exitCode = code;
}

run();
