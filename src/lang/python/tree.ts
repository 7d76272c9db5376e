/**
 * A light, plain-JS copy of a tree-sitter Python tree. Built once per unit
 * with a single TreeCursor walk (≈ 5 µs per 10 nodes), then every analysis runs
 * on plain objects instead of crossing into wasm per property access.
 *
 * Punctuation tokens (`DROPPED_TOKENS`: brackets, commas, dots, `:` and `=`) are not copied unless a
 * field names them or the parser inserted them to recover: nothing reads them (a node's text and range
 * come from the source), and they were a quarter of all nodes, each one allocated, kept and copied by
 * every scavenge for the life of the tree. Keywords and operators stay (`==`, `not in`, `and`, `+=`, …).
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

/** Anonymous tokens the plain tree leaves out when no field names them and the parser did not insert them. */
export const DROPPED_TOKENS: ReadonlySet<string> = new Set(['(', ')', ',', '[', ']', '{', '}', '.', ':', '=']);

/** Whether nodes of this type are left out (when no field names them and the parser did not insert them):
 *  decided once per type id by `convertTree` and by the flat encoding alike. */
export function droppedType(type: string, named: boolean): boolean {
  return !named && DROPPED_TOKENS.has(type);
}

/**
 * The source text of one tree, shared by all its nodes: an incremental conversion (`convertTree` with a
 * `TreeReuse`) takes the old tree's nodes over and sets the text once, instead of writing it into every
 * node it keeps (the old tree is used up).
 */
export class TreeText {
  constructor(public text: string) {}
}
/** Leaves share one empty, frozen children array (most nodes are leaves: fewer allocations). */
// typed mutable like every node's children (nothing writes to them); frozen so a write would throw
const NO_CHILDREN: PyNode[] = Object.freeze([]) as unknown as PyNode[];

/** A node's type, field name and flags, one object per combination met in the process: a node holds one
 *  reference to it instead of two strings and three flags. */
export interface NodeKind {
  readonly type: string;
  readonly field: string | null;
  readonly named: boolean;
  readonly hasError: boolean;
  readonly isMissing: boolean;
}
const NAMED = 1;
const HAS_ERROR = 2;
const IS_MISSING = 4;
/** By type, then field: the kinds by flags (`NAMED | HAS_ERROR | IS_MISSING`). */
const kinds = new Map<string, Map<string | null, NodeKind[]>>();
function kindOf(type: string, field: string | null, flags: number): NodeKind {
  let byField = kinds.get(type);
  if (!byField) kinds.set(type, (byField = new Map()));
  let byFlags = byField.get(field);
  if (!byFlags) byField.set(field, (byFlags = []));
  return (byFlags[flags] ??= Object.freeze({ type, field, named: (flags & NAMED) !== 0, hasError: (flags & HAS_ERROR) !== 0, isMissing: (flags & IS_MISSING) !== 0 }));
}
/** The kind of a node as a tree builder makes it (no error flags yet): builders keep it per type and
 *  field id and hand it to `PyNode`, instead of two map look-ups per node. */
export function plainKind(type: string, field: string | null, named: boolean): NodeKind {
  return kindOf(type, field, named ? NAMED : 0);
}
function flagsOf(k: NodeKind): number {
  return (k.named ? NAMED : 0) | (k.hasError ? HAS_ERROR : 0) | (k.isMissing ? IS_MISSING : 0);
}

/** The shared text of each tree, held by its root (a node finds it through its parents). */
const treeTexts = new WeakMap<PyNode, TreeText>();
/** `id`s given out so far (on first ask: few nodes are asked). */
const ids = new WeakMap<PyNode, number>();

/**
 * A node of the plain-JS tree. Besides its own fields it offers the part of web-tree-sitter's
 * `Node` API that rules use (`text`, `startIndex`, `childForFieldName`, `namedChildren`, `id`,
 * `hasError`, …), so the central pass can hand these to rules without crossing into wasm.
 *
 * A tree is most of what a run keeps (964,000 nodes for webarena-infinity): a node has five fields
 * (96 → 64 bytes on a build without pointer compression). Its type, field name and flags are one shared
 * `NodeKind`; its tree's text is held by the root only (`text` climbs the parents); its `id` is given on
 * first ask; its `height` is counted when asked (only an incremental conversion asks).
 */
