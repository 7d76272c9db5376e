/**
 * Scopes and bindings (Python semantics): module, class (a class body does not
 * enclose its methods), function, lambda and comprehension scopes. Every
 * identifier is classified once as a binding, a read, or neither (attribute
 * names, keyword-argument names, import module paths…).
 */
import { type PyNode, field, named } from './tree.js';

type ScopeKind = 'module' | 'class' | 'function' | 'lambda' | 'comprehension';

export type BindingKind =
  | 'assign' | 'augassign' | 'annassign' | 'walrus' | 'for' | 'with' | 'except' | 'import'
  | 'def' | 'class' | 'param' | 'del' | 'match' | 'comprehension' | 'star-import';

interface Binding {
  name: string;
  kind: BindingKind;
  /** The identifier that binds (or the statement for a star import). */
  node: PyNode;
}

export interface Scope {
  id: number;
  kind: ScopeKind;
  /** module / class_definition / function_definition / lambda / *_comprehension / generator_expression. */
  node: PyNode;
  name: string;
  /** Dotted qualified name (`ChimeraXMixin._eval_states`, `f.<locals>.g`, `<lambda>`…). */
  qualname: string;
  parent: Scope | null;
  children: Scope[];
  /** Names bound in this scope (after global/nonlocal redirection). */
  bindings: Map<string, Binding[]>;
  params: string[];
  /** Names declared `global` here (one shared empty set until a declaration: most scopes have none). */
  globals: ReadonlySet<string>;
  /** Names declared `nonlocal` here (shared empty set until a declaration). */
  nonlocals: ReadonlySet<string>;
  hasStarImport: boolean;
}

interface NameRead {
  node: PyNode;
  name: string;
  scope: Scope;
  /** Inside an annotation (`type` node): evaluated lazily or never, existence only. */
  inAnnotation: boolean;
}

export interface ScopeTable {
  module: Scope;
  scopes: Scope[];
  reads: NameRead[];
  /** Scope that owns each scope-creating node. */
  byNode: Map<PyNode, Scope>;
  /** For each identifier that binds, the scope it binds in. */
  bindingScope: Map<PyNode, Scope>;
  readByNode: Map<PyNode, NameRead>;
}

/**
 * What one statement (a definition, or a statement of a module or class body: `ScopeBuilder.stmt`)
 * added while its table was built: the spans of the table's scopes (by id), reads and pending bindings
 * its walk made, and the index after the last record of the statements nested in it (they follow it in
 * `ScopeLog.stmts`).
 */
interface StmtSpan {
  node: PyNode;
  /** Its walk declared names (`global`, `nonlocal`) or marked a star import: in the scope it sits in too,
   *  unless it is a definition (they declare only in their own scopes). */
  declares: boolean;
  s0: number; s1: number;
  r0: number; r1: number;
  p0: number; p1: number;
  d1: number;
}

/** How a table was built, kept for the table of the next edited text (`ScopeReuse`). */
interface ScopeLog {
  /** Bindings in walk order, before global/nonlocal redirection, and the scope that made each. */
  pending: readonly Binding[];
  pendingScope: readonly Scope[];
  /** Recorded statements in walk order, each before the ones nested in it. */
  stmts: readonly StmtSpan[];
  stmtByNode: ReadonlyMap<PyNode, number>;
}
const logs = new WeakMap<ScopeTable, ScopeLog>();

/**
 * The table of the text before an edit, for the table of the edited text. A statement whose node the
 * incremental parse took over (the same object: same subtree, same text) adds exactly what it added
 * before, up to the scope it sits in: its scopes (the ids shifted, the parent of its outermost ones and
 * the qualnames redone), reads and pending bindings are copied from the previous table instead of
 * walked (definitions, and the statements of module and class bodies). Bindings are then resolved
 * afresh for the whole module (global/nonlocal redirection reads every scope), so the table is the one
 * `buildScopes` gives without `reuse`.
 */
export interface ScopeReuse {
  /** Built with `keepLog` (a table without its log is not reused). */
  prev: ScopeTable;
  /** The previous table's statement node that `n` repeats (default: `n` itself, when the parse took it
   *  over). Tests replace it to show that a reuse ignoring this condition goes wrong. */
  same?(n: PyNode): PyNode | undefined;
}

