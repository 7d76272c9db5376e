/**
 * A tree-sitter tree as a flat Int32Array, so that a parse made in another thread can be handed to the
 * main thread as one transferable buffer (issue 14: parse ahead on a second core) and rebuilt there into
 * the same plain tree `convertTree` makes, without crossing into the parser per node.
 *
 * Layout: the nodes in pre-order, `NODE_INTS` ints each:
 *   0: type id | field id << 16     1: start     2: end     3: child count << 2 | missing << 1 | named
 * (offsets in UTF-16 units, as the cursor reports them). Type and field names travel beside it, by id.
 */
import { PyNode, TreeText, droppedType, plainKind, setTreeDepth, type NodeKind, type TreeCursorLike } from './tree.js';

const NODE_INTS = 4;
/** tree-sitter's type id of ERROR nodes (`ts_builtin_sym_error`). */
const ERROR_ID = 0xffff;
const NAMED = 1;
const MISSING = 2;

/** Type and field names by id that an encoder has met (sparse; ids come from the grammar). */
export interface FlatNames {
  types: Array<[number, string]>;
  fields: Array<[number, string]>;
}

export interface FlatTree {
  nodes: Int32Array;
  /** Whether the tree holds an ERROR or MISSING node (tree-sitter's `rootNode.hasError`). */
  withErrors: boolean;
}

/** Name tables of one encoder (a worker keeps one for its life and sends what is new with each tree). */
export class FlatNameTable {
  /** By type id, but for `ERROR_ID` (`error`): an array given index 65,535 turns into a dictionary, and
   *  every node's look-up into a hash look-up. */
  readonly types: (string | undefined)[] = [];
  readonly fields: (string | undefined)[] = [];
  /** Whether the plain tree leaves a type out (`droppedType`), by id, for the types this encoder met
   *  itself (a name merged from another table comes without it). ERROR is never left out. */
  readonly dropped: boolean[] = [];
  private error: string | undefined;
  private fresh: FlatNames = { types: [], fields: [] };

  /** The name of a type id, if met. */
  typeName(id: number): string | undefined {
    return id === ERROR_ID ? this.error : this.types[id];
  }

  type(c: TreeCursorLike, id: number): void {
    if (id === ERROR_ID) {
      if (this.error === undefined) this.fresh.types.push([id, (this.error = c.nodeType)]);
      return;
    }
    if (this.dropped[id] !== undefined) return;
    let t = this.types[id];
    if (t === undefined) {
      t = this.types[id] = c.nodeType;
      this.fresh.types.push([id, t]);
    }
    this.dropped[id] = droppedType(t, c.nodeIsNamed);
  }

  field(c: TreeCursorLike, id: number): void {
    if (id && this.fields[id] === undefined) {
      const f = (this.fields[id] = c.currentFieldName ?? '');
      this.fresh.fields.push([id, f]);
    }
  }

  /** Names met since the last call. */
  takeFresh(): FlatNames {
    const f = this.fresh;
    this.fresh = { types: [], fields: [] };
    return f;
  }

  /** Add names another table met. */
  merge(n: FlatNames): void {
    for (const [id, t] of n.types) {
      if (id === ERROR_ID) this.error = t;
      else this.types[id] = t;
    }
    for (const [id, f] of n.fields) this.fields[id] = f;
  }
}

/** Encode the tree under a cursor positioned at its root (one walk, the same native calls as `convertTree`). */
export function encodeTree(c: TreeCursorLike, withErrors: boolean, names: FlatNameTable): FlatTree {
  let buf = new Int32Array(NODE_INTS * 1024);
  let n = 0;
  /** Index of each open node (the path from the root), to count its children. */
  const open: number[] = [];
  /** Add the node under the cursor, or return -1 for a token `convertTree` leaves out (`droppedType`). */
  const add = (): number => {
    if ((n + 1) * NODE_INTS > buf.length) {
      const bigger = new Int32Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
    }
    const id = c.nodeTypeId;
    names.type(c, id);
    const fid = c.currentFieldId;
    if (!fid && names.dropped[id] && !(withErrors && c.nodeIsMissing)) return -1;
    names.field(c, fid);
    const o = n * NODE_INTS;
    buf[o] = id | (fid << 16);
    buf[o + 1] = c.startIndex;
    buf[o + 2] = c.endIndex;
    buf[o + 3] = (withErrors && c.nodeIsMissing ? MISSING : 0) | (c.nodeIsNamed ? NAMED : 0);
    return n++;
  };
  try {
    open.push(add());
    if (c.gotoFirstChild()) {
      for (;;) {
        const i = add();
        if (i >= 0) {
          buf[open[open.length - 1]! * NODE_INTS + 3]! += 4;
          if (c.gotoFirstChild()) {
            open.push(i);
            continue;
          }
        }
        let done = false;
        while (!c.gotoNextSibling()) {
          if (!c.gotoParent() || open.length === 1) {
            done = true;
            break;
          }
          open.pop();
        }
        if (done) break;
      }
    }
  } finally {
    c.delete?.();
  }
  return { nodes: buf.subarray(0, n * NODE_INTS), withErrors };
}

