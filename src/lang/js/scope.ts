/**
 * Scope analysis for plain JavaScript verifiers (acorn ESTree): declarations per scope (with `var` and
 * function hoisting), every identifier reference resolved to its binding, module bindings from
 * `import` and `require()`, and the references that resolve nowhere. Computed once per Program and
 * cached (rules call `jsScopes(program)` from their visitors).
 */
import type { Node, Program, Identifier, Pattern } from 'acorn';
import { isJsGlobal } from './globals.js';

export interface JsBinding {
  name: string;
  kind: 'var' | 'let' | 'const' | 'function' | 'class' | 'param' | 'catch' | 'import' | 'implicit';
  id: Identifier;
  /** The declarator / function / import specifier node. */
  decl: Node;
  /** Initializer of a `const`/`let`/`var` declarator whose id is this very identifier (no destructuring). */
  init?: Node;
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ESTree nodes carry per-type fields that acorn's Node does not declare
type AnyNode = Node & Record<string, any>;

function requireSpecifier(n: AnyNode | undefined | null): string | undefined {
  if (!n) return undefined;
  if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments[0]?.type === 'Literal' && typeof n.arguments[0].value === 'string') return n.arguments[0].value;
  if (n.type === 'AwaitExpression' && n.argument?.type === 'ImportExpression' && n.argument.source?.type === 'Literal') return n.argument.source.value;
  return undefined;
}