/** The globals and nonlocals of a scope that declares none (a scope's own set is made at its first declaration). */
const NO_NAMES: ReadonlySet<string> = new Set();
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
export function isComprehension(t: string): boolean {
  return COMPREHENSIONS.has(t);
}

/** Scopes, bindings and reads of one module, in one walk of its tree (`buildScopes`). */
class ScopeBuilder {
  readonly scopes: Scope[] = [];
  readonly reads: NameRead[] = [];
  readonly byNode = new Map<PyNode, Scope>();
  readonly bindingScope = new Map<PyNode, Scope>();
  readonly readByNode = new Map<PyNode, NameRead>();
  /** Bindings are recorded once the global/nonlocal declarations are known. */
  readonly pending: Binding[] = [];
  /** The scope that made each pending binding (two arrays: no pair allocated per binding). */
  readonly pendingScope: Scope[] = [];
  /** Each pending binding is already in its scope's `bindings` (copied with a statement: `splice`). */
  private readonly pendingSettled: boolean[] = [];
  readonly stmts: StmtSpan[] = [];
  readonly stmtByNode = new Map<PyNode, number>();
  /** Statements copied from the previous table (`splice`). */
  spliced = 0;
  /** `global` / `nonlocal` statements and star imports walked so far. */
  private declarations = 0;
  readonly module: Scope;
  private readonly prev?: { table: ScopeTable; log: ScopeLog; same?: (n: PyNode) => PyNode | undefined };

  constructor(root: PyNode, private readonly text: string, reuse?: ScopeReuse) {
    const log = reuse && logs.get(reuse.prev);
    if (reuse && log) this.prev = { table: reuse.prev, log, same: reuse.same };
    this.module = this.mk('module', root, '<module>', null);
    this.module.qualname = '';
    this.block(this.module, root);
    this.resolve();
  }

  private src(n: PyNode): string {
    return this.text.slice(n.start, n.end);
  }

  private mk(kind: ScopeKind, node: PyNode, name: string, parent: Scope | null): Scope {
    let qualname = name;
    if (parent && parent.kind !== 'module') {
      qualname = parent.kind === 'function' || parent.kind === 'lambda' ? `${parent.qualname}.<locals>.${name}` : `${parent.qualname}.${name}`;
    }
    const s: Scope = {
      id: this.scopes.length, kind, node, name, qualname, parent, children: [], bindings: new Map(), params: [],
      globals: NO_NAMES, nonlocals: NO_NAMES, hasStarImport: false,
    };
    this.scopes.push(s);
    this.byNode.set(node, s);
    parent?.children.push(s);
    return s;
  }
  private bind(scope: Scope, id: PyNode, kind: BindingKind) {
    if (id.type !== 'identifier') return;
    this.pending.push({ name: this.src(id), kind, node: id });
    this.pendingScope.push(scope);
    this.pendingSettled.push(false);
  }
  private read(scope: Scope, id: PyNode, inAnnotation: boolean) {
    const r: NameRead = { node: id, name: this.src(id), scope, inAnnotation };
    this.reads.push(r);
    this.readByNode.set(id, r);
  }

  /** Bind every identifier of an assignment target; this.reads inside subscripts/attributes. */
  private target(scope: Scope, n: PyNode, kind: BindingKind, ann: boolean): void {
    switch (n.type) {
      case 'identifier':
        this.bind(scope, n, kind);
        return;
      case 'pattern_list': case 'tuple_pattern': case 'list_pattern': case 'tuple': case 'list':
      case 'expression_list': case 'parenthesized_expression': case 'list_splat_pattern': case 'list_splat':
      case 'as_pattern_target':
        for (const c of named(n)) this.target(scope, c, kind, ann);
        return;
      case 'attribute': case 'subscript':
        this.expr(scope, n, ann);
        return;
      default:
        this.expr(scope, n, ann);
    }
  }

