/**
 * A small lexical scope index over a raw TypeScript AST (one walk): which
 * declaration every identifier reference resolves to, every reassignment of a
 * binding and every member write (`files['x'] = v`). Enough for the intra-file
 * data-flow of bundle analysis; no type checker, no tsconfig.
 */
import { ts } from 'ts-morph';

type DeclKind = 'var' | 'let' | 'const' | 'param' | 'function' | 'class' | 'import' | 'catch' | 'enum';

/** One step from a declaration's root value to a destructured name. */
export type BindingStep = { prop: string | null } | { index: number } | { rest: true };

export interface Decl {
  name: string;
  kind: DeclKind;
  nameNode: ts.Identifier;
  /** VariableDeclaration | ParameterDeclaration | FunctionDeclaration | ImportSpecifier | … */
  node: ts.Node;
  /** Path from the declaration's root value (initializer / argument) to this name. */
  path: BindingStep[];
  /** For imports: the module specifier and the imported name ('default', '*' or a named export). */
  importFrom?: string;
  importName?: string;
}

interface MemberWrite {
  key: string | null;
  keyNode?: ts.Node;
  value: ts.Expression;
  at: ts.Node;
}

export interface ScopeIndex {
  sf: ts.SourceFile;
  resolve(id: ts.Identifier): Decl | undefined;
  references(d: Decl): readonly ts.Identifier[];
  /** Right-hand sides of `name = expr` (and compound assignments, as the whole binary expression). */
  assignments(d: Decl): readonly ts.Expression[];
  memberWrites(d: Decl): readonly MemberWrite[];
  /** The declaration a name node declares, if any. */
  declOf(nameNode: ts.Identifier): Decl | undefined;
}

function isScopeNode(n: ts.Node): boolean {
  return (
    ts.isSourceFile(n) ||
    ts.isBlock(n) ||
    ts.isFunctionLike(n) ||
    ts.isForStatement(n) ||
    ts.isForOfStatement(n) ||
    ts.isForInStatement(n) ||
    ts.isCatchClause(n) ||
    ts.isCaseBlock(n) ||
    ts.isModuleBlock(n) ||
    ts.isClassLike(n)
  );
}

function functionScope(n: ts.Node): ts.Node {
  let p: ts.Node | undefined = n.parent;
  while (p && !(ts.isFunctionLike(p) || ts.isSourceFile(p) || ts.isModuleBlock(p))) p = p.parent;
  return p ?? n.getSourceFile();
}

function blockScope(n: ts.Node): ts.Node {
  let p: ts.Node | undefined = n.parent;
  while (p && !isScopeNode(p)) p = p.parent;
  return p ?? n.getSourceFile();
}

/** Static text of a property name / key, or null when computed. */
export function propertyNameText(name: ts.PropertyName | ts.BindingName | undefined): string | null {
  if (!name) return null;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteralLike(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) {
    const e = name.expression;
    if (ts.isStringLiteralLike(e) || ts.isNumericLiteral(e)) return e.text;
  }
  return null;
}

/** Is this identifier in a position that is not a value reference? */
function isNonReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (!p) return true;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return true;
  if (ts.isQualifiedName(p)) return true;
  if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p) || ts.isPropertySignature(p) || ts.isMethodSignature(p) || ts.isEnumMember(p)) && p.name === id) return true;
  if (ts.isBindingElement(p) && p.propertyName === id) return true;
  if ((ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) && (p.propertyName === id || ts.isImportSpecifier(p))) return true;
  if (ts.isExportSpecifier(p) && p.name === id && p.propertyName) return true;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return true;
  if (ts.isJsxAttribute(p)) return true;
  if (ts.isMetaProperty(p)) return true;
  return false;
}

