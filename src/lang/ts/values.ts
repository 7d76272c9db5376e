/**
 * Abstract values for the bundle data-flow ("origin") analysis: what an
 * expression inside a check's evaluate is, relative to the declared
 * projections. Intra-file, context-sensitive through helper calls
 * (parameters are bound to the caller's argument values), precise on
 * aliases and destructuring.
 */
import { ts } from 'ts-morph';
import type { Decl, ScopeIndex, BindingStep } from './scope.js';
import { propertyNameText } from './scope.js';
import type { DerivedHow, Origin } from './types.js';

type Root = 'input' | 'artifact' | 'publicInput' | 'runtime';
export type FnLike = ts.FunctionLikeDeclaration;
/** Bindings of parameters (keyed by ParameterDeclaration) to values. */
export type Env = ReadonlyMap<ts.Node, Value>;

export type Value =
  | { t: 'proj'; root: Root; segs: (string | null)[] }
  | { t: 'entries'; of: ProjValue }
  | { t: 'entry'; of: ProjValue }
  | { t: 'json'; of: ProjValue }
  | { t: 'derived'; how: DerivedHow; desc: string; node: ts.Node; literal?: string }
  | { t: 'fn'; node: FnLike; env: Env; name: string }
  | { t: 'obj'; node: ts.ObjectLiteralExpression; env: Env; decl?: Decl }
  | { t: 'arr'; node: ts.ArrayLiteralExpression; env: Env }
  | { t: 'unknown'; desc: string };

type ProjValue = Extract<Value, { t: 'proj' }>;

const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'fs-extra', 'graceful-fs']);
const FS_READERS = new Set(['readFileSync', 'readFile', 'readdirSync', 'readdir', 'readJson', 'readJsonSync', 'readlinkSync', 'createReadStream']);
const MAX_DEPTH = 24;

export function unwrap(e: ts.Expression): ts.Expression {
  let cur = e;
  for (;;) {
    if (ts.isParenthesizedExpression(cur) || ts.isAsExpression(cur) || ts.isNonNullExpression(cur) || ts.isSatisfiesExpression(cur) || ts.isTypeAssertionExpression(cur)) cur = cur.expression;
    else return cur;
  }
}

export function short(text: string, max = 60): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function describeProj(v: ProjValue): string {
  let s = v.root;
  for (const seg of v.segs) {
    if (seg === null) s += '[…]';
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) s += `.${seg}`;
    else s += `[${JSON.stringify(seg).replace(/^"|"$/g, "'")}]`;
  }
  return s;
}

export class ValueAnalyzer {
  private busy = new Set<ts.Node>();

  constructor(
    readonly sf: ts.SourceFile,
    readonly scope: ScopeIndex,
  ) {}

  text(n: ts.Node): string {
    return n.getText(this.sf);
  }

  derived(how: DerivedHow, desc: string, node: ts.Node, literal?: string): Value {
    return { t: 'derived', how, desc, node, literal };
  }