  private params(fnScope: Scope, outer: Scope, p: PyNode | undefined) {
    if (!p) return;
    for (const c of named(p)) {
      let id: PyNode | undefined;
      switch (c.type) {
        case 'identifier': id = c; break;
        case 'typed_parameter': {
          id = named(c).find((k) => k.type === 'identifier' || k.type === 'list_splat_pattern' || k.type === 'dictionary_splat_pattern');
          if (id && id.type !== 'identifier') id = named(id)[0];
          const t = field(c, 'type');
          if (t) this.expr(outer, t, true);
          break;
        }
        case 'default_parameter': case 'typed_default_parameter': {
          id = field(c, 'name');
          const t = field(c, 'type');
          if (t) this.expr(outer, t, true);
          const v = field(c, 'value');
          if (v) this.expr(outer, v, false);
          break;
        }
        case 'list_splat_pattern': case 'dictionary_splat_pattern':
          id = named(c)[0];
          break;
        case 'tuple_pattern':
          for (const k of named(c)) if (k.type === 'identifier') { fnScope.params.push(this.src(k)); this.bind(fnScope, k, 'param'); }
          break;
      }
      if (id && id.type === 'identifier') {
        fnScope.params.push(this.src(id));
        this.bind(fnScope, id, 'param');
      }
    }
  }

  private pattern(scope: Scope, n: PyNode): void {
    // match-statement patterns: captures bind, dotted values / class names are this.reads
    switch (n.type) {
      case 'dotted_name': {
        const ids = named(n);
        const p = n.parent;
        if (ids.length === 1 && p && p.type !== 'class_pattern') this.bind(scope, ids[0]!, 'match');
        else if (ids[0]) this.read(scope, ids[0], false);
        return;
      }
      case 'splat_pattern': case 'as_pattern': {
        for (const c of named(n)) {
          if (c.type === 'identifier') this.bind(scope, c, 'match');
          else this.pattern(scope, c);
        }
        return;
      }
      case 'keyword_pattern': {
        const kids = named(n);
        for (let i = 1; i < kids.length; i++) this.pattern(scope, kids[i]!);
        return;
      }
      case 'identifier':
        this.read(scope, n, false);
        return;
      default:
        if (n.type === 'string' || n.type === 'concatenated_string') return;
        for (const c of named(n)) this.pattern(scope, c);
    }
  }

  private comprehension(scope: Scope, n: PyNode, ann: boolean) {
    const cs = this.mk('comprehension', n, n.type === 'generator_expression' ? '<genexpr>' : `<${n.type.replace('_comprehension', '').replace('dictionary', 'dict')}comp>`, scope);
    let first = true;
    // clauses first (bindings), body last, in source evaluation order
    for (const c of named(n)) {
      if (c.type === 'for_in_clause') {
        const right = fields(c, 'right');
        for (const r of right) this.expr(first ? scope : cs, r, ann);
        first = false;
        const left = field(c, 'left');
        if (left) this.target(cs, left, 'comprehension', ann);
      } else if (c.type === 'if_clause') {
        for (const k of named(c)) this.expr(cs, k, ann);
      }
    }
    const body = field(n, 'body');
    if (body) this.expr(cs, body, ann);
  }

  private expr(scope: Scope, n: PyNode, ann: boolean): void {
    switch (n.type) {
      case 'identifier':
        this.read(scope, n, ann);
        return;
      case 'attribute': {
        const o = field(n, 'object');
        if (o) this.expr(scope, o, ann);
        return;
      }
      case 'keyword_argument': {
        const v = field(n, 'value');
        if (v) this.expr(scope, v, ann);
        return;
      }
      case 'named_expression': {
        const v = field(n, 'value');
        if (v) this.expr(scope, v, ann);
        const nm = field(n, 'name');
        // walrus in a comprehension binds in the enclosing non-comprehension scope
        let s = scope;
        while (s.kind === 'comprehension' && s.parent) s = s.parent;
        if (nm) this.bind(s, nm, 'walrus');
        return;
      }
      case 'lambda': {
        const ls = this.mk('lambda', n, '<lambda>', scope);
        this.params(ls, scope, field(n, 'parameters'));
        const b = field(n, 'body');
        if (b) this.expr(ls, b, false);
        return;
      }
      case 'type':
        for (const c of named(n)) this.expr(scope, c, true);
        return;
      case 'string_content': case 'escape_sequence': case 'string_start': case 'string_end': case 'comment':
        return;
      default: {
        if (isComprehension(n.type)) return this.comprehension(scope, n, ann);
        // indexed: every expression node passes here (a for…of allocates per step in cold code)
        const kids = n.children;
        for (let i = 0; i < kids.length; i++) if (kids[i]!.named) this.expr(scope, kids[i]!, ann);
      }
    }
  }

