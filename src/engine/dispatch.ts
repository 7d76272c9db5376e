/**
 * The central pass: each parsed tree is walked once, and every enabled rule's
 * visitor for the node's type is called. Rules never walk trees privately.
 */
import type { Node as PyNode, Tree } from 'web-tree-sitter';
import type { Node as JsNode } from 'acorn';
import type { JavaScriptVisitors, PythonVisitor, PythonVisitors, RuleContext } from './rule.js';
import type { PythonAnalysis } from '../lang/python/types.js';

export interface PythonSubscriber {
  visitors: PythonVisitors<string>;
  ctx: RuleContext & { python: PythonAnalysis };
  /** Called when a visitor throws; the pass goes on. */
  onError(err: unknown): void;
}

/** The plain-JS copy of a tree that the Python analysis core builds (src/lang/python/tree.ts). */
interface PlainNode {
  type: string;
  start: number;
  end: number;
  children: PlainNode[];
}

/**
 * Walk a Python unit once, dispatching enter and `:exit` visitors. When the analysis already holds
 * a plain-JS copy of the tree, walk that (no wasm crossing per node) and materialise a tree-sitter
 * node only for the node types some visitor subscribes to; otherwise walk the tree with a TreeCursor.
 */
export function walkPython(tree: Tree, subs: readonly PythonSubscriber[], plain?: PlainNode): void {
  if (subs.length === 0) return;
  if (plain) {
    walkPlain(tree, plain, subs);
    return;
  }
  const enter = new Map<string, Array<[PythonVisitor<string>, PythonSubscriber]>>();
  const exit = new Map<string, Array<[PythonVisitor<string>, PythonSubscriber]>>();
  for (const s of subs) {
    for (const [key, fn] of Object.entries(s.visitors)) {
      if (!fn) continue;
      const isExit = key.endsWith(':exit');
      const type = isExit ? key.slice(0, -5) : key;
      const table = isExit ? exit : enter;
      let list = table.get(type);
      if (!list) table.set(type, (list = []));
      list.push([fn, s]);
    }
  }
  const call = (list: Array<[PythonVisitor<string>, PythonSubscriber]> | undefined, node: PyNode) => {
    if (!list) return;
    for (const [fn, s] of list) {
      try {
        fn(node, s.ctx);
      } catch (err) {
        s.onError(err);
      }
    }
  };
  const cursor = tree.walk();
  try {
    for (;;) {
      const type = cursor.nodeType;
      const wantsEnter = enter.has(type);
      const wantsExit = exit.has(type);
      const node = wantsEnter || wantsExit ? cursor.currentNode : undefined;
      if (wantsEnter) call(enter.get(type), node!);
      if (cursor.gotoFirstChild()) continue;
      if (wantsExit) call(exit.get(type), node!);
      // climb until a sibling exists, firing exits on the way up
      for (;;) {
        if (cursor.gotoNextSibling()) break;
        if (!cursor.gotoParent()) return;
        const up = cursor.nodeType;
        if (exit.has(up)) call(exit.get(up), cursor.currentNode);
      }
    }
  } finally {
    cursor.delete();
  }
}

type Table = Map<string, Array<[PythonVisitor<string>, PythonSubscriber]>>;

function tables(subs: readonly PythonSubscriber[]): { enter: Table; exit: Table } {
  const enter: Table = new Map();
  const exit: Table = new Map();
  for (const s of subs) {
    for (const [key, fn] of Object.entries(s.visitors)) {
      if (!fn) continue;
      const isExit = key.endsWith(':exit');
      const type = isExit ? key.slice(0, -5) : key;
      const table = isExit ? exit : enter;
      let list = table.get(type);
      if (!list) table.set(type, (list = []));
      list.push([fn, s]);
    }
  }
  return { enter, exit };
}

/** The tree-sitter node with exactly this type and range. */
function materialise(tree: Tree, n: PlainNode): PyNode | undefined {
  let cur: PyNode | null = tree.rootNode.descendantForIndex(n.start, n.end);
  // descendantForIndex gives the deepest node spanning the range: climb to the one of this type
  while (cur && !(cur.type === n.type && cur.startIndex === n.start && cur.endIndex === n.end)) {
    if (cur.startIndex < n.start || cur.endIndex > n.end) return undefined;
    cur = cur.parent;
  }
  return cur ?? undefined;
}

function walkPlain(tree: Tree, root: PlainNode, subs: readonly PythonSubscriber[]): void {
  const { enter, exit } = tables(subs);
  const fire = (list: Array<[PythonVisitor<string>, PythonSubscriber]>, node: PyNode) => {
    for (const [fn, s] of list) {
      try {
        fn(node, s.ctx);
      } catch (err) {
        s.onError(err);
      }
    }
  };
  const visit = (n: PlainNode) => {
    const onEnter = enter.get(n.type);
    const onExit = exit.get(n.type);
    const node = onEnter || onExit ? materialise(tree, n) : undefined;
    if (node && onEnter) fire(onEnter, node);
    for (const c of n.children) visit(c);
    if (node && onExit) fire(onExit, node);
  };
  visit(root);
}

export interface JsSubscriber {
  visitors: JavaScriptVisitors<string>;
  ctx: RuleContext;
  onError(err: unknown): void;
}

/** Walk an acorn AST once, with ancestors, dispatching enter and `:exit` visitors. */
export function walkJs(root: JsNode, subs: readonly JsSubscriber[]): void {
  if (subs.length === 0) return;
  const ancestors: JsNode[] = [];
  const visit = (node: JsNode) => {
    for (const s of subs) {
      const fn = s.visitors[node.type];
      if (fn) {
        try { fn(node, s.ctx, ancestors); } catch (err) { s.onError(err); }
      }
    }
    ancestors.push(node);
    for (const key of Object.keys(node)) {
      if (key === 'loc' || key === 'start' || key === 'end' || key === 'type' || key === 'range') continue;
      const v = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c === 'object' && typeof (c as JsNode).type === 'string') visit(c as JsNode);
      } else if (v && typeof v === 'object' && typeof (v as JsNode).type === 'string') {
        visit(v as JsNode);
      }
    }
    ancestors.pop();
    for (const s of subs) {
      const fn = s.visitors[node.type + ':exit'];
      if (fn) {
        try { fn(node, s.ctx, ancestors); } catch (err) { s.onError(err); }
      }
    }
  };
  visit(root);
}
