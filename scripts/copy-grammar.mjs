#!/usr/bin/env node
// The Python grammar's wasm build, copied into dist/grammars/ by `npm run build`: the wasm parser
// (web-tree-sitter, a plain dependency) is the fallback when the native tree-sitter addon cannot be
// installed or loaded, and tree-sitter-python, which ships the wasm, is an optional dependency that
// npm drops entirely when its native addon fails to build (no compiler, an older libstdc++). The
// installed package carries its own copy so that the fallback always has its grammar.
//
//   node scripts/copy-grammar.mjs
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const from = createRequire(path.join(ROOT, 'package.json')).resolve('tree-sitter-python/tree-sitter-python.wasm');
const to = path.join(ROOT, 'dist', 'grammars', 'tree-sitter-python.wasm');
mkdirSync(path.dirname(to), { recursive: true });
copyFileSync(from, to);
