#!/usr/bin/env node
// Ruff (the npm wasm build, @astral-sh/ruff-wasm-nodejs) over every .py file under the given
// folders, in one process: the peer `corpora.mjs` times whole. Prints files, lines, diagnostics.
// Usage: node bench/ruff-wasm.mjs <dir>...
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { filesUnder } from './measure.mjs';

const require = createRequire(import.meta.url);
const { Workspace, PositionEncoding } = require('@astral-sh/ruff-wasm-nodejs');

const files = filesUnder(process.argv.slice(2), ['.py']);
const ws = new Workspace(Workspace.defaultSettings(), PositionEncoding.Utf16);
let lines = 0;
let diagnostics = 0;
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  lines += text.split('\n').length;
  diagnostics += ws.check(text).length;
}
console.log(JSON.stringify({ ruff: Workspace.version(), files: files.length, lines, diagnostics }));
