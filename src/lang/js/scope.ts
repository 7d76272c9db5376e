/**
 * Scope analysis for plain JavaScript verifiers (acorn ESTree): declarations per scope (with `var` and
 * function hoisting), every identifier reference resolved to its binding, module bindings from
 * `import` and `require()`, and the references that resolve nowhere. Computed once per Program and
 * cached (rules call `jsScopes(program)` from their visitors).
 */
import type {
  AnonymousClassDeclaration, AnyNode, BlockStatement, ClassDeclaration, ClassExpression, Expression, ForInStatement, ForOfStatement, ForStatement,
  Identifier, ImportDeclaration, Node, Pattern, Program, StaticBlock, VariableDeclaration, VariableDeclarator,
} from 'acorn';
import { isJsGlobal } from './globals.js';
import { forEachChild, type JsFunction } from './nodes.js';

export interface JsBinding {
  name: string;
  kind: 'var' | 'let' | 'const' | 'function' | 'class' | 'param' | 'catch' | 'import' | 'implicit';
  id: Identifier;
  /** The declarator / function / class / import specifier / catch clause node. */
  decl: AnyNode;
  /** Initializer of a `const`/`let`/`var` declarator whose id is this very identifier (no destructuring). */
  init?: Expression;
  /** For bindings of a module: the module specifier and imported name ('default', '*', a named export). */
  module?: { from: string; imported: string };
}

interface Scope {
  node: Node;
  parent?: Scope;
  isFunction: boolean;
  names: Map<string, JsBinding>;
}

interface JsReference {
  id: Identifier;
  binding?: JsBinding;
  /** Operand of `typeof` (never throws). */
  typeofGuarded: boolean;
  /** Inside a `with` statement (names may come from the object). */
  inWith: boolean;
  /** The reference is the target of an assignment. */
  write: boolean;
}

export interface JsScopes {
  program: Program;
  sourceType: 'module' | 'script';
  references: JsReference[];
  resolve(id: Identifier): JsBinding | undefined;
  /** References that resolve to no declaration and are not known globals. */
  unbound: JsReference[];
  unboundIds: ReadonlySet<Identifier>;
}

const cache = new WeakMap<Program, JsScopes>();

export function jsScopes(program: Program): JsScopes {
  let s = cache.get(program);
  if (!s) cache.set(program, (s = analyze(program)));
  return s;
}

/** The module a `require('m')` or `await import('m')` initializer loads (a string literal specifier only). */
function requireSpecifier(n: Expression | undefined | null): string | undefined {
  if (!n) return undefined;
  if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments[0]?.type === 'Literal' && typeof n.arguments[0].value === 'string') return n.arguments[0].value;
  if (n.type === 'AwaitExpression' && n.argument.type === 'ImportExpression' && n.argument.source.type === 'Literal' && typeof n.argument.source.value === 'string') return n.argument.source.value;
  return undefined;
}

function analyze(program: Program): JsScopes {
  return new ScopeAnalyzer(program).run();
}

type VisitExpr = (n: AnyNode, s: Scope) => void;

/** One walk over a Program: declares bindings per scope, records references, then resolves them. */
class ScopeAnalyzer {
  private readonly refs: JsReference[] = [];
  private readonly refScope = new Map<Identifier, Scope>();
  private readonly byId = new Map<Identifier, JsBinding>();
  private readonly root: Scope;
  private withDepth = 0;

  constructor(private readonly program: Program) {
    this.root = { node: program, isFunction: true, names: new Map() };
  }

  run(): JsScopes {
    const { program, refs } = this;
    const strict = program.sourceType === 'module';
    this.visit(program, this.root);
    const lookup = (id: Identifier): JsBinding | undefined => this.lookup(id);
    for (const r of refs) r.binding = lookup(r.id);

    // Sloppy scripts: assigning an undeclared name creates a global; treat such names as declared.
    const implicit = new Set<string>();
    if (!strict) for (const r of refs) if (!r.binding && r.write) implicit.add(r.id.name);

    const unbound = refs.filter((r) => !r.binding && !r.typeofGuarded && !r.inWith && !isJsGlobal(r.id.name) && !implicit.has(r.id.name));
    return { program, sourceType: strict ? 'module' : 'script', references: refs, resolve: lookup, unbound, unboundIds: new Set(unbound.map((r) => r.id)) };
  }

  private lookup(id: Identifier): JsBinding | undefined {
    const own = this.byId.get(id);
    if (own) return own;
    for (let s: Scope | undefined = this.refScope.get(id); s; s = s.parent) {
      const b = s.names.get(id.name);
      if (b) return b;
    }
    return undefined;
  }

  // ---- declarations ------------------------------------------------------

  private declare(s: Scope, b: JsBinding): void {
    if (!s.names.has(b.name)) s.names.set(b.name, b);
    this.byId.set(b.id, b);
  }