export function buildScopeIndex(sf: ts.SourceFile): ScopeIndex {
  const scopes = new Map<ts.Node, Map<string, Decl>>();
  const byName = new Map<ts.Identifier, Decl>();
  const refs = new Map<Decl, ts.Identifier[]>();
  const assigns = new Map<Decl, ts.Expression[]>();
  const writes = new Map<Decl, MemberWrite[]>();
  const candidates: ts.Identifier[] = [];

  const declare = (scope: ts.Node, d: Decl): void => {
    let m = scopes.get(scope);
    if (!m) scopes.set(scope, (m = new Map()));
    if (!m.has(d.name)) m.set(d.name, d);
    byName.set(d.nameNode, d);
  };

  const declareBinding = (name: ts.BindingName, kind: DeclKind, node: ts.Node, scope: ts.Node, path: BindingStep[]): void => {
    if (ts.isIdentifier(name)) {
      declare(scope, { name: name.text, kind, nameNode: name, node, path });
      return;
    }
    if (ts.isObjectBindingPattern(name)) {
      for (const el of name.elements) {
        const step: BindingStep = el.dotDotDotToken ? { rest: true } : { prop: propertyNameText(el.propertyName ?? (ts.isIdentifier(el.name) ? el.name : undefined)) };
        declareBinding(el.name, kind, node, scope, [...path, step]);
      }
    } else {
      name.elements.forEach((el, i) => {
        if (ts.isOmittedExpression(el)) return;
        const step: BindingStep = el.dotDotDotToken ? { rest: true } : { index: i };
        declareBinding(el.name, kind, node, scope, [...path, step]);
      });
    }
  };

  const visit = (n: ts.Node): void => {
    if (ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return;
    if (ts.isVariableDeclaration(n)) {
      const list = n.parent;
      if (ts.isCatchClause(list)) declareBinding(n.name, 'catch', n, list, []);
      else {
        const flags = ts.isVariableDeclarationList(list) ? list.flags : 0;
        const kind: DeclKind = flags & ts.NodeFlags.Const ? 'const' : flags & (ts.NodeFlags.Let | ts.NodeFlags.Using | ts.NodeFlags.AwaitUsing) ? 'let' : 'var';
        const scope = kind === 'var' ? functionScope(list) : ts.isVariableDeclarationList(list) && (ts.isForOfStatement(list.parent) || ts.isForInStatement(list.parent) || ts.isForStatement(list.parent)) ? list.parent : blockScope(list);
        declareBinding(n.name, kind, n, scope, []);
      }
    } else if (ts.isParameter(n)) {
      declareBinding(n.name, 'param', n, n.parent, []);
    } else if (ts.isFunctionDeclaration(n) && n.name) {
      declare(blockScope(n), { name: n.name.text, kind: 'function', nameNode: n.name, node: n, path: [] });
    } else if (ts.isFunctionExpression(n) && n.name) {
      declare(n, { name: n.name.text, kind: 'function', nameNode: n.name, node: n, path: [] });
    } else if ((ts.isClassDeclaration(n) || ts.isEnumDeclaration(n)) && n.name) {
      declare(blockScope(n), { name: n.name.text, kind: ts.isEnumDeclaration(n) ? 'enum' : 'class', nameNode: n.name, node: n, path: [] });
    } else if (ts.isImportDeclaration(n) && n.importClause && ts.isStringLiteral(n.moduleSpecifier)) {
      const from = n.moduleSpecifier.text;
      const c = n.importClause;
      if (c.name) declare(sf, { name: c.name.text, kind: 'import', nameNode: c.name, node: c, path: [], importFrom: from, importName: 'default' });
      const nb = c.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) declare(sf, { name: nb.name.text, kind: 'import', nameNode: nb.name, node: nb, path: [], importFrom: from, importName: '*' });
      else if (nb) for (const s of nb.elements) declare(sf, { name: s.name.text, kind: 'import', nameNode: s.name, node: s, path: [], importFrom: from, importName: (s.propertyName ?? s.name).text });
    } else if (ts.isImportEqualsDeclaration(n)) {
      const r = n.moduleReference;
      const from = ts.isExternalModuleReference(r) && ts.isStringLiteral(r.expression) ? r.expression.text : undefined;
      declare(sf, { name: n.name.text, kind: 'import', nameNode: n.name, node: n, path: [], importFrom: from, importName: '*' });
    } else if (ts.isIdentifier(n)) {
      candidates.push(n);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);

  const resolveRaw = (id: ts.Identifier): Decl | undefined => {
    const own = byName.get(id);
    if (own) return own;
    const name = id.text;
    let p: ts.Node | undefined = id.parent;
    while (p) {
      const m = scopes.get(p);
      if (m) {
        const d = m.get(name);
        // A function expression's own name and parameters are visible inside it only.
        if (d) return d;
      }
      p = p.parent;
    }
    return undefined;
  };

  for (const id of candidates) {
    if (byName.has(id) || isNonReference(id)) continue;
    const d = resolveRaw(id);
    if (!d) continue;
    let list = refs.get(d);
    if (!list) refs.set(d, (list = []));
    list.push(id);
    const p = id.parent;
    if (p && ts.isBinaryExpression(p) && p.left === id && p.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && p.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      let a = assigns.get(d);
      if (!a) assigns.set(d, (a = []));
      a.push(p.operatorToken.kind === ts.SyntaxKind.EqualsToken ? p.right : p);
    }
    if (p && (ts.isPropertyAccessExpression(p) || ts.isElementAccessExpression(p)) && p.expression === id) {
      const g = p.parent;
      if (g && ts.isBinaryExpression(g) && g.left === p && g.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        let key: string | null = null;
        if (ts.isPropertyAccessExpression(p)) key = p.name.text;
        else if (ts.isStringLiteralLike(p.argumentExpression) || ts.isNumericLiteral(p.argumentExpression)) key = p.argumentExpression.text;
        let w = writes.get(d);
        if (!w) writes.set(d, (w = []));
        w.push({ key, keyNode: ts.isElementAccessExpression(p) ? p.argumentExpression : p.name, value: g.right, at: g });
      }
    }
  }

  return {
    sf,
    resolve: (id) => (isNonReference(id) && !ts.isShorthandPropertyAssignment(id.parent) ? byName.get(id) : resolveRaw(id)),
    references: (d) => refs.get(d) ?? [],
    assignments: (d) => assigns.get(d) ?? [],
    memberWrites: (d) => writes.get(d) ?? [],
    declOf: (id) => byName.get(id),
  };
}
