/**
 * Data flows one way (README "Architecture"): lower layers never import higher ones. Imports are
 * read with the TypeScript compiler's own pre-processor (type-only imports count too).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes('/fixtures/'));
}

/** `src/<top>` or `rules/<id>` of a repository-relative path. */
const unitOf = (rel: string) => rel.split('/').slice(0, 2).join('/');

function imports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((f) => f.startsWith('.'))
    .map((f) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), f)).split(path.sep).join('/'));
}

/** The layers, bottom to top (README "Architecture"). A unit may import its own layer and those below
 *  it, never one above; `rules` and `src/host` have narrower allowances, checked below. */
const ORDER = [
  'src/core', // findings, source text, paths, safe file reading: imports nothing of vaudit
  'src/host', // the only process owner: imports only core
  'src/lang', // parsers and analyses
  'src/suites', // task formats, binding, entrypoints
  'src/config',
  'src/contract', // the rule contract (defineRule, RuleContext, Project) and the rule registry
  'rules',
  'src/engine', // the pipeline: discover, load, central pass, reach, scope, suppressions, session
  'src/confirm', // oracles' kit, harnesses, slicer; runs through the host
  'src/report',
  'src/bundle',
  'src/index',
  'src/cli',
  'src/lsp',
];

/** Allowed edges that skip the order: the host needs nothing but core; rules never import the pipeline,
 *  the host, the front ends or each other (their oracles use the confirm kit, which sits above them). */
function forbidden(from: string, to: string): boolean {
  if (from === 'src/host') return to !== 'src/core';
  if (from === 'rules') return !['src/core', 'src/lang', 'src/suites', 'src/config', 'src/contract', 'src/confirm'].includes(to);
  if (to === 'src/host') return !['src/confirm', 'src/cli', 'src/lsp'].includes(from);
  if (from === 'src/cli' || from === 'src/lsp') return false; // the front ends drive everything (lsp reuses cli's helpers)
  return ORDER.indexOf(to) > ORDER.indexOf(from);
}

it('reads imports as the compiler resolves them (the check can see a violation)', () => {
  expect(imports('src/cli/cache.ts')).toContain('src/report/markdown.js');
  expect(unitOf('src/report/markdown.js')).toBe('src/report');
});

it('no module imports a layer above its own', () => {
  const files = [...tsFiles('src'), ...tsFiles('rules')];
  expect(files.length).toBeGreaterThan(100);
  const bad: string[] = [];
  for (const f of files) {
    const unit = unitOf(f);
    const layer = unit.startsWith('rules/') ? 'rules' : unit.replace(/\.ts$/, '');
    expect(ORDER, `${f} belongs to no layer`).toContain(layer);
    for (const target of imports(f)) {
      const t = unitOf(target);
      const tLayer = t.startsWith('rules/') ? 'rules' : t.replace(/\.[jt]s$/, '');
      if (tLayer === layer) {
        if (layer === 'rules' && t !== unit) bad.push(`${f} → ${target} (another rule)`);
        continue;
      }
      if (forbidden(layer, tLayer)) bad.push(`${f} → ${target}`);
    }
  }
  expect(bad).toEqual([]);
});

it('the layer check fails on an upward import', () => {
  expect(forbidden('src/lang', 'src/engine')).toBe(true);
  expect(forbidden('src/core', 'src/lang')).toBe(true);
  expect(forbidden('rules', 'src/engine')).toBe(true);
  expect(forbidden('src/suites', 'src/contract')).toBe(true);
  expect(forbidden('src/engine', 'src/host')).toBe(true);
  expect(forbidden('src/engine', 'src/contract')).toBe(false);
  expect(forbidden('src/confirm', 'src/host')).toBe(false);
});

/** Strongly connected components of the module graph (Tarjan), larger than one module. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

it('no import cycle between modules (type-only imports count)', () => {
  const files = [...tsFiles('src'), ...tsFiles('rules')];
  const graph = new Map(files.map((f) => [f, imports(f).map((t) => t.replace(/\.js$/, '.ts')).filter((t) => t !== f)]));
  expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
  expect(cycles(graph)).toEqual([]);
});