  private declarePattern(p: Pattern | null | undefined, s: Scope, kind: JsBinding['kind'], decl: AnyNode, visitExpr: VisitExpr, init?: Expression, module?: JsBinding['module']): void {
    if (!p) return;
    switch (p.type) {
      case 'Identifier':
        this.declare(s, { name: p.name, kind, id: p, decl, init, module });
        break;
      case 'ObjectPattern':
        for (const prop of p.properties) {
          if (prop.type === 'RestElement') this.declarePattern(prop.argument, s, kind, decl, visitExpr);
          else {
            if (prop.computed) visitExpr(prop.key, s);
            const key = !prop.computed && prop.key.type === 'Identifier' ? prop.key.name : undefined;
            this.declarePattern(prop.value, s, kind, decl, visitExpr, undefined, module && key ? { from: module.from, imported: key } : undefined);
          }
        }
        break;
      case 'ArrayPattern':
        for (const el of p.elements) this.declarePattern(el, s, kind, decl, visitExpr);
        break;
      case 'RestElement':
        this.declarePattern(p.argument, s, kind, decl, visitExpr);
        break;
      case 'AssignmentPattern':
        visitExpr(p.right, s);
        this.declarePattern(p.left, s, kind, decl, visitExpr, undefined, module);
        break;
      default:
        // MemberExpression in an assignment pattern
        visitExpr(p, s);
    }
  }