  ev(expr: ts.Expression | undefined, env: Env, depth = 0): Value {
    if (!expr) return { t: 'unknown', desc: 'no value' };
    if (depth > MAX_DEPTH) return { t: 'unknown', desc: 'too deep' };
    const e = unwrap(expr);
    if (ts.isAwaitExpression(e)) return this.ev(e.expression, env, depth + 1);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return this.derived('literal', `the string literal \`${short(this.text(e), 40)}\``, e, e.text);
    if (ts.isNumericLiteral(e)) return this.derived('literal', `the literal \`${e.text}\``, e, e.text);
    if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword || e.kind === ts.SyntaxKind.NullKeyword) return this.derived('literal', `the literal \`${this.text(e)}\``, e);
    if (ts.isTemplateExpression(e)) {
      const span = e.templateSpans[0];
      if (e.head.text === '' && e.templateSpans.length === 1 && span && span.literal.text === '') return this.ev(span.expression, env, depth + 1);
      return this.derived('template', `the template string \`${short(this.text(e), 50)}\``, e);
    }
    if (ts.isBinaryExpression(e)) {
      const op = e.operatorToken.kind;
      if (op === ts.SyntaxKind.PlusToken) return this.derived('concatenation', `the concatenation \`${short(this.text(e), 50)}\``, e);
      if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) return join(this.ev(e.left, env, depth + 1), this.ev(e.right, env, depth + 1));
      if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.CommaToken || op === ts.SyntaxKind.EqualsToken) return this.ev(e.right, env, depth + 1);
      return { t: 'unknown', desc: short(this.text(e)) };
    }
    if (ts.isConditionalExpression(e)) return join(this.ev(e.whenTrue, env, depth + 1), this.ev(e.whenFalse, env, depth + 1));
    if (ts.isIdentifier(e)) return this.evIdent(e, env, depth);
    if (ts.isPropertyAccessExpression(e)) {
      if (ts.isIdentifier(e.expression) && e.expression.text === 'process' && !this.scope.resolve(e.expression)) {
        return this.derived('environment', `the environment (\`${short(this.text(e), 40)}\`)`, e);
      }
      return this.member(this.ev(e.expression, env, depth + 1), e.name.text, depth);
    }
    if (ts.isElementAccessExpression(e)) {
      const key = this.staticKey(e.argumentExpression, env, depth);
      return this.member(this.ev(e.expression, env, depth + 1), key, depth);
    }
    if (ts.isCallExpression(e)) return this.evCall(e, env, depth);
    if (ts.isObjectLiteralExpression(e)) return { t: 'obj', node: e, env };
    if (ts.isArrayLiteralExpression(e)) return { t: 'arr', node: e, env };
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return { t: 'fn', node: e, env, name: e.name?.text ?? 'callback' };
    if (ts.isCallExpression(e) || ts.isNewExpression(e)) return this.derived('call', `the result of \`${short(this.text(e), 50)}\``, e);
    return { t: 'unknown', desc: short(this.text(e)) };
  }

  staticKey(e: ts.Expression, env: Env, depth: number): string | null {
    const v = this.ev(e, env, depth + 1);
    return v.t === 'derived' && v.literal !== undefined ? v.literal : null;
  }

  /** The statically known string of an expression, if any. */
  staticString(e: ts.Expression | undefined, env: Env): string | undefined {
    if (!e) return undefined;
    const v = this.ev(e, env);
    return v.t === 'derived' && v.how === 'literal' ? v.literal : undefined;
  }

  private evIdent(id: ts.Identifier, env: Env, depth: number): Value {
    const d = this.scope.resolve(id);
    if (!d) {
      if (id.text === 'undefined') return this.derived('literal', 'the literal `undefined`', id);
      return { t: 'unknown', desc: `the global \`${id.text}\`` };
    }
    return this.evDecl(d, env, depth, id);
  }

  evDecl(d: Decl, env: Env, depth: number, at: ts.Node): Value {
    switch (d.kind) {
      case 'param': {
        const base = env.get(d.node);
        if (!base) {
          const p = d.node as ts.ParameterDeclaration;
          if (p.initializer && !env.has(d.node)) return { t: 'unknown', desc: `parameter \`${d.name}\`` };
          return { t: 'unknown', desc: `parameter \`${d.name}\`` };
        }
        return this.applyPath(base, d.path, depth);
      }
      case 'function':
        return { t: 'fn', node: d.node as FnLike, env, name: d.name };
      case 'import':
        return this.derived('import', `\`${d.name}\`, imported from '${d.importFrom ?? '?'}'`, at);
      case 'const':
      case 'let':
      case 'var': {
        const vd = d.node as ts.VariableDeclaration;
        if (this.busy.has(vd)) return { t: 'unknown', desc: `\`${d.name}\` (cyclic)` };
        this.busy.add(vd);
        try {
          let base: Value;
          const list = vd.parent;
          const loop = ts.isVariableDeclarationList(list) ? list.parent : undefined;
          if (loop && ts.isForOfStatement(loop)) base = this.element(this.ev(loop.expression, env, depth + 1));
          else if (loop && ts.isForInStatement(loop)) base = this.derived('literal', `a key of \`${short(this.text(loop.expression), 30)}\``, loop.expression);
          else if (vd.initializer) base = this.ev(vd.initializer, env, depth + 1);
          else base = { t: 'unknown', desc: `\`${d.name}\` (declared without a value)` };
          let v = this.applyPath(base, d.path, depth);
          if (d.kind !== 'const') {
            for (const a of this.scope.assignments(d)) v = join(v, this.ev(a, env, depth + 1));
          }
          if (v.t === 'obj' && d.path.length === 0) v = { ...v, decl: d };
          if (v.t === 'fn' && d.path.length === 0 && v.name === 'callback') v = { ...v, name: d.name };
          return v;
        } finally {
          this.busy.delete(vd);
        }
      }
      default:
        return { t: 'unknown', desc: `\`${d.name}\`` };
    }
  }

  applyPath(v: Value, path: readonly BindingStep[], depth: number): Value {
    let cur = v;
    for (const step of path) {
      if ('rest' in step) continue;
      if ('index' in step) cur = cur.t === 'entry' ? (step.index === 1 ? this.element(cur.of) : { t: 'unknown', desc: 'an entry key' }) : this.member(cur, String(step.index), depth);
      else cur = this.member(cur, step.prop, depth);
    }
    return cur;
  }

  /** The value of an element of an iterable value. */
  element(v: Value): Value {
    if (v.t === 'proj') return { t: 'proj', root: v.root, segs: [...v.segs, null] };
    if (v.t === 'entries') return { t: 'entry', of: v.of };
    if (v.t === 'arr') {
      let out: Value | undefined;
      for (const el of v.node.elements) {
        const x = ts.isSpreadElement(el) ? this.element(this.ev(el.expression, v.env)) : this.ev(el, v.env);
        out = out ? join(out, x) : x;
      }
      return out ?? { t: 'unknown', desc: 'an element of an empty array' };
    }
    if (v.t === 'derived') return v;
    return { t: 'unknown', desc: 'an element' };
  }

  member(v: Value, key: string | null, depth: number): Value {
    switch (v.t) {
      case 'proj': {
        if (v.root === 'input' && v.segs.length === 0 && (key === 'artifact' || key === 'publicInput')) return { t: 'proj', root: key, segs: [] };
        return { t: 'proj', root: v.root, segs: [...v.segs, key] };
      }
      case 'obj': {
        const entries = this.objEntries(v);
        let found: Value | undefined;
        for (const en of entries) {
          if (en.spread) {
            if (found === undefined && key !== null) {
              const inner = this.member(en.spread, key, depth + 1);
              if (inner.t !== 'unknown') found = inner;
            }
          } else if (key !== null && en.key === key) found = en.value();
        }
        return found ?? { t: 'unknown', desc: `member \`${key ?? '[…]'}\`` };
      }
      case 'arr': {
        const i = key === null ? NaN : Number(key);
        const el = Number.isInteger(i) ? v.node.elements[i] : undefined;
        if (el && !ts.isSpreadElement(el)) return this.ev(el, v.env, depth + 1);
        if (key === 'length') return { t: 'unknown', desc: 'a length' };
        return this.element(v);
      }
      case 'derived':
        return v;
      case 'json':
        return { t: 'unknown', desc: `a member of JSON.stringify(${describeProj(v.of)})` };
      default:
        return { t: 'unknown', desc: `member \`${key ?? '[…]'}\`` };
    }
  }

  /** Own members of an object literal value: properties, spreads, then member writes to its variable. */
  objEntries(v: Extract<Value, { t: 'obj' }>): { key: string | null; node: ts.Node; valueNode?: ts.Expression; spread?: Value; value: () => Value }[] {
    const out: { key: string | null; node: ts.Node; valueNode?: ts.Expression; spread?: Value; value: () => Value }[] = [];
    for (const p of v.node.properties) {
      if (ts.isPropertyAssignment(p)) {
        const key = ts.isComputedPropertyName(p.name) ? this.staticKey(p.name.expression, v.env, 0) : propertyNameText(p.name);
        out.push({ key, node: p, valueNode: p.initializer, value: () => this.ev(p.initializer, v.env) });
      } else if (ts.isShorthandPropertyAssignment(p)) {
        out.push({ key: p.name.text, node: p, valueNode: p.name, value: () => this.ev(p.name, v.env) });
      } else if (ts.isMethodDeclaration(p)) {
        out.push({ key: propertyNameText(p.name), node: p, value: () => ({ t: 'fn', node: p, env: v.env, name: propertyNameText(p.name) ?? 'method' }) });
      } else if (ts.isSpreadAssignment(p)) {
        const s = this.ev(p.expression, v.env);
        out.push({ key: null, node: p, valueNode: p.expression, spread: s, value: () => s });
      }
    }
    if (v.decl) {
      for (const w of this.scope.memberWrites(v.decl)) {
        out.push({ key: w.key, node: w.at, valueNode: w.value, value: () => this.ev(w.value, v.env) });
      }
    }
    return out;
  }

  isFsRead(callee: ts.Expression): boolean {
    const c = unwrap(callee);
    let name: string | undefined;
    let base: ts.Expression | undefined;
    if (ts.isIdentifier(c)) name = c.text;
    else if (ts.isPropertyAccessExpression(c)) {
      name = c.name.text;
      base = c.expression;
    }
    if (!name || !FS_READERS.has(name)) return false;
    if (!base) {
      const d = this.scope.resolve(c as ts.Identifier);
      return !!d && d.kind === 'import' && FS_MODULES.has(d.importFrom ?? '');
    }
    // fs.readFileSync / fs.promises.readFile / fsp.readFile
    let root = unwrap(base);
    if (ts.isPropertyAccessExpression(root) && root.name.text === 'promises') root = unwrap(root.expression);
    if (!ts.isIdentifier(root)) return false;
    const d = this.scope.resolve(root);
    if (d && d.kind === 'import') return FS_MODULES.has(d.importFrom ?? '');
    if (d && (d.kind === 'const' || d.kind === 'let' || d.kind === 'var')) {
      const init = (d.node as ts.VariableDeclaration).initializer;
      if (init && ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === 'require') {
        const a = init.arguments[0];
        return !!a && ts.isStringLiteral(a) && FS_MODULES.has(a.text);
      }
    }
    return false;
  }

  private evCall(c: ts.CallExpression, env: Env, depth: number): Value {
    const callee = unwrap(c.expression);
    const arg0 = c.arguments[0];
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && !this.scope.resolve(callee.expression)) {
      const obj = callee.expression.text;
      const m = callee.name.text;
      if (obj === 'JSON' && m === 'stringify') {
        const a = this.ev(arg0, env, depth + 1);
        if (a.t === 'proj' && a.root !== 'runtime') return { t: 'json', of: a };
        if (a.t === 'derived') return this.derived('json-of-derived', `\`${short(this.text(c), 50)}\`, JSON of ${a.desc}`, a.node);
        if (a.t === 'obj' || a.t === 'arr') return this.derived('json-of-derived', `\`${short(this.text(c), 50)}\`, JSON of an object the check builds`, arg0 ?? c);
        return { t: 'unknown', desc: short(this.text(c)) };
      }
      if (obj === 'Object' && m === 'values') {
        const a = this.ev(arg0, env, depth + 1);
        return a.t === 'proj' ? a : { t: 'unknown', desc: short(this.text(c)) };
      }
      if (obj === 'Object' && m === 'entries') {
        const a = this.ev(arg0, env, depth + 1);
        return a.t === 'proj' ? { t: 'entries', of: a } : { t: 'unknown', desc: short(this.text(c)) };
      }
      if (obj === 'Buffer' || obj === 'Math' || obj === 'Date' || obj === 'Number') {
        return this.derived('call', `the result of \`${short(this.text(c), 50)}\``, c);
      }
    }
    if (ts.isIdentifier(callee) && callee.text === 'String' && !this.scope.resolve(callee)) return this.ev(arg0, env, depth + 1);
    if (this.isFsRead(callee)) return this.derived('fs-read', `bytes read from disk by \`${short(this.text(c), 50)}\``, c);
    const cv = this.ev(callee, env, depth + 1);
    if (cv.t === 'fn') return this.evHelperCall(cv, c, env, depth);
    if (cv.t === 'derived' && cv.how === 'import') return this.derived('import', `the result of \`${short(this.text(c), 40)}\` (${cv.desc})`, c);
    if (ts.isPropertyAccessExpression(callee)) {
      const recv = this.ev(callee.expression, env, depth + 1);
      const m = callee.name.text;
      if ((recv.t === 'proj' || recv.t === 'json') && (m === 'toString' || m === 'valueOf')) return recv;
      if (recv.t === 'proj' || recv.t === 'json') return this.derived('transformed', `\`${short(this.text(c), 50)}\`, which rewrites a leaf`, c);
      if (recv.t === 'derived') return { ...recv, desc: `\`${short(this.text(c), 50)}\` on ${recv.desc}` };
    }
    return this.derived('call', `the result of \`${short(this.text(c), 50)}\``, c);
  }

  bindParams(fn: FnLike, args: readonly ts.Expression[], callerEnv: Env, closure: Env, depth: number): Map<ts.Node, Value> {
    const env = new Map<ts.Node, Value>(closure);
    for (const [k, v] of callerEnv) if (!env.has(k)) env.set(k, v);
    fn.parameters.forEach((p, i) => {
      if (p.dotDotDotToken) {
        env.set(p, { t: 'unknown', desc: 'rest parameter' });
        return;
      }
      const a = args[i];
      if (a && !ts.isSpreadElement(a)) env.set(p, this.ev(a, callerEnv, depth + 1));
      else if (p.initializer) env.set(p, this.ev(p.initializer, env, depth + 1));
      else env.set(p, this.derived('literal', 'the literal `undefined` (missing argument)', a ?? p));
    });
    return env;
  }

  /** Expressions a function returns (not counting nested functions). */
  returnExprs(fn: FnLike): ts.Expression[] {
    const body = fn.body;
    if (!body) return [];
    if (!ts.isBlock(body)) return [body];
    const out: ts.Expression[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n)) return;
      if (ts.isReturnStatement(n) && n.expression) out.push(n.expression);
      ts.forEachChild(n, visit);
    };
    ts.forEachChild(body, visit);
    return out;
  }

  private evHelperCall(fv: Extract<Value, { t: 'fn' }>, c: ts.CallExpression, env: Env, depth: number): Value {
    if (this.busy.has(fv.node) || depth > MAX_DEPTH - 4) return { t: 'unknown', desc: `the result of \`${fv.name}\` (recursive)` };
    this.busy.add(fv.node);
    try {
      const inner = this.bindParams(fv.node, c.arguments, env, fv.env, depth);
      let out: Value | undefined;
      for (const r of this.returnExprs(fv.node)) {
        const v = this.ev(r, inner, depth + 2);
        out = out ? join(out, v) : v;
      }
      if (!out) return this.derived('helper', `the result of helper \`${fv.name}\`, which returns nothing`, c);
      if (out.t === 'derived') return { ...out, how: 'helper', desc: `a string built by helper \`${fv.name}(…)\` from ${out.desc}` };
      return out;
    } finally {
      this.busy.delete(fv.node);
    }
  }

  /** Classifies a tool input value. `asMap`: the value is a whole `files` map. */
  classify(v: Value, declaredFiles: readonly string[], declaredFields: readonly string[], hasFields: boolean, asMap = false): Origin {
    const at = (n: ts.Node): { start: number; end: number } => ({ start: n.getStart(this.sf), end: n.end });
    switch (v.t) {
      case 'proj':
        return classifyProj(v, declaredFiles, declaredFields, hasFields, asMap);
      case 'json': {
        const o = classifyProj(v.of, declaredFiles, declaredFields, hasFields, true);
        if (o.kind === 'derived') return { ...o, description: `JSON of ${o.description}`, how: 'json-of-derived' };
        return { kind: 'json-of-leaf', description: `JSON.stringify(${describeProj(v.of)})` };
      }
      case 'derived':
        return { kind: 'derived', how: v.how, description: v.desc, at: at(v.node) };
      case 'entry':
      case 'entries':
        return { kind: 'unknown', description: 'an entry of a projection' };
      case 'fn':
        return { kind: 'derived', how: 'call', description: `a function (\`${v.name}\`)`, at: at(v.node) };
      case 'obj':
      case 'arr':
        return { kind: 'derived', how: 'literal', description: `an ${v.t === 'obj' ? 'object' : 'array'} literal, not a string`, at: at(v.node) };
      default:
        return { kind: 'unknown', description: v.desc };
    }
  }
}

