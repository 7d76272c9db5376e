#!/usr/bin/env node
// vaudit command-line entry point: the single-file build when it is current (bin/bundle.js), else
// the compiled module tree in dist/.
import { loadBundle } from './bundle.js';

const bundle = loadBundle();
const { main } = bundle ?? (await import('../dist/src/cli/main.js'));
const code = await main(process.argv.slice(2));
bundle?.done();
process.exitCode = code;
