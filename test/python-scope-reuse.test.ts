/**
 * An editor session re-parses an edited file incrementally, and the new scope table copies the
 * definitions (`def` / `class` statements) whose nodes the parse took over from the previous table
 * (`ScopeReuse`) instead of walking them. After any chain of edits the table must be the one
 * `buildScopes` gives on the same tree: the same scopes in the same order (ids, kinds, nodes, names,
 * qualnames, parents, children, params, global/nonlocal declarations), the same bindings (the same node
 * objects) and reads, and the same lookup maps. Every Python file of the real corpora and of the rule
 * fixtures goes through seeded edits; targeted edits reach outside the edited definition (a `global`,
 * a walrus, a renamed enclosing def, a lambda that shifts later ids, a `nonlocal` losing its target);
 * a reuse that ignores its condition (the previous definition at the same place instead of the node the
 * parse took over) must fail the same comparison.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyFiles } from './helpers/py-files.js';
import { rng } from './helpers/rng.js';
import { change, insertLine, spot } from './helpers/py-edits.js';
import { SourceText, type SourceFile } from '../src/core/source.js';
import { createPythonProject } from '../src/lang/python/project.js';
import type { Analysis } from '../src/lang/python/analysis.js';
import { buildScopes, scopeStats, type Scope, type ScopeTable } from '../src/lang/python/scopes.js';
import { editBetween } from '../src/lang/python/parser.js';
import { walk, type PyNode } from '../src/lang/python/tree.js';
import type { PythonProject } from '../src/lang/python/types.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');
const corpusFiles = [...pyFiles(path.join(corpora, 'scienceboard')), ...pyFiles(path.join(corpora, 'spider2v'))];
const fixtureFiles = pyFiles(path.join(repoRoot, 'rules'));

/**
 * A table as plain data: nodes as their pre-order index in `root`'s tree (`?` for a node not in it),
 * scopes as ids (`!id` for a scope object that is not the table's scope of that id), maps in insertion order.
 */
function dumpTable(t: ScopeTable, root: PyNode): unknown {
  const index = new Map<PyNode, number>();
  walk(root, (n) => void index.set(n, index.size));
  const at = (n: PyNode) => (index.has(n) ? index.get(n)! : `?${n.type}@${n.start}`);
  const ref = (s: Scope | null) => (s === null ? null : t.scopes[s.id] === s ? s.id : `!${s.id}`);
  const readIndex = new Map(t.reads.map((r, i) => [r, i]));
  return {
    module: ref(t.module),
    scopes: t.scopes.map((s, i) => ({
      i, id: s.id, kind: s.kind, node: at(s.node), name: s.name, qualname: s.qualname, parent: ref(s.parent),
      children: s.children.map(ref), params: s.params, globals: [...s.globals], nonlocals: [...s.nonlocals], star: s.hasStarImport,
      bindings: [...s.bindings].map(([name, bs]) => [name, bs.map((b) => [b.name, b.kind, at(b.node)])]),
    })),
    reads: t.reads.map((r) => [at(r.node), r.name, ref(r.scope), r.inAnnotation]),
    byNode: [...t.byNode].map(([n, s]) => [at(n), ref(s)]),
    bindingScope: [...t.bindingScope].map(([n, s]) => [at(n), ref(s)]),
    readByNode: [...t.readByNode].map(([n, r]) => [at(n), readIndex.get(r) ?? '!read']),
  };
}

/** The nearest definition holding `n`. */
function ownerDef(n: PyNode): PyNode | undefined {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition' || p.type === 'class_definition') return p;
  return undefined;
}

function sourceFile(abs: string, text: string): SourceFile {
  return { path: abs, relPath: path.basename(abs), language: 'python', source: new SourceText(text) };
}

/** Binding objects of `now` that come from `before` (copied definitions share them): how much was reused. */
function sharedBindings(before: ScopeTable, now: ScopeTable): number {
  const old = new Set(before.scopes.flatMap((s) => [...s.bindings.values()].flat()));
  return now.scopes.reduce((n, s) => n + [...s.bindings.values()].flat().filter((b) => old.has(b)).length, 0);
}

