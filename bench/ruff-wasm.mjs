#!/usr/bin/env node
// Ruff (the npm wasm build, @astral-sh/ruff-wasm-nodejs) over every .py file under the given
// folders, in one process: the peer `corpora.mjs` times whole. Prints files, lines, diagnostics.
// Usage: node bench/ruff-wasm.mjs <dir>...
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Workspace, PositionEncoding } = require('@astral-sh/ruff-wasm-nodejs');

const files = [];
const walk = (d) => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) { if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(p); }
    else if (e.name.endsWith('.py')) files.push(p);
  }
};
for (const d of process.argv.slice(2)) walk(path.resolve(d));
const ws = new Workspace(Workspace.defaultSettings(), PositionEncoding.Utf16);
let lines = 0;
let diagnostics = 0;
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  lines += text.split('\n').length;
  diagnostics += ws.check(text).length;
}
console.log(JSON.stringify({ ruff: Workspace.version(), files: files.length, lines, diagnostics }));
