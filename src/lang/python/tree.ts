/**
 * A light, plain-JS copy of a tree-sitter Python tree. Built once per unit
 * with a single TreeCursor walk (≈ 5 µs per 10 nodes), then every analysis runs
 * on plain objects instead of crossing into wasm per property access.
 */
/** The part of a tree-sitter TreeCursor (native addon or web-tree-sitter) that `convertTree` reads. */
export interface TreeCursorLike {
  readonly nodeType: string;
  readonly nodeTypeId: number;
  readonly nodeIsNamed: boolean;
  readonly nodeIsMissing: boolean;
  readonly currentFieldId: number;
  readonly currentFieldName: string | null | undefined;
  readonly startIndex: number;
  readonly endIndex: number;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
  delete?(): void;
}

let nextId = 1;
/** Leaves share one empty, frozen children array (most nodes are leaves: fewer allocations). */
const NO_CHILDREN: PyNode[] = Object.freeze([]) as unknown as PyNode[];

/**
 * A node of the plain-JS tree. Besides its own fields it offers the part of web-tree-sitter's
 * `Node` API that rules use (`text`, `startIndex`, `childForFieldName`, `namedChildren`, `id`,
 * `hasError`, …), so the central pass can hand these to rules without crossing into wasm.
 */
export class PyNode {
  /** Unique per node of this process (web-tree-sitter's `id` plays the same role). */
  readonly id: number = nextId++;
  children: PyNode[] = NO_CHILDREN;
  /** Subtree contains an ERROR or MISSING node. */
  hasError = false;
  /** A node the parser inserted to recover (zero width). */
  isMissing = false;
  constructor(
    readonly type: string,
    /** UTF-16 offsets (half-open), identical to tree-sitter's startIndex/endIndex. */
    readonly start: number,
    readonly end: number,
    readonly named: boolean,
    /** Field name of this node in its parent (`left`, `body`, …) or null. */
    readonly field: string | null,
    public parent: PyNode | null,
    /** The unit's source text. */
    private readonly source: string,
  ) {}

  get startIndex(): number {
    return this.start;
  }
  get endIndex(): number {
    return this.end;
  }
  get text(): string {
    return this.source.slice(this.start, this.end);
  }
  get isNamed(): boolean {
    return this.named;
  }
  get isError(): boolean {
    return this.type === 'ERROR';
  }
  get childCount(): number {
    return this.children.length;
  }
  /** Named children, comments included (as tree-sitter counts them). */
  get namedChildren(): PyNode[] {
    return this.children.filter((c) => c.named);
  }
  child(i: number): PyNode | null {
    return this.children[i] ?? null;
  }
  childForFieldName(name: string): PyNode | null {
    for (const c of this.children) if (c.field === name) return c;
    return null;
  }
  childrenForFieldName(name: string): PyNode[] {
    return this.children.filter((c) => c.field === name);
  }
}

/** Anything with tree-sitter node coordinates (a web-tree-sitter Node, or a PyNode). */
export interface NodeLike {
  type: string;
  startIndex?: number;
  endIndex?: number;
  start?: number;
  end?: number;
}

interface LangTables {
  types: (string | undefined)[];
  named: (boolean | undefined)[];
  fields: (string | null | undefined)[];
}
/** Type and field names by id, per cursor class (one per parser build; ids come from the grammar). */
const langTables = new WeakMap<object, LangTables>();

const depths = new WeakMap<PyNode, number>();

/** Nesting depth of the deepest node under a root that `convertTree` built (the root is depth 1). */
export function treeDepth(root: PyNode): number {
  return depths.get(root) ?? 1;
}

/** Nesting at which CPython 3.11's compiler raises RecursionError (a sum of 2,993 terms compiles,
 *  2,994 does not; 200 nested brackets are already a SyntaxError). */
export const CPYTHON_MAX_DEPTH = 3000;

/** Deepest nesting the analyses accept: they recurse on the tree (scopes, flow, the rules' own walks),
 *  and 1,000 levels leave them a safe share of the stack. Real code stays far below: the deepest
 *  module of the corpora and of 3,000 stdlib and vendored files is 88 levels deep. */
export const MAX_ANALYSED_DEPTH = 1000;

