#!/usr/bin/env node
// vaudit command-line entry point (runs the compiled CLI from dist/).
import { main } from '../dist/src/cli/main.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