export class PyNode {
  children: PyNode[] = NO_CHILDREN;
  private kind: NodeKind;
  constructor(
    type: string,
    /** UTF-16 offsets (half-open), identical to tree-sitter's startIndex/endIndex. Only an
     *  incremental conversion (`convertTree` with a `TreeReuse`) moves a node it takes over. */
    public start: number,
    public end: number,
    named: boolean,
    /** Field name of this node in its parent (`left`, `body`, …) or null. */
    field: string | null,
    public parent: PyNode | null,
    /** The unit's source text (shared by the tree's nodes; kept by the root). */
    source: TreeText,
    /** `plainKind(type, field, named)`, when the caller has it at hand. */
    kind?: NodeKind,
  ) {
    this.kind = kind ?? kindOf(type, field, named ? NAMED : 0);
    if (parent === null) treeTexts.set(this, source);
  }

  /** Unique per node of this process (web-tree-sitter's `id` plays the same role). */
  get id(): number {
    let id = ids.get(this);
    if (id === undefined) ids.set(this, (id = nextId++));
    return id;
  }
  get type(): string {
    return this.kind.type;
  }
  /** Field name of this node in its parent (`left`, `body`, …) or null. */
  get field(): string | null {
    return this.kind.field;
  }
  set field(f: string | null) {
    if (f !== this.kind.field) this.kind = kindOf(this.kind.type, f, flagsOf(this.kind));
  }
  /** A named node (not an anonymous token such as a keyword or operator). */
  get named(): boolean {
    return this.kind.named;
  }
  /** Subtree contains an ERROR or MISSING node. */
  get hasError(): boolean {
    return this.kind.hasError;
  }
  set hasError(v: boolean) {
    if (v !== this.kind.hasError) this.kind = kindOf(this.kind.type, this.kind.field, flagsOf(this.kind) ^ HAS_ERROR);
  }
  /** A node the parser inserted to recover (zero width). */
  get isMissing(): boolean {
    return this.kind.isMissing;
  }
  set isMissing(v: boolean) {
    if (v !== this.kind.isMissing) this.kind = kindOf(this.kind.type, this.kind.field, flagsOf(this.kind) ^ IS_MISSING);
  }
  /** Levels of the subtree (1 for a leaf), counted by a walk: an incremental conversion asks it of the
   *  subtrees it takes over, for the new tree's depth. */
  get height(): number {
    let max = 1;
    const nodes: PyNode[] = [this];
    const levels: number[] = [1];
    while (nodes.length) {
      const n = nodes.pop()!;
      const l = levels.pop()!;
      if (l > max) max = l;
      const kids = n.children;
      for (let i = 0; i < kids.length; i++) {
        nodes.push(kids[i]!);
        levels.push(l + 1);
      }
    }
    return max;
  }

  /** Move this subtree `delta` UTF-16 units (an incremental conversion takes it over into the tree of an
   *  edited text). The tree it came from is no longer valid. */
  static moveSubtree(root: PyNode, delta: number): void {
    const nodes: PyNode[] = [root];
    while (nodes.length) {
      const n = nodes.pop()!;
      n.start += delta;
      n.end += delta;
      const kids = n.children;
      for (let i = 0; i < kids.length; i++) nodes.push(kids[i]!);
    }
  }

  /** The tree's shared text (an incremental conversion keeps it for the new tree). */
  static textOf(n: PyNode): TreeText {
    let r = n;
    while (r.parent) r = r.parent;
    const t = treeTexts.get(r);
    if (!t) throw new Error('PyNode: a node of no tree');
    return t;
  }