  /** Function declarations and `var` are visible in the whole function before their statement. */
  private hoist(body: readonly AnyNode[], s: Scope): void {
    const walkVar = (n: AnyNode): void => {
      if (n.type === 'FunctionDeclaration') {
        if (n.id) this.declare(fnScope(s), { name: n.id.name, kind: 'function', id: n.id, decl: n });
        return;
      }
      if (n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression' || n.type === 'ClassDeclaration' || n.type === 'ClassExpression') return;
      if (n.type === 'VariableDeclaration' && n.kind === 'var') {
        for (const d of n.declarations) this.hoistVarNames(d.id, d, s);
      }
      // a declarator's names were hoisted above; an `id` names the node itself (a class, a function expression)
      forEachChild(n, (c, k) => c.type !== 'VariableDeclarator' && k !== 'id' && walkVar(c));
    };
    body.forEach(walkVar);
  }

  /** The names a `var` declarator `d` binds in the function scope of `s`, from its pattern `p`. */
  private hoistVarNames(p: Pattern | null, d: VariableDeclarator, s: Scope): void {
    if (!p) return;
    if (p.type === 'Identifier') {
      const fs = fnScope(s);
      const from = d.id === p ? requireSpecifier(d.init) : undefined;
      if (!fs.names.has(p.name)) this.declare(fs, { name: p.name, kind: 'var', id: p, decl: d, init: d.id === p ? (d.init ?? undefined) : undefined, module: from ? { from, imported: '*' } : undefined });
    } else if (p.type === 'ObjectPattern') p.properties.forEach((q) => this.hoistVarNames(q.type === 'RestElement' ? q.argument : q.value, d, s));
    else if (p.type === 'ArrayPattern') p.elements.forEach((q) => this.hoistVarNames(q, d, s));
    else if (p.type === 'RestElement') this.hoistVarNames(p.argument, d, s);
    else if (p.type === 'AssignmentPattern') this.hoistVarNames(p.left, d, s);
  }

  /** A callback that visits an expression met inside a pattern, as a child of `parent` under `key`. */
  private visitor(parent: AnyNode, key: string): VisitExpr {
    return (n, sc) => this.visit(n, sc, parent, key);
  }

  // ---- the walk ----------------------------------------------------------

  private visit(node: AnyNode | null | undefined, s: Scope, parent?: AnyNode, key?: string): void {
    if (!node) return;
    switch (node.type) {
      case 'Identifier':
        return this.visitIdentifier(node, s, parent, key);
      case 'Program':
      case 'BlockStatement':
      case 'StaticBlock':
        return this.visitBlock(node, s);
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        return this.visitFunction(node, s);
      case 'ClassDeclaration':
      case 'ClassExpression':
        return this.visitClass(node, s);
      case 'VariableDeclaration':
        return this.visitVariableDeclaration(node, s);
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement':
        return this.visitFor(node, s);
      case 'CatchClause': {
        const cs: Scope = { node, parent: s, isFunction: false, names: new Map() };
        if (node.param) this.declarePattern(node.param, cs, 'catch', node, this.visitor(node, 'param'));
        this.visit(node.body, cs, node, 'body');
        return;
      }
      case 'ImportDeclaration':
        return this.visitImport(node);
      case 'ExportNamedDeclaration':
        if (node.source) return;
        this.visit(node.declaration, s, node, 'declaration');
        for (const sp of node.specifiers ?? []) this.visit(sp.local, s, sp, 'local');
        return;
      case 'ExportAllDeclaration':
        return;
      case 'WithStatement':
        this.visit(node.object, s, node, 'object');
        this.withDepth++;
        this.visit(node.body, s, node, 'body');
        this.withDepth--;
        return;
      default:
        return this.visitChildren(node, s);
    }
  }

  private visitChildren(node: AnyNode, s: Scope): void {
    forEachChild(node, (c, k) => this.visit(c, s, node, k));
  }

  /** A loop's own scope holds its head's `let`/`const` (`for (const x of xs)`). */
  private visitFor(node: ForStatement | ForInStatement | ForOfStatement, s: Scope): void {
    const ls: Scope = { node, parent: s, isFunction: false, names: new Map() };
    if (node.type === 'ForStatement') {
      this.visit(node.init, ls, node, 'init');
      this.visit(node.test, ls, node, 'test');
      this.visit(node.update, ls, node, 'update');
    } else {
      this.visit(node.left, ls, node, 'left');
      this.visit(node.right, ls, node, 'right');
    }
    this.visit(node.body, ls, node, 'body');
  }

  /** An identifier in reference position (not a declaration, property name, label or meta property). */
  private visitIdentifier(node: Identifier, s: Scope, parent?: AnyNode, key?: string): void {
    if (!parent) return;
    if (this.byId.has(node)) return;
    const p = parent;
    if (p.type === 'MemberExpression' && key === 'property' && !p.computed) return;
    if ((p.type === 'Property' || p.type === 'MethodDefinition' || p.type === 'PropertyDefinition') && key === 'key' && !p.computed) return;
    if ((p.type === 'LabeledStatement' || p.type === 'BreakStatement' || p.type === 'ContinueStatement') && key === 'label') return;
    if (p.type === 'ExportSpecifier' && key === 'exported') return;
    if (p.type === 'MetaProperty') return;
    const write = (p.type === 'AssignmentExpression' && key === 'left') || p.type === 'UpdateExpression';
    const r: JsReference = { id: node, typeofGuarded: p.type === 'UnaryExpression' && p.operator === 'typeof', inWith: this.withDepth > 0, write };
    this.refs.push(r);
    this.refScope.set(node, s);
  }

  private visitBlock(node: Program | BlockStatement | StaticBlock, s: Scope): void {
    const inner = node.type === 'Program' ? s : { node, parent: s, isFunction: node.type === 'StaticBlock', names: new Map() };
    if (node.type === 'Program') this.hoist(node.body, inner);
    for (const st of node.body) this.visit(st, inner, node, 'body');
  }

  private visitFunction(node: JsFunction, s: Scope): void {
    if (node.type === 'FunctionDeclaration' && node.id) this.declare(s, { name: node.id.name, kind: 'function', id: node.id, decl: node });
    const fs: Scope = { node, parent: s, isFunction: true, names: new Map() };
    if (node.type === 'FunctionExpression' && node.id) this.declare(fs, { name: node.id.name, kind: 'function', id: node.id, decl: node });
    for (const p of node.params) this.declarePattern(p, fs, 'param', node, this.visitor(node, 'params'));
    if (node.body.type === 'BlockStatement') {
      this.hoist(node.body.body, fs);
      for (const st of node.body.body) this.visit(st, fs, node.body, 'body');
    } else this.visit(node.body, fs, node, 'body');
  }

  private visitClass(node: ClassDeclaration | AnonymousClassDeclaration | ClassExpression, s: Scope): void {
    if (node.type === 'ClassDeclaration' && node.id) this.declare(s, { name: node.id.name, kind: 'class', id: node.id, decl: node });
    const cs: Scope = { node, parent: s, isFunction: false, names: new Map() };
    if (node.type === 'ClassExpression' && node.id) this.declare(cs, { name: node.id.name, kind: 'class', id: node.id, decl: node });
    this.visit(node.superClass, s, node, 'superClass');
    this.visit(node.body, cs, node, 'body');
  }

  private visitVariableDeclaration(node: VariableDeclaration, s: Scope): void {
    const isVar = node.kind === 'var';
    const kind: JsBinding['kind'] = isVar ? 'var' : node.kind === 'const' ? 'const' : 'let';
    // `var` names are already hoisted; declaring again keeps the hoisted binding and visits nested patterns' defaults
    const target = isVar ? fnScope(s) : s;
    for (const d of node.declarations) {
      const spec = requireSpecifier(d.init);
      this.declarePattern(d.id, target, kind, d, this.visitor(d, 'id'), d.id.type === 'Identifier' ? (d.init ?? undefined) : undefined, spec ? { from: spec, imported: '*' } : undefined);
      this.visit(d.init, s, d, 'init');
    }
  }

  private visitImport(node: ImportDeclaration): void {
    const from = String(node.source.value);
    for (const sp of node.specifiers) {
      const imported = sp.type === 'ImportDefaultSpecifier' ? 'default' : sp.type === 'ImportNamespaceSpecifier' ? '*' : sp.imported.type === 'Identifier' ? sp.imported.name : String(sp.imported.value);
      this.declare(this.root, { name: sp.local.name, kind: 'import', id: sp.local, decl: sp, module: { from, imported } });
    }
  }
}

function fnScope(s: Scope): Scope {
  let c = s;
  while (!c.isFunction && c.parent) c = c.parent;
  return c;
}