function analyze(program: Program): JsScopes {
  const refs: JsReference[] = [];
  const refScope = new Map<Identifier, Scope>();
  const byId = new Map<Identifier, JsBinding>();
  const strict = program.sourceType === 'module';
  const root: Scope = { node: program, isFunction: true, names: new Map() };

  const fnScope = (s: Scope): Scope => {
    let c = s;
    while (!c.isFunction && c.parent) c = c.parent;
    return c;
  };
  const declare = (s: Scope, b: JsBinding): void => {
    if (!s.names.has(b.name)) s.names.set(b.name, b);
    byId.set(b.id, b);
  };

  const declarePattern = (p: Pattern | null | undefined, s: Scope, kind: JsBinding['kind'], decl: Node, visitExpr: (n: Node, s: Scope) => void, init?: Node, module?: JsBinding['module']): void => {
    if (!p) return;
    const q = p as AnyNode;
    switch (q.type) {
      case 'Identifier':
        declare(s, { name: q.name, kind, id: q as Identifier, decl, init, module });
        break;
      case 'ObjectPattern':
        for (const prop of q.properties) {
          if (prop.type === 'RestElement') declarePattern(prop.argument, s, kind, decl, visitExpr);
          else {
            if (prop.computed) visitExpr(prop.key, s);
            const key = !prop.computed && prop.key.type === 'Identifier' ? prop.key.name : undefined;
            declarePattern(prop.value, s, kind, decl, visitExpr, undefined, module && key ? { from: module.from, imported: key } : undefined);
          }
        }
        break;
      case 'ArrayPattern':
        for (const el of q.elements) declarePattern(el, s, kind, decl, visitExpr);
        break;
      case 'RestElement':
        declarePattern(q.argument, s, kind, decl, visitExpr);
        break;
      case 'AssignmentPattern':
        visitExpr(q.right, s);
        declarePattern(q.left, s, kind, decl, visitExpr, undefined, module);
        break;
      default:
        // MemberExpression in an assignment pattern
        visitExpr(q, s);
    }
  };

  let withDepth = 0;

  const hoist = (body: Node[], s: Scope, visitExpr: (n: Node, s: Scope) => void): void => {
    // Function declarations and `var` are visible in the whole function before their statement.
    const walkVar = (n: AnyNode | null | undefined): void => {
      if (!n || typeof n.type !== 'string') return;
      if (n.type === 'FunctionDeclaration') {
        if (n.id) declare(fnScope(s), { name: n.id.name, kind: 'function', id: n.id, decl: n });
        return;
      }
      if (n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression' || n.type === 'ClassDeclaration' || n.type === 'ClassExpression') return;
      if (n.type === 'VariableDeclaration' && n.kind === 'var') {
        for (const d of n.declarations) collectVarNames(d.id, d);
      }
      for (const k of Object.keys(n)) {
        if (k === 'loc' || k === 'type') continue;
        const v = n[k];
        if (Array.isArray(v)) v.forEach((c) => c && typeof c.type === 'string' && c.type !== 'VariableDeclarator' && walkVar(c));
        else if (v && typeof v.type === 'string' && k !== 'id') walkVar(v);
      }
    };
    const collectVarNames = (p: AnyNode | null, d: AnyNode): void => {
      if (!p) return;
      if (p.type === 'Identifier') {
        const fs = fnScope(s);
        if (!fs.names.has(p.name)) declare(fs, { name: p.name, kind: 'var', id: p as Identifier, decl: d, init: d.id === p ? (d.init ?? undefined) : undefined, module: d.id === p && requireSpecifier(d.init) ? { from: requireSpecifier(d.init)!, imported: '*' } : undefined });
      } else if (p.type === 'ObjectPattern') p.properties.forEach((q: AnyNode) => collectVarNames(q.type === 'RestElement' ? q.argument : q.value, d));
      else if (p.type === 'ArrayPattern') p.elements.forEach((q: AnyNode) => collectVarNames(q, d));
      else if (p.type === 'RestElement') collectVarNames(p.argument, d);
      else if (p.type === 'AssignmentPattern') collectVarNames(p.left, d);
    };
    void visitExpr;
    body.forEach((b) => walkVar(b as AnyNode));
  };

  const visit = (node: AnyNode | null | undefined, s: Scope, parent?: AnyNode, key?: string): void => {
    if (!node || typeof node.type !== 'string') return;
    switch (node.type) {
      case 'Identifier': {
        if (!parent) return;
        if (byId.has(node as Identifier)) return;
        const p = parent;
        if (p.type === 'MemberExpression' && key === 'property' && !p.computed) return;
        if ((p.type === 'Property' || p.type === 'MethodDefinition' || p.type === 'PropertyDefinition') && key === 'key' && !p.computed) return;
        if ((p.type === 'LabeledStatement' || p.type === 'BreakStatement' || p.type === 'ContinueStatement') && key === 'label') return;
        if (p.type === 'ExportSpecifier' && key === 'exported') return;
        if (p.type === 'MetaProperty') return;
        const write = (p.type === 'AssignmentExpression' && key === 'left') || (p.type === 'UpdateExpression');
        const r: JsReference = { id: node as Identifier, typeofGuarded: p.type === 'UnaryExpression' && p.operator === 'typeof', inWith: withDepth > 0, write };
        refs.push(r);
        refScope.set(node as Identifier, s);
        return;
      }
      case 'Program':
      case 'BlockStatement':
      case 'StaticBlock': {
        const inner = node.type === 'Program' ? s : { node, parent: s, isFunction: node.type === 'StaticBlock', names: new Map() };
        if (node.type === 'Program') hoist(node.body, inner, visit as never);
        for (const st of node.body) visit(st, inner, node, 'body');
        return;
      }
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression': {
        if (node.type === 'FunctionDeclaration' && node.id) declare(s, { name: node.id.name, kind: 'function', id: node.id, decl: node });
        const fs: Scope = { node, parent: s, isFunction: true, names: new Map() };
        if (node.type === 'FunctionExpression' && node.id) declare(fs, { name: node.id.name, kind: 'function', id: node.id, decl: node });
        for (const p of node.params) declarePattern(p, fs, 'param', node, (n, sc) => visit(n as AnyNode, sc, node, 'params'));
        if (node.body.type === 'BlockStatement') {
          hoist(node.body.body, fs, visit as never);
          for (const st of node.body.body) visit(st, fs, node.body, 'body');
        } else visit(node.body, fs, node, 'body');
        return;
      }
      case 'ClassDeclaration':
      case 'ClassExpression': {
        if (node.type === 'ClassDeclaration' && node.id) declare(s, { name: node.id.name, kind: 'class', id: node.id, decl: node });
        const cs: Scope = { node, parent: s, isFunction: false, names: new Map() };
        if (node.type === 'ClassExpression' && node.id) declare(cs, { name: node.id.name, kind: 'class', id: node.id, decl: node });
        visit(node.superClass, s, node, 'superClass');
        visit(node.body, cs, node, 'body');
        return;
      }
      case 'VariableDeclaration': {
        for (const d of node.declarations) {
          const target = node.kind === 'var' ? fnScope(s) : s;
          if (node.kind === 'var') {
            // already hoisted; make sure nested patterns' defaults are visited
            declarePattern(d.id, target, 'var', d, (n, sc) => visit(n as AnyNode, sc, d, 'id'), d.id.type === 'Identifier' ? (d.init ?? undefined) : undefined, d.id.type !== 'Identifier' && requireSpecifier(d.init) ? { from: requireSpecifier(d.init)!, imported: '*' } : d.id.type === 'Identifier' && requireSpecifier(d.init) ? { from: requireSpecifier(d.init)!, imported: '*' } : undefined);
          } else {
            const spec = requireSpecifier(d.init);
            declarePattern(d.id, target, node.kind === 'const' ? 'const' : 'let', d, (n, sc) => visit(n as AnyNode, sc, d, 'id'), d.id.type === 'Identifier' ? (d.init ?? undefined) : undefined, spec ? { from: spec, imported: '*' } : undefined);
          }
          visit(d.init, s, d, 'init');
        }
        return;
      }
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement': {
        const ls: Scope = { node, parent: s, isFunction: false, names: new Map() };
        for (const k of ['init', 'left', 'test', 'update', 'right', 'body']) visit(node[k], ls, node, k);
        return;
      }
      case 'CatchClause': {
        const cs: Scope = { node, parent: s, isFunction: false, names: new Map() };
        if (node.param) declarePattern(node.param, cs, 'catch', node, (n, sc) => visit(n as AnyNode, sc, node, 'param'));
        visit(node.body, cs, node, 'body');
        return;
      }
      case 'ImportDeclaration': {
        const from = String(node.source.value);
        for (const sp of node.specifiers) {
          const imported = sp.type === 'ImportDefaultSpecifier' ? 'default' : sp.type === 'ImportNamespaceSpecifier' ? '*' : sp.imported.type === 'Identifier' ? sp.imported.name : String(sp.imported.value);
          declare(root, { name: sp.local.name, kind: 'import', id: sp.local, decl: sp, module: { from, imported } });
        }
        return;
      }
      case 'ExportNamedDeclaration':
        if (node.source) return;
        visit(node.declaration, s, node, 'declaration');
        for (const sp of node.specifiers ?? []) visit(sp.local, s, sp, 'local');
        return;
      case 'ExportAllDeclaration':
        return;
      case 'WithStatement':
        visit(node.object, s, node, 'object');
        withDepth++;
        visit(node.body, s, node, 'body');
        withDepth--;
        return;
      default:
        for (const k of Object.keys(node)) {
          if (k === 'loc' || k === 'type' || k === 'start' || k === 'end' || k === 'range') continue;
          const v = node[k];
          if (Array.isArray(v)) for (const c of v) visit(c, s, node, k);
          else if (v && typeof v === 'object' && typeof v.type === 'string') visit(v, s, node, k);
        }
    }
  };
  visit(program as AnyNode, root);

  const lookup = (id: Identifier): JsBinding | undefined => {
    const own = byId.get(id);
    if (own) return own;
    for (let s: Scope | undefined = refScope.get(id); s; s = s.parent) {
      const b = s.names.get(id.name);
      if (b) return b;
    }
    return undefined;
  };
  for (const r of refs) r.binding = lookup(r.id);

  // Sloppy scripts: assigning an undeclared name creates a global; treat such names as declared.
  const implicit = new Set<string>();
  if (!strict) for (const r of refs) if (!r.binding && r.write) implicit.add(r.id.name);

  const unbound = refs.filter((r) => !r.binding && !r.typeofGuarded && !r.inWith && !isJsGlobal(r.id.name) && !implicit.has(r.id.name));
  return { program, sourceType: strict ? 'module' : 'script', references: refs, resolve: lookup, unbound, unboundIds: new Set(unbound.map((r) => r.id)) };
}