  get startIndex(): number {
    return this.start;
  }
  get endIndex(): number {
    return this.end;
  }
  get text(): string {
    return PyNode.textOf(this).text.slice(this.start, this.end);
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
    // indexed loops here and in `field`/`named`: asked for on every node by most analyses, and an
    // iterator allocates per step until the optimising compiler reaches the caller
    const kids = this.children;
    for (let i = 0; i < kids.length; i++) if (kids[i]!.field === name) return kids[i]!;
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
  /** Node kinds by field id, then type id (types below 65,535). */
  kinds: (NodeKind | undefined)[][];
  types: (string | undefined)[];
  named: (boolean | undefined)[];
  fields: (string | null | undefined)[];
  /** Type ids of `DROPPED_TOKENS`. */
  dropped: (boolean | undefined)[];
}
/** Type and field names by id, per cursor class (one per parser build; ids come from the grammar). */
const langTables = new WeakMap<object, LangTables>();

const depths = new WeakMap<PyNode, number>();

/** Nesting depth of the deepest node under a root that `convertTree` built (the root is depth 1). */
export function treeDepth(root: PyNode): number {
  return depths.get(root) ?? 1;
}

/** Record the depth of a tree built elsewhere (`decodeTree`). */
export function setTreeDepth(root: PyNode, depth: number): void {
  depths.set(root, depth);
}

/** Nesting at which CPython 3.11's compiler raises RecursionError (a sum of 2,993 terms compiles,
 *  2,994 does not; 200 nested brackets are already a SyntaxError). */
export const CPYTHON_MAX_DEPTH = 3000;

/** Deepest nesting the analyses accept: they recurse on the tree (scopes, flow, the rules' own walks),
 *  and 1,000 levels leave them a safe share of the stack. Real code stays far below: the deepest
 *  module of the corpora and of 3,000 stdlib and vendored files is 88 levels deep. */
export const MAX_ANALYSED_DEPTH = 1000;

/** Most syntax nodes (of the plain tree: punctuation left out) in a unit the analyses accept (issue 30,
 *  item 5: memory). The analyses' memory grows with the nodes, about 650 bytes each at the peak of a run
 *  (the tree, scopes, flow and the rules' facts): a 5 MB module of 1.7 million nodes took the run to
 *  1.2 GB, and four such modules to 3.4 GB. Real code stays far below: the largest module of the five
 *  corpora has 30,000 nodes, of 2,248 stdlib and vendored files 76,000 (a generated Unicode table). */
export const MAX_ANALYSED_NODES = 400_000;

/** The nodes of the tree under `root` (the root included), counted up to `limit + 1` (past the limit the
 *  count stops: a caller asks only whether the tree is over it). */
export function treeSize(root: PyNode, limit: number): number {
  let n = 0;
  const stack: PyNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (++n > limit) return n;
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) stack.push(kids[i]!);
  }
  return n;
}

/**
 * What an incremental conversion may take over from the plain tree of the previous text: the
 * edit (one replaced span) and the ranges whose syntax tree-sitter found changed
 * (`Tree.getChangedRanges`), both in the new text's offsets.
 */
export interface TreeReuse {
  /** The plain tree of the previous text (its nodes are moved into the new tree: it is used up). */
  old: PyNode;
  editStart: number;
  /** End of the replaced span in the old text and in the new text. */
  oldEnd: number;
  newEnd: number;
  changed: ReadonlyArray<{ startIndex: number; endIndex: number }>;
}

/** The old node a new node [s, e) of `type` can be, when neither the edit nor a changed range touches it. */
function reusable(r: TreeReuse, type: string, field: string | null, s: number, e: number): PyNode | undefined {
  if (s === e) return undefined;
  const before = e < r.editStart;
  if (!before && !(s > r.newEnd)) return undefined;
  for (const x of r.changed) if (x.startIndex <= e && s <= x.endIndex) return undefined;
  const delta = before ? 0 : r.newEnd - r.oldEnd;
  const old = locate(r.old, { type, start: s - delta, end: e - delta });
  return old && old.field === field && old.start === s - delta && old.end === e - delta ? old : undefined;
}

/**
 * Copy a tree-sitter tree of `text` into PyNodes with one walk of its cursor (positioned at the root).
 * With `reuse` (an incremental re-parse after one edit), subtrees that tree-sitter reports unchanged
 * are taken over from the previous plain tree instead of walked and copied again.
 */
