#!/usr/bin/env node
// vaudit command-line entry point: the single-file build when it is current (bin/bundle.js), else
// the compiled module tree in dist/.
import { setFlagsFromString } from 'node:v8';
import { LATE_OPTIMISATION, loadBundle, wantsLateOptimisation } from './bundle.js';
import { prestartThreads } from './prestart.js';

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