/** An editor session over one file: each `edit` builds the next project from the previous one. */
class Session {
  private project!: PythonProject;
  private readonly keepTrees: Set<string>;
  constructor(private readonly abs: string, public text: string) {
    this.keepTrees = new Set([abs]);
  }
  async open(): Promise<Analysis> {
    this.project = await createPythonProject([sourceFile(this.abs, this.text)], { keepTrees: this.keepTrees });
    const a = this.project.analysis(this.abs)! as Analysis;
    void a.scopes;
    return a;
  }
  async edit(text: string): Promise<Analysis> {
    this.text = text;
    const next = await createPythonProject([sourceFile(this.abs, text)], { reuse: this.project, keepTrees: this.keepTrees });
    this.project.dispose();
    this.project = next;
    return next.analysis(this.abs)! as Analysis;
  }
  close(): void {
    this.project.dispose();
  }
}

/** Edits that reach past the definition they are made in, besides the flow test's ones. */
function scopeChange(text: string, at: number, r: () => number): string {
  switch (Math.floor(r() * 6)) {
    case 0: return insertLine(text, at, 'grab = [(seen := k) for k in range(3)]'); // a walrus in a comprehension
    case 1: return insertLine(text, at, 'pick = lambda v, w=None: (v, w)'); // a lambda: later scope ids move
    case 2: return insertLine(text, at, 'nonlocal found'); // a nonlocal (an error outside a nested function)
    case 3: { // a def renamed (its nested scopes' qualnames change)
      const m = /\b(def|class) (\w)/g;
      m.lastIndex = at;
      const hit = m.exec(text);
      return hit ? text.slice(0, hit.index + hit[0].length) + 'q' + text.slice(hit.index + hit[0].length) : text;
    }
    case 4: return insertLine(text, at, 'def helper(a, b=lambda: found):\n    return [a for a in b()]'); // a nested def
    default: return change(text, at, r);
  }
}

async function chains(files: string[], edits: number, seed: number): Promise<{ checked: number; shared: number }> {
  const r = rng(seed);
  let checked = 0;
  let shared = 0;
  for (const file of files) {
    const s = new Session(path.resolve(file), readFileSync(file, 'utf8'));
    let a = await s.open();
    for (let i = 0; i < edits; i++) {
      const before = a.scopes;
      const at = spot(a, r);
      a = await s.edit(r() < 0.7 ? change(s.text, at, r) : scopeChange(s.text, at, r));
      const got = a.scopes;
      const want = buildScopes(a.ast, a.text);
      expect(dumpTable(got, a.ast), `${path.basename(file)}, edit ${i + 1}`).toEqual(dumpTable(want, a.ast));
      shared += sharedBindings(before, got);
      checked++;
    }
    s.close();
  }
  return { checked, shared };
}

describe.skipIf(corpusFiles.length === 0)('scope tables reused across edits equal fresh tables (real corpora)', () => {
  it(`chains of edits over ${corpusFiles.length} files`, async () => {
    const reused = scopeStats.reused;
    const { checked, shared } = await chains(corpusFiles, 6, 11);
    expect(checked).toBe(corpusFiles.length * 6);
    // most edits keep the definitions they are not in
    expect(scopeStats.reused - reused).toBeGreaterThan(corpusFiles.length * 2);
    expect(shared).toBeGreaterThan(0);
  }, 600_000);
});
if (corpusFiles.length === 0) console.warn(`python-scope-reuse: no corpora at ${corpora}; skipped`);

describe('scope tables reused across edits equal fresh tables (rule fixtures)', () => {
  it(`chains of edits over ${fixtureFiles.length} fixture files`, async () => {
    expect(fixtureFiles.length).toBeGreaterThan(20);
    const reused = scopeStats.reused;
    await chains(fixtureFiles, 4, 5);
    expect(scopeStats.reused).toBeGreaterThan(reused);
  }, 600_000);
});

const BASE = `import os

counter = 0


def outer(items):
    total = 0
    def inner(x):
        nonlocal total
        total += x
        return [y for y in items if y]
    for it in items:
        inner(it)
    return total


class Box:
    size = 1

    def grow(self, n):
        found = None
        for k in range(n):
            found = k
        return found

    def shrink(self):
        return self.size - 1


def main():
    data = [v for v in range(3)]
    return outer(data)
`;

/** Replace the first `from` of BASE. */
function edit(from: string, to: string): string {
  const i = BASE.indexOf(from);
  if (i < 0) throw new Error(`not in BASE: ${from}`);
  return BASE.slice(0, i) + to + BASE.slice(i + from.length);
}

/** Targeted edits: what changes outside the edited definition, and the definition the edit is in
 *  (the text before is BASE unless given). */
