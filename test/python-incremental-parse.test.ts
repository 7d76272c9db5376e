/**
 * Incremental re-parsing (the editor session keeps each edited file's tree and
 * re-parses from it) must give the same plain trees as a fresh parse: same node
 * types, fields, UTF-16 positions and error flags. Every Python file of the real
 * corpora goes through a chain of seeded random edits (a character typed or
 * deleted inside an identifier, a line split or joined, a colon removed and put
 * back, non-ASCII typed), each compared with a fresh parse of the same text (the
 * plain tree of an incremental parse takes over the subtrees tree-sitter did not
 * change, moved to their new offsets).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyFiles } from './helpers/py-files.js';
import { rng } from './helpers/rng.js';
import { editBetween, pythonParser, type KeptTree } from '../src/lang/python/parser.js';
import { treeDepth, walk, type PyNode } from '../src/lang/python/tree.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');

function dump(root: PyNode): string {
  const out: string[] = [];
  const visit = (n: PyNode, depth: number) => {
    out.push(`${depth} ${n.type} ${n.field ?? '-'} ${n.start}-${n.end} ${n.named ? 'n' : 'a'}${n.hasError ? 'E' : ''}${n.isMissing ? 'M' : ''} ${n.text.length <= 40 ? n.text : ''}`);
    for (const c of n.children) {
      if (c.parent !== n) throw new Error(`broken parent link at ${c.type} ${c.start}`);
      visit(c, depth + 1);
    }
  };
  visit(root, 0);
  return out.join('\n');
}

/** One random editor-like change of `text`. */
function mutate(text: string, r: () => number): string {
  const at = Math.floor(r() * text.length);
  switch (Math.floor(r() * 6)) {
    case 0: return text.slice(0, at) + 'x' + text.slice(at); // a character typed
    case 1: return text.slice(0, at) + text.slice(at + 1); // a character deleted
    case 2: return text.slice(0, at) + '\n' + text.slice(at); // a line split
    case 3: { const nl = text.indexOf('\n', at); return nl < 0 ? text : text.slice(0, nl) + text.slice(nl + 1); } // lines joined
    case 4: { const c = text.indexOf(':\n', at); return c < 0 ? text : text.slice(0, c) + text.slice(c + 1); } // a colon removed
    default: return text.slice(0, at) + 'é😀' + text.slice(at); // non-ASCII typed
  }
}

describe('editBetween', () => {
  it('finds the one replaced span, with rows and UTF-16 columns, never splitting a surrogate pair', () => {
    expect(editBetween('ab\ncd', 'ab\ncxd')).toMatchObject({ startIndex: 4, oldEndIndex: 4, newEndIndex: 5, startPosition: { row: 1, column: 1 }, newEndPosition: { row: 1, column: 2 } });
    expect(editBetween('abc', 'abc')).toMatchObject({ startIndex: 3, oldEndIndex: 3, newEndIndex: 3 });
    const e = editBetween('a😀b', 'a😁b'); // same high surrogate, different low one
    expect(e.startIndex).toBe(1);
    expect(e.oldEndIndex).toBe(3);
  });
});

const files = [...pyFiles(path.join(corpora, 'scienceboard')), ...pyFiles(path.join(corpora, 'spider2v'))];

describe.skipIf(files.length === 0)('incremental parse equals a fresh parse (real corpora)', () => {
  it(`chains of random edits over ${files.length} files`, async () => {
    const parser = await pythonParser('native');
    if (!parser.parseKeeping) throw new Error('the native parser keeps no trees');
    const r = rng(14);
    let incremental = 0;
    let taken = 0;
    for (const file of files) {
      let text = readFileSync(file, 'utf8');
      let kept: KeptTree = parser.parseKeeping(text).kept;
      for (let i = 0; i < 6; i++) {
        text = i === 5 ? readFileSync(file, 'utf8') : mutate(text, r); // the last step restores the file
        const before = new Set<PyNode>();
        walk(kept.root, (n) => { before.add(n); });
        const next = parser.parseKeeping(text, kept);
        kept = next.kept;
        if (!next.root.hasError) incremental++;
        walk(next.root, (n) => { if (before.has(n)) taken++; });
        const fresh = parser.parse(text);
        if (dump(next.root) !== dump(fresh)) expect(dump(next.root), `${path.relative(corpora, file)}, edit ${i + 1}`).toBe(dump(fresh));
        expect(treeDepth(next.root)).toBe(treeDepth(fresh));
      }
    }
    expect(incremental).toBeGreaterThan(files.length); // most edits keep the file parseable
    expect(taken).toBeGreaterThan(0); // the plain trees of those edits took over unchanged subtrees
  }, 300_000);
});
if (files.length === 0) console.warn(`python-incremental-parse: no corpora at ${corpora}; only editBetween is tested`);