  private block(scope: Scope, n: PyNode | undefined) {
    if (!n) return;
    const kids = n.children;
    for (let i = 0; i < kids.length; i++) if (kids[i]!.named) this.stmt(scope, kids[i]!);
  }

  /**
   * A statement: copied from the previous table when it has it (`splice`), else walked and recorded.
   * Recorded are definitions anywhere and every statement of a module or class body (an edit inside a
   * function leaves them alone); statements inside functions are walked with their function.
   */
  private stmt(scope: Scope, n: PyNode): void {
    if (scope.kind !== 'module' && scope.kind !== 'class' && n.type !== 'function_definition' && n.type !== 'class_definition') {
      this.walkStmt(scope, n);
      return;
    }
    if (this.prev && this.splice(scope, n)) return;
    const d: StmtSpan = { node: n, declares: false, s0: this.scopes.length, s1: 0, r0: this.reads.length, r1: 0, p0: this.pending.length, p1: 0, d1: 0 };
    const declarations = this.declarations;
    this.stmtByNode.set(n, this.stmts.length);
    this.stmts.push(d);
    this.walkStmt(scope, n);
    d.s1 = this.scopes.length;
    d.r1 = this.reads.length;
    d.p1 = this.pending.length;
    d.d1 = this.stmts.length;
    d.declares = this.declarations !== declarations;
  }

  private walkStmt(scope: Scope, n: PyNode): void {
    switch (n.type) {
      case 'expression_statement':
        for (const c of named(n)) {
          if (c.type === 'assignment' || c.type === 'augmented_assignment') this.assignment(scope, c);
          else this.expr(scope, c, false);
        }
        return;
      case 'decorated_definition': {
        for (const c of named(n)) if (c.type === 'decorator') this.expr(scope, c, false);
        const d = field(n, 'definition');
        if (d) this.stmt(scope, d);
        return;
      }
      case 'function_definition':
        this.functionDef(scope, n);
        return;
      case 'class_definition':
        this.classDef(scope, n);
        return;
      case 'for_statement': {
        const r = field(n, 'right');
        if (r) this.expr(scope, r, false);
        const l = field(n, 'left');
        if (l) this.target(scope, l, 'for', false);
        this.block(scope, field(n, 'body'));
        const alt = field(n, 'alternative');
        if (alt) this.block(scope, field(alt, 'body'));
        return;
      }
      case 'with_statement':
        this.withStatement(scope, n);
        return;
      case 'except_clause': case 'except_group_clause': {
        for (const c of n.children) {
          if (!c.named) continue;
          if (c.type === 'block') this.block(scope, c);
          else if (c.type === 'as_pattern') {
            const kids = named(c);
            if (kids[0]) this.expr(scope, kids[0], false);
            const alias = field(c, 'alias');
            if (alias) this.target(scope, alias, 'except', false);
          } else this.expr(scope, c, false);
        }
        return;
      }
      // `from __future__ import annotations` binds `annotations` too (a `__future__._Feature`)
      case 'import_statement': case 'import_from_statement': case 'future_import_statement':
        this.imports(scope, n);
        return;
      case 'global_statement': {
        this.declarations++;
        // one copy per statement (the set may be shared with a previous table), not one per name
        const names = new Set(scope.globals);
        for (const c of named(n)) if (c.type === 'identifier') names.add(this.src(c));
        if (names.size !== scope.globals.size) scope.globals = names;
        return;
      }
      case 'nonlocal_statement': {
        this.declarations++;
        // one copy per statement (the set may be shared with a previous table), not one per name
        const names = new Set(scope.nonlocals);
        for (const c of named(n)) if (c.type === 'identifier') names.add(this.src(c));
        if (names.size !== scope.nonlocals.size) scope.nonlocals = names;
        return;
      }
      case 'delete_statement':
        for (const c of named(n)) this.delTarget(scope, c);
        return;
      case 'match_statement':
        this.matchStatement(scope, n);
        return;
      case 'type_alias_statement':
        for (const c of named(n)) this.expr(scope, c, true);
        return;
      default:
        for (const c of n.children) {
          if (!c.named || c.type === 'comment') continue;
          if (c.type === 'block') this.block(scope, c);
          else if (c.type === 'else_clause' || c.type === 'elif_clause' || c.type === 'finally_clause' || c.type === 'except_clause' || c.type === 'except_group_clause') this.stmt(scope, c);
          else if (isStatement(c.type)) this.stmt(scope, c);
          else this.expr(scope, c, false);
        }
    }
  }

