#!/usr/bin/env node
// In-process cost of the scope table after a one-character edit in the editor's module (issue #14):
// the table an editor session builds (definitions the incremental parse took over are copied from the
// previous table) against a fresh `buildScopes` of the same tree, alternated on every edit.
//   npm run build && node bench/scope-reuse.mjs [--edits 200] [--py-lines 1000]
// Prints the median and p95 (ms) of each, and checks both tables list the same scopes and reads.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pythonModule } from './lsp-workspace.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({ options: { edits: { type: 'string', default: '200' }, 'py-lines': { type: 'string', default: '1000' } } });
const dist = (p) => import(pathToFileURL(path.join(here, '..', 'dist/src/lang/python', p)).href);
const { createPythonProject } = await dist('project.js');
const { buildScopes, scopeStats } = await dist('scopes.js');
const { SourceText } = await import(pathToFileURL(path.join(here, '..', 'dist/src/core/source.js')).href);

const abs = path.resolve('/tmp/vaudit-scope-reuse/mixin.py');
const keepTrees = new Set([abs]);
const file = (text) => ({ path: abs, relPath: 'mixin.py', language: 'python', source: new SourceText(text) });
const base = pythonModule(Number(args['py-lines']));
// the spot of bench/lsp-latency.mjs: inside `found` in the middle of the module, typed then deleted
const at = base.indexOf('        found = None', Math.floor(base.length / 2)) + '        found'.length;
let project = await createPythonProject([file(base)], { keepTrees });
void project.analysis(abs).scopes;
const reused = [];
const fresh = [];
const stats0 = { ...scopeStats };
for (let i = 0; i < Number(args.edits); i++) {
  const text = i % 2 === 0 ? base.slice(0, at) + 'x' + base.slice(at) : base;
  const next = await createPythonProject([file(text)], { reuse: project, keepTrees });
  project.dispose();
  project = next;
  const a = project.analysis(abs);
  let t0 = performance.now();
  const got = a.scopes;
  reused.push(performance.now() - t0);
  t0 = performance.now();
  const want = buildScopes(a.ast, a.text);
  fresh.push(performance.now() - t0);
  if (got.scopes.length !== want.scopes.length || got.reads.length !== want.reads.length) throw new Error(`edit ${i}: tables differ`);
}
project.dispose();
const q = (xs, p) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(2);
console.log(`scopes after an edit, ${args.edits} edits of a ${args['py-lines']}-line module:`);
console.log(`  reused (editor session): median ${q(reused, 0.5)} ms, p95 ${q(reused, 0.95)} ms (${scopeStats.reused - stats0.reused} tables reused, ${scopeStats.spliced - stats0.spliced} statements copied)`);
console.log(`  fresh buildScopes:       median ${q(fresh, 0.5)} ms, p95 ${q(fresh, 0.95)} ms`);