export function convertTree(c: TreeCursorLike, withErrors: boolean, text: string, reuse?: TreeReuse): PyNode {
  const depth = { max: 1 };
  const proto = Object.getPrototypeOf(c) as object;
  let tables = langTables.get(proto);
  if (!tables) {
    tables = { kinds: [], types: [], named: [], fields: [], dropped: [] };
    langTables.set(proto, tables);
  }
  const { kinds: kindRows, types, named: isNamed, fields: fieldNames, dropped } = tables;
  // the old tree's nodes are taken over with their shared text: it becomes the new text (offsets are
  // all the search of the old tree below reads)
  let shared: TreeText;
  if (reuse) {
    shared = PyNode.textOf(reuse.old);
    shared.text = text;
  } else shared = new TreeText(text);
  const root = new PyNode(c.nodeType, c.startIndex, c.endIndex, true, null, null, shared);
  const stack: PyNode[] = [root];
  /** The children of each node on the stack so far (one reused array per level), copied into an array
   *  of their exact size when the node is done: an array grown by `push` keeps room for 17 (V8 grows
   *  1 → 17), which every internal node carried for its life and each scavenge copied. */
  const kids: PyNode[][] = [[]];
  const seal = (n: PyNode, level: number) => {
    const k = kids[level]!;
    if (k.length) {
      n.children = k.slice();
      k.length = 0;
    }
  };
  depths.set(root, 1);
  /** Subtrees taken over from `reuse.old`, moved once the walk is done (the old tree is searched until then). */
  const taken: Array<{ node: PyNode; parent: PyNode; field: string | null; delta: number; depth: number }> = [];
  /** Finish a node: propagate its error flag to its parent. */
  const close = (n: PyNode) => {
    const p = n.parent;
    if (!p) return;
    if (n.hasError) p.hasError = true;
  };
  const finish = () => {
    for (let l = stack.length - 1; l >= 0; l--) seal(stack[l]!, l);
    for (const t of taken) {
      t.node.parent = t.parent;
      t.node.field = t.field;
      // before the edit a subtree keeps its offsets
      if (t.delta !== 0) PyNode.moveSubtree(t.node, t.delta);
      // as in the walk, depth counts the nodes that have children
      const height = t.node.height;
      if (height >= 2 && t.depth + height - 2 > depth.max) depths.set(root, (depth.max = t.depth + height - 2));
    }
    return root;
  };
  /** Move the cursor to the next node after a leaf, finishing the nodes it leaves; false at the end. */
  const toNext = (): boolean => {
    while (!c.gotoNextSibling()) {
      if (!c.gotoParent()) return false;
      const done = stack.pop()!;
      seal(done, stack.length);
      close(done);
      if (stack.length === 0) return false;
    }
    return true;
  };
  try {
    if (!c.gotoFirstChild()) return finish();
    for (;;) {
      const parent = stack[stack.length - 1]!;
      const id = c.nodeTypeId;
      let type = types[id];
      if (type === undefined) {
        type = c.nodeType;
        if (id < 65535) {
          types[id] = type;
          isNamed[id] = c.nodeIsNamed;
          dropped[id] = droppedType(type, c.nodeIsNamed);
        }
      }
      const fid = c.currentFieldId;
      let fieldName: string | null = null;
      if (fid) {
        fieldName = fieldNames[fid] ?? null;
        if (fieldName === null) fieldNames[fid] = fieldName = c.currentFieldName ?? null;
      } else if (dropped[id] && !(withErrors && c.nodeIsMissing)) {
        // a punctuation leaf: not copied (see above)
        if (!toNext()) return finish();
        continue;
      }
      const s = c.startIndex;
      const e = c.endIndex;
      const old = reuse && !withErrors ? reusable(reuse, type, fieldName, s, e) : undefined;
      let kind: NodeKind | undefined;
      if (id < 65535) {
        const row = (kindRows[fid | 0] ??= []);
        kind = row[id] ??= plainKind(type, fieldName, isNamed[id]!);
      }
      const node = old ?? new PyNode(type, s, e, isNamed[id] ?? c.nodeIsNamed, fieldName, parent, shared, kind);
      if (old) {
        taken.push({ node: old, parent, field: fieldName, delta: s - old.start, depth: stack.length + 1 });
      } else if (withErrors && (type === 'ERROR' || c.nodeIsMissing)) {
        node.hasError = true;
        node.isMissing = type !== 'ERROR';
      }
      kids[stack.length - 1]!.push(node);
      // depth counts the levels of nodes with a child the tree keeps (the parent's level is stack.length)
      if (stack.length > depth.max) depths.set(root, (depth.max = stack.length));
      if (!old && c.gotoFirstChild()) {
        stack.push(node);
        if (kids.length < stack.length) kids.push([]);
        continue;
      }
      if (!old) close(node);
      if (!toNext()) return finish();
    }
  } finally {
    c.delete?.();
  }
}

