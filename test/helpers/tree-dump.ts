/** Plain Python trees (`PyNode`) as text, to compare trees made different ways (parse, threads, --cache). */
import { treeDepth, type PyNode } from '../../src/lang/python/tree.js';

/** One line per node, pre-order: depth, type, field, range, flags, height, and the parent link checked. */
export function dumpTree(root: PyNode): string {
  const out: string[] = [`depth ${treeDepth(root)}`];
  const visit = (n: PyNode, depth: number) => {
    out.push(`${depth} ${n.type} ${n.field ?? '-'} ${n.start}-${n.end} ${n.named ? 'n' : 'a'}${n.hasError ? 'E' : ''}${n.isMissing ? 'M' : ''} h${n.height} ${n.text.length}`);
    for (const c of n.children) {
      if (c.parent !== n) throw new Error(`broken parent link at ${c.type} ${c.start}`);
      visit(c, depth + 1);
    }
  };
  visit(root, 0);
  return out.join('\n');
}

/** Texts whose trees are easy to get wrong: non-ASCII, CRLF, ERROR and MISSING nodes, deep nesting, empty. */
export const TREE_EDGE_CASES = [
  'x = "héllo😀 wörld"\ny = x  # ß 中文\n',
  'def f(a):\r\n    return a + 1\r\n',
  'def f(:\n    return 1\nx = 2\n',
  'if x\n    y = 1\n',
  'print("a"\n',
  'class C:\n    @property\n    def m(self) -> int: ...\n',
  `x = ${'('.repeat(150)}1${')'.repeat(150)}\n`,
  '',
  '\n\n# only a comment\n',
];