/** Copy a tree-sitter tree of `text` into PyNodes with one walk of its cursor (positioned at the root). */
export function convertTree(c: TreeCursorLike, withErrors: boolean, text: string): PyNode {
  const depth = { max: 1 };
  const proto = Object.getPrototypeOf(c) as object;
  let tables = langTables.get(proto);
  if (!tables) {
    tables = { types: [], named: [], fields: [] };
    langTables.set(proto, tables);
  }
  const { types, named: isNamed, fields: fieldNames } = tables;
  const root = new PyNode(c.nodeType, c.startIndex, c.endIndex, true, null, null, text);
  const stack: PyNode[] = [root];
  depths.set(root, 1);
  /** Finish a node: propagate error flags to its parent. */
  const close = (n: PyNode) => {
    if (n.hasError && n.parent) n.parent.hasError = true;
  };
  try {
    if (!c.gotoFirstChild()) return root;
    for (;;) {
      const parent = stack[stack.length - 1]!;
      const id = c.nodeTypeId;
      let type = types[id];
      if (type === undefined) {
        type = c.nodeType;
        if (id < 65535) {
          types[id] = type;
          isNamed[id] = c.nodeIsNamed;
        }
      }
      const fid = c.currentFieldId;
      let fieldName: string | null = null;
      if (fid) {
        fieldName = fieldNames[fid] ?? null;
        if (fieldName === null) fieldNames[fid] = fieldName = c.currentFieldName ?? null;
      }
      const node = new PyNode(type, c.startIndex, c.endIndex, isNamed[id] ?? c.nodeIsNamed, fieldName, parent, text);
      if (withErrors && (type === 'ERROR' || c.nodeIsMissing)) {
        node.hasError = true;
        node.isMissing = type !== 'ERROR';
      }
      if (parent.children === NO_CHILDREN) parent.children = [node];
      else parent.children.push(node);
      if (c.gotoFirstChild()) {
        stack.push(node);
        if (stack.length > depth.max) depths.set(root, (depth.max = stack.length));
        continue;
      }
      close(node);
      while (!c.gotoNextSibling()) {
        if (!c.gotoParent()) return root;
        const done = stack.pop()!;
        close(done);
        if (stack.length === 0) return root;
      }
    }
  } finally {
    c.delete?.();
  }
}

export function field(n: PyNode, name: string): PyNode | undefined {
  for (const c of n.children) if (c.field === name) return c;
  return undefined;
}

export function fields(n: PyNode, name: string): PyNode[] {
  return n.children.filter((c) => c.field === name);
}

export function named(n: PyNode): PyNode[] {
  return n.children.filter((c) => c.named && c.type !== 'comment');
}

export function firstNamed(n: PyNode): PyNode | undefined {
  for (const c of n.children) if (c.named && c.type !== 'comment') return c;
  return undefined;
}

/** Operator tokens of a `comparison_operator` (`==`, `not in`, `is not`, …), in source order. */
export function comparisonOperators(n: PyNode): string[] {
  return n.children.filter((c) => !c.named).map((c) => c.type);
}

/** Unwrap `(expr)` parentheses. */
export function unparen(n: PyNode): PyNode {
  let cur = n;
  while (cur.type === 'parenthesized_expression') {
    const inner = firstNamed(cur);
    if (!inner) break;
    cur = inner;
  }
  return cur;
}

export function nodeStart(n: NodeLike): number {
  return n.startIndex ?? n.start ?? 0;
}
function nodeEnd(n: NodeLike): number {
  return n.endIndex ?? n.end ?? 0;
}

/** Find the light node with the same range and type as `n` (binary search by offsets). */
export function locate(root: PyNode, n: NodeLike): PyNode | undefined {
  const s = nodeStart(n);
  const e = nodeEnd(n);
  let cur: PyNode = root;
  for (;;) {
    if (cur.start === s && cur.end === e && cur.type === n.type) return cur;
    const kids = cur.children;
    let lo = 0;
    let hi = kids.length - 1;
    let next: PyNode | undefined;
    // last child whose start <= s
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (kids[mid]!.start <= s) lo = mid + 1;
      else hi = mid - 1;
    }
    // several children may share a start (zero-width nodes); try from hi backwards
    for (let i = hi; i >= 0; i--) {
      const k = kids[i]!;
      if (k.start > s) continue;
      if (k.end >= e && k.start <= s) {
        next = k;
        break;
      }
      if (k.end < s) break;
    }
    if (!next || next === cur) return undefined;
    cur = next;
  }
}

/** Depth-first pre-order visit; return false from `fn` to skip a subtree. */
export function walk(n: PyNode, fn: (n: PyNode) => boolean | void): void {
  const stack: PyNode[] = [n];
  while (stack.length) {
    const cur = stack.pop()!;
    if (fn(cur) === false) continue;
    for (let i = cur.children.length - 1; i >= 0; i--) stack.push(cur.children[i]!);
  }
}
