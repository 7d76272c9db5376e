/**
 * Visitors are typed by node type: Python keys are tree-sitter-python's concrete node types
 * (generated into src/lang/python/node-types.ts), JS keys are ESTree types whose visitor gets that
 * node's own type. The @ts-expect-error lines are checked by `npm run lint` (tsc over test/).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { JavaScriptVisitors, PythonVisitors } from '../src/contract/rule.js';

it('the generated Python node-type union matches the installed grammar', () => {
  const r = spawnSync(process.execPath, [path.resolve(import.meta.dirname, '../scripts/gen-node-types.mjs'), '--check'], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

it('accepts real node types and rejects misspelt ones at compile time', () => {
  const py = { comparison_operator: () => {}, 'call:exit': () => {} } satisfies PythonVisitors<string>;
  // @ts-expect-error 'comparision_operator' is not a tree-sitter-python node type
  const badPy = { comparision_operator: () => {} } satisfies PythonVisitors<string>;
  const js = { Identifier: (node) => void node.name } satisfies JavaScriptVisitors<string>;
  // @ts-expect-error 'CallExpresion' is not an ESTree node type
  const badJs = { CallExpresion: () => {} } satisfies JavaScriptVisitors<string>;
  expect(Object.keys({ ...py, ...badPy, ...js, ...badJs })).toHaveLength(5);
});
