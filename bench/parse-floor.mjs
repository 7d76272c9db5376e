#!/usr/bin/env node
// The floor under any `vaudit check` of a folder: what a process must do before it can analyse
// anything, and nothing more. Reads and parses every .py file under the folders with the native
// tree-sitter parser `vaudit` uses, walks each tree once with a cursor reading what a copy of the tree
// needs (type, field, range), and reads and decodes every .json file (the task files). No analysis,
// no report. `corpora.mjs` times it whole in the same run as `vaudit check`, beside a bare `node -e 0`,
// so a target in seconds can be read against what parsing alone costs on the machine of the day.
// Prints files, nodes and characters as JSON.
// Usage: node bench/parse-floor.mjs <dir>...
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { filesUnder } from './measure.mjs';

const require = createRequire(import.meta.url);
const Parser = require('tree-sitter');
const Python = require('tree-sitter-python');

const py = filesUnder(process.argv.slice(2), ['.py']);
const json = filesUnder(process.argv.slice(2), ['.json']);

const parser = new Parser();
parser.setLanguage(Python);
let nodes = 0;
let chars = 0;
let sink = 0;
for (const f of py) {
  const text = readFileSync(f, 'utf8');
  chars += text.length;
  const c = parser.parse(text).walk();
  for (;;) {
    nodes++;
    // what convertTree reads of every node (src/lang/python/tree.ts)
    sink += c.nodeTypeId + (c.currentFieldId ?? 0) + c.startIndex + c.endIndex;
    if (c.gotoFirstChild()) continue;
    let done = false;
    while (!c.gotoNextSibling()) {
      if (!c.gotoParent()) {
        done = true;
        break;
      }
    }
    if (done) break;
  }
}
let decoded = 0;
for (const f of json) {
  try {
    JSON.parse(readFileSync(f, 'utf8'));
    decoded++;
  } catch {
    // a file that is not JSON is read all the same
  }
}
console.log(JSON.stringify({ pyFiles: py.length, nodes, chars, jsonFiles: json.length, decoded, sink: sink > 0 }));