  private functionDef(scope: Scope, n: PyNode): void {
    const nm = field(n, 'name');
    const fs = this.mk('function', n, nm ? this.src(nm) : '<function>', scope);
    this.params(fs, scope, field(n, 'parameters'));
    const rt = field(n, 'return_type');
    if (rt) this.expr(scope, rt, true);
    this.block(fs, field(n, 'body'));
    if (nm) this.bind(scope, nm, 'def');
  }

  private classDef(scope: Scope, n: PyNode): void {
    const nm = field(n, 'name');
    const sc = field(n, 'superclasses');
    if (sc) this.expr(scope, sc, false);
    const cs = this.mk('class', n, nm ? this.src(nm) : '<class>', scope);
    this.block(cs, field(n, 'body'));
    if (nm) this.bind(scope, nm, 'class');
  }

  /**
   * Add what statement `n` added to the previous table, when that table has it (`ScopeReuse`): its walk
   * reads nothing outside its subtree but the scope it sits in (`scope`), which takes the place of the
   * previous one. Its scopes are made again in id order (parents, children and qualnames as `mk` makes
   * them), its reads and pending bindings copied with their scopes mapped, its nested records shifted.
   * What it declared in its own scopes is copied with them; one that declared in `scope` is walked.
   */
  private splice(scope: Scope, n: PyNode): boolean {
    const { table, log, same } = this.prev!;
    const oldNode = same ? same(n) : n;
    const i = oldNode && log.stmtByNode.get(oldNode);
    if (i === undefined) return false;
    const d = log.stmts[i]!;
    // a statement that declared names in the scope it sits in is walked (the declarations are not recorded)
    if (d.declares && n.type !== 'function_definition' && n.type !== 'class_definition') return false;
    const old = table.scopes;
    const made: Scope[] = [];
    const map = (o: Scope): Scope => (o.id >= d.s0 && o.id < d.s1 && old[o.id] === o ? made[o.id - d.s0]! : scope);
    const ds = this.scopes.length - d.s0;
    const dr = this.reads.length - d.r0;
    const dp = this.pending.length - d.p0;
    const di = this.stmts.length - i;
    for (let k = i; k < d.d1; k++) {
      const x = log.stmts[k]!;
      this.stmtByNode.set(x.node, k + di);
      this.stmts.push({ node: x.node, declares: x.declares, s0: x.s0 + ds, s1: x.s1 + ds, r0: x.r0 + dr, r1: x.r1 + dr, p0: x.p0 + dp, p1: x.p1 + dp, d1: x.d1 + di });
    }
    // without `nonlocal` in it, its scopes' bindings are their own pending bindings (less those `global`
    // sends to the module), in the same order: the previous table's (tables are read-only once built)
    let settled = true;
    for (let id = d.s0; id < d.s1; id++) {
      const o = old[id]!;
      const s = this.mk(o.kind, o.node, o.name, o.parent ? map(o.parent) : null);
      made.push(s);
      if (o.params.length) s.params = o.params.slice();
      if (o.globals.size) s.globals = new Set(o.globals);
      if (o.nonlocals.size) {
        s.nonlocals = new Set(o.nonlocals);
        settled = false;
      }
      s.hasStarImport = o.hasStarImport;
    }
    if (settled) for (let id = d.s0; id < d.s1; id++) made[id - d.s0]!.bindings = new Map(old[id]!.bindings);
    const reads = table.reads;
    for (let k = d.r0; k < d.r1; k++) {
      const o = reads[k]!;
      const r: NameRead = { node: o.node, name: o.name, scope: map(o.scope), inAnnotation: o.inAnnotation };
      this.reads.push(r);
      this.readByNode.set(o.node, r);
    }
    const { pending, pendingScope } = log;
    for (let k = d.p0; k < d.p1; k++) {
      const b = pending[k]!;
      const s = map(pendingScope[k]!);
      this.pending.push(b);
      this.pendingScope.push(s);
      this.pendingSettled.push(settled && s !== scope && !(s.globals.size && s.globals.has(b.name)));
    }
    this.spliced++;
    return true;
  }