/** The nodes a flat tree holds (one per plain-tree node). */
export function flatNodeCount(t: FlatTree): number {
  return t.nodes.length / NODE_INTS;
}

/**
 * Encode a plain tree (one `convertTree` or `decodeTree` made) in the same layout, naming types and
 * fields by the ids `ids` gives (`--cache` keeps trees so, `tree-cache.ts`): a walk of JS objects, no
 * call into the parser. Field ids must stay below 32,768 and type ids below 65,536.
 */
export function encodePlainTree(root: PyNode, ids: { type(name: string): number; field(name: string): number }): FlatTree {
  let buf = new Int32Array(NODE_INTS * 4096);
  let o = 0;
  const stack: PyNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    const kids = n.children;
    if (o + NODE_INTS > buf.length) {
      const bigger = new Int32Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
    }
    buf[o] = ids.type(n.type) | (n.field ? ids.field(n.field) << 16 : 0);
    buf[o + 1] = n.start;
    buf[o + 2] = n.end;
    buf[o + 3] = (kids.length << 2) | (n.isMissing ? MISSING : 0) | (n.named ? NAMED : 0);
    o += NODE_INTS;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return { nodes: buf.slice(0, o), withErrors: root.hasError };
}

/** Rebuild the plain tree of `text` from its flat form: the same nodes, fields, flags, heights and depth as `convertTree`. */
export function decodeTree(t: FlatTree, text: string, names: FlatNameTable): PyNode {
  const b = t.nodes;
  const { fields } = names;
  const typeOf = (word: number): string => {
    const name = names.typeName(word & 0xffff);
    if (name === undefined) throw new Error(`flat tree: unknown node type id ${word & 0xffff}`);
    return name;
  };
  const shared = new TreeText(text);
  const root = new PyNode(typeOf(b[0]!), b[1]!, b[2]!, true, null, null, shared);
  let depth = 1;
  // open parents and how many children each still waits for
  const parents: PyNode[] = [root];
  const left: number[] = [b[3]! >>> 2];
  /** The children of each open parent so far (one reused array per level), copied into an array of
   *  their exact size when the parent closes, as `convertTree` does (an array grown by `push` keeps
   *  room for 17 for its life, which every scavenge copies). */
  const kids: PyNode[][] = [[]];
  const close = (): void => {
    const done = parents.pop()!;
    left.pop();
    const k = kids[parents.length]!;
    if (k.length) {
      done.children = k.slice();
      k.length = 0;
    }
    // its children are all in: pass its error flag to its parent (as `convertTree` does)
    const p = parents[parents.length - 1];
    if (p && done.hasError) p.hasError = true;
  };
  const kindRows: (NodeKind | undefined)[][] = [];
  const count = b.length / NODE_INTS;
  for (let i = 1; i < count; i++) {
    const o = i * NODE_INTS;
    while (left[left.length - 1] === 0) close();
    const parent = parents[parents.length - 1]!;
    left[left.length - 1]!--;
    const word = b[o]!;
    const type = typeOf(word);
    const fid = word >>> 16;
    const flags = b[o + 3]!;
    const named = (flags & NAMED) !== 0;
    const field = fid ? (fields[fid] || null) : null;
    // kinds by field id, type id and named flag (a type id below 65,535 has one name per table)
    const tid = word & 0xffff;
    let kind: NodeKind | undefined;
    if (tid !== ERROR_ID) {
      const row = (kindRows[fid * 2 + (named ? 1 : 0)] ??= []);
      kind = row[tid] ??= plainKind(type, field, named);
    }
    const node = new PyNode(type, b[o + 1]!, b[o + 2]!, named, field, parent, shared, kind);
    if (t.withErrors && (type === 'ERROR' || (flags & MISSING) !== 0)) {
      node.hasError = true;
      node.isMissing = type !== 'ERROR';
    }
    kids[parents.length - 1]!.push(node);
    const n = flags >>> 2;
    if (n > 0) {
      parents.push(node);
      left.push(n);
      if (kids.length < parents.length) kids.push([]);
      if (parents.length > depth) depth = parents.length;
    } else {
      if (node.hasError) parent.hasError = true;
    }
  }
  while (parents.length > 0) close();
  setTreeDepth(root, depth);
  return root;
}