/** Simple statements: no statement (no import) is ever inside one. */
const NO_STATEMENTS_UNDER = new Set([
  'expression_statement', 'return_statement', 'pass_statement', 'break_statement', 'continue_statement', 'raise_statement',
  'assert_statement', 'global_statement', 'nonlocal_statement', 'delete_statement', 'print_statement', 'exec_statement',
  'type_alias_statement',
]);

/**
 * Can a statement be under this node? Statements are only in the module, blocks (every suite is one),
 * compound statements, their clauses (`elif`, `except`, `case`…) and definitions: simple statements
 * and expressions hold none (Python has no statement expressions), unless error recovery put one
 * there. A walk that looks for statements (imports, `if`s) returns false where this is false.
 */
export function mayHoldStatements(n: PyNode): boolean {
  if (n.hasError) return true;
  const type = n.type;
  if (type === 'module' || type === 'block' || type === 'decorated_definition' || type === 'ERROR') return true;
  if (NO_STATEMENTS_UNDER.has(type)) return false;
  return type.endsWith('_statement') || type.endsWith('_clause') || type.endsWith('_definition');
}

export function field(n: PyNode, name: string): PyNode | undefined {
  const kids = n.children;
  for (let i = 0; i < kids.length; i++) if (kids[i]!.field === name) return kids[i]!;
  return undefined;
}

export function fields(n: PyNode, name: string): PyNode[] {
  return n.children.filter((c) => c.field === name);
}

/** The module an `import_from_statement` names, as written, and its level (the leading dots of a
 *  relative import). */
export function importFromModule(n: PyNode, src: (x: PyNode) => string): { module: string; level: number } {
  const mod = field(n, 'module_name');
  if (mod?.type !== 'relative_import') return { module: mod ? src(mod) : '', level: 0 };
  const prefix = mod.children.find((c) => c.type === 'import_prefix');
  const dn = mod.children.find((c) => c.type === 'dotted_name');
  return { module: dn ? src(dn) : '', level: prefix ? prefix.end - prefix.start : 0 };
}

export function named(n: PyNode): PyNode[] {
  return n.children.filter((c) => c.named && c.type !== 'comment');
}

/** The named sibling after `n` (comments skipped, as `named` skips them), or undefined. Found by a binary
 *  search of the parent's children by offset: a rule asking it of every statement of a flat body of n
 *  statements scanned the body each time (`named(parent).indexOf(n)`: n² in all, issue 30). */
export function nextNamed(n: PyNode): PyNode | undefined {
  const kids = n.parent?.children;
  if (!kids) return undefined;
  let lo = 0;
  let hi = kids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (kids[mid]!.start < n.start) lo = mid + 1;
    else hi = mid;
  }
  // zero-width nodes (a MISSING token) may start where `n` starts: step to `n` itself
  while (lo < kids.length && kids[lo] !== n) lo++;
  for (let i = lo + 1; i < kids.length; i++) if (kids[i]!.named && kids[i]!.type !== 'comment') return kids[i]!;
  return undefined;
}

export function firstNamed(n: PyNode): PyNode | undefined {
  const kids = n.children;
  for (let i = 0; i < kids.length; i++) if (kids[i]!.named && kids[i]!.type !== 'comment') return kids[i]!;
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