  private withStatement(scope: Scope, n: PyNode): void {
    for (const c of named(n)) {
      if (c.type === 'with_clause') {
        for (const v of withItemValues(c)) {
          if (v.type === 'as_pattern') {
            const kids = named(v);
            if (kids[0]) this.expr(scope, kids[0], false);
            const alias = field(v, 'alias');
            if (alias) this.target(scope, alias, 'with', false);
          } else this.expr(scope, v, false);
        }
      }
    }
    this.block(scope, field(n, 'body'));
  }

  /** `import a.b as c` binds c (or a); `from m import x as y` binds y (or x); `import *` marks the scope. */
  private imports(scope: Scope, n: PyNode): void {
    const from = n.type !== 'import_statement';
    for (const c of fields(n, 'name')) {
      if (c.type === 'aliased_import') {
        const a = field(c, 'alias');
        if (a) this.bind(scope, a, 'import');
      } else {
        const ids = named(c);
        const id = from ? ids[ids.length - 1] : ids[0];
        if (id) this.bind(scope, id, 'import');
      }
    }
    if (from && n.children.some((c) => c.type === 'wildcard_import')) {
      scope.hasStarImport = true;
      this.declarations++;
    }
  }

  /** match: the subject is read, each case's patterns bind or read, guards are read, bodies are blocks. */
  private matchStatement(scope: Scope, n: PyNode): void {
    for (const c of n.children) {
      if (c.field === 'subject') this.expr(scope, c, false);
      else if (c.type === 'block') {
        for (const cc of named(c)) {
          if (cc.type !== 'case_clause') continue;
          for (const k of named(cc)) {
            if (k.type === 'case_pattern') this.pattern(scope, k);
            else if (k.field === 'guard') this.expr(scope, k, false);
            else if (k.type === 'block') this.block(scope, k);
          }
        }
      }
    }
  }

  private delTarget(scope: Scope, n: PyNode) {
    if (n.type === 'identifier') {
      this.read(scope, n, false);
      this.bind(scope, n, 'del');
    }
    else if (n.type === 'expression_list' || n.type === 'tuple' || n.type === 'list' || n.type === 'parenthesized_expression') for (const c of named(n)) this.delTarget(scope, c);
    else this.expr(scope, n, false);
  }

  private assignment(scope: Scope, n: PyNode): void {
    const right = field(n, 'right');
    const type = field(n, 'type');
    const left = field(n, 'left');
    if (n.type === 'augmented_assignment') {
      if (right) this.expr(scope, right, false);
      if (left) {
        if (left.type === 'identifier') {
          this.read(scope, left, false);
          this.bind(scope, left, 'augassign');
        } else this.expr(scope, left, false);
      }
      return;
    }
    if (right) {
      if (right.type === 'assignment') this.assignment(scope, right);
      else this.expr(scope, right, false);
    }
    if (type) this.expr(scope, type, true);
    if (left) {
      if (type && !right) {
        // `x: T` declares without binding; a non-name target is still evaluated
        if (left.type !== 'identifier') this.expr(scope, left, false);
        return;
      }
      this.target(scope, left, type ? 'annassign' : 'assign', false);
    }
  }

  /** Resolve global / nonlocal redirection and record the pending bindings. */
  private resolve(): void {
    // Resolve global / nonlocal redirection and record bindings.
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) {
      const b = pending[i]!;
      const scope = this.pendingScope[i]!;
      if (this.pendingSettled[i]) {
        this.bindingScope.set(b.node, scope);
        continue;
      }
      let s = scope;
      if (scope.globals.size && scope.globals.has(b.name)) s = this.module;
      this.bindingScope.set(b.node, s);
      let list = s.bindings.get(b.name);
      if (!list) s.bindings.set(b.name, (list = []));
      list.push(b);
    }
    // nonlocal names live in an enclosing function: resolve now that all bindings are known
    for (const sc of this.scopes) {
      if (!sc.nonlocals.size) continue;
      for (const name of sc.nonlocals) {
        const list = sc.bindings.get(name);
        if (!list) continue;
        let p = sc.parent;
        while (p && !(p.kind !== 'class' && p.kind !== 'module' && p.bindings.has(name))) p = p.parent;
        if (!p) continue;
        sc.bindings.delete(name);
        let tl = p.bindings.get(name);
        if (!tl) p.bindings.set(name, (tl = []));
        for (const b of list) {
          tl.push(b);
          this.bindingScope.set(b.node, p);
        }
      }
    }
  }
}