const TARGETED: Array<{ name: string; before?: string; after: string; edited: string }> = [
  { name: 'a `global` line makes a method bind a module name', after: edit('        found = None', '        global found\n        found = None'), edited: 'Box.grow' },
  { name: 'a walrus in a comprehension binds in the enclosing function', after: edit('[v for v in range(3)]', '[(last := v) for v in range(3)]'), edited: 'main' },
  { name: 'a walrus in a module-level comprehension binds a module name', after: `${BASE}flags = [(last := v) for v in range(2)]\n`, edited: '' },
  { name: 'a renamed def: its nested function keeps its nodes, not its qualname', after: edit('def outer(items)', 'def outer2(items)'), edited: 'outer2' },
  { name: 'a lambda added before nested scopes moves every later scope id', after: edit('    total = 0\n', '    total = 0\n    key = lambda v: v\n'), edited: 'outer' },
  { name: 'a nonlocal loses its target in the enclosing function', after: edit('    total = 0\n', '    totalx = 0\n'), edited: 'outer' },
  { name: 'a copied function that declares a global still binds in the module', before: `${BASE}\n\ndef setter():\n    global counter\n    counter = 1\n`, after: `${edit('    data = [v', '    extra = 1\n    data = [v')}\n\ndef setter():\n    global counter\n    counter = 1\n`, edited: 'main' },
  // module-level statements are copied too, except those that declare in the module
  { name: 'a star import removed while a later one stays', before: `from os import *\nfrom sys import *\n${BASE}`, after: `from os import path\nfrom sys import *\n${BASE}`, edited: '' },
  { name: 'a module-level global removed while a later one stays', before: `global counter\n${BASE}global counter\n`, after: `globalx = 1\n${BASE}global counter\n`, edited: '' },
];

describe('scope reuse across edits that reach other definitions', () => {
  for (const c of TARGETED) {
    it(c.name, async () => {
      const abs = path.join(repoRoot, 'mod.py');
      const before = c.before ?? BASE;
      const s = new Session(abs, before);
      const first = await s.open();
      const prev = first.scopes;
      // the definitions of the previous tree, where they were before the parse moves them
      const oldDefs = [...prev.byNode.keys()].filter((n) => n.type === 'function_definition' || n.type === 'class_definition').map((n) => ({ n, start: n.start, end: n.end }));
      const a = await s.edit(c.after);
      const got = a.scopes;
      const want = dumpTable(buildScopes(a.ast, a.text), a.ast);
      expect(dumpTable(got, a.ast)).toEqual(want);
      // the definitions the edit is not in are copied; the one it is in is a new node, walked again (its
      // own bindings are new; a nested definition copied into it brings its old `def` and nonlocal bindings)
      expect(sharedBindings(prev, got)).toBeGreaterThan(0);
      const edited = got.scopes.find((x) => x.qualname === c.edited && x.kind !== 'module');
      if (c.edited) {
        expect(edited).toBeDefined();
        expect(prev.byNode.has(edited!.node)).toBe(false);
        const old = new Set(prev.scopes.flatMap((x) => [...x.bindings.values()].flat()));
        const own = [...edited!.bindings.values()].flat().filter((b) => ownerDef(b.node) === edited!.node);
        expect(own.length).toBeGreaterThan(0);
        expect(own.filter((b) => old.has(b))).toEqual([]);
      }
      // a reuse that copies the previous definition at the same place (ignoring whether the parse took its
      // node over) keeps the edited definition's old content: it differs wherever the edit is in a definition
      const e = editBetween(before, c.after);
      const delta = e.newEndIndex - e.oldEndIndex;
      const same = (n: PyNode) => {
        const start = n.start < e.startIndex ? n.start : n.start - delta;
        const end = n.end <= e.startIndex ? n.end : n.end - delta;
        return oldDefs.find((d) => d.n.type === n.type && d.start === start && d.end === end)?.n;
      };
      const broken = dumpTable(buildScopes(a.ast, a.text, { reuse: { prev, same } }), a.ast);
      if (c.edited) expect(broken).not.toEqual(want);
      else expect(broken).toEqual(want);
      s.close();
    });
  }

  it('a table built without its log is not reused', async () => {
    const s = new Session(path.join(repoRoot, 'mod.py'), BASE);
    const first = await s.open();
    const plain = buildScopes(first.ast, BASE);
    const a = await s.edit(edit('        found = None', '        found = 1'));
    const got = buildScopes(a.ast, a.text, { reuse: { prev: plain } });
    expect(sharedBindings(plain, got)).toBe(0);
    expect(dumpTable(got, a.ast)).toEqual(dumpTable(buildScopes(a.ast, a.text), a.ast));
    s.close();
  });
});