function classifyProj(v: ProjValue, files: readonly string[], fields: readonly string[], hasFields: boolean, asMap: boolean): Origin {
  const desc = describeProj(v);
  if (v.root === 'artifact') {
    if (v.segs[0] !== 'files') return v.segs.length === 0 && asMap ? { kind: 'artifact-leaf', description: desc } : { kind: 'derived', how: 'undeclared-leaf', description: `\`${desc}\`, which is not part of the artifact projection (only \`artifact.files\`)` };
    if (v.segs.length === 1) return asMap ? { kind: 'artifact-leaf', description: 'artifact.files (every declared file)' } : { kind: 'derived', how: 'non-string-projection', description: '`artifact.files`, the whole map, not a string leaf' };
    const name = v.segs[1];
    if (name !== null && name !== undefined && !files.includes(name)) return { kind: 'derived', how: 'undeclared-leaf', description: `\`${desc}\`, a file the model does not declare in \`artifact.files\`` };
    return { kind: 'artifact-leaf', description: desc };
  }
  if (v.root === 'publicInput') {
    if (v.segs.length === 0) return asMap ? { kind: 'public-input-leaf', description: desc } : { kind: 'derived', how: 'non-string-projection', description: '`publicInput`, the whole object, not a string leaf' };
    const f = v.segs[0];
    if (f !== null && f !== undefined && (!hasFields || !fields.includes(f))) return { kind: 'derived', how: 'undeclared-leaf', description: `\`${desc}\`, a field the model does not declare in \`publicInput.fields\`` };
    return { kind: 'public-input-leaf', description: desc };
  }
  if (v.root === 'input') {
    if (v.segs.length === 0 && asMap) return { kind: 'public-input-leaf', description: 'the whole evaluate input' };
    return { kind: 'derived', how: 'undeclared-leaf', description: `\`${desc}\`, which is not a declared projection (only \`artifact\` and \`publicInput\` are)` };
  }
  return { kind: 'unknown', description: desc };
}

/** Joins two branch values: an authored branch wins (it is a path that hands authored bytes), then unknown. */
function join(a: Value, b: Value): Value {
  if (a.t === 'derived') return a;
  if (b.t === 'derived') return b;
  if (a.t === 'unknown') return a;
  if (b.t === 'unknown') return b;
  return a;
}