/** Scope tables of this process (tests, `bench/scope-reuse.mjs`): how many were built, how many reused
 *  a previous table, how many statements were copied instead of walked. */
export const scopeStats = { builds: 0, reused: 0, spliced: 0 };

/**
 * The scope table of a module. With `reuse` (an editor's re-parse of an edited text that took the
 * previous tree's nodes over) the statements the edit left alone are copied from the previous table
 * (`ScopeReuse`); the result is the same either way. `keepLog` keeps what the next edit's reuse needs.
 */
export function buildScopes(root: PyNode, text: string, opts: { reuse?: ScopeReuse; keepLog?: boolean } = {}): ScopeTable {
  const b = new ScopeBuilder(root, text, opts.reuse);
  const { module, scopes, reads, byNode, bindingScope, readByNode } = b;
  const table: ScopeTable = { module, scopes, reads, byNode, bindingScope, readByNode };
  if (opts.keepLog) logs.set(table, { pending: b.pending, pendingScope: b.pendingScope, stmts: b.stmts, stmtByNode: b.stmtByNode });
  scopeStats.builds++;
  if (b.spliced) {
    scopeStats.reused++;
    scopeStats.spliced += b.spliced;
  }
  return table;
}

function fields(n: PyNode, name: string): PyNode[] {
  return n.children.filter((c) => c.field === name);
}

const STATEMENTS = new Set([
  'expression_statement', 'if_statement', 'for_statement', 'while_statement', 'try_statement', 'with_statement',
  'function_definition', 'class_definition', 'decorated_definition', 'return_statement', 'raise_statement',
  'pass_statement', 'break_statement', 'continue_statement', 'import_statement', 'import_from_statement',
  'global_statement', 'nonlocal_statement', 'delete_statement', 'assert_statement', 'match_statement',
  'future_import_statement', 'print_statement', 'exec_statement', 'type_alias_statement',
]);
/**
 * The items of a `with` clause: `as_pattern`s or plain context expressions. A parenthesised item
 * list (`with (open(a) as x):`, `with (a as x, b as y):`) may reach us as one parenthesised
 * expression or tuple holding the `as` patterns (parsers differ); it is unwrapped here.
 */
export function withItemValues(clause: PyNode): PyNode[] {
  const out: PyNode[] = [];
  const add = (v: PyNode) => {
    if ((v.type === 'parenthesized_expression' || v.type === 'tuple') && named(v).some((k) => k.type === 'as_pattern')) {
      for (const k of named(v)) if (k.type !== 'comment') add(k);
    } else out.push(v);
  };
  for (const item of named(clause)) {
    if (item.type !== 'with_item') continue;
    const v = field(item, 'value');
    if (v) add(v);
  }
  return out;
}

function isStatement(t: string): boolean {
  return STATEMENTS.has(t);
}

/** Resolve the scope a name read refers to: the scope holding its binding, or null (builtin/undefined). */
/** The one binding of `name` in `scope`, when it is a plain assignment `name = <value>` (or `name: T =
 *  <value>`) whose value is not another assignment (`a = b = …`): the identifier, the assignment, the value. */
export function soleAssignment(scope: Scope, name: string): { id: PyNode; assignment: PyNode; value: PyNode } | undefined {
  const bs = scope.bindings.get(name);
  if (!bs || bs.length !== 1) return undefined;
  const b = bs[0]!;
  if (b.kind !== 'assign' && b.kind !== 'annassign') return undefined;
  const assignment = b.node.parent;
  if (!assignment || assignment.type !== 'assignment' || field(assignment, 'left') !== b.node) return undefined;
  const value = field(assignment, 'right');
  if (!value || value.type === 'assignment') return undefined;
  return { id: b.node, assignment, value };
}

export function resolveScope(scope: Scope, name: string): Scope | null {
  if (scope.globals.has(name)) return rootOf(scope).bindings.has(name) ? rootOf(scope) : null;
  if (scope.bindings.has(name)) return scope;
  let p = scope.parent;
  while (p) {
    if (p.kind !== 'class' && p.bindings.has(name)) return p;
    if (p.kind !== 'class' && p.globals.has(name)) return rootOf(p).bindings.has(name) ? rootOf(p) : null;
    p = p.parent;
  }
  return null;
}

function rootOf(s: Scope): Scope {
  let r = s;
  while (r.parent) r = r.parent;
  return r;
}
